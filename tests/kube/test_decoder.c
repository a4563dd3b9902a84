/* kube: the incremental watch decoder (split at every byte) and the streamed list reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/stream.h"
#include "slinky.h"

typedef struct seen {
    int n;
    char log[4096];
} seen;

static slinky_status record(slinky_kube_event_type t, slinky_doc *obj, void *p)
{
    seen *s = p;
    char *json = NULL;
    assert_int_equal(slinky_doc_value_dump_json(&json, NULL, slinky_doc_root(obj), SLINKY_DOC_DUMP_SORT_KEYS), 0);
    size_t l = strlen(s->log);
    snprintf(s->log + l, sizeof(s->log) - l, "%s %s\n", slinky_kube_event_type_name(t), json);
    slinky_free(json);
    slinky_doc_free(obj);
    s->n++;
    return 0;
}

static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"5\"},"
    "\"data\":{\"k\":\"v\\n\\u00e9\"},\"n\":[1,-2,3.5,true,null,{}],\"big\":12345678901234}}\n"
    "\r\n"
    "{\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"6\"}},\"type\":\"MODIFIED\",\"extra\":[1,{\"x\":2}]}\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"resourceVersion\":\"7\"}}}\n"
    "{\"type\":\"DELETED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"8\"}}}\n"
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\"}}";

static void decode_split(seen *s, size_t cut1, size_t cut2)
{
    slinky_kube_watch_decoder *d = NULL;
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
    size_t len = sizeof(stream) - 1;
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream, cut1, record, s), 0);
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream + cut1, cut2 - cut1, record, s), 0);
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream + cut2, len - cut2, record, s), 0);
    assert_int_equal(slinky_kube_watch_decoder_finish(d, record, s), 0);
    slinky_kube_watch_decoder_free(d);
}

static void test_every_split(void **state)
{
    (void)state;
    seen whole = {0};
    decode_split(&whole, 0, 0);
    assert_int_equal(whole.n, 5);
    assert_non_null(strstr(whole.log, "ADDED {\"big\":12345678901234,\"data\":{\"k\":\"v\\n\\u00e9\"}") ||
                    strstr(whole.log, "ADDED {\"big\":12345678901234,\"data\":{\"k\":\"v\\né\"}"));
    assert_non_null(strstr(whole.log, "\nMODIFIED "));
    assert_non_null(strstr(whole.log, "\nBOOKMARK "));
    assert_non_null(strstr(whole.log, "\nDELETED "));
    assert_non_null(strstr(whole.log, "\nERROR {\"code\":410"));
    size_t len = sizeof(stream) - 1;
    for (size_t i = 0; i <= len; i++) {
        seen s = {0};
        decode_split(&s, i, i);
        assert_int_equal(s.n, 5);
        assert_string_equal(s.log, whole.log);
    }
    /* byte-by-byte: memory never holds more than one line */
    slinky_kube_watch_decoder *d = NULL;
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 300), 0);
    seen s = {0};
    for (size_t i = 0; i < len; i++)
        assert_int_equal(slinky_kube_watch_decoder_feed(d, stream + i, 1, record, &s), 0);
    assert_int_equal(slinky_kube_watch_decoder_finish(d, record, &s), 0);
    assert_string_equal(s.log, whole.log);
    slinky_kube_watch_decoder_free(d);
}

static void test_errors(void **state)
{
    (void)state;
    static const char *bad[] = {
        "{\"type\":\"ADDED\",\"object\":{\"a\":}}\n",
        "{\"type\":\"ADDED\"}\n",
        "{\"type\":\"WHAT\",\"object\":{}}\n",
        "{\"type\":1,\"object\":{}}\n",
        "{\"object\":{}}\n",
        "[1,2]\n",
        "{\"type\":\"ADDED\",\"object\":[]}\n",
        "{\"type\":\"ADDED\",\"object\":{}} trailing\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\xff\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\\ud800\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\\udc00x\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"n\":01}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"n\":1.}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"n\":-}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"a\x01b\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\xc0\xaf\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\xed\xa0\x80\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\\x\"}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"a\":1,}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"a\" 1}}\n",
        "{\"type\":\"ADDED\",\"object\":{\"a\":tru}}\n",
        "{\"type\":\"ADDED\" \"object\":{}}\n",
        "{\"type\":\"ADDED\",\"object\":{}\n",
        "{\"type\":\"ADDED\",\"object\":{\"k\\u0000\":1}}\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        slinky_kube_watch_decoder *d = NULL;
        assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
        seen s = {0};
        int err = slinky_kube_watch_decoder_feed(d, bad[i], strlen(bad[i]), record, &s);
        if (err != SLINKY_EPARSE)
            fail_msg("case %zu: got %d", i, err);
        assert_int_equal(s.n, 0);
        /* unusable after a failure */
        assert_int_equal(slinky_kube_watch_decoder_feed(d, "\n", 1, record, &s), SLINKY_EINVALID);
        slinky_kube_watch_decoder_free(d);
    }
    /* too long */
    slinky_kube_watch_decoder *d = NULL;
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 16), 0);
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream, 40, record, NULL), SLINKY_EPARSE);
    assert_non_null(strstr(slinky_error_last()->message, "longer than 16"));
    slinky_kube_watch_decoder_free(d);
    /* torn last event */
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream, 30, record, NULL), 0);
    assert_int_equal(slinky_kube_watch_decoder_finish(d, record, NULL), SLINKY_EPARSE);
    slinky_kube_watch_decoder_free(d);
}

