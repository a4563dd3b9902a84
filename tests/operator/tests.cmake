# The operator (main job) end to end: slinky-apiserver + kubectl + real Slurm.
if(TARGET slinky-operator AND TARGET slinky-apiserver AND TARGET slinkyctl)
  add_test(NAME operator/e2e COMMAND ${CMAKE_CURRENT_LIST_DIR}/operator-e2e.sh)
  set_tests_properties(operator/e2e PROPERTIES LABELS "integration;nosan" TIMEOUT 600
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()

# op_install_and_apply with a real /bin/sh restart command (no daemons).
# (apply_unit.c, not test_*.c: it needs the operator source beside it)
if(TARGET slinky-operator)
  slinky_add_test(NAME operator/apply
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/apply_unit.c ${CMAKE_SOURCE_DIR}/tools/slinky-operator/slurm_apply.c
    LABELS unit)
  target_include_directories(test_operator_apply PRIVATE ${CMAKE_SOURCE_DIR}/tools/slinky-operator)
endif()
