/* JSON reader and writer: RFC 8259 acceptance and rejection, round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/doc.h"
#include "slinky/error.h"

static slinky_doc *parse_ok(const char *s, size_t len)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_json(&d, s, len);
    if (rc != 0)
        fail_msg("parse of [%.*s] failed: %s", (int)len, s, slinky_error_last()->message);
    return d;
}

static void parse_bad(const char *s, size_t len)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_json(&d, s, len);
    if (rc != SLINKY_EPARSE)
        fail_msg("parse of [%.*s] gave %d, expected SLINKY_EPARSE", (int)len, s, rc);
    assert_null(d);
    assert_true(slinky_error_last()->line >= 1);
    assert_true(slinky_error_last()->column >= 1);
}

#define OK(lit) parse_ok(lit, sizeof(lit) - 1)
#define BAD(lit) parse_bad(lit, sizeof(lit) - 1)

static char *dump(const slinky_doc_value *v, unsigned flags)
{
    char *s = NULL;
    assert_int_equal(slinky_doc_value_dump_json(&s, NULL, v, flags), 0);
    return s;
}

static void test_scalars(void **state)
{
    (void)state;
    slinky_doc *d = OK("  42 ");
    assert_int_equal(slinky_doc_value_type(slinky_doc_root(d)), SLINKY_DOC_INT);
    assert_int_equal(slinky_doc_value_get_int(slinky_doc_root(d)), 42);
    slinky_doc_free(d);

    d = OK("-9223372036854775808");
    assert_int_equal(slinky_doc_value_type(slinky_doc_root(d)), SLINKY_DOC_INT);
    assert_true(slinky_doc_value_get_int(slinky_doc_root(d)) == INT64_MIN);
    slinky_doc_free(d);

    d = OK("9223372036854775807");
    assert_true(slinky_doc_value_get_int(slinky_doc_root(d)) == INT64_MAX);
    slinky_doc_free(d);

    d = OK("18446744073709551616");
    slinky_doc_value *r = slinky_doc_root(d);
    assert_int_equal(slinky_doc_value_type(r), SLINKY_DOC_DOUBLE);
    assert_string_equal(slinky_doc_value_get_number_text(r), "18446744073709551616");
    char *s = dump(r, 0);
    assert_string_equal(s, "18446744073709551616");
    slinky_free(s);
    slinky_doc_free(d);

    d = OK("123456789012345678901234567890e-5");
    s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, "123456789012345678901234567890e-5");
    slinky_free(s);
    slinky_doc_free(d);

    d = OK("1.50");
    r = slinky_doc_root(d);
    assert_true(slinky_doc_value_get_double(r) == 1.5);
    s = dump(r, 0);
    assert_string_equal(s, "1.50");
    slinky_free(s);
    slinky_doc_free(d);

    d = OK("\"a\\u0000b\\ud83d\\ude00\"");
    r = slinky_doc_root(d);
    assert_int_equal(slinky_doc_value_get_string_len(r), 7);
    assert_memory_equal(slinky_doc_value_get_string(r), "a\0b\xF0\x9F\x98\x80", 7);
    s = dump(r, 0);
    assert_string_equal(s, "\"a\\u0000b\xF0\x9F\x98\x80\"");
    slinky_free(s);
    slinky_doc_free(d);

    d = OK("[true,false,null]");
    r = slinky_doc_root(d);
    assert_int_equal(slinky_doc_value_size(r), 3);
    assert_true(slinky_doc_value_get_bool(slinky_doc_value_at(r, 0)));
    assert_false(slinky_doc_value_get_bool(slinky_doc_value_at(r, 1)));
    assert_true(slinky_doc_value_is_null(slinky_doc_value_at(r, 2)));
    slinky_doc_free(d);
}

static void test_reject(void **state)
{
    (void)state;
    BAD("");
    BAD("   \n ");
    BAD("[1,]");
    BAD("{\"a\":1,}");
    BAD("[1 2]");
    BAD("01");
    BAD("[01]");
    BAD("-");
    BAD("1.");
    BAD(".5");
    BAD("1e");
    BAD("+1");
    BAD("NaN");
    BAD("Infinity");
    BAD("[1] // c");
    BAD("/* c */ 1");
    BAD("1 2");
    BAD("{} {}");
    /* an unterminated string after the value: yajl alone lets these through */
    BAD("3\"y0{en\\\"");
    BAD("{} \"x");
    BAD("[1] \"x");
    BAD("\"a\" \"b");
    BAD("true \"");
    BAD("\"\\ud800\"");
    BAD("\"\\udc00\"");
    BAD("\"\\ud800x\"");
    BAD("\"\\ud800\\u0041\"");
    BAD("\"\\x41\"");
    BAD("\"\\u12\"");
    BAD("\"\\'\"");
    BAD("\"a\tb\"");
    BAD("\"a\nb\"");
    BAD("\"\x01\"");
    BAD("\"\xff\"");
    BAD("\"\xc0\xaf\"");
    BAD("\"\xed\xa0\x80\"");
    BAD("{'a':1}");
    BAD("{a:1}");
    BAD("[");
    BAD("{\"a\"}");
    BAD("tru");
    BAD("nul");
    BAD("\"abc");
    BAD("[1,\f2]");
    BAD("\v1");
    BAD("{\"a\":1}\f");
    BAD("\"a\x7f\x1b\"");
    BAD("\"\xf4\x90\x80\x80\"");
    BAD("\"\xe0\x80\xaf\"");
    BAD("\"\xf8\x88\x80\x80\x80\"");
}

