/* RFC 7386 merge patch and RFC 6902 JSON patch: every RFC appendix example. */
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

static slinky_doc *load_fixture(const char *name)
{
    const char *dir = getenv("SLINKY_TEST_DATA");
    assert_non_null(dir);
    char path[4096];
    snprintf(path, sizeof(path), "%s/doc/%s", dir, name);
    slinky_doc *d = NULL;
    if (slinky_doc_load_file(&d, path) != 0)
        fail_msg("%s", slinky_error_last()->message);
    return d;
}

static slinky_doc *json(const char *s)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, s, strlen(s)) != 0)
        fail_msg("%s: %s", s, slinky_error_last()->message);
    return d;
}

static void test_rfc7386(void **state)
{
    (void)state;
    slinky_doc *f = load_fixture("rfc7386.json");
    slinky_doc_value *cases = slinky_doc_root(f);
    assert_int_equal(slinky_doc_value_size(cases), 16);
    for (size_t i = 0; i < slinky_doc_value_size(cases); i++) {
        slinky_doc_value *c = slinky_doc_value_at(cases, i);
        slinky_doc *t;
        assert_int_equal(slinky_doc_new_copy(&t, slinky_doc_value_get(c, "target")), 0);
        assert_int_equal(slinky_doc_merge_patch_apply(slinky_doc_root(t),
                                                      slinky_doc_value_get(c, "patch")),
                         0);
        if (!slinky_doc_value_equal(slinky_doc_root(t), slinky_doc_value_get(c, "result")))
            fail_msg("%s: wrong result", slinky_doc_value_path_string(c, "comment", "?"));
        /* member order: the new member goes last */
        if (i == 0)
            assert_string_equal(slinky_doc_value_key_at(slinky_doc_root(t), 4), "phoneNumber");

        /* create: applying the created patch to the target gives the result */
        slinky_doc *p = NULL;
        int rc = slinky_doc_merge_patch_create(&p, slinky_doc_value_get(c, "target"),
                                               slinky_doc_value_get(c, "result"));
        if (rc == 0) {
            slinky_doc *t2;
            assert_int_equal(slinky_doc_new_copy(&t2, slinky_doc_value_get(c, "target")), 0);
            assert_int_equal(slinky_doc_merge_patch_apply(slinky_doc_root(t2), slinky_doc_root(p)),
                             0);
            if (!slinky_doc_value_equal(slinky_doc_root(t2), slinky_doc_value_get(c, "result")))
                fail_msg("%s: created patch is wrong",
                         slinky_doc_value_path_string(c, "comment", "?"));
            slinky_doc_free(t2);
            slinky_doc_free(p);
        } else {
            /* only "A 13" keeps a null member in the result */
            assert_int_equal(rc, SLINKY_EINVALID);
            assert_string_equal(slinky_doc_value_path_string(c, "comment", "?"), "A 13");
        }
        slinky_doc_free(t);
    }
    slinky_doc_free(f);
}

static void test_merge_patch_self(void **state)
{
    (void)state;
    /* the patch lies inside the target */
    slinky_doc *d = json("{\"a\":{\"x\":1,\"p\":{\"y\":2,\"x\":null}}}");
    slinky_doc_value *a = slinky_doc_value_get(slinky_doc_root(d), "a");
    assert_int_equal(slinky_doc_merge_patch_apply(a, slinky_doc_value_get(a, "p")), 0);
    slinky_doc *want = json("{\"a\":{\"p\":{\"y\":2,\"x\":null},\"y\":2}}");
    assert_true(slinky_doc_value_equal(slinky_doc_root(d), slinky_doc_root(want)));
    slinky_doc_free(want);
    slinky_doc_free(d);

    slinky_doc *from = json("{\"a\":1,\"b\":{\"c\":[1,2],\"d\":\"x\"},\"gone\":true}");
    slinky_doc *to = json("{\"a\":1,\"b\":{\"c\":[1],\"d\":\"x\"},\"new\":{\"n\":1}}");
    slinky_doc *p;
    assert_int_equal(slinky_doc_merge_patch_create(&p, slinky_doc_root(from), slinky_doc_root(to)),
                     0);
    char *s;
    assert_int_equal(slinky_doc_value_dump_json(&s, NULL, slinky_doc_root(p), 0), 0);
    assert_string_equal(s, "{\"gone\":null,\"b\":{\"c\":[1]},\"new\":{\"n\":1}}");
    slinky_free(s);
    slinky_doc_free(p);
    slinky_doc_free(from);
    slinky_doc_free(to);
}

