/* Field sets of server-side apply (FieldsV1) in slinky-apiserver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "pure.h"

static slinky_doc *parse(const char *json)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, json, strlen(json)), 0);
    return d;
}

static const char *k_schema =
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
    "\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
    "\"x-kubernetes-list-map-keys\":[\"name\"],\"items\":{\"type\":\"object\"}},"
    "\"tags\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\"},"
    "\"args\":{\"type\":\"array\"},"
    "\"sel\":{\"type\":\"object\",\"x-kubernetes-map-type\":\"atomic\"}}},"
    "\"status\":{\"type\":\"object\"}}}";

static void test_fields_of_custom_object(void **state)
{
    (void)state;
    slinky_doc *s = parse(k_schema);
    slinky_doc *o = parse("{\"apiVersion\":\"g/v\",\"kind\":\"K\",\"metadata\":{\"name\":\"x\","
                          "\"labels\":{\"a\":\"1\"},\"uid\":\"u\"},\"spec\":{\"replicas\":2,"
                          "\"ports\":[{\"name\":\"http\",\"port\":80}],\"tags\":[\"t1\"],"
                          "\"args\":[\"-v\"],\"sel\":{\"k\":\"v\"},\"empty\":{}},"
                          "\"status\":{\"ready\":true}}");
    as_pset p = {0};
    assert_int_equal(as_fields_of(&p, slinky_doc_root(o), slinky_doc_root(s), false, false, true),
                     0);
    static const char *const want[] = {
        "f:metadata\x01" "f:labels\x01" "f:a",
        "f:spec\x01" "f:replicas",
        "f:spec\x01" "f:ports\x01" "k:{\"name\":\"http\"}\x01.",
        "f:spec\x01" "f:ports\x01" "k:{\"name\":\"http\"}\x01" "f:name",
        "f:spec\x01" "f:ports\x01" "k:{\"name\":\"http\"}\x01" "f:port",
        "f:spec\x01" "f:tags\x01" "v:\"t1\"",
        "f:spec\x01" "f:args",
        "f:spec\x01" "f:sel",
        "f:spec\x01" "f:empty",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!as_pset_has(&p, want[i]))
            fail_msg("missing %s", want[i]);
    }
    assert_int_equal(p.n, sizeof(want) / sizeof(want[0])); /* no status, no uid */
    /* FieldsV1 round trip */
    slinky_doc *v1 = parse("null");
    assert_int_equal(as_fields_to_v1(slinky_doc_root(v1), &p), 0);
    assert_non_null(slinky_doc_value_pointer(slinky_doc_root(v1),
                                             "/f:spec/f:ports/k:{\"name\":\"http\"}/."));
    as_pset back = {0};
    assert_int_equal(as_fields_from_v1(&back, slinky_doc_root(v1)), 0);
    assert_int_equal(back.n, p.n);
    for (size_t i = 0; i < p.n; i++)
        assert_string_equal(back.v[i], p.v[i]);
    /* status-only sets */
    as_pset st = {0};
    as_fields_of(&st, slinky_doc_root(o), slinky_doc_root(s), false, true, true);
    assert_int_equal(st.n, 1);
    assert_true(as_pset_has(&st, "f:status\x01" "f:ready"));
    char *disp = as_field_display("f:spec\x01" "f:ports\x01" "k:{\"name\":\"http\"}\x01" "f:port");
    assert_string_equal(disp, ".spec.ports[name=\"http\"].port");
    free(disp);
    as_pset_dispose(&p);
    as_pset_dispose(&back);
    as_pset_dispose(&st);
    slinky_doc_free(v1);
    slinky_doc_free(o);
    slinky_doc_free(s);
}

static void test_builtin_lists_keyed_by_name(void **state)
{
    (void)state;
    slinky_doc *o = parse("{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\","
                          "\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}]}]}}");
    as_pset p = {0};
    assert_int_equal(as_fields_of(&p, slinky_doc_root(o), NULL, true, false, false), 0);
    assert_true(as_pset_has(&p, "f:spec\x01" "f:containers\x01" "k:{\"name\":\"c\"}\x01" "f:image"));
    assert_true(as_pset_has(&p, "f:spec\x01" "f:containers\x01" "k:{\"name\":\"c\"}\x01"
                                "f:ports\x01" "k:{\"containerPort\":80,\"protocol\":\"TCP\"}\x01."));
    as_pset_dispose(&p);
    slinky_doc_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_of_custom_object),
        cmocka_unit_test(test_builtin_lists_keyed_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
