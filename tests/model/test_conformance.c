/* The generated CRDs against upstream's, read at test time from
 * $SLINKY_SHARED_DIR/upstream/slinky/crds/: every property path, type, enum,
 * default, required list, format, pattern, limit, x-kubernetes-* marker,
 * validation rule, printer column, short name and subresource must be
 * identical. Descriptions and controller-gen's annotation are not compared.
 * Printer columns: every upstream column must be in ours, identical and in
 * the same order; ours may add columns (the Controller's CONFIGAPPLIED and
 * REASON), which change no property path. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/helpers.h"

/* Compare a and b; print each difference with its path; return the count. */
static int diff(const slinky_doc_value *a, const slinky_doc_value *b, const char *path)
{
    slinky_doc_type ta = slinky_doc_value_type(a), tb = slinky_doc_value_type(b);
    int n = 0;
    char sub[2048];
    if (ta != tb) {
        fprintf(stderr, "DIFF %s: type %s (ours) vs %s (upstream)\n", path,
                slinky_doc_type_name(ta), slinky_doc_type_name(tb));
        return 1;
    }
    if (ta == SLINKY_DOC_OBJECT) {
        for (size_t i = 0; i < slinky_doc_value_size(a); i++) {
            const char *k = slinky_doc_value_key_at(a, i);
            if (!strcmp(k, "description"))
                continue;
            snprintf(sub, sizeof(sub), "%s.%s", path, k);
            if (!slinky_doc_value_get(b, k)) {
                fprintf(stderr, "DIFF %s: only in ours\n", sub);
                n++;
            } else {
                n += diff(slinky_doc_value_member_at(a, i), slinky_doc_value_get(b, k), sub);
            }
        }
        for (size_t i = 0; i < slinky_doc_value_size(b); i++) {
            const char *k = slinky_doc_value_key_at(b, i);
            if (strcmp(k, "description") && !slinky_doc_value_get(a, k)) {
                fprintf(stderr, "DIFF %s.%s: missing in ours\n", path, k);
                n++;
            }
        }
        return n;
    }
    size_t plen = strlen(path), clen = strlen(".additionalPrinterColumns");
    if (ta == SLINKY_DOC_ARRAY && plen >= clen &&
        !strcmp(path + plen - clen, ".additionalPrinterColumns")) {
        size_t from = 0; /* upstream's columns, in order, among ours */
        for (size_t j = 0; j < slinky_doc_value_size(b); j++) {
            const char *nb = slinky_doc_value_path_string(slinky_doc_value_at(b, j), "name", "");
            size_t i = from;
            while (i < slinky_doc_value_size(a) &&
                   strcmp(slinky_doc_value_path_string(slinky_doc_value_at(a, i), "name", ""), nb))
                i++; /* skip columns of our own */
            if (i == slinky_doc_value_size(a)) {
                fprintf(stderr, "DIFF %s: upstream column %s missing or out of order in ours\n",
                        path, nb);
                n++;
                continue;
            }
            snprintf(sub, sizeof(sub), "%s[%s]", path, nb);
            n += diff(slinky_doc_value_at(a, i), slinky_doc_value_at(b, j), sub);
            from = i + 1;
        }
        return n;
    }
    if (ta == SLINKY_DOC_ARRAY) {
        if (slinky_doc_value_size(a) != slinky_doc_value_size(b)) {
            fprintf(stderr, "DIFF %s: %zu elements (ours) vs %zu (upstream)\n", path,
                    slinky_doc_value_size(a), slinky_doc_value_size(b));
            return 1;
        }
        for (size_t i = 0; i < slinky_doc_value_size(a); i++) {
            snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
            n += diff(slinky_doc_value_at(a, i), slinky_doc_value_at(b, i), sub);
        }
        return n;
    }
    if (!slinky_doc_value_equal(a, b)) {
        char *x = NULL, *y = NULL;
        slinky_doc_value_dump_json(&x, NULL, a, 0);
        slinky_doc_value_dump_json(&y, NULL, b, 0);
        fprintf(stderr, "DIFF %s: %s (ours) vs %s (upstream)\n", path, x, y);
        slinky_free(x);
        slinky_free(y);
        return 1;
    }
    return 0;
}

static slinky_doc *ours(slinky_model_kind kind)
{
    char *yaml = NULL;
    slinky_doc *d = NULL;
    assert_int_equal(slinky_model_crd_dump(&yaml, slinky_model_kind_name(kind)), 0);
    assert_int_equal(slinky_doc_parse_yaml(&d, yaml, strlen(yaml)), 0);
    slinky_free(yaml);
    return d;
}

static slinky_doc *theirs(slinky_model_kind kind)
{
    char *path = upstream_path("crds/");
    char *full = NULL;
    slinky_doc *d = NULL;
    assert_non_null(path);
    assert_true(asprintf(&full, "%s%s", path, slinky_model_crd_file_name(kind)) > 0);
    if (slinky_doc_load_file(&d, full) != 0)
        fail_msg("cannot read %s: %s", full, slinky_error_last()->message);
    free(path);
    free(full);
    return d;
}

