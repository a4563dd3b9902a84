/* core: base64 encode/decode (RFC 4648 test vectors, alphabets, strictness, errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slinky.h"

static void check_vector(const char *plain, const char *enc)
{
    char *e = NULL, *d = NULL;
    size_t n = 99;
    assert_int_equal(slinky_base64_encode(&e, plain, strlen(plain), 0), 0);
    assert_string_equal(e, enc);
    assert_int_equal(slinky_base64_decode(&d, &n, enc, SLINKY_BASE64_STRICT), 0);
    assert_int_equal(n, strlen(plain));
    assert_memory_equal(d, plain, n);
    assert_int_equal(d[n], '\0');
    slinky_free(e);
    slinky_free(d);
}

static void test_rfc4648_vectors(void **state)
{
    (void)state;
    check_vector("", "");
    check_vector("f", "Zg==");
    check_vector("fo", "Zm8=");
    check_vector("foo", "Zm9v");
    check_vector("foob", "Zm9vYg==");
    check_vector("fooba", "Zm9vYmE=");
    check_vector("foobar", "Zm9vYmFy");
}

static void test_binary_and_url_alphabet(void **state)
{
    (void)state;
    const unsigned char bin[] = {0xfb, 0xff, 0x00, 0xfe, 0x3e};
    char *e = NULL, *d = NULL;
    size_t n = 0;
    assert_int_equal(slinky_base64_encode(&e, bin, sizeof(bin), 0), 0);
    assert_string_equal(e, "+/8A/j4=");
    slinky_free(e);
    assert_int_equal(slinky_base64_encode(&e, bin, sizeof(bin), SLINKY_BASE64_URL), 0);
    assert_string_equal(e, "-_8A_j4"); /* URL alphabet, no padding */
    assert_int_equal(slinky_base64_decode(&d, &n, e, 0), 0);
    assert_int_equal(n, sizeof(bin));
    assert_memory_equal(d, bin, n);
    slinky_free(d);
    /* the URL alphabet is not standard base64 */
    assert_int_equal(slinky_base64_decode(&d, &n, e, SLINKY_BASE64_STRICT), SLINKY_EINVALID);
    slinky_free(e);
}

static void test_lenient_and_strict(void **state)
{
    (void)state;
    char *d = NULL;
    size_t n = 0;
    /* kubeconfig and Secret data may be wrapped */
    assert_int_equal(slinky_base64_decode(&d, &n, "Zm9v\nYmFy\n", 0), 0);
    assert_string_equal(d, "foobar");
    slinky_free(d);
    assert_int_equal(slinky_base64_decode(&d, &n, "Zm8", 0), 0); /* padding optional */
    assert_string_equal(d, "fo");
    slinky_free(d);
    d = NULL;
    assert_int_equal(slinky_base64_decode(&d, &n, "Zm9v\nYmFy", SLINKY_BASE64_STRICT),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_base64_decode(&d, &n, "Zm8", SLINKY_BASE64_STRICT), SLINKY_EINVALID);
    assert_null(d); /* out-param untouched on failure */
}

static void test_errors(void **state)
{
    (void)state;
    char *d = NULL;
    size_t n = 0;
    assert_int_equal(slinky_base64_decode(&d, &n, "Zm9v!", 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "offset 4"));
    assert_int_equal(slinky_base64_decode(&d, &n, "Z", 0), SLINKY_EINVALID); /* truncated */
    assert_int_equal(slinky_base64_decode(&d, &n, "Zg=a", 0), SLINKY_EINVALID); /* data after = */
    assert_int_equal(slinky_base64_decode(&d, &n, "Zg===", 0), SLINKY_EINVALID);
    assert_int_equal(slinky_base64_decode(NULL, &n, "Zg==", 0), SLINKY_EINVALID);
    assert_int_equal(slinky_base64_encode(&d, NULL, 3, 0), SLINKY_EINVALID);
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4648_vectors),
        cmocka_unit_test(test_binary_and_url_alphabet),
        cmocka_unit_test(test_lenient_and_strict),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
