/* Values: accessors, mutation, paths, pointers, equality, copies, files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky/doc.h"
#include "slinky/error.h"

static slinky_doc *json(const char *s)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, s, strlen(s)) != 0)
        fail_msg("[%s]: %s", s, slinky_error_last()->message);
    return d;
}

static char *to_json(const slinky_doc_value *v)
{
    char *s = NULL;
    assert_int_equal(slinky_doc_value_dump_json(&s, NULL, v, 0), 0);
    return s;
}

static void expect_json(const slinky_doc_value *v, const char *want)
{
    char *s = to_json(v);
    if (strcmp(s, want) != 0)
        fail_msg("got %s, want %s", s, want);
    slinky_free(s);
}

static void test_null_tolerant(void **state)
{
    (void)state;
    assert_int_equal(slinky_doc_value_type(NULL), SLINKY_DOC_NULL);
    assert_true(slinky_doc_value_is_null(NULL));
    assert_false(slinky_doc_value_is_number(NULL));
    assert_int_equal(slinky_doc_value_get_int(NULL), 0);
    assert_null(slinky_doc_value_get_string(NULL));
    assert_int_equal(slinky_doc_value_size(NULL), 0);
    assert_null(slinky_doc_value_at(NULL, 0));
    assert_null(slinky_doc_value_get(NULL, "a"));
    assert_null(slinky_doc_value_path(NULL, "a"));
    assert_string_equal(slinky_doc_value_path_string(NULL, "a", "fb"), "fb");
    assert_true(slinky_doc_value_equal(NULL, NULL));
    slinky_doc_free(NULL);
    assert_string_equal(slinky_doc_type_name(SLINKY_DOC_DOUBLE), "number");
    assert_string_equal(slinky_doc_type_name(SLINKY_DOC_BOOL), "boolean");
    assert_int_equal(slinky_doc_value_set_int(NULL, 1), SLINKY_EINVALID);
}

static void test_paths(void **state)
{
    (void)state;
    slinky_doc *d = json("{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\"},"
                         "{\"name\":\"b\",\"ports\":[80,443]}]}},\"replicas\":3,\"on\":true},"
                         "\"metadata\":{\"annotations\":{\"example.com/x\":\"dot\","
                         "\"we\\\"ird]\":\"q\",\"a.b[0]\":1}},\"x/y\":{\"~t\":5}}");
    slinky_doc_value *r = slinky_doc_root(d);
    assert_int_equal(slinky_doc_value_path_int(r, "spec.replicas", 0), 3);
    assert_true(slinky_doc_value_path_bool(r, "spec.on", false));
    assert_false(slinky_doc_value_path_bool(r, "spec.replicas", false));
    assert_int_equal(slinky_doc_value_path_int(r, "spec.on", -1), -1);
    assert_string_equal(slinky_doc_value_path_string(r, "spec.template.spec.containers[1].name",
                                                     NULL),
                        "b");
    assert_int_equal(slinky_doc_value_path_int(r, "spec.template.spec.containers[1].ports[1]", 0),
                     443);
    assert_int_equal(slinky_doc_value_path_int(r, "spec.template.spec.containers.1.ports.0", 0),
                     80);
    assert_null(slinky_doc_value_path(r, "spec.template.spec.containers[2]"));
    assert_null(slinky_doc_value_path(r, "spec.replicas.x"));
    assert_null(slinky_doc_value_path(r, "spec..replicas"));
    assert_null(slinky_doc_value_path(r, "spec[\"replicas\""));
    assert_null(slinky_doc_value_path(r, "spec.template.spec.containers[x]"));
    assert_string_equal(slinky_doc_value_path_string(r, "metadata.annotations[\"example.com/x\"]",
                                                     NULL),
                        "dot");
    assert_string_equal(slinky_doc_value_path_string(r, "metadata.annotations['we\"ird]']", NULL),
                        "q");
    assert_string_equal(slinky_doc_value_path_string(r, "metadata.annotations[\"we\\\"ird]\"]",
                                                     NULL),
                        "q");
    assert_int_equal(slinky_doc_value_path_int(r, "metadata.annotations.\"a.b[0]\"", 0), 1);
    assert_ptr_equal(slinky_doc_value_path(r, ""), r);
    slinky_doc *arr = json("[[1,{\"a\":2}],3]");
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(arr), "[0][1].a", 0), 2);
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(arr), "[1]", 0), 3);
    assert_null(slinky_doc_value_path(slinky_doc_root(arr), "[2]"));
    slinky_doc_free(arr);

    /* pointers */
    assert_int_equal(slinky_doc_value_get_int(slinky_doc_value_pointer(r, "/x~1y/~0t")), 5);
    assert_int_equal(slinky_doc_value_get_int(
                         slinky_doc_value_pointer(r, "/spec/template/spec/containers/1/ports/0")),
                     80);
    assert_null(slinky_doc_value_pointer(r, "/spec/template/spec/containers/01"));
    assert_null(slinky_doc_value_pointer(r, "/spec/template/spec/containers/-"));
    assert_null(slinky_doc_value_pointer(r, "/x~2y"));
    assert_null(slinky_doc_value_pointer(r, "spec"));
    assert_ptr_equal(slinky_doc_value_pointer(r, ""), r);
    char *e;
    assert_int_equal(slinky_doc_pointer_escape(&e, "a/b~c"), 0);
    assert_string_equal(e, "a~1b~0c");
    slinky_free(e);

    /* path_put */
    slinky_doc_value *v;
    assert_int_equal(slinky_doc_value_path_put(&v, r, "metadata.labels[\"app.kubernetes.io/name\"]"),
                     0);
    assert_int_equal(slinky_doc_value_set_string(v, "slurm"), 0);
    assert_string_equal(slinky_doc_value_path_string(
                            r, "metadata.labels[\"app.kubernetes.io/name\"]", NULL),
                        "slurm");
    assert_int_equal(slinky_doc_value_path_put(&v, r, "spec.template.spec.containers[0].image"), 0);
    assert_int_equal(slinky_doc_value_set_string(v, "img"), 0);
    assert_string_equal(slinky_doc_value_path_string(r, "spec.template.spec.containers[0].image",
                                                     NULL),
                        "img");
    assert_int_equal(slinky_doc_value_path_put(&v, r, "spec.template.spec.containers[5].x"),
                     SLINKY_ENOTFOUND);
    assert_int_equal(slinky_doc_value_path_put(&v, r, "spec.replicas.deeper"), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_path_put(&v, r, "a..b"), SLINKY_EINVALID);
    assert_null(slinky_doc_value_get(r, "a"));
    assert_int_equal(slinky_doc_value_path_put(&v, r, "new.x[0]"), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_path_put(&v, r, "spec.fresh.x[0].y"), SLINKY_EINVALID);
    assert_null(slinky_doc_value_get(r, "new"));
    assert_null(slinky_doc_value_path(r, "spec.fresh"));
    slinky_doc_free(d);
}

