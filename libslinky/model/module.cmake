# model module: generate the C tables, the typed accessors and the CRD
# manifests from the one schema source (libslinky/model/schema/slinky.schema).
# Generation runs at configure time and again at build time whenever the
# schema or the generator changes. The public header it writes
# (build/include/slinky/model_fields.h) is also committed as
# include/slinky/model_fields.h so that slinky.h compiles in builds without
# the model module; the CTest model/generated_header fails when the two differ
# (fix: cp build/include/slinky/model_fields.h include/slinky/).
set(SLINKY_MODEL_SCHEMA ${CMAKE_SOURCE_DIR}/libslinky/model/schema/slinky.schema)
set(SLINKY_MODEL_GEN ${CMAKE_SOURCE_DIR}/libslinky/model/schema/gen_model.py)
find_program(SLINKY_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT SLINKY_PYTHON3)
  find_program(SLINKY_PYTHON3 NAMES python3 REQUIRED)
endif()
set(SLINKY_MODEL_GENERATED
  ${CMAKE_BINARY_DIR}/libslinky/model/model_schema.c
  ${CMAKE_BINARY_DIR}/libslinky/model/model_fields.c
  ${CMAKE_BINARY_DIR}/include/slinky/model_fields.h)
execute_process(COMMAND ${SLINKY_PYTHON3} ${SLINKY_MODEL_GEN} ${SLINKY_MODEL_SCHEMA} ${CMAKE_BINARY_DIR}
  RESULT_VARIABLE _slinky_model_gen_rc)
if(NOT _slinky_model_gen_rc EQUAL 0)
  message(FATAL_ERROR "model: generating from ${SLINKY_MODEL_SCHEMA} failed")
endif()
add_custom_command(OUTPUT ${SLINKY_MODEL_GENERATED}
  COMMAND ${SLINKY_PYTHON3} ${SLINKY_MODEL_GEN} ${SLINKY_MODEL_SCHEMA} ${CMAKE_BINARY_DIR}
  DEPENDS ${SLINKY_MODEL_SCHEMA} ${SLINKY_MODEL_GEN}
  COMMENT "Generating model tables, accessors and CRDs from slinky.schema")
list(APPEND SLINKY_SOURCES
  ${CMAKE_BINARY_DIR}/libslinky/model/model_schema.c
  ${CMAKE_BINARY_DIR}/libslinky/model/model_fields.c)
install(DIRECTORY ${CMAKE_BINARY_DIR}/share/libslinky/crds
  DESTINATION ${CMAKE_INSTALL_DATADIR}/libslinky)
