/* Table helpers (ages, JSONPath) and URL routing of slinky-apiserver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "pure.h"

static void test_human_duration(void **state)
{
    (void)state;
    static const struct {
        long long s;
        const char *want;
    } cases[] = {{-5, "<invalid>"}, {0, "0s"},        {59, "59s"},     {119, "119s"},
                 {120, "2m"},       {185, "3m5s"},    {600, "10m"},    {179 * 60, "179m"},
                 {3 * 3600, "3h"},  {3 * 3600 + 120, "3h2m"}, {47 * 3600, "47h"},
                 {50 * 3600, "2d2h"}, {72 * 3600, "3d"}, {30 * 86400, "30d"},
                 {800 * 86400LL, "2y70d"}, {9 * 365 * 86400LL, "9y"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        as_human_duration(buf, sizeof(buf), cases[i].s);
        assert_string_equal(buf, cases[i].want);
    }
}

static void test_jsonpath(void **state)
{
    (void)state;
    const char *j = "{\"status\":{\"replicas\":3,\"conditions\":[{\"type\":\"A\",\"status\":"
                    "\"False\"},{\"type\":\"Ready\",\"status\":\"True\"}]}}";
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, j, strlen(j)), 0);
    const slinky_doc_value *r = slinky_doc_root(d);
    assert_int_equal(slinky_doc_value_get_int(as_jsonpath(r, ".status.replicas")), 3);
    assert_string_equal(
        slinky_doc_value_get_string(as_jsonpath(r, ".status.conditions[1].type")), "Ready");
    assert_string_equal(slinky_doc_value_get_string(as_jsonpath(
                            r, ".status.conditions[?(@.type==\"Ready\")].status")),
                        "True");
    assert_null(as_jsonpath(r, ".status.missing"));
    assert_null(as_jsonpath(r, ".status.conditions[?(@.type==\"Nope\")].status"));
    slinky_doc_free(d);
}

static void test_routes(void **state)
{
    (void)state;
    as_route r;
    assert_int_equal(as_route_parse(&r, "/api"), AS_ROUTE_API);
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/apis/slinky.slurm.net/v1beta1"), AS_ROUTE_APIS_GV);
    assert_string_equal(r.group, "slinky.slurm.net");
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/apis/g/v1/namespaces/ns1/nodesets/a/status"),
                     AS_ROUTE_RESOURCE);
    assert_string_equal(r.ns, "ns1");
    assert_string_equal(r.resource, "nodesets");
    assert_string_equal(r.name, "a");
    assert_string_equal(r.sub, "status");
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/api/v1/namespaces/default"), AS_ROUTE_RESOURCE);
    assert_null(r.ns);
    assert_string_equal(r.resource, "namespaces");
    assert_string_equal(r.name, "default");
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/api/v1/namespaces/x/status"), AS_ROUTE_RESOURCE);
    assert_string_equal(r.name, "x");
    assert_string_equal(r.sub, "status");
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/api/v1/pods"), AS_ROUTE_RESOURCE);
    assert_null(r.ns);
    assert_null(r.name);
    as_route_dispose(&r);
    assert_int_equal(as_route_parse(&r, "/apis/g/v/a/b/c/d"), AS_ROUTE_NONE);
    assert_int_equal(as_route_parse(&r, "/other"), AS_ROUTE_NONE);
}

static void test_base64(void **state)
{
    (void)state;
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "\xfb\xff"};
    static const char *const std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "+/8="};
    static const char *const url[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "-_8"};
    for (size_t i = 0; i < 6; i++) {
        char *a = as_base64(in[i], strlen(in[i]), false), *b = as_base64(in[i], strlen(in[i]), true);
        assert_string_equal(a, std[i]);
        assert_string_equal(b, url[i]);
        free(a);
        free(b);
    }
}

static void test_version_priority(void **state)
{
    (void)state;
    static const char *const order[] = {"v2", "v1", "v11beta2", "v10beta3", "v3beta1",
                                        "v12alpha1", "v11alpha2", "foo1", "foo10"};
    for (size_t i = 0; i + 1 < sizeof(order) / sizeof(order[0]); i++) {
        assert_true(as_version_priority_cmp(order[i], order[i + 1]) < 0);
        assert_true(as_version_priority_cmp(order[i + 1], order[i]) > 0);
    }
    assert_int_equal(as_version_priority_cmp("v1", "v1"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human_duration),
        cmocka_unit_test(test_jsonpath),
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_version_priority),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
