/* core/cleanup: slinky/cleanup.h's _freep helpers release what a scope owned on every way
 * out of it (the leak checks of valgrind and ASan in CI make a helper that frees nothing
 * fail), and a variable handed on (set to NULL) is left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slinky.h"
#include "slinky/cleanup.h"

static const char JAIL[] = "{\"kind\": \"JailSpec\", \"scratch\": \"/tmp/s\", \"mounts\": []}";

/* every object made in here is freed by its helper, whichever return is taken */
static int scope(int leave_at, slinky_doc **keep)
{
    SLINKY_CLEANUP(slinky_doc_freep) slinky_doc *d = NULL;
    SLINKY_CLEANUP(slinky_freep) char *s = NULL;
    if (slinky_doc_parse_json(&d, "{\"a\":[1,2]}", 11) != 0)
        return -1;
    if (leave_at == 0)
        return 0;
    if (slinky_doc_value_dump_json(&s, NULL, slinky_doc_root(d), 0) != 0 || strcmp(s, "{\"a\":[1,2]}") != 0)
        return -1;
    SLINKY_CLEANUP(slinky_jail_spec_freep) slinky_jail_spec *spec = NULL;
    if (slinky_jail_spec_parse(&spec, JAIL, strlen(JAIL)) != 0)
        return -1;
    if (leave_at == 1)
        return 1;
    SLINKY_CLEANUP(slinky_model_object_freep) slinky_model_object *o = NULL;
    SLINKY_CLEANUP(slinky_model_problems_freep) slinky_model_problems *p = NULL;
    if (slinky_model_object_new(&o, SLINKY_MODEL_KIND_NODESET, "ns", "cpu") != 0 ||
        slinky_model_validate(&p, o) != 0)
        return -1;
    *keep = d; /* handed on: the helper must not free it */
    d = NULL;
    return 2;
}

static void test_every_way_out(void **state)
{
    (void)state;
    slinky_doc *kept = NULL;
    assert_int_equal(scope(0, &kept), 0);
    assert_int_equal(scope(1, &kept), 1);
    assert_null(kept);
    assert_int_equal(scope(2, &kept), 2);
    assert_non_null(kept); /* still valid after the scope */
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_get(slinky_doc_root(kept), "a")), 2);
    slinky_doc_free(kept);
}

static void test_null_is_ignored(void **state)
{
    (void)state;
    SLINKY_CLEANUP(slinky_kube_client_freep) slinky_kube_client *c = NULL;
    SLINKY_CLEANUP(slinky_conf_freep) slinky_conf *conf = NULL;
    SLINKY_CLEANUP(slinky_freep) char *s = NULL;
    assert_null(c);
    assert_null(conf);
    assert_null(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_way_out),
        cmocka_unit_test(test_null_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
