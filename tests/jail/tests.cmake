# jail: shell integration tests (root; bwrap, crun, real Slurm). The unit tests
# (test_*.c) are registered by tests/CMakeLists.txt.
foreach(t runners slurm job_container)
  add_test(NAME jail/${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(jail/${t} PROPERTIES LABELS integration TIMEOUT 900
    SKIP_RETURN_CODE 77 ENVIRONMENT "${SLINKY_TEST_ENV}")
endforeach()
