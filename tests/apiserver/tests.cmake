# slinky-apiserver tests. Unit tests (test_*.c, registered by the glob) also
# need the tool's internal library; the integration tests drive the built
# server with the real kubectl and Debian's python3-kubernetes.
foreach(_u selector schema table patch apply wal)
  if(TARGET test_apiserver_${_u})
    target_link_libraries(test_apiserver_${_u} PRIVATE slinky_apiserver_core)
  endif()
endforeach()

add_test(NAME apiserver/kubectl COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kubectl-test.sh)
add_test(NAME apiserver/kubectl-ssa COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kubectl-ssa-test.sh)
add_test(NAME apiserver/python
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/py)
set_tests_properties(apiserver/kubectl apiserver/kubectl-ssa apiserver/python PROPERTIES
  LABELS integration TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