static int compare_kind(slinky_model_kind kind, slinky_doc *mine)
{
    slinky_doc *up = theirs(kind);
    slinky_doc_value *a = slinky_doc_root(mine), *b = slinky_doc_root(up);
    int n = diff(slinky_doc_value_get(a, "spec"), slinky_doc_value_get(b, "spec"), "spec");
    n += diff(slinky_doc_value_get(a, "apiVersion"), slinky_doc_value_get(b, "apiVersion"),
              "apiVersion");
    n += diff(slinky_doc_value_get(a, "kind"), slinky_doc_value_get(b, "kind"), "kind");
    n += diff(slinky_doc_value_path(a, "metadata.name"), slinky_doc_value_path(b, "metadata.name"),
              "metadata.name");
    slinky_doc_free(up);
    return n;
}

static void test_each_crd_identical(void **state)
{
    (void)state;
    int total = 0;
    for (int k = SLINKY_MODEL_KIND_CONTROLLER; k <= SLINKY_MODEL_KIND_TOKEN; k++) {
        slinky_doc *mine = ours((slinky_model_kind)k);
        int n = compare_kind((slinky_model_kind)k, mine);
        if (n)
            fprintf(stderr, "%s: %d difference(s)\n", slinky_model_kind_name((slinky_model_kind)k), n);
        total += n;
        slinky_doc_free(mine);
    }
    assert_int_equal(total, 0);
}

/* The comparison itself must be able to fail: drop a property, change an
 * enum, a default and a short name in our copy and expect each named. */
static void test_comparison_detects_changes(void **state)
{
    (void)state;
    slinky_doc *mine = ours(SLINKY_MODEL_KIND_NODESET);
    slinky_doc_value *schema = slinky_doc_value_path(
        slinky_doc_root(mine), "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties");
    assert_non_null(schema);
    assert_int_equal(slinky_doc_value_object_remove(schema, "pinToNode"), 0);
    assert_int_equal(slinky_doc_value_set_string(slinky_doc_value_path(schema, "scalingMode.enum[0]"), "Daemon"), 0);
    assert_int_equal(slinky_doc_value_set_int(slinky_doc_value_path(schema, "replicas.default"), 2), 0);
    assert_int_equal(slinky_doc_value_set_string(slinky_doc_value_path(slinky_doc_root(mine), "spec.names.shortNames[1]"), "ns"), 0);
    /* an upstream printer column dropped from ours is a difference too */
    slinky_doc_value *cols = slinky_doc_value_path(slinky_doc_root(mine),
                                                   "spec.versions[0].additionalPrinterColumns");
    assert_non_null(cols);
    assert_int_equal(slinky_doc_value_array_remove(cols, 1), 0);
    assert_int_equal(compare_kind(SLINKY_MODEL_KIND_NODESET, mine), 5);
    slinky_doc_free(mine);
}

static void test_dump_all_and_lookup(void **state)
{
    (void)state;
    char *all = NULL, *one = NULL;
    slinky_doc *d = NULL;
    assert_int_equal(slinky_model_crd_dump(&all, NULL), 0);
    assert_int_equal(slinky_doc_parse_yaml_all(&d, all, strlen(all)), 0);
    assert_int_equal(slinky_doc_value_size(slinky_doc_root(d)), 6);
    slinky_doc_free(d);
    assert_int_equal(slinky_model_crd_dump(&one, "slurmdbd"), 0);
    assert_non_null(strstr(one, "name: accountings.slinky.slurm.net"));
    slinky_free(one);
    assert_int_equal(slinky_model_crd_dump(&one, "configmap"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_crd_dump(&one, "nothing"), SLINKY_ENOTFOUND);
    slinky_free(all);
    assert_int_equal(slinky_model_kind_lookup("nss"), SLINKY_MODEL_KIND_NODESET);
    assert_int_equal(slinky_model_kind_lookup("Controllers"), SLINKY_MODEL_KIND_CONTROLLER);
    assert_int_equal(slinky_model_kind_lookup("jwt"), SLINKY_MODEL_KIND_TOKEN);
    assert_int_equal(slinky_model_kind_lookup("bogus"), SLINKY_MODEL_KIND_UNKNOWN);
}

/* The installed CRD files (build tree) are the same text as the embedded ones. */
static void test_build_tree_files(void **state)
{
    (void)state;
    const char *build = getenv("SLINKY_BUILD_DIR");
    if (!build)
        skip();
    for (int k = SLINKY_MODEL_KIND_CONTROLLER; k <= SLINKY_MODEL_KIND_TOKEN; k++) {
        char *path = NULL, *yaml = NULL;
        slinky_doc *file = NULL, *mine = ours((slinky_model_kind)k);
        assert_true(asprintf(&path, "%s/share/libslinky/crds/%s", build,
                             slinky_model_crd_file_name((slinky_model_kind)k)) > 0);
        assert_int_equal(slinky_doc_load_file(&file, path), 0);
        assert_true(slinky_doc_value_equal(slinky_doc_root(file), slinky_doc_root(mine)));
        slinky_doc_free(file);
        slinky_doc_free(mine);
        free(path);
        free(yaml);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_crd_identical),
        cmocka_unit_test(test_comparison_detects_changes),
        cmocka_unit_test(test_dump_all_and_lookup),
        cmocka_unit_test(test_build_tree_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
