/* Strategic merge patch of slinky-apiserver (built-in kinds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "pure.h"

static void check(const char *target, const char *patch, const char *want)
{
    slinky_doc *t = NULL, *p = NULL, *w = NULL;
    assert_int_equal(slinky_doc_parse_json(&t, target, strlen(target)), 0);
    assert_int_equal(slinky_doc_parse_json(&p, patch, strlen(patch)), 0);
    assert_int_equal(slinky_doc_parse_json(&w, want, strlen(want)), 0);
    assert_int_equal(as_strategic_merge(slinky_doc_root(t), slinky_doc_root(p)), 0);
    if (!slinky_doc_value_equal(slinky_doc_root(t), slinky_doc_root(w))) {
        char *got = NULL;
        slinky_doc_value_dump_json(&got, NULL, slinky_doc_root(t), 0);
        print_error("got %s\nwant %s\n", got, want);
        slinky_free(got);
        fail();
    }
    slinky_doc_free(t);
    slinky_doc_free(p);
    slinky_doc_free(w);
}

static void test_maps_like_merge_patch(void **state)
{
    (void)state;
    check("{\"data\":{\"a\":\"1\",\"b\":\"2\"}}", "{\"data\":{\"b\":null,\"c\":\"3\"}}",
          "{\"data\":{\"a\":\"1\",\"c\":\"3\"}}");
}

static void test_containers_merge_by_name(void **state)
{
    (void)state;
    check("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x:1\"},{\"name\":\"b\","
          "\"image\":\"y:1\",\"ports\":[{\"containerPort\":80,\"name\":\"http\"}]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"b\",\"image\":\"y:2\",\"ports\":"
          "[{\"containerPort\":443}]},{\"name\":\"c\",\"image\":\"z:1\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x:1\"},{\"name\":\"b\","
          "\"image\":\"y:2\",\"ports\":[{\"containerPort\":80,\"name\":\"http\"},"
          "{\"containerPort\":443}]},{\"name\":\"c\",\"image\":\"z:1\"}]}}");
}

static void test_directives(void **state)
{
    (void)state;
    /* $patch: delete of one element, $patch: replace of a map */
    check("{\"spec\":{\"volumes\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"sel\":{\"x\":\"1\","
          "\"y\":\"2\"}}}",
          "{\"spec\":{\"volumes\":[{\"name\":\"a\",\"$patch\":\"delete\"}],\"sel\":{\"z\":\"3\","
          "\"$patch\":\"replace\"}}}",
          "{\"spec\":{\"volumes\":[{\"name\":\"b\"}],\"sel\":{\"z\":\"3\"}}}");
    /* finalizers are a set; $deleteFromPrimitiveList removes */
    check("{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
          "{\"metadata\":{\"finalizers\":[\"b\",\"c\"],\"$deleteFromPrimitiveList/finalizers\":"
          "[\"a\"]}}",
          "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}");
    /* lists without a merge key are replaced; $setElementOrder is dropped */
    check("{\"spec\":{\"args\":[\"1\",\"2\"]}}",
          "{\"spec\":{\"args\":[\"3\"],\"$setElementOrder/args\":[\"3\"]}}",
          "{\"spec\":{\"args\":[\"3\"]}}");
    /* $retainKeys */
    check("{\"spec\":{\"strategy\":{\"type\":\"A\",\"rolling\":{\"m\":1}}}}",
          "{\"spec\":{\"strategy\":{\"type\":\"B\",\"$retainKeys\":[\"type\"]}}}",
          "{\"spec\":{\"strategy\":{\"type\":\"B\"}}}");
}

static void test_missing_merge_key_fails_unchanged(void **state)
{
    (void)state;
    const char *t = "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}";
    const char *p = "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}";
    slinky_doc *td = NULL, *pd = NULL, *orig = NULL;
    assert_int_equal(slinky_doc_parse_json(&td, t, strlen(t)), 0);
    assert_int_equal(slinky_doc_parse_json(&orig, t, strlen(t)), 0);
    assert_int_equal(slinky_doc_parse_json(&pd, p, strlen(p)), 0);
    assert_int_equal(as_strategic_merge(slinky_doc_root(td), slinky_doc_root(pd)),
                     SLINKY_EINVALID);
    assert_true(slinky_doc_value_equal(slinky_doc_root(td), slinky_doc_root(orig)));
    slinky_doc_free(td);
    slinky_doc_free(pd);
    slinky_doc_free(orig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps_like_merge_patch),
        cmocka_unit_test(test_containers_merge_by_name),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_missing_merge_key_fails_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
