/* Every property of every kind's schema is reachable through the generic
 * typed API: the path is known, and (outside arrays) a value of the schema
 * type can be set and read back. Also checks the generated tables. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/helpers.h"
#include "model/internal.h"

/* "spec.a[].b.{}" -> "spec.a[0].b.k" */
static void concrete(char *out, size_t n, const char *path)
{
    size_t j = 0;
    for (const char *s = path; *s && j + 4 < n; s++) {
        if (s[0] == '[' && s[1] == ']') {
            j += (size_t)snprintf(out + j, n - j, "[0]");
            s++;
        } else if (s[0] == '{' && s[1] == '}') {
            out[j++] = 'k';
            s++;
        } else {
            out[j++] = *s;
        }
    }
    out[j] = '\0';
}

static void test_every_property_reachable(void **state)
{
    (void)state;
    size_t checked = 0, set_checked = 0;
    for (size_t k = 0; k < slinky_model__n_kinds; k++) {
        const slinky_model__kind_info *ki = &slinky_model__kinds[k];
        for (int i = ki->root + 1; i < ki->node_end; i++) {
            const slinky_model__node *n = &slinky_model__nodes[i];
            char path[512];
            concrete(path, sizeof(path), n->path);
            if (!slinky_model_path_is_known(ki->kind, path))
                fail_msg("%s: %s is not reachable", ki->name, path);
            checked++;
            if (strchr(n->path, '[') || !strncmp(n->path, "apiVersion", 10) ||
                !strncmp(n->path, "kind", 4))
                continue;
            slinky_model_object *o = NULL;
            assert_int_equal(slinky_model_object_new(&o, ki->kind, "ns", "name"), 0);
            const char *s = NULL;
            int64_t v = 0;
            bool b = false;
            const slinky_doc_value *dv = NULL;
            int rc;
            switch (n->type) {
            case SLINKY_MODEL__T_STRING:
            case SLINKY_MODEL__T_INTSTR:
                rc = slinky_model_set_string(o, path, "x1");
                if (!rc)
                    rc = slinky_model_get_string(&s, o, path);
                if (!rc && strcmp(s, "x1"))
                    rc = -100;
                break;
            case SLINKY_MODEL__T_INTEGER:
                rc = slinky_model_set_int(o, path, 7);
                if (!rc)
                    rc = slinky_model_get_int(&v, o, path);
                if (!rc && v != 7)
                    rc = -100;
                break;
            case SLINKY_MODEL__T_BOOLEAN:
                rc = slinky_model_set_bool(o, path, true);
                if (!rc)
                    rc = slinky_model_get_bool(&b, o, path);
                if (!rc && !b)
                    rc = -100;
                break;
            default: {
                slinky_doc *d = NULL;
                assert_int_equal(slinky_doc_new(&d), 0);
                assert_int_equal(n->type == SLINKY_MODEL__T_ARRAY
                                     ? slinky_doc_value_set_array(slinky_doc_root(d))
                                     : slinky_doc_value_set_object(slinky_doc_root(d)), 0);
                rc = slinky_model_set_value(o, path, slinky_doc_root(d));
                if (!rc)
                    rc = slinky_model_get_value(&dv, o, path);
                slinky_doc_free(d);
                break;
            }
            }
            if (rc)
                fail_msg("%s: %s: set/get failed (%d): %s", ki->name, path, rc,
                         slinky_error_last()->message);
            assert_true(slinky_model_has(o, path));
            assert_int_equal(slinky_model_unset(o, path), 0);
            assert_false(slinky_model_has(o, path));
            set_checked++;
            slinky_model_object_free(o);
        }
    }
    fprintf(stderr, "%zu schema paths reachable, %zu set/get/unset round trips\n", checked,
            set_checked);
    assert_true(checked > 350);
}

static void test_tables_consistent(void **state)
{
    (void)state;
    int slinky_kinds = 0;
    for (size_t k = 0; k < slinky_model__n_kinds; k++) {
        const slinky_model__kind_info *ki = &slinky_model__kinds[k];
        const slinky_model__node *root = &slinky_model__nodes[ki->root];
        assert_int_equal(root->type, SLINKY_MODEL__T_OBJECT);
        assert_non_null(slinky_model__child(root, "metadata"));
        assert_int_equal(slinky_model_kind_lookup(ki->name), ki->kind);
        if (ki->crd_yaml) {
            slinky_kinds++;
            assert_string_equal(ki->api_version, SLINKY_MODEL_API_VERSION);
            assert_true(ki->status_subresource);
        }
        for (int i = ki->root; i < ki->node_end; i++) {
            const slinky_model__node *n = &slinky_model__nodes[i];
            if (n->default_json) {
                slinky_doc *d = NULL;
                if (slinky_doc_parse_json(&d, n->default_json, strlen(n->default_json)))
                    fail_msg("%s: bad default %s", n->path, n->default_json);
                slinky_doc_free(d);
            }
            for (int c = 0; c < n->n_children; c++)
                assert_true(n->first_child + c < ki->node_end);
        }
    }
    assert_int_equal(slinky_kinds, 6);
    for (size_t r = 0; r < slinky_model__n_rules; r++)
        assert_non_null(slinky_model__rules[r].fn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_property_reachable),
        cmocka_unit_test(test_tables_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
