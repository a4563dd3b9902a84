# conf: the slinkyctl conf CLI as a user runs it (needs the slinkyctl tool).
if(TARGET slinkyctl)
  add_test(NAME conf/cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(conf/cli PROPERTIES LABELS unit TIMEOUT 120 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
