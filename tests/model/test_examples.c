/* Every upstream example resource parses, validates and round-trips (JSON
 * and YAML) to an equal document; unknown fields survive. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/helpers.h"

static const struct {
    const char *file;
    slinky_model_kind kind;
} examples[] = {
    {"controller.yaml", SLINKY_MODEL_KIND_CONTROLLER}, {"nodeset.yaml", SLINKY_MODEL_KIND_NODESET},
    {"loginset.yaml", SLINKY_MODEL_KIND_LOGINSET},     {"restapi.yaml", SLINKY_MODEL_KIND_RESTAPI},
    {"accounting.yaml", SLINKY_MODEL_KIND_ACCOUNTING}, {"token.yaml", SLINKY_MODEL_KIND_TOKEN},
};

static void test_examples_parse_validate_round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
        char *rel = NULL, *path;
        assert_true(asprintf(&rel, "examples/%s", examples[i].file) > 0);
        path = upstream_path(rel);
        free(rel);
        slinky_doc *orig = NULL;
        slinky_model_object *o = NULL, *back = NULL;
        slinky_model_problems *p = NULL;
        if (slinky_doc_load_file(&orig, path) || slinky_model_object_load_file(&o, path))
            fail_msg("%s: %s", path, slinky_error_last()->message);
        assert_int_equal(slinky_model_object_get_kind(o), examples[i].kind);

        assert_int_equal(slinky_model_validate(&p, o), 0);
        if (slinky_model_problems_error_count(p)) {
            print_problems(p);
            fail_msg("%s does not validate", examples[i].file);
        }
        slinky_model_problems_free(p);

        /* JSON round trip */
        char *json = NULL, *yaml = NULL;
        assert_int_equal(slinky_model_object_dump_json(&json, NULL, o, 0), 0);
        assert_int_equal(slinky_model_object_parse_json(&back, json, strlen(json)), 0);
        assert_true(slinky_doc_value_equal(slinky_model_object_get_value(back), slinky_doc_root(orig)));
        slinky_model_object_free(back);
        /* YAML round trip */
        assert_int_equal(slinky_model_object_dump_yaml(&yaml, NULL, o), 0);
        assert_int_equal(slinky_model_object_parse_yaml(&back, yaml, strlen(yaml)), 0);
        assert_true(slinky_doc_value_equal(slinky_model_object_get_value(back), slinky_doc_root(orig)));
        assert_true(slinky_model_object_equal(back, o));
        slinky_model_object_free(back);
        /* doc value round trip */
        assert_int_equal(slinky_model_object_new_from_value(&back, slinky_doc_root(orig)), 0);
        assert_true(slinky_model_object_equal(back, o));
        slinky_model_object_free(back);

        slinky_free(json);
        slinky_free(yaml);
        slinky_model_object_free(o);
        slinky_doc_free(orig);
        free(path);
    }
}

static void test_unknown_fields_survive(void **state)
{
    (void)state;
    const char *text =
        "apiVersion: slinky.slurm.net/v1beta1\n"
        "kind: NodeSet\n"
        "metadata: {name: ns1, namespace: slurm, managedFields: [{manager: kubectl}]}\n"
        "spec:\n"
        "  controllerRef: {name: slurm, extra: 1}\n"
        "  futureField: {nested: [1, 2.50, \"x\"]}\n"
        "  replicas: 2\n"
        "topLevelExtra: true\n";
    slinky_model_object *o = obj_from(text), *back = NULL;
    slinky_model_problems *p = NULL;
    char *json = NULL;
    assert_non_null(o);
    /* change a known field; the unknown ones must stay */
    assert_int_equal(slinky_model_nodeset_set_replicas(o, 3), 0);
    assert_int_equal(slinky_model_object_dump_json(&json, NULL, o, 0), 0);
    assert_int_equal(slinky_model_object_parse_json(&back, json, strlen(json)), 0);
    const slinky_doc_value *v = slinky_model_object_get_value(back);
    assert_string_equal(slinky_doc_value_get_number_text(slinky_doc_value_path(v, "spec.futureField.nested[1]")), "2.50");
    assert_int_equal(slinky_doc_value_path_int(v, "spec.controllerRef.extra", 0), 1);
    assert_true(slinky_doc_value_path_bool(v, "topLevelExtra", false));
    assert_string_equal(slinky_doc_value_path_string(v, "metadata.managedFields[0].manager", ""), "kubectl");
    assert_int_equal(slinky_doc_value_path_int(v, "spec.replicas", 0), 3);
    /* unknown fields are warnings, not errors */
    assert_int_equal(slinky_model_validate(&p, back), 0);
    assert_int_equal(slinky_model_problems_error_count(p), 0);
    assert_true(slinky_model_problems_has(p, "spec.futureField", "unknown field"));
    assert_true(slinky_model_problems_has(p, "spec.controllerRef.extra", "unknown field"));
    assert_true(slinky_model_problems_has(p, "topLevelExtra", "unknown field"));
    assert_int_equal(slinky_model_problems_get_severity(p, 0), SLINKY_MODEL_WARNING);
    slinky_model_problems_free(p);
    slinky_free(json);
    slinky_model_object_free(back);
    slinky_model_object_free(o);
}

static void test_parse_errors(void **state)
{
    (void)state;
    slinky_model_object *o = NULL;
    const char *bad[] = {
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",                        /* unknown kind */
        "apiVersion: slinky.slurm.net/v1alpha1\nkind: NodeSet\nmetadata: {name: x}\n", /* version */
        "kind: NodeSet\n",                                                           /* apiVersion */
        "[1, 2]\n",                                                                  /* not an object */
        "{\"kind\": ",                                                               /* malformed */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = slinky_model_object_parse(&o, bad[i], strlen(bad[i]));
        assert_true(rc == SLINKY_EINVALID || rc == SLINKY_EPARSE);
        assert_null(o);
    }
    assert_non_null(strstr(slinky_error_last()->message, "line"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_parse_validate_round_trip),
        cmocka_unit_test(test_unknown_fields_survive),
        cmocka_unit_test(test_parse_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