static void test_mutation(void **state)
{
    (void)state;
    slinky_doc *d;
    assert_int_equal(slinky_doc_new(&d), 0);
    slinky_doc_value *r = slinky_doc_root(d);
    assert_ptr_equal(slinky_doc_value_doc(r), d);
    assert_true(slinky_doc_value_is_null(r));
    slinky_doc_value *x;
    assert_int_equal(slinky_doc_value_object_put(&x, r, "a"), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_set_object(r), 0);
    slinky_doc_value *a, *b;
    assert_int_equal(slinky_doc_value_object_put(&a, r, "a"), 0);
    assert_int_equal(slinky_doc_value_object_put(&b, r, "b"), 0);
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%d", i);
        assert_int_equal(slinky_doc_value_object_set_int(r, k, i), 0);
    }
    /* pointers stay valid while siblings are added */
    assert_int_equal(slinky_doc_value_set_int(a, 1), 0);
    assert_int_equal(slinky_doc_value_set_bool(b, true), 0);
    assert_int_equal(slinky_doc_value_path_int(r, "a", 0), 1);
    assert_true(slinky_doc_value_path_bool(r, "b", false));
    assert_int_equal(slinky_doc_value_object_put(&x, r, "a"), 0);
    assert_ptr_equal(x, a);
    assert_int_equal(slinky_doc_value_size(r), 22);

    /* remove keeps order */
    assert_int_equal(slinky_doc_value_object_remove(r, "b"), 0);
    assert_int_equal(slinky_doc_value_object_remove(r, "k5"), 0);
    assert_int_equal(slinky_doc_value_object_remove(r, "nope"), SLINKY_ENOTFOUND);
    assert_string_equal(slinky_doc_value_key_at(r, 0), "a");
    assert_string_equal(slinky_doc_value_key_at(r, 1), "k0");
    assert_string_equal(slinky_doc_value_key_at(r, 5), "k4");
    assert_string_equal(slinky_doc_value_key_at(r, 6), "k6");
    assert_int_equal(slinky_doc_value_get_int(slinky_doc_value_member_at(r, 6)), 6);
    assert_null(slinky_doc_value_key_at(r, 20));

    /* arrays */
    slinky_doc_value *arr, *e;
    assert_int_equal(slinky_doc_value_object_put(&arr, r, "arr"), 0);
    assert_int_equal(slinky_doc_value_array_append(&e, arr), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_set_array(arr), 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(slinky_doc_value_array_append(&e, arr), 0);
        assert_int_equal(slinky_doc_value_set_int(e, i), 0);
    }
    assert_int_equal(slinky_doc_value_array_insert(&e, arr, 0), 0);
    assert_int_equal(slinky_doc_value_set_string(e, "first"), 0);
    assert_int_equal(slinky_doc_value_array_insert(&e, arr, 6), 0);
    assert_int_equal(slinky_doc_value_set_string(e, "last"), 0);
    assert_int_equal(slinky_doc_value_array_insert(&e, arr, 3), 0);
    assert_int_equal(slinky_doc_value_array_insert(&e, arr, 99), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_doc_value_array_remove(arr, 1), 0);
    assert_int_equal(slinky_doc_value_array_remove(arr, 99), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_doc_value_array_append(NULL, arr), 0);
    expect_json(arr, "[\"first\",1,null,2,3,4,\"last\",null]");

    /* scalars */
    assert_int_equal(slinky_doc_value_set_double(e, NAN), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_set_double(e, INFINITY), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_set_string(e, NULL), SLINKY_EINVALID);
    assert_int_equal(slinky_doc_value_set_string_len(e, "a\0b", 3), 0);
    assert_int_equal(slinky_doc_value_get_string_len(e), 3);
    assert_int_equal(slinky_doc_value_set_double(e, 2.75), 0);
    assert_true(slinky_doc_value_get_double(e) == 2.75);
    assert_int_equal(slinky_doc_value_get_int(e), 2);
    assert_null(slinky_doc_value_get_number_text(e));
    assert_true(slinky_doc_value_is_number(e));
    slinky_doc_free(d);
}

