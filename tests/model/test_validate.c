/* Validation: every schema check, CRD x-kubernetes-validations rule, webhook
 * rule and immutable field has a passing and a failing case with the exact
 * field path. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/helpers.h"

#define HDR "apiVersion: slinky.slurm.net/v1beta1\n"
static const char *base_of(char k)
{
    switch (k) {
    case 'C':
        return HDR "kind: Controller\nmetadata: {name: slurm, namespace: slinky}\n"
                   "spec:\n  slurmKeyRef: {name: auth-slurm, key: slurm.key}\n"
                   "  jwtKeyRef: {name: auth-jwt, key: jwt.key}\n";
    case 'N':
        return HDR "kind: NodeSet\nmetadata: {name: cpu, namespace: slinky}\n"
                   "spec: {controllerRef: {name: slurm}}\n";
    case 'A':
        return HDR "kind: Accounting\nmetadata: {name: slurm, namespace: slinky}\n"
                   "spec:\n  slurmKeyRef: {name: auth-slurm, key: slurm.key}\n"
                   "  jwtKeyRef: {name: auth-jwt, key: jwt.key}\n"
                   "  storageConfig: {host: mariadb, passwordKeyRef: {name: db, key: password}}\n";
    case 'T':
        return HDR "kind: Token\nmetadata: {name: tok, namespace: slinky}\n"
                   "spec: {username: alice, jwtKeyRef: {name: auth-jwt, key: jwt.key}}\n";
    case 'L':
        return HDR "kind: LoginSet\nmetadata: {name: login, namespace: slinky}\n"
                   "spec: {controllerRef: {name: slurm}, sssdConfRef: {name: sssd, key: sssd.conf}}\n";
    case 'S':
        return "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: slinky}\n"
               "data: {a: aGVsbG8=}\n";
    default:
        return NULL;
    }
}

/* Apply "path=json" edits ("-" as json removes the field). */
static void edit(slinky_model_object *o, const char *path, const char *json)
{
    if (!path)
        return;
    if (!strcmp(json, "-")) {
        assert_int_equal(slinky_model_unset(o, path), 0);
        return;
    }
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, json, strlen(json)))
        fail_msg("bad test json %s", json);
    if (slinky_model_set_value(o, path, slinky_doc_root(d)))
        fail_msg("set %s: %s", path, slinky_error_last()->message);
    slinky_doc_free(d);
}

typedef struct vcase {
    char base;
    const char *path, *json, *path2, *json2;
    const char *want_path; /* NULL: valid (no errors) */
    const char *want_text;
    bool warning;
} vcase;