static void test_accept(void **state)
{
    (void)state;
    slinky_doc_free(OK("\xEF\xBB\xBF{\"bom\":1}"));
    slinky_doc_free(OK("\"\\\\ud800\""));
    slinky_doc_free(OK("\"\\/\\b\\f\\n\\r\\t\\\"\""));
    slinky_doc_free(OK(" \t\r\n[ ] "));
    slinky_doc_free(OK("1E+2"));
    slinky_doc_free(OK("-0.0e-0"));
    slinky_doc_free(OK("1e999"));
    slinky_doc_free(OK("\"\xe2\x82\xac\""));
    slinky_doc_free(OK("\"\x7f\xef\xbf\xbf\xf4\x8f\xbf\xbf\""));
    slinky_doc_free(OK("-0"));
}

static void test_depth(void **state)
{
    (void)state;
    char buf[2100];
    for (int i = 0; i < 1000; i++) {
        buf[i] = '[';
        buf[1000 + i] = ']';
    }
    slinky_doc *d = parse_ok(buf, 2000);
    slinky_doc_free(d);
    char deep[2100];
    for (int i = 0; i < 1001; i++) {
        deep[i] = '[';
        deep[1001 + i] = ']';
    }
    parse_bad(deep, 2002);
    assert_non_null(strstr(slinky_error_last()->message, "1000"));
    assert_int_equal(slinky_error_last()->column, 1001);
}

static void test_error_position(void **state)
{
    (void)state;
    BAD("{\n  \"a\": 1,\n  \"b\": tru\n}");
    assert_int_equal(slinky_error_last()->line, 3);
    assert_int_equal(slinky_error_last()->column, 8);
    assert_non_null(strstr(slinky_error_last()->message, "line 3, column 8"));
    BAD("[1,\n2,\n]");
    assert_int_equal(slinky_error_last()->line, 3);
    assert_int_equal(slinky_error_last()->column, 1);
    BAD("[1,\n \f2]");
    assert_int_equal(slinky_error_last()->line, 2);
    assert_int_equal(slinky_error_last()->column, 2);
    assert_non_null(strstr(slinky_error_last()->message, "control character"));
    BAD("[\"ok\",\n  \"\\ud800\"]");
    assert_int_equal(slinky_error_last()->line, 2);
    assert_int_equal(slinky_error_last()->column, 4);
}