static void test_set_copy_self(void **state)
{
    (void)state;
    slinky_doc *d = json("{\"a\":{\"b\":{\"c\":[1,{\"d\":2}]}},\"s\":\"str\"}");
    slinky_doc_value *r = slinky_doc_root(d);
    slinky_doc_value *a = slinky_doc_value_get(r, "a");
    /* replace a by something inside it */
    assert_int_equal(slinky_doc_value_set_copy(a, slinky_doc_value_path(a, "b.c[1]")), 0);
    expect_json(r, "{\"a\":{\"d\":2},\"s\":\"str\"}");
    /* replace the root by a child, and by itself */
    assert_int_equal(slinky_doc_value_set_copy(r, r), 0);
    assert_int_equal(slinky_doc_value_set_copy(r, slinky_doc_value_get(r, "a")), 0);
    expect_json(r, "{\"d\":2}");
    /* a member set from a value of the same object */
    assert_int_equal(slinky_doc_value_object_set(r, "e", r), 0);
    expect_json(r, "{\"d\":2,\"e\":{\"d\":2}}");
    assert_int_equal(slinky_doc_value_object_set(r, "d", slinky_doc_value_get(r, "e")), 0);
    expect_json(r, "{\"d\":{\"d\":2},\"e\":{\"d\":2}}");
    assert_int_equal(slinky_doc_value_object_set_string(r, "e", "x"), 0);
    assert_int_equal(slinky_doc_value_object_set_bool(r, "f", false), 0);
    expect_json(r, "{\"d\":{\"d\":2},\"e\":\"x\",\"f\":false}");
    /* from another document */
    slinky_doc *o = json("[1,2]");
    assert_int_equal(slinky_doc_value_object_set(r, "g", slinky_doc_root(o)), 0);
    slinky_doc_free(o);
    expect_json(r, "{\"d\":{\"d\":2},\"e\":\"x\",\"f\":false,\"g\":[1,2]}");
    slinky_doc *c;
    assert_int_equal(slinky_doc_new_copy(&c, slinky_doc_value_get(r, "g")), 0);
    slinky_doc_free(d);
    expect_json(slinky_doc_root(c), "[1,2]");
    slinky_doc_free(c);
}