static const vcase cases[] = {
    /* ---- schema: types, int32, enums, required, minimum, patterns, formats */
    {'N', "spec.replicas", "\"abc\"", 0, 0, "spec.replicas", "must be of type integer", 0},
    {'N', "spec.replicas", "3", 0, 0, NULL, NULL, 0},
    {'N', "spec.replicas", "3000000000", 0, 0, "spec.replicas", "int32", 0},
    {'N', "spec.replicas", "-1", 0, 0, "spec.replicas", "Invalid value: -1: should be a non-negative integer", 0},
    {'N', "spec.replicas", "0", 0, 0, NULL, NULL, 0},
    {'L', "spec.replicas", "-3", 0, 0, "spec.replicas", "should be a non-negative integer", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"replicas\":-2}", 0, 0,
     "status.replicas", "should be a non-negative integer", 0},
    {'N', "spec.scalingMode", "\"Foo\"", 0, 0, "spec.scalingMode", "Unsupported value: \"Foo\"", 0},
    {'N', "spec.scalingMode", "\"DaemonSet\"", 0, 0, NULL, NULL, 0},
    {'N', "spec.oversubscribeNode", "\"yes\"", 0, 0, "spec.oversubscribeNode", "boolean", 0},
    {'N', "spec.controllerRef", "-", 0, 0, "spec.controllerRef", "Required value", 0},
    {'N', "spec.persistentVolumeClaimRetentionPolicy", "{\"whenDeleted\":\"Keep\"}", 0, 0,
     "spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "Unsupported value", 0},
    {'C', "spec.ha", "{\"enabled\":false,\"backups\":0}", 0, 0, "spec.ha.backups",
     "greater than or equal to 1", 0},
    {'C', "spec.ha", "{\"backups\":2}", 0, 0, NULL, NULL, 0}, /* enabled: defaulted */
    {'C', "spec.externalConfig", "{\"host\":\"h\"}", 0, 0, "spec.externalConfig.port", "Required value", 0},
    {'C', "spec.slurmKeyRef", "{\"name\":\"x\"}", 0, 0, "spec.slurmKeyRef.key", "Required value", 0},
    {'A', "spec.storageConfig.host", "-", 0, 0, "spec.storageConfig.host", "Required value", 0},
    {'A', "spec.storageConfig.port", "\"3306\"", 0, 0, "spec.storageConfig.port", "integer", 0},
    {'N', "spec.partition", "{\"enabled\":true,\"config\":\"State=UP\\nMaxTime=1\"}", 0, 0,
     "spec.partition.config", "should match", 0},
    {'N', "spec.partition", "{\"enabled\":true,\"config\":\"State=UP MaxTime=1\"}", 0, 0, NULL, NULL, 0},
    {'C', "spec.metrics", "{\"serviceMonitor\":{\"interval\":\"30 seconds\"}}", 0, 0,
     "spec.metrics.serviceMonitor.interval", "should match", 0},
    {'C', "spec.metrics", "{\"serviceMonitor\":{\"interval\":\"1m30s\",\"endpoints\":[{\"path\":\"/m\",\"scrapeTimeout\":\"5x\"}]}}",
     0, 0, "spec.metrics.serviceMonitor.endpoints[0].scrapeTimeout", "should match", 0},
    {'C', "spec.metrics", "{\"serviceMonitor\":{\"endpoints\":[{}]}}", 0, 0,
     "spec.metrics.serviceMonitor.endpoints[0].path", "Required value", 0},
    {'C', "spec.persistence", "{\"resources\":{\"requests\":{\"storage\":\"4 GB\"}}}", 0, 0,
     "spec.persistence.resources.requests.storage", "should match", 0},
    {'C', "spec.persistence", "{\"resources\":{\"requests\":{\"storage\":\"4Gi\",\"x\":5}}}", 0, 0, NULL, NULL, 0},
    {'N', "spec.updateStrategy", "{\"scheduledUpdate\":{\"startTime\":\"tomorrow\"}}", 0, 0,
     "spec.updateStrategy.scheduledUpdate.startTime", "date-time", 0},
    {'N', "spec.updateStrategy", "{\"rollingUpdate\":{\"maxUnavailable\":true}}", 0, 0,
     "spec.updateStrategy.rollingUpdate.maxUnavailable", "integer or string", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"Maybe\",\"reason\":\"Ok\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00Z\"}]}",
     0, 0, "status.conditions[0].status", "Unsupported value: \"Maybe\"", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00Z\"}]}",
     0, 0, "status.conditions[0].reason", "at least 1 chars", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"conditions\":[{\"type\":\"bad type\",\"status\":\"True\",\"reason\":\"R\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00+02:00\"}]}",
     0, 0, "status.conditions[0].type", "should match", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"R\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00Z\"},{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"R\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00Z\"}]}",
     0, 0, "status.conditions[1]", "Duplicate value", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"ordinalToNode\":{\"0\":\"node-a\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"R\",\"message\":\"\",\"lastTransitionTime\":\"2024-01-01T00:00:00.5Z\"}]}",
     0, 0, NULL, NULL, 0},
    {'N', "status", "{\"selector\":\"s\"}", 0, 0, "status.nodeSetHash", "Required value", 0},
    {'N', "status", "{\"nodeSetHash\":\"h\",\"selector\":\"s\",\"ordinalToNode\":{\"0\":1}}", 0, 0,
     "status.ordinalToNode.0", "string", 0},
    {'T', "status", "{\"issuedAt\":\"2024-13-01T00:00:00Z\"}", 0, 0, "status.issuedAt", "date-time", 0},
    {'C', "metadata.name", "\"Bad_Name\"", 0, 0, "metadata.name", "RFC 1123", 0},
    {'S', "data", "{\"a\":\"!!\"}", 0, 0, "data.a", "base64", 0},
    {'S', "stringData", "{\"a\":\"!!\"}", 0, 0, NULL, NULL, 0},
    /* ---- CRD x-kubernetes-validations */
    {'C', "spec.slurmKeyRef", "-", 0, 0, "spec", "slurmKeyRef must be set when external is false", 0},
    {'C', "spec.external", "true", "spec.externalConfig", "{\"host\":\"h\",\"port\":6817}", NULL, NULL, 0},
    {'C', "spec.jwtKeyRef", "-", 0, 0, "spec", "jwtKeyRef or jwtHs256KeyRef must be set when external is false", 0},
    {'C', "spec.jwtKeyRef", "-", "spec.jwtHs256KeyRef", "{\"name\":\"x\",\"key\":\"k\"}", NULL, NULL, 0},
    {'C', "spec.external", "true", 0, 0, "spec", "externalConfig must be set when external is true", 0},
    {'C', "spec.ha", "{\"enabled\":true}", 0, 0, "spec", "high availability (HA) mode requires existing PVC", 0},
    {'C', "spec.ha", "{\"enabled\":true}", "spec.persistence", "{\"existingClaim\":\"pvc\"}", NULL, NULL, 0},
    {'C', "spec.ha", "{\"enabled\":true}", "spec.persistence", "{\"enabled\":false,\"existingClaim\":\"pvc\"}",
     "spec", "high availability (HA) mode requires existing PVC", 0},
    {'A', "spec.slurmKeyRef", "-", 0, 0, "spec", "slurmKeyRef must be set when external is false", 0},
    {'A', "spec.jwtKeyRef", "-", 0, 0, "spec", "jwtKeyRef or jwtHs256KeyRef must be set when external is false", 0},
    {'A', "spec.external", "true", 0, 0, "spec", "externalConfig must be set when external is true", 0},
    {'A', "spec.external", "true", "spec.externalConfig", "{\"host\":\"db\",\"port\":6819}", NULL, NULL, 0},
    {'N', "spec.updateStrategy", "{\"type\":\"ScheduledUpdate\"}", 0, 0, "spec.updateStrategy",
     "scheduledUpdate.startTime and scheduledUpdate.duration are required", 0},
    {'N', "spec.updateStrategy", "{\"type\":\"ScheduledUpdate\",\"scheduledUpdate\":{\"startTime\":\"2025-01-01T00:00:00Z\"}}",
     0, 0, NULL, NULL, 0},
    {'T', "spec.jwtKeyRef", "-", 0, 0, "spec", "jwtKeyRef or jwtHs256KeyRef must be set", 0},
    {'T', "spec.jwtKeyRef", "-", "spec.jwtHs256KeyRef", "{\"name\":\"x\",\"key\":\"k\"}", NULL, NULL, 0},
    {'T', "spec.username", "-", 0, 0, "spec.username", "Required value", 0},
    {'L', "spec.sssdConfRef", "-", 0, 0, "spec.sssdConfRef", "Required value", 0},
    /* ---- webhook rules */
    {'C', "spec.clusterName", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", 0, 0, "spec.clusterName",
     "ClusterName exceeds 40 characters (41)", 0},
    {'C', "spec.clusterName", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", 0, 0, NULL, NULL, 0},
    {'C', "metadata.name", "\"a-rather-long-controller-name-for-slurm\"", 0, 0, "spec.clusterName",
     "ClusterName exceeds 40 characters (46): slinky_a-rather", 0},
    {'N', "spec.controllerRef", "{\"name\":\"\"}", 0, 0, "spec.controllerRef.name", "must not be empty", 0},
    {'N', "spec.updateStrategy", "{\"rollingUpdate\":{\"maxUnavailable\":0}}", 0, 0,
     "spec.updateStrategy.rollingUpdate.maxUnavailable", "must be >= 1", 0},
    {'N', "spec.updateStrategy", "{\"rollingUpdate\":{\"maxUnavailable\":\"0%\"}}", 0, 0,
     "spec.updateStrategy.rollingUpdate.maxUnavailable", "must not be 0%", 0},
    {'N', "spec.updateStrategy", "{\"rollingUpdate\":{\"maxUnavailable\":\"10%\"}}", 0, 0, NULL, NULL, 0},
    {'N', "spec.updateStrategy", "{\"rollingUpdate\":{\"maxUnavailable\":2}}", 0, 0, NULL, NULL, 0},
    {'N', "spec.extraConf", "\"Features=gpu Weight=10  Gres=\\\"gpu:a b\\\"\"", 0, 0, NULL, NULL, 0},
    {'N', "spec.extraConf", "\"Features gpu\"", 0, 0, "spec.extraConf", "Key=Value pairs", 0},
    {'N', "spec.extraConf", "\"Weight=1\\nFeatures=x\"", 0, 0, "spec.extraConf", "Key=Value pairs", 0},
    {'N', "spec.extraConf", "\"=5\"", 0, 0, "spec.extraConf", "Key=Value pairs", 0},
    {'N', "spec.ssh", "{\"enabled\":true,\"sssdConfRef\":{\"name\":\"\",\"key\":\"sssd.conf\"}}", 0, 0,
     "spec.ssh.sssdConfRef.name", "must not be empty when ssh is enabled", 0},
    {'N', "spec.ssh", "{\"enabled\":true,\"sssdConfRef\":{\"name\":\"sssd\",\"key\":\"sssd.conf\"}}", 0, 0, NULL, NULL, 0},
    {'N', "spec.ssh", "{\"enabled\":true}", 0, 0, "spec.ssh.sssdConfRef", "Required value", 0},
    {'C', "spec.service", "{\"spec\":{\"externalIPs\":[\"192.0.2.1\"]}}", 0, 0,
     "spec.service.spec.externalIPs", "ExternalIPs may not be set", 1},
    {'L', "spec.service", "{\"spec\":{\"externalIPs\":[\"192.0.2.1\"]}}", 0, 0,
     "spec.service.spec.externalIPs", "ExternalIPs may not be set", 1},
};

static void test_validation_cases(void **state)
{
    (void)state;
    int failed = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const vcase *c = &cases[i];
        slinky_model_object *o = obj_from(base_of(c->base));
        slinky_model_problems *p = NULL;
        assert_non_null(o);
        edit(o, c->path, c->json);
        edit(o, c->path2, c->json2);
        assert_int_equal(slinky_model_validate(&p, o), 0);
        bool ok;
        if (!c->want_path) {
            ok = slinky_model_problems_error_count(p) == 0;
        } else {
            ok = slinky_model_problems_has(p, c->want_path, c->want_text);
            if (c->warning)
                ok = ok && slinky_model_problems_error_count(p) == 0;
            else
                ok = ok && slinky_model_problems_error_count(p) > 0;
        }
        if (!ok) {
            fprintf(stderr, "case %zu (%c %s=%s): expected %s %s\n", i, c->base, c->path, c->json,
                    c->want_path ? c->want_path : "valid", c->want_text ? c->want_text : "");
            print_problems(p);
            failed++;
        }
        slinky_model_problems_free(p);
        slinky_model_object_free(o);
    }
    assert_int_equal(failed, 0);
}

/* Every CEL rule in the generated table was exercised above (by message). */
static void test_every_rule_has_cases(void **state)
{
    (void)state;
    extern const size_t slinky_model__n_rules;
    typedef struct { const char *id, *message, *cel; void *fn; } rule;
    extern const rule slinky_model__rules[];
    for (size_t r = 0; r < slinky_model__n_rules; r++) {
        bool failing = false;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            if (cases[i].want_text && strstr(slinky_model__rules[r].message, cases[i].want_text))
                failing = true;
        if (!failing)
            fail_msg("rule %s has no failing case", slinky_model__rules[r].id);
    }
}

typedef struct ucase {
    char base;
    const char *path, *json;
    const char *want_path; /* NULL: allowed */
} ucase;

static const ucase updates[] = {
    {'C', "spec.clusterName", "\"other\"", "spec.clusterName"},
    {'C', "spec.clusterName", "\"slinky_slurm\"", NULL}, /* same as the default */
    {'C', "spec.slurmKeyRef", "{\"name\":\"other\",\"key\":\"slurm.key\"}", "spec.slurmKeyRef.name"},
    {'C', "spec.jwtKeyRef", "{\"name\":\"other\",\"key\":\"jwt.key\"}", "spec.jwtKeyRef"},
    {'C', "spec.persistence", "{\"enabled\":false}", "spec.persistence.enabled"},
    {'C', "spec.persistence", "{\"enabled\":true}", NULL},
    {'C', "spec.persistence", "{\"existingClaim\":\"pvc2\"}", "spec.persistence.existingClaim"},
    {'C', "spec.extraConf", "\"MaxJobCount=1000\"", NULL},
    {'C', "metadata.name", "\"renamed\"", "metadata.name"},
    {'N', "spec.controllerRef", "{\"name\":\"other\"}", "spec.controllerRef"},
    {'N', "spec.scalingMode", "\"DaemonSet\"", "spec.scalingMode"},
    {'N', "spec.scalingMode", "\"StatefulSet\"", NULL}, /* the default */
    {'N', "spec.volumeClaimTemplates", "[{\"metadata\":{\"name\":\"d\"}}]", "spec.volumeClaimTemplates"},
    {'N', "spec.replicas", "5", NULL},
    {'T', "spec.jwtKeyRef", "{\"name\":\"other\",\"key\":\"jwt.key\"}", "spec.jwtKeyRef"},
    {'T', "spec.jwtHs256KeyRef", "{\"name\":\"hs\",\"key\":\"jwt.key\"}", "spec.jwtHs256KeyRef"},
    {'T', "spec.lifetime", "\"30m\"", NULL},
};

static void test_update_cases(void **state)
{
    (void)state;
    int failed = 0;
    for (size_t i = 0; i < sizeof(updates) / sizeof(updates[0]); i++) {
        const ucase *c = &updates[i];
        slinky_model_object *old = obj_from(base_of(c->base)), *new_ = NULL;
        slinky_model_problems *p = NULL;
        assert_int_equal(slinky_model_object_copy(&new_, old), 0);
        edit(new_, c->path, c->json);
        assert_int_equal(slinky_model_validate_update(&p, old, new_), 0);
        bool ok = c->want_path ? slinky_model_problems_has(p, c->want_path, NULL) &&
                                     slinky_model_problems_error_count(p) > 0
                               : slinky_model_problems_error_count(p) == 0;
        if (!ok) {
            fprintf(stderr, "update %zu (%c %s=%s): expected %s\n", i, c->base, c->path, c->json,
                    c->want_path ? c->want_path : "allowed");
            print_problems(p);
            failed++;
        }
        slinky_model_problems_free(p);
        slinky_model_object_free(old);
        slinky_model_object_free(new_);
    }
    assert_int_equal(failed, 0);

    /* another kind altogether */
    slinky_model_object *a = obj_from(base_of('C')), *b = obj_from(base_of('N'));
    slinky_model_problems *p = NULL;
    assert_int_equal(slinky_model_validate_update(&p, a, b), 0);
    assert_true(slinky_model_problems_has(p, "kind", "immutable"));
    slinky_model_problems_free(p);
    slinky_model_object_free(a);
    slinky_model_object_free(b);
}

/* A key written twice is an error naming both lines, in YAML and JSON (kubectl and the
 * API server's strict field validation refuse it; "the last one wins" hides a typo). */
static void test_duplicate_keys(void **state)
{
    (void)state;
    static const char *const texts[] = {
        HDR "kind: NodeSet\nmetadata: {name: cpu, namespace: slinky}\nspec:\n"
            "  controllerRef: {name: slurm}\n  replicas: 2\n  replicas: 3\n",
        "{\"apiVersion\": \"slinky.slurm.net/v1beta1\", \"kind\": \"NodeSet\",\n"
        " \"metadata\": {\"name\": \"cpu\", \"namespace\": \"slinky\"},\n"
        " \"spec\": {\"controllerRef\": {\"name\": \"slurm\"},\n"
        "  \"replicas\": 2,\n  \"x\": 1,\n  \"replicas\": 3}}\n"};
    static const char *const want[] = {"line 7: duplicate key \"replicas\" (already defined at line 6)",
                                       "line 6: duplicate key \"replicas\" (already defined at line 4)"};
    for (size_t i = 0; i < 2; i++) {
        slinky_model_object *o = NULL;
        assert_int_equal(slinky_model_object_parse(&o, texts[i], strlen(texts[i])), SLINKY_EPARSE);
        assert_null(o);
        const char *msg = slinky_error_last()->message;
        if (!strstr(msg, want[i]))
            fail_msg("case %zu: %s", i, msg);
    }
    /* a merge key's members may be overridden; only keys written twice are refused */
    const char *merge = HDR "kind: NodeSet\nmetadata: {name: cpu, namespace: slinky}\n"
                            "x: &b {replicas: 2}\nspec:\n  <<: *b\n  controllerRef: {name: slurm}\n"
                            "  replicas: 3\n";
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_yaml(&d, merge, strlen(merge)), 0);
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(d), "spec.replicas", -1), 3);
    slinky_doc_free(d);
}

