# slinky.h must compile as strict C99 (-pedantic -Werror) and as C++.
add_test(NAME headers/c99 COMMAND ${CMAKE_C_COMPILER} -std=c99 -pedantic -Wall -Wextra -Werror
  -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include
  -fsyntax-only ${CMAKE_SOURCE_DIR}/tests/headers/check.c)
add_test(NAME headers/cxx COMMAND ${CMAKE_CXX_COMPILER} -std=c++11 -pedantic -Wall -Wextra -Werror
  -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include
  -fsyntax-only -x c++ ${CMAKE_SOURCE_DIR}/tests/headers/check.c)
set_tests_properties(headers/c99 headers/cxx PROPERTIES LABELS "unit;static")
