/* Compiled as strict C99 and as C++ by tests/headers/tests.cmake. */
#include <slinky.h>
#include <slinky/cleanup.h>

int main(void)
{
    const slinky_error *e = slinky_error_last();
    return SLINKY_VERSION_CHECK(0, 1, 0) && e != 0 ? 0 : 1;
}
