# The operator (main job) end to end: slinky-apiserver + kubectl + real Slurm.
if(TARGET slinky-operator AND TARGET slinky-apiserver AND TARGET slinkyctl)
  add_test(NAME operator/e2e COMMAND ${CMAKE_CURRENT_LIST_DIR}/operator-e2e.sh)
  set_tests_properties(operator/e2e PROPERTIES LABELS "integration;nosan" TIMEOUT 600
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
