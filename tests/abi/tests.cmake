# Only slinky_* symbols may be exported, all under the LIBSLINKY_0.1 node,
# and the SONAME must be libslinky.so.0.
add_test(NAME abi/exports COMMAND ${CMAKE_SOURCE_DIR}/tests/abi/check-exports.sh
  $<TARGET_FILE:slinky> ${CMAKE_SOURCE_DIR}/libslinky/libslinky.map)
set_tests_properties(abi/exports PROPERTIES LABELS "unit;static")
