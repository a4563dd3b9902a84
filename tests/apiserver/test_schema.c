/* openAPIV3Schema pruning, defaulting and validation of slinky-apiserver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "pure.h"

static const char *k_schema =
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\","
    "\"required\":[\"mode\"],\"properties\":{"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"A\",\"B\"]},"
    "\"replicas\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10,\"default\":1},"
    "\"name\":{\"type\":\"string\",\"maxLength\":5,\"pattern\":\"^[a-z]\\\\d*$\"},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":true,\"minimum\":0},"
    "\"size\":{\"x-kubernetes-int-or-string\":true,\"anyOf\":[{\"type\":\"integer\"},"
    "{\"type\":\"string\"}]},"
    "\"opt\":{\"type\":\"string\",\"nullable\":true},"
    "\"list\":{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":\"object\","
    "\"properties\":{\"k\":{\"type\":\"string\",\"default\":\"d\"}}}},"
    "\"free\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
    "\"map\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}"
    "}}}}";

static slinky_doc *parse(const char *json)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, json, strlen(json)), 0);
    return d;
}

/* prune + default + validate; returns the causes */
static as_causes run(const char *obj_json, slinky_doc **obj_out, as_causes *unknown)
{
    slinky_doc *schema = parse(k_schema);
    slinky_doc *obj = parse(obj_json);
    as_causes c = {0};
    as_schema_prune(slinky_doc_root(obj), slinky_doc_root(schema), true, unknown, "");
    as_schema_default(slinky_doc_root(obj), slinky_doc_root(schema));
    as_schema_validate(&c, slinky_doc_root(obj), slinky_doc_root(schema), "");
    slinky_doc_free(schema);
    if (obj_out)
        *obj_out = obj;
    else
        slinky_doc_free(obj);
    return c;
}

static const as_cause *find(const as_causes *c, const char *field)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i].field, field))
            return &c->items[i];
    return NULL;
}

static void test_valid_object_is_defaulted(void **state)
{
    (void)state;
    slinky_doc *o = NULL;
    as_causes c = run("{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},"
                      "\"spec\":{\"mode\":\"A\",\"name\":\"a12\",\"size\":\"25%\","
                      "\"opt\":null,\"list\":[{}],\"free\":{\"any\":{\"x\":1}},"
                      "\"map\":{\"a\":1}}}",
                      &o, NULL);
    assert_int_equal(c.n, 0);
    const slinky_doc_value *r = slinky_doc_root(o);
    assert_int_equal(slinky_doc_value_path_int(r, "spec.replicas", -1), 1);
    assert_string_equal(slinky_doc_value_path_string(r, "spec.list[0].k", ""), "d");
    assert_int_equal(slinky_doc_value_path_int(r, "spec.free.any.x", 0), 1);
    assert_true(slinky_doc_value_is_null(slinky_doc_value_path(r, "spec.opt")));
    assert_string_equal(slinky_doc_value_path_string(r, "metadata.name", ""), "n");
    as_causes_dispose(&c);
    slinky_doc_free(o);
}

static void test_one_cause_per_bad_field(void **state)
{
    (void)state;
    as_causes c = run("{\"spec\":{\"replicas\":11,\"name\":\"toolong1\",\"ratio\":0,"
                      "\"size\":true,\"list\":[{},{},{}],\"map\":{\"a\":\"x\"}}}",
                      NULL, NULL);
    assert_non_null(find(&c, "spec.mode"));
    assert_string_equal(find(&c, "spec.mode")->reason, "FieldValueRequired");
    assert_string_equal(find(&c, "spec.replicas")->message,
                        "Invalid value: 11: spec.replicas in body should be less than or equal to 10");
    assert_non_null(find(&c, "spec.ratio"));
    assert_string_equal(find(&c, "spec.size")->reason, "FieldValueTypeInvalid");
    assert_string_equal(find(&c, "spec.list")->reason, "FieldValueTooMany");
    assert_string_equal(find(&c, "spec.map.a")->reason, "FieldValueTypeInvalid");
    /* maxLength and pattern both fail on "toolong1" */
    size_t name_causes = 0;
    for (size_t i = 0; i < c.n; i++)
        name_causes += !strcmp(c.items[i].field, "spec.name");
    assert_int_equal(name_causes, 2);
    as_causes_dispose(&c);
}