static void test_config_map_files(void **state)
{
    (void)state;
    slinky_model_object *c = obj_from(base_of('C'));
    slinky_model_object *cm = obj_from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n"
                                       "data: {slurm.conf: x, gres.conf: y, my.conf: z}\n");
    slinky_model_object *other = obj_from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nope}\n");
    slinky_model_problems *p = NULL;
    edit(c, "spec.configFileRefs", "[{\"name\":\"first\"},{\"name\":\"extra\"}]");
    assert_int_equal(slinky_model_problems_new(&p), 0);
    assert_int_equal(slinky_model_validate_config_map(p, c, cm), 0);
    assert_int_equal(slinky_model_problems_count(p), 2);
    assert_int_equal(slinky_model_problems_error_count(p), 1);
    assert_string_equal(slinky_model_problems_get_path(p, 0), "spec.configFileRefs[1]");
    assert_non_null(strstr(slinky_model_problems_get_message(p, 0), "reserved for slurm-operator use: slurm.conf"));
    assert_int_equal(slinky_model_problems_get_severity(p, 1), SLINKY_MODEL_WARNING);
    assert_non_null(strstr(slinky_model_problems_get_message(p, 1), "unknown to Slurm"));
    assert_non_null(strstr(slinky_model_problems_get_message(p, 1), "my.conf"));
    assert_int_equal(slinky_model_validate_config_map(p, c, other), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_validate_config_map(p, cm, c), SLINKY_EINVALID);
    slinky_model_problems_free(p);
    slinky_model_object_free(c);
    slinky_model_object_free(cm);
    slinky_model_object_free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validation_cases),
        cmocka_unit_test(test_every_rule_has_cases),
        cmocka_unit_test(test_update_cases),
        cmocka_unit_test(test_config_map_files),
        cmocka_unit_test(test_duplicate_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