static void test_equality(void **state)
{
    (void)state;
    slinky_doc *a = json("{\"x\":1,\"y\":[1.0,\"s\",null,true,{}],\"z\":{\"p\":1,\"q\":2}}");
    slinky_doc *b = json("{\"z\":{\"q\":2.0,\"p\":1},\"y\":[1,\"s\",null,true,{}],\"x\":1.0}");
    slinky_doc *c = json("{\"z\":{\"q\":2.5,\"p\":1},\"y\":[1,\"s\",null,true,{}],\"x\":1.0}");
    slinky_doc *e = json("{\"x\":1,\"y\":[1.0,\"s\",null,true,{}],\"z\":{\"p\":1}}");
    slinky_doc *f = json("[\"1\",1,true,null]");
    slinky_doc *g = json("[1,\"1\",1,false]");
    assert_true(slinky_doc_value_equal(slinky_doc_root(a), slinky_doc_root(b)));
    assert_false(slinky_doc_value_equal(slinky_doc_root(a), slinky_doc_root(c)));
    assert_false(slinky_doc_value_equal(slinky_doc_root(a), slinky_doc_root(e)));
    assert_false(slinky_doc_value_equal(slinky_doc_root(a), NULL));
    for (size_t i = 0; i < 4; i++)
        assert_false(slinky_doc_value_equal(slinky_doc_value_at(slinky_doc_root(f), i),
                                            slinky_doc_value_at(slinky_doc_root(g), i)));
    slinky_doc *h = json("9007199254740993");
    slinky_doc *k = json("9007199254740992.0");
    assert_false(slinky_doc_value_equal(slinky_doc_root(h), slinky_doc_root(k)));
    slinky_doc_free(h);
    slinky_doc_free(k);
    /* large objects (sorted comparison) */
    char big1[4096], big2[4096];
    size_t n1 = 0, n2 = 0;
    big1[n1++] = '{';
    big2[n2++] = '{';
    for (int i = 0; i < 50; i++) {
        n1 += (size_t)sprintf(big1 + n1, "%s\"k%d\":%d", i ? "," : "", i, i);
        n2 += (size_t)sprintf(big2 + n2, "%s\"k%d\":%d", i ? "," : "", 49 - i, 49 - i);
    }
    big1[n1++] = '}';
    big1[n1] = 0;
    big2[n2++] = '}';
    big2[n2] = 0;
    slinky_doc *b1 = json(big1), *b2 = json(big2);
    assert_true(slinky_doc_value_equal(slinky_doc_root(b1), slinky_doc_root(b2)));
    assert_int_equal(slinky_doc_value_object_set_int(slinky_doc_root(b2), "k7", 8), 0);
    assert_false(slinky_doc_value_equal(slinky_doc_root(b1), slinky_doc_root(b2)));
    slinky_doc_free(b1);
    slinky_doc_free(b2);
    slinky_doc_free(a);
    slinky_doc_free(b);
    slinky_doc_free(c);
    slinky_doc_free(e);
    slinky_doc_free(f);
    slinky_doc_free(g);
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/slinky-doc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pj[256], py[256], bad[256];
    snprintf(pj, sizeof(pj), "%s/a.json", dir);
    snprintf(py, sizeof(py), "%s/a.yaml", dir);
    snprintf(bad, sizeof(bad), "%s/bad.yaml", dir);
    slinky_doc *d = json("{\"a\":[1,\"yes\"],\"b\":{\"c\":null}}");
    assert_int_equal(slinky_doc_value_save_file(slinky_doc_root(d), pj, false,
                                                SLINKY_DOC_DUMP_PRETTY),
                     0);
    assert_int_equal(slinky_doc_value_save_file(slinky_doc_root(d), py, true, 0), 0);
    slinky_doc *a = NULL, *b = NULL;
    assert_int_equal(slinky_doc_load_file(&a, pj), 0);
    assert_int_equal(slinky_doc_load_file(&b, py), 0);
    assert_true(slinky_doc_value_equal(slinky_doc_root(d), slinky_doc_root(a)));
    assert_true(slinky_doc_value_equal(slinky_doc_root(d), slinky_doc_root(b)));
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("a: 1\nb: [\n", f);
    fclose(f);
    slinky_doc *x = NULL;
    assert_int_equal(slinky_doc_load_file(&x, bad), SLINKY_EPARSE);
    assert_null(x);
    assert_non_null(strstr(slinky_error_last()->message, bad));
    assert_int_equal(slinky_error_last()->line, 3);
    char missing[300];
    snprintf(missing, sizeof(missing), "%s/missing.yaml", dir);
    assert_int_equal(slinky_doc_load_file(&x, missing), SLINKY_ENOTFOUND);
    unlink(pj);
    unlink(py);
    unlink(bad);
    rmdir(dir);
    slinky_doc_free(a);
    slinky_doc_free(b);
    slinky_doc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_tolerant), cmocka_unit_test(test_paths),
        cmocka_unit_test(test_mutation),      cmocka_unit_test(test_set_copy_self),
        cmocka_unit_test(test_equality),      cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