static void test_rfc6902(void **state)
{
    (void)state;
    slinky_doc *f = load_fixture("rfc6902.json");
    slinky_doc_value *cases = slinky_doc_root(f);
    assert_true(slinky_doc_value_size(cases) >= 16);
    for (size_t i = 0; i < slinky_doc_value_size(cases); i++) {
        slinky_doc_value *c = slinky_doc_value_at(cases, i);
        const char *name = slinky_doc_value_path_string(c, "comment", "?");
        slinky_doc *t;
        assert_int_equal(slinky_doc_new_copy(&t, slinky_doc_value_get(c, "doc")), 0);
        int rc = slinky_doc_json_patch_apply(slinky_doc_root(t), slinky_doc_value_get(c, "patch"));
        const char *err = slinky_doc_value_path_string(c, "error", NULL);
        if (err) {
            if (rc == 0)
                fail_msg("%s: expected an error", name);
            if (!strstr(slinky_error_last()->message, err))
                fail_msg("%s: message \"%s\" lacks \"%s\"", name, slinky_error_last()->message,
                         err);
            /* atomic: unchanged */
            if (!slinky_doc_value_equal(slinky_doc_root(t), slinky_doc_value_get(c, "doc")))
                fail_msg("%s: target changed on failure", name);
        } else {
            if (rc != 0)
                fail_msg("%s: %s", name, slinky_error_last()->message);
            if (!slinky_doc_value_equal(slinky_doc_root(t), slinky_doc_value_get(c, "expected")))
                fail_msg("%s: wrong result", name);
            /* create + apply gives the same result */
            slinky_doc *p, *t2;
            assert_int_equal(slinky_doc_json_patch_create(&p, slinky_doc_value_get(c, "doc"),
                                                          slinky_doc_value_get(c, "expected")),
                             0);
            assert_int_equal(slinky_doc_new_copy(&t2, slinky_doc_value_get(c, "doc")), 0);
            assert_int_equal(slinky_doc_json_patch_apply(slinky_doc_root(t2), slinky_doc_root(p)),
                             0);
            if (!slinky_doc_value_equal(slinky_doc_root(t2), slinky_doc_value_get(c, "expected")))
                fail_msg("%s: created patch is wrong", name);
            slinky_doc_free(t2);
            slinky_doc_free(p);
        }
        slinky_doc_free(t);
    }
    slinky_doc_free(f);
}

static void test_json_patch_create(void **state)
{
    (void)state;
    slinky_doc *from = json("{\"a\":[1,2,3],\"b\":\"x\",\"c/d\":1,\"e\":{\"f\":1}}");
    slinky_doc *to = json("{\"a\":[1,5],\"b\":\"x\",\"e\":{\"f\":1,\"g~\":2}}");
    slinky_doc *p;
    assert_int_equal(slinky_doc_json_patch_create(&p, slinky_doc_root(from), slinky_doc_root(to)),
                     0);
    char *s;
    assert_int_equal(slinky_doc_value_dump_json(&s, NULL, slinky_doc_root(p), 0), 0);
    assert_string_equal(s, "[{\"op\":\"remove\",\"path\":\"/c~1d\"},"
                           "{\"op\":\"replace\",\"path\":\"/a/1\",\"value\":5},"
                           "{\"op\":\"remove\",\"path\":\"/a/2\"},"
                           "{\"op\":\"add\",\"path\":\"/e/g~0\",\"value\":2}]");
    slinky_free(s);
    slinky_doc_free(p);
    assert_int_equal(slinky_doc_json_patch_create(&p, slinky_doc_root(to), slinky_doc_root(to)), 0);
    assert_int_equal(slinky_doc_value_size(slinky_doc_root(p)), 0);
    assert_int_equal(slinky_doc_value_type(slinky_doc_root(p)), SLINKY_DOC_ARRAY);
    slinky_doc_free(p);
    /* not an array */
    assert_int_equal(slinky_doc_json_patch_apply(slinky_doc_root(from), slinky_doc_root(to)),
                     SLINKY_EINVALID);
    slinky_doc_free(from);
    slinky_doc_free(to);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7386),
        cmocka_unit_test(test_merge_patch_self),
        cmocka_unit_test(test_rfc6902),
        cmocka_unit_test(test_json_patch_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
