# slinky-apiserver tests. Unit tests (test_*.c, registered by the glob) link
# the server's own library and the shared libslinky (as the server does:
# public API only); the integration tests drive the built server with the
# real kubectl and Debian's python3-kubernetes.
foreach(_u selector schema table patch apply wal)
  if(TARGET test_apiserver_${_u})
    set_property(TARGET test_apiserver_${_u} PROPERTY LINK_LIBRARIES
      slinky_apiserver_core PkgConfig::CMOCKA)
  endif()
endforeach()

add_test(NAME apiserver/kubectl COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kubectl-test.sh)
add_test(NAME apiserver/kubectl-ssa COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kubectl-ssa-test.sh)
add_test(NAME apiserver/kubectl-workloads
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kubectl-workloads-test.sh)
add_test(NAME apiserver/python
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/py)
# the server is built on libslinky's public API only (issue 20)
if(TARGET slinky-apiserver)
add_test(NAME apiserver/public-api
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/public-api-test.sh $<TARGET_FILE:slinky-apiserver>
    $<TARGET_FILE:slinky_apiserver_core>)
set_tests_properties(apiserver/kubectl apiserver/kubectl-ssa apiserver/kubectl-workloads
  apiserver/python PROPERTIES
  LABELS integration TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
set_tests_properties(apiserver/public-api PROPERTIES
  LABELS unit TIMEOUT 60 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
