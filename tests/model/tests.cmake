# The committed public accessor header must be exactly what the schema
# generates (see libslinky/model/module.cmake).
add_test(NAME model/generated_header COMMAND ${CMAKE_COMMAND} -E compare_files
  ${CMAKE_SOURCE_DIR}/include/slinky/model_fields.h
  ${CMAKE_BINARY_DIR}/include/slinky/model_fields.h)
set_tests_properties(model/generated_header PROPERTIES LABELS "unit;static")

# slinkyctl crd / model (when the tool is built).
if(TARGET slinkyctl)
  add_test(NAME model/slinkyctl_crd COMMAND slinkyctl crd nss)
  set_tests_properties(model/slinkyctl_crd PROPERTIES LABELS unit ENVIRONMENT "${SLINKY_TEST_ENV}"
    PASS_REGULAR_EXPRESSION "name: nodesets\\.slinky\\.slurm\\.net")
  add_test(NAME model/slinkyctl_validate COMMAND slinkyctl model validate
    ${SLINKY_SHARED_DIR}/upstream/slinky/examples/controller.yaml)
  set_tests_properties(model/slinkyctl_validate PROPERTIES LABELS unit ENVIRONMENT "${SLINKY_TEST_ENV}"
    PASS_REGULAR_EXPRESSION "Controller test-release-slurm: valid")
  add_test(NAME model/slinkyctl_validate_bad COMMAND slinkyctl model validate
    ${CMAKE_SOURCE_DIR}/tests/data/model/bad-nodeset.yaml)
  set_tests_properties(model/slinkyctl_validate_bad PROPERTIES LABELS unit ENVIRONMENT "${SLINKY_TEST_ENV}"
    WILL_FAIL TRUE)
  add_test(NAME model/slinkyctl_validate_bad_paths COMMAND sh -c
    "\"$0\" model validate \"$1\" | grep -c -e '^error: spec.replicas:' -e '^error: spec.scalingMode:' -e '^error: spec.extraConf:' -e '^error: spec.controllerRef.name:' -e '^error: spec.updateStrategy:' | grep -qx 5"
    $<TARGET_FILE:slinkyctl> ${CMAKE_SOURCE_DIR}/tests/data/model/bad-nodeset.yaml)
  set_tests_properties(model/slinkyctl_validate_bad_paths PROPERTIES LABELS unit
    ENVIRONMENT "${SLINKY_TEST_ENV}")
endif()
