# conf: the slinkyctl conf CLI as a user runs it (needs the slinkyctl tool).
if(TARGET slinkyctl)
  add_test(NAME conf/cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(conf/cli PROPERTIES LABELS unit TIMEOUT 120 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
if(TARGET slinkyctl AND TARGET slinky-apiserver AND "model" IN_LIST SLINKY_ENABLED_MODULES)
  add_test(NAME conf/controller COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/controller_conf.sh $<TARGET_FILE:slinkyctl>)
  set_tests_properties(conf/controller PROPERTIES LABELS integration TIMEOUT 120 ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
