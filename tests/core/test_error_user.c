/* slinky_error_set: programs and callbacks record errors like the library does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include <slinky.h>

static void test_set_and_read_back(void **state)
{
    (void)state;
    assert_int_equal(slinky_error_set(SLINKY_ENOTFOUND, "no %s at %d", "thing", 7),
                     SLINKY_ENOTFOUND);
    assert_int_equal(slinky_error_last()->code, SLINKY_ENOTFOUND);
    assert_string_equal(slinky_error_last()->message, "no thing at 7");
    slinky_error_clear();
    assert_int_equal(slinky_error_last()->code, 0);
}

static void test_non_negative_code_is_generic(void **state)
{
    (void)state;
    assert_int_equal(slinky_error_set(0, "zero"), SLINKY_ERROR);
    assert_int_equal(slinky_error_set(42, "positive"), SLINKY_ERROR);
    assert_int_equal(slinky_error_last()->code, SLINKY_ERROR);
    assert_string_equal(slinky_error_last()->message, "positive");
}

static void test_long_message_is_cut(void **state)
{
    (void)state;
    char big[6000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    slinky_error_set(SLINKY_EINVALID, "%s", big);
    size_t n = strlen(slinky_error_last()->message);
    assert_true(n > 1000 && n < 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_read_back),
        cmocka_unit_test(test_non_negative_code_is_generic),
        cmocka_unit_test(test_long_message_is_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