static void test_json_values(void **state)
{
    (void)state;
    /* surrogate pairs, escapes, numbers, deep but legal nesting */
    static const char line[] =
        "{\"type\":\"ADDED\",\"object\":{\"s\":\"\\ud83d\\ude00 \\\"q\\\" \\/ \\b\\f\\n\\r\\t \xc3\xa9\","
        "\"i\":-9223372036854775808,\"d\":-1.5e-3,\"big\":18446744073709551616,\"z\":0,\"e\":{},\"a\":[[],[{}]]}}\n";
    slinky_kube_watch_decoder *d = NULL;
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
    seen s = {0};
    assert_int_equal(slinky_kube_watch_decoder_feed(d, line, sizeof(line) - 1, record, &s), 0);
    assert_int_equal(s.n, 1);
    assert_non_null(strstr(s.log, "\"i\":-9223372036854775808"));
    assert_non_null(strstr(s.log, "\"z\":0"));
    assert_non_null(strstr(s.log, "\"a\":[[],[{}]]"));
    /* numbers beyond int64 keep their text */
    assert_non_null(strstr(s.log, "\"big\":18446744073709551616"));
    assert_non_null(strstr(s.log, "\\\"q\\\""));
    slinky_kube_watch_decoder_free(d);
    /* nesting: 1000 levels are fine, 1001 are not */
    for (int depth = 999; depth <= 1001; depth += 2) {
        slinky__buf b = SLINKY__BUF_INIT;
        slinky__buf_puts(&b, "{\"type\":\"ADDED\",\"object\":");
        for (int i = 0; i < depth; i++)
            slinky__buf_puts(&b, "{\"a\":");
        slinky__buf_puts(&b, "1");
        for (int i = 0; i < depth; i++)
            slinky__buf_putc(&b, '}');
        slinky__buf_puts(&b, "}\n");
        assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
        seen t = {0};
        int err = slinky_kube_watch_decoder_feed(d, b.data, b.len, record, &t);
        assert_int_equal(err, depth <= 1000 ? 0 : SLINKY_EPARSE);
        slinky_kube_watch_decoder_free(d);
        slinky__buf_dispose(&b);
    }
}

static slinky_status stop_cb(slinky_kube_event_type t, slinky_doc *obj, void *p)
{
    (void)t;
    (void)p;
    slinky_doc_free(obj);
    return SLINKY_ECANCELED;
}

static void test_callback_stops(void **state)
{
    (void)state;
    slinky_kube_watch_decoder *d = NULL;
    assert_int_equal(slinky_kube_watch_decoder_new(&d, 0), 0);
    assert_int_equal(slinky_kube_watch_decoder_feed(d, stream, sizeof(stream) - 1, stop_cb, NULL),
                     SLINKY_ECANCELED);
    slinky_kube_watch_decoder_free(d);
}

/* ---- streamed list ---- */

typedef struct items {
    int n;
    char names[1024];
} items;

static slinky_status item_cb(slinky_doc *item, void *p)
{
    items *it = p;
    strcat(it->names, slinky_doc_value_path_string(slinky_doc_root(item), "metadata.name", "?"));
    strcat(it->names, ",");
    it->n++;
    slinky_doc_free(item);
    return 0;
}

static void test_list_stream(void **state)
{
    (void)state;
    static const char list[] =
        "{\"kind\":\"NodeSetList\",\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"metadata\":{\"resourceVersion\":\"42\","
        "\"continue\":\"abc\"},\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":[1,[2,{}]]}},"
        "{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"c\"}}],\"trailer\":{\"items\":[9]}}";
    size_t len = sizeof(list) - 1;
    for (size_t cut = 0; cut <= len; cut++) {
        slinky_kube__stream s;
        memset(&s, 0, sizeof(s));
        items it = {0};
        assert_int_equal(slinky_kube__stream_begin(&s, SLINKY_KUBE__STREAM_LIST, item_cb, &it), 0);
        assert_int_equal(slinky_kube__stream_feed(&s, list, cut), 0);
        assert_int_equal(slinky_kube__stream_feed(&s, list + cut, len - cut), 0);
        assert_int_equal(slinky_kube__stream_end(&s), 0);
        assert_int_equal(it.n, 3);
        assert_string_equal(it.names, "a,b,c,");
        assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(s.meta), "resourceVersion", ""), "42");
        assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(s.meta), "continue", ""), "abc");
        slinky_kube__stream_dispose(&s);
    }
    /* truncated */
    slinky_kube__stream s;
    memset(&s, 0, sizeof(s));
    items it = {0};
    assert_int_equal(slinky_kube__stream_begin(&s, SLINKY_KUBE__STREAM_LIST, item_cb, &it), 0);
    assert_int_equal(slinky_kube__stream_feed(&s, list, 80), 0);
    assert_int_equal(slinky_kube__stream_end(&s), SLINKY_EPARSE);
    slinky_kube__stream_dispose(&s);
    /* items not an array */
    memset(&s, 0, sizeof(s));
    assert_int_equal(slinky_kube__stream_begin(&s, SLINKY_KUBE__STREAM_LIST, item_cb, &it), 0);
    assert_int_equal(slinky_kube__stream_feed(&s, "{\"items\":{}}", 12), SLINKY_EPARSE);
    slinky_kube__stream_dispose(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_list_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