static void test_roundtrip(void **state)
{
    (void)state;
    const char *in = "{\"b\":[1,2.5,\"x\\\"y\",{\"c\":null,\"a\":true}],\"a\":{},\"e\":[],"
                     "\"ctl\":\"\\u0001\\u001f\\u2028\"}";
    slinky_doc *d = parse_ok(in, strlen(in));
    char *s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, in);
    slinky_free(s);
    s = dump(slinky_doc_root(d), SLINKY_DOC_DUMP_SORT_KEYS);
    assert_string_equal(s, "{\"a\":{},\"b\":[1,2.5,\"x\\\"y\",{\"a\":true,\"c\":null}],"
                           "\"ctl\":\"\\u0001\\u001f\\u2028\",\"e\":[]}");
    slinky_free(s);
    s = dump(slinky_doc_root(d), SLINKY_DOC_DUMP_PRETTY);
    assert_string_equal(s, "{\n  \"b\": [\n    1,\n    2.5,\n    \"x\\\"y\",\n    {\n"
                           "      \"c\": null,\n      \"a\": true\n    }\n  ],\n  \"a\": {},\n"
                           "  \"e\": [],\n  \"ctl\": \"\\u0001\\u001f\\u2028\"\n}");
    slinky_doc *d2 = parse_ok(s, strlen(s));
    assert_true(slinky_doc_value_equal(slinky_doc_root(d), slinky_doc_root(d2)));
    slinky_free(s);
    slinky_doc_free(d2);
    slinky_doc_free(d);
}

static void test_duplicate_keys(void **state)
{
    (void)state;
    slinky_doc *d = OK("{\"a\":1,\"b\":2,\"a\":3}");
    char *s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, "{\"a\":3,\"b\":2}");
    slinky_free(s);
    slinky_doc_free(d);
    /* many keys: the hashed path */
    char buf[4096];
    size_t n = 0;
    n += (size_t)sprintf(buf + n, "{");
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(buf + n, "\"k%d\":%d,", i % 50, i);
    buf[n - 1] = '}';
    d = parse_ok(buf, n);
    assert_int_equal(slinky_doc_value_size(slinky_doc_root(d)), 50);
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(d), "k7", -1), 57);
    assert_string_equal(slinky_doc_value_key_at(slinky_doc_root(d), 0), "k0");
    slinky_doc_free(d);
}

static void test_invalid_utf8_output(void **state)
{
    (void)state;
    slinky_doc *d;
    assert_int_equal(slinky_doc_new(&d), 0);
    assert_int_equal(slinky_doc_value_set_string_len(slinky_doc_root(d), "a\xff" "b", 3), 0);
    char *s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, "\"a\\ufffdb\"");
    slinky_free(s);
    assert_int_equal(slinky_doc_value_set_double(slinky_doc_root(d), 0.1), 0);
    s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, "0.1");
    slinky_free(s);
    assert_int_equal(slinky_doc_value_set_double(slinky_doc_root(d), 3.0), 0);
    s = dump(slinky_doc_root(d), 0);
    assert_string_equal(s, "3.0");
    slinky_free(s);
    slinky_doc_free(d);
}

static void test_escape_positions(void **state)
{
    (void)state;
    static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', '\x7f'};
    static const char *const escaped[] = {"\\\"", "\\\\", "\\n", "\\u0001", "\\u001f", "\x7f"};
    slinky_doc *d;
    assert_int_equal(slinky_doc_new(&d), 0);
    for (size_t k = 0; k < sizeof(specials); k++) {
        for (size_t len = 1; len <= 40; len++) {
            for (size_t pos = 0; pos < len; pos++) {
                char in[48], want[128];
                memset(in, 'a', len);
                in[pos] = specials[k];
                assert_int_equal(slinky_doc_value_set_string_len(slinky_doc_root(d), in, len), 0);
                char *out = dump(slinky_doc_root(d), 0);
                snprintf(want, sizeof(want), "\"%.*s%s%.*s\"", (int)pos, in, escaped[k],
                         (int)(len - pos - 1), in + pos + 1);
                assert_string_equal(out, want);
                slinky_free(out);
            }
        }
    }
    /* non-ASCII passes through, U+2028 is escaped, bad bytes become U+FFFD */
    const char *in = "0123456789\xc3\xa9" "abcdefgh\xe2\x80\xa8" "ijklmnop\xc3" "qrstuvwx";
    assert_int_equal(slinky_doc_value_set_string(slinky_doc_root(d), in), 0);
    char *out = dump(slinky_doc_root(d), 0);
    assert_string_equal(out, "\"0123456789\xc3\xa9" "abcdefgh\\u2028ijklmnop\\ufffdqrstuvwx\"");
    slinky_free(out);
    slinky_doc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),         cmocka_unit_test(test_reject),
        cmocka_unit_test(test_accept),          cmocka_unit_test(test_depth),
        cmocka_unit_test(test_error_position),  cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_duplicate_keys),  cmocka_unit_test(test_invalid_utf8_output),
        cmocka_unit_test(test_escape_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
