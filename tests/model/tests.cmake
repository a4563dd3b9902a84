# The committed public accessor header must be exactly what the schema
# generates (see libslinky/model/module.cmake).
add_test(NAME model/generated_header COMMAND ${CMAKE_COMMAND} -E compare_files
  ${CMAKE_SOURCE_DIR}/include/slinky/model_fields.h
  ${CMAKE_BINARY_DIR}/include/slinky/model_fields.h)
set_tests_properties(model/generated_header PROPERTIES LABELS "unit;static")
