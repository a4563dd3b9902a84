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

# The generator rejects a bad schema source, naming the file and line.
if(SLINKY_PYTHON3)
  add_test(NAME model/generator_rejects_bad_schema COMMAND sh -c
    "out=$(\"$0\" \"$1\" \"$2\" \"$3\" 2>&1) && exit 1; echo \"$out\" | grep -q 'broken.schema:5: unknown type strin'"
    ${SLINKY_PYTHON3} ${CMAKE_SOURCE_DIR}/libslinky/model/schema/gen_model.py
    ${CMAKE_SOURCE_DIR}/tests/data/model/broken.schema ${CMAKE_BINARY_DIR}/model-gen-broken)
  set_tests_properties(model/generator_rejects_bad_schema PROPERTIES LABELS "unit;static")
endif()
