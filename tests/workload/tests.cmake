# workload: the renderers as a user runs them (needs the slinkyctl tool).
if(TARGET slinkyctl)
  add_test(NAME workload/render_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/render_cli.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(workload/render_cli PROPERTIES LABELS unit TIMEOUT 300 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