static void test_enum_type_and_pattern(void **state)
{
    (void)state;
    as_causes c = run("{\"spec\":{\"mode\":\"C\",\"replicas\":\"2\",\"name\":\"b2\"}}", NULL,
                      NULL);
    assert_int_equal(c.n, 2);
    assert_string_equal(find(&c, "spec.mode")->message,
                        "Unsupported value: \"C\": supported values: \"A\", \"B\"");
    assert_string_equal(find(&c, "spec.replicas")->message,
                        "Invalid value: \"string\": spec.replicas in body must be of type "
                        "integer: \"string\"");
    as_causes_dispose(&c);
    c = run("{\"spec\":{\"mode\":\"A\",\"name\":\"Z\"}}", NULL, NULL);
    assert_int_equal(c.n, 1);
    assert_string_equal(find(&c, "spec.name")->message,
                        "Invalid value: \"Z\": spec.name in body should match '^[a-z]\\d*$'");
    as_causes_dispose(&c);
}

static void test_pruning_reports_unknown_fields(void **state)
{
    (void)state;
    slinky_doc *o = NULL;
    as_causes unknown = {0};
    as_causes c = run("{\"spec\":{\"mode\":\"A\",\"bogus\":1,\"list\":[{\"zz\":2}]},\"top\":3}",
                      &o, &unknown);
    assert_int_equal(c.n, 0);
    assert_int_equal(unknown.n, 3);
    assert_non_null(find(&unknown, "spec.bogus"));
    assert_non_null(find(&unknown, "spec.list[0].zz"));
    assert_non_null(find(&unknown, "top"));
    assert_null(slinky_doc_value_path(slinky_doc_root(o), "spec.bogus"));
    assert_null(slinky_doc_value_get(slinky_doc_root(o), "top"));
    as_causes_dispose(&c);
    as_causes_dispose(&unknown);
    slinky_doc_free(o);
}

static void test_upstream_nodeset(void **state)
{
    (void)state;
    const char *shared = getenv("SLINKY_SHARED_DIR");
    if (!shared)
        skip();
    char path[1024];
    snprintf(path, sizeof(path), "%s/upstream/slinky/crds/slinky.slurm.net_nodesets.yaml", shared);
    slinky_doc *crd = NULL, *ex = NULL;
    assert_int_equal(slinky_doc_load_file(&crd, path), 0);
    const slinky_doc_value *schema =
        slinky_doc_value_path(slinky_doc_root(crd), "spec.versions[0].schema.openAPIV3Schema");
    assert_non_null(schema);
    snprintf(path, sizeof(path), "%s/upstream/slinky/examples/nodeset.yaml", shared);
    assert_int_equal(slinky_doc_load_file(&ex, path), 0);
    slinky_doc_value *r = slinky_doc_root(ex);
    as_causes c = {0}, unknown = {0};
    as_schema_prune(r, schema, true, &unknown, "");
    as_schema_default(r, schema);
    as_schema_validate(&c, r, schema, "");
    assert_int_equal(c.n, 0);
    assert_int_equal(unknown.n, 0);
    /* template.spec preserves unknown fields: its nulls stay */
    assert_true(slinky_doc_value_is_null(
        slinky_doc_value_path(r, "spec.template.spec.imagePullSecrets")));
    assert_non_null(slinky_doc_value_path(r, "spec.template.spec.imagePullSecrets"));
    slinky_doc_value_set_string(slinky_doc_value_path(r, "spec.scalingMode"), "Sideways");
    slinky_doc_value_object_remove(slinky_doc_value_get(r, "spec"), "controllerRef");
    as_schema_validate(&c, r, schema, "");
    assert_int_equal(c.n, 2);
    assert_string_equal(find(&c, "spec.scalingMode")->reason, "FieldValueNotSupported");
    assert_string_equal(find(&c, "spec.controllerRef")->reason, "FieldValueRequired");
    as_causes_dispose(&c);
    as_causes_dispose(&unknown);
    slinky_doc_free(ex);
    slinky_doc_free(crd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_object_is_defaulted),
        cmocka_unit_test(test_one_cause_per_bad_field),
        cmocka_unit_test(test_enum_type_and_pattern),
        cmocka_unit_test(test_pruning_reports_unknown_fields),
        cmocka_unit_test(test_upstream_nodeset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
