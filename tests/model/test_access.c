/* Typed and generic access, presence, defaults, copy/equality/hash,
 * conditions, owner references and metadata. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/helpers.h"
#include "model/internal.h"

static const char *controller_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\n"
    "kind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: 1111-2222, labels: {app: slurm}}\n"
    "spec:\n"
    "  slurmKeyRef: {name: auth-slurm, key: slurm.key}\n"
    "  jwtHs256KeyRef: {name: auth-jwt, key: jwt.key}\n"
    "  accountingRef: {name: acct}\n"
    "  extraConf: \"MaxJobCount=1000\"\n"
    "  configFileRefs: [{name: cgroup}, {name: gres}]\n"
    "  prologScriptRefs: [{name: prolog}]\n"
    "  externalConfig: {host: ctld.example, port: 6817}\n"
    "  persistence: {accessModes: [ReadWriteOnce, ReadWriteMany]}\n"
    "  template: {metadata: {labels: {app.kubernetes.io/name: slurmctld}}, spec: {hostname: x}}\n";

static void test_typed_getters(void **state)
{
    (void)state;
    slinky_model_object *c = obj_from(controller_yaml);
    const char *s = NULL;
    int64_t n = 0;
    bool b = true;
    const slinky_doc_value *v = NULL;
    assert_non_null(c);
    assert_int_equal(slinky_model_controller_get_slurm_key_ref_name(&s, c), 0);
    assert_string_equal(s, "auth-slurm");
    assert_int_equal(slinky_model_controller_get_jwt_hs256_key_ref_key(&s, c), 0);
    assert_string_equal(s, "jwt.key");
    assert_false(slinky_model_controller_has_jwt_key_ref(c));
    assert_int_equal(slinky_model_controller_get_jwt_key_ref_key(&s, c), SLINKY_ENOTFOUND);
    assert_string_equal(s, "jwt.key"); /* unchanged on failure */
    assert_int_equal(slinky_model_controller_get_accounting_ref_name(&s, c), 0);
    assert_string_equal(s, "acct");
    assert_int_equal(slinky_model_controller_get_extra_conf(&s, c), 0);
    assert_string_equal(s, "MaxJobCount=1000");
    assert_int_equal(slinky_model_controller_get_config_file_refs_count(c), 2);
    assert_int_equal(slinky_model_controller_get_config_file_refs_name(&s, c, 1), 0);
    assert_string_equal(s, "gres");
    assert_int_equal(slinky_model_controller_get_config_file_refs_name(&s, c, 2), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_controller_get_prolog_script_refs_count(c), 1);
    assert_int_equal(slinky_model_controller_get_epilog_script_refs_count(c), 0);
    assert_int_equal(slinky_model_controller_get_external_config_host(&s, c), 0);
    assert_string_equal(s, "ctld.example");
    assert_int_equal(slinky_model_controller_get_external_config_port(&n, c), 0);
    assert_int_equal(n, 6817);
    /* optional scalars: unset differs from false */
    assert_false(slinky_model_controller_has_external(c));
    assert_int_equal(slinky_model_controller_get_external(&b, c), SLINKY_ENOTFOUND);
    assert_true(b);
    assert_int_equal(slinky_model_controller_set_external(c, false), 0);
    assert_true(slinky_model_controller_has_external(c));
    assert_int_equal(slinky_model_controller_get_external(&b, c), 0);
    assert_false(b);
    assert_int_equal(slinky_model_controller_get_persistence_access_modes_item(&s, c, 1), 0);
    assert_string_equal(s, "ReadWriteMany");
    assert_int_equal(slinky_model_controller_get_template_metadata_labels_entry(&s, c, "app.kubernetes.io/name"), 0);
    assert_string_equal(s, "slurmctld");
    assert_int_equal(slinky_model_controller_get_template_spec(&v, c), 0);
    assert_string_equal(slinky_doc_value_path_string(v, "hostname", ""), "x");
    /* a typed accessor of another kind refuses */
    assert_int_equal(slinky_model_nodeset_get_replicas(&n, c), SLINKY_EINVALID);
    assert_false(slinky_model_nodeset_has_replicas(c));
    /* ha unset */
    assert_false(slinky_model_controller_has_ha(c));
    assert_int_equal(slinky_model_controller_get_ha_backups(&n, c), SLINKY_ENOTFOUND);
    slinky_model_object_free(c);
}

static void test_generic_paths(void **state)
{
    (void)state;
    slinky_model_object *c = obj_from(controller_yaml);
    const char *s = NULL;
    int64_t n = 0;
    assert_int_equal(slinky_model_get_string(&s, c, "spec.configFileRefs[0].name"), 0);
    assert_string_equal(s, "cgroup");
    assert_int_equal(slinky_model_get_string(&s, c, "spec.template.metadata.labels[\"app.kubernetes.io/name\"]"), 0);
    assert_string_equal(s, "slurmctld");
    assert_int_equal(slinky_model_get_string(&s, c, "metadata.labels.app"), 0);
    assert_string_equal(s, "slurm");
    /* pass-through subtree: any path is accepted */
    assert_int_equal(slinky_model_get_string(&s, c, "spec.template.spec.hostname"), 0);
    assert_true(slinky_model_path_is_known(SLINKY_MODEL_KIND_CONTROLLER, "spec.slurmctld.image"));
    assert_true(slinky_model_path_is_known(SLINKY_MODEL_KIND_NODESET, "status.ordinalToNode.3"));
    assert_false(slinky_model_path_is_known(SLINKY_MODEL_KIND_CONTROLLER, "spec.nope"));
    assert_false(slinky_model_path_is_known(SLINKY_MODEL_KIND_CONTROLLER, "spec..x"));
    /* schema checks */
    assert_int_equal(slinky_model_get_string(&s, c, "spec.nope"), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.nope"));
    assert_int_equal(slinky_model_get_int(&n, c, "spec.extraConf"), SLINKY_EINVALID);
    assert_int_equal(slinky_model_set_int(c, "spec.extraConf", 3), SLINKY_EINVALID);
    assert_int_equal(slinky_model_get_string(&s, c, "spec.clusterName"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_set_string(c, "spec.clusterName", "lab"), 0);
    assert_int_equal(slinky_model_controller_get_cluster_name(&s, c), 0);
    assert_string_equal(s, "lab");
    assert_int_equal(slinky_model_set_int(c, "spec.ha.backups", 2), 0); /* parent created */
    assert_int_equal(slinky_model_controller_get_ha_backups(&n, c), 0);
    assert_int_equal(n, 2);
    assert_int_equal(slinky_model_set_string(c, "spec.configFileRefs[5].name", "x"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_get_count(c, "spec.configFileRefs"), 2);
    assert_int_equal(slinky_model_unset(c, "spec.configFileRefs[0]"), 0);
    assert_int_equal(slinky_model_get_count(c, "spec.configFileRefs"), 1);
    assert_int_equal(slinky_model_unset(c, "spec.clusterName"), 0);
    assert_int_equal(slinky_model_unset(c, "spec.clusterName"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_controller_set_template_metadata_labels_entry(c, "a.b/c", "d"), 0);
    assert_string_equal(slinky_doc_value_path_string(slinky_model_object_get_value(c),
                        "spec.template.metadata.labels[\"a.b/c\"]", ""), "d");
    /* int-or-string */
    slinky_model_object *ns = NULL;
    assert_int_equal(slinky_model_object_new(&ns, SLINKY_MODEL_KIND_NODESET, "slinky", "cpu"), 0);
    assert_int_equal(slinky_model_nodeset_set_update_strategy_rolling_update_max_unavailable_int(ns, 2), 0);
    assert_int_equal(slinky_model_nodeset_get_update_strategy_rolling_update_max_unavailable_string(&s, ns), SLINKY_EINVALID);
    assert_int_equal(slinky_model_nodeset_get_update_strategy_rolling_update_max_unavailable_int(&n, ns), 0);
    assert_int_equal(n, 2);
    assert_int_equal(slinky_model_nodeset_set_status_ordinal_to_node_entry(ns, "0", "node-a"), 0);
    assert_int_equal(slinky_model_nodeset_get_status_ordinal_to_node_entry(&s, ns, "0"), 0);
    assert_string_equal(s, "node-a");
    assert_int_equal(slinky_model_nodeset_get_status_ordinal_to_node_entry(&s, ns, "1"), SLINKY_ENOTFOUND);
    slinky_model_object_free(ns);
    slinky_model_object_free(c);
}

static int64_t int_at(const slinky_model_object *o, const char *path)
{
    int64_t n = -999;
    if (slinky_model_get_int(&n, o, path))
        fail_msg("%s: %s", path, slinky_error_last()->message);
    return n;
}

static const char *str_at(const slinky_model_object *o, const char *path)
{
    const char *s = NULL;
    if (slinky_model_get_string(&s, o, path))
        fail_msg("%s: %s", path, slinky_error_last()->message);
    return s;
}

static bool bool_at(const slinky_model_object *o, const char *path)
{
    bool b = false;
    if (slinky_model_get_bool(&b, o, path))
        fail_msg("%s: %s", path, slinky_error_last()->message);
    return b;
}

static void test_defaults(void **state)
{
    (void)state;
    slinky_model_object *c = NULL, *ns = NULL, *a = NULL, *t = NULL, *ls = NULL, *ra = NULL;
    /* CRD defaults only fill objects that exist */
    assert_int_equal(slinky_model_object_new(&ns, SLINKY_MODEL_KIND_NODESET, "slinky", "cpu"), 0);
    assert_int_equal(slinky_model_object_apply_defaults(ns, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_int_equal(int_at(ns, "spec.replicas"), 1);
    assert_string_equal(str_at(ns, "spec.scalingMode"), "StatefulSet");
    assert_true(bool_at(ns, "spec.workloadDisruptionProtection"));
    assert_string_equal(str_at(ns, "spec.pruneSlurmNodeRecords"), "Never");
    assert_false(slinky_model_has(ns, "spec.updateStrategy"));
    /* operator defaults create the parents */
    assert_int_equal(slinky_model_object_apply_defaults(ns, SLINKY_MODEL_DEFAULT_ALL), 0);
    assert_string_equal(str_at(ns, "spec.updateStrategy.type"), "RollingUpdate");
    assert_string_equal(str_at(ns, "spec.updateStrategy.rollingUpdate.maxUnavailable"), "25%");
    assert_false(slinky_model_has(ns, "spec.updateStrategy.scheduledUpdate"));
    assert_string_equal(str_at(ns, "spec.persistentVolumeClaimRetentionPolicy.whenScaled"), "Retain");
    /* maxUnavailable only for RollingUpdate */
    slinky_model_object *od = obj_from("apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
                                       "metadata: {name: x}\nspec: {updateStrategy: {type: OnDelete}}\n");
    assert_int_equal(slinky_model_object_apply_defaults(od, SLINKY_MODEL_DEFAULT_ALL), 0);
    assert_false(slinky_model_has(od, "spec.updateStrategy.rollingUpdate"));
    assert_int_equal(int_at(od, "spec.replicas"), 1);
    slinky_model_object_free(od);
    assert_int_equal(slinky_model_set_string(ns, "spec.updateStrategy.scheduledUpdate.startTime", "2025-01-01T00:00:00Z"), 0);
    assert_int_equal(slinky_model_object_apply_defaults(ns, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_string_equal(str_at(ns, "spec.updateStrategy.scheduledUpdate.duration"), "30m");
    /* existing values are kept */
    assert_int_equal(slinky_model_nodeset_set_replicas(ns, 4), 0);
    assert_int_equal(slinky_model_object_apply_defaults(ns, SLINKY_MODEL_DEFAULT_ALL), 0);
    assert_int_equal(int_at(ns, "spec.replicas"), 4);

    assert_int_equal(slinky_model_object_new(&c, SLINKY_MODEL_KIND_CONTROLLER, "slinky", "slurm"), 0);
    assert_int_equal(slinky_model_object_apply_defaults(c, SLINKY_MODEL_DEFAULT_ALL), 0);
    assert_string_equal(str_at(c, "spec.clusterName"), "slinky_slurm");
    assert_false(slinky_model_has(c, "spec.ha"));
    assert_int_equal(slinky_model_controller_set_ha_enabled(c, true), 0);
    assert_int_equal(slinky_model_object_apply_defaults(c, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_int_equal(int_at(c, "spec.ha.backups"), 1);
    assert_true(bool_at(c, "spec.persistence.enabled"));
    assert_false(bool_at(c, "spec.external"));
    char *cn = NULL;
    assert_int_equal(slinky_model_controller_cluster_name(&cn, c), 0);
    assert_string_equal(cn, "slinky_slurm");
    slinky_free(cn);

    a = obj_from("apiVersion: slinky.slurm.net/v1beta1\nkind: Accounting\nmetadata: {name: a}\n"
                 "spec: {storageConfig: {host: db, passwordKeyRef: {name: p, key: k}}}\n");
    assert_int_equal(slinky_model_object_apply_defaults(a, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_int_equal(int_at(a, "spec.storageConfig.port"), 3306);
    assert_string_equal(str_at(a, "spec.storageConfig.database"), "slurm_acct_db");
    assert_string_equal(str_at(a, "spec.storageConfig.passwordKeyRef.name"), "p");

    t = obj_from("apiVersion: slinky.slurm.net/v1beta1\nkind: Token\nmetadata: {name: t}\n"
                 "spec: {username: u, jwtKeyRef: {key: k}}\n");
    assert_int_equal(slinky_model_object_apply_defaults(t, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_true(bool_at(t, "spec.refresh"));
    assert_string_equal(str_at(t, "spec.jwtKeyRef.name"), ""); /* name default "" */

    assert_int_equal(slinky_model_object_new(&ls, SLINKY_MODEL_KIND_LOGINSET, "s", "l"), 0);
    assert_int_equal(slinky_model_object_new(&ra, SLINKY_MODEL_KIND_RESTAPI, "s", "r"), 0);
    assert_int_equal(slinky_model_object_apply_defaults(ls, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_int_equal(slinky_model_object_apply_defaults(ra, SLINKY_MODEL_DEFAULT_CRD), 0);
    assert_int_equal(int_at(ls, "spec.replicas"), 1);
    assert_int_equal(int_at(ra, "spec.replicas"), 1);
    assert_int_equal(slinky_model_object_apply_defaults(ra, 8), SLINKY_EINVALID);

    slinky_model_object_free(c);
    slinky_model_object_free(ns);
    slinky_model_object_free(a);
    slinky_model_object_free(t);
    slinky_model_object_free(ls);
    slinky_model_object_free(ra);
}

static void test_copy_equal_hash(void **state)
{
    (void)state;
    slinky_model_object *a = obj_from(controller_yaml), *b = NULL, *c = NULL;
    char *ha = NULL, *hb = NULL, *hc = NULL;
    assert_int_equal(slinky_model_object_copy(&b, a), 0);
    assert_true(slinky_model_object_equal(a, b));
    /* explicit defaults and nulls do not change the spec semantically */
    assert_int_equal(slinky_model_controller_set_external(b, false), 0);
    assert_int_equal(slinky_model_object_set_label(b, "x", "y"), 0);
    assert_false(slinky_model_object_equal(a, b));
    assert_true(slinky_model_object_spec_equal(a, b));
    assert_int_equal(slinky_model_object_spec_hash(&ha, a), 0);
    assert_int_equal(slinky_model_object_spec_hash(&hb, b), 0);
    assert_int_equal(strlen(ha), 64);
    assert_string_equal(ha, hb);
    /* a real change changes both */
    assert_int_equal(slinky_model_object_copy(&c, a), 0);
    assert_int_equal(slinky_model_controller_set_extra_conf(c, "MaxJobCount=2000"), 0);
    assert_false(slinky_model_object_spec_equal(a, c));
    assert_int_equal(slinky_model_object_spec_hash(&hc, c), 0);
    assert_string_not_equal(ha, hc);
    /* member order does not matter */
    slinky_model_object *r = obj_from(
        "{\"kind\":\"Controller\",\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"metadata\":{\"name\":\"slurm\"},"
        "\"spec\":{\"jwtHs256KeyRef\":{\"key\":\"jwt.key\",\"name\":\"auth-jwt\"},\"slurmKeyRef\":{\"key\":\"slurm.key\",\"name\":\"auth-slurm\"}}}");
    slinky_model_object *s = obj_from(
        "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\nmetadata: {name: other}\n"
        "spec: {slurmKeyRef: {name: auth-slurm, key: slurm.key}, jwtHs256KeyRef: {name: auth-jwt, key: jwt.key}, configFileRefs: null}\n");
    char *hr = NULL, *hs = NULL;
    assert_int_equal(slinky_model_object_spec_hash(&hr, r), 0);
    assert_int_equal(slinky_model_object_spec_hash(&hs, s), 0);
    assert_string_equal(hr, hs);
    /* SHA-256 itself: FIPS 180-2 vectors */
    char hex[65];
    slinky_model__sha256_hex(hex, "abc", 3);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    slinky_model__sha256_hex(hex, "", 0);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    slinky_model__sha256_hex(hex, two, strlen(two));
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    slinky_free(ha);
    slinky_free(hb);
    slinky_free(hc);
    slinky_free(hr);
    slinky_free(hs);
    slinky_model_object_free(a);
    slinky_model_object_free(b);
    slinky_model_object_free(c);
    slinky_model_object_free(r);
    slinky_model_object_free(s);
}

static void test_conditions(void **state)
{
    (void)state;
    slinky_model_object *ns = NULL;
    const slinky_doc_value *c = NULL;
    const char *s = NULL;
    assert_int_equal(slinky_model_object_new(&ns, SLINKY_MODEL_KIND_NODESET, "slinky", "cpu"), 0);
    assert_int_equal(slinky_model_condition_get(&c, ns, "Ready"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_condition_set(ns, "Ready", "False", "Starting", "pods pending", 1,
                                                "2025-01-01T00:00:00Z"), 0);
    assert_int_equal(slinky_model_condition_get_status(&s, ns, "Ready"), 0);
    assert_string_equal(s, "False");
    /* same status: lastTransitionTime kept, message/reason updated */
    assert_int_equal(slinky_model_condition_set(ns, "Ready", "False", "Waiting", "still", 2,
                                                "2025-01-01T00:05:00Z"), 0);
    assert_int_equal(slinky_model_condition_get(&c, ns, "Ready"), 0);
    assert_string_equal(slinky_doc_value_path_string(c, "lastTransitionTime", ""), "2025-01-01T00:00:00Z");
    assert_string_equal(slinky_doc_value_path_string(c, "reason", ""), "Waiting");
    assert_int_equal(slinky_doc_value_path_int(c, "observedGeneration", 0), 2);
    /* status change: new time */
    assert_int_equal(slinky_model_condition_set(ns, "Ready", "True", "Ready", "", 2,
                                                "2025-01-01T00:10:00Z"), 0);
    assert_int_equal(slinky_model_condition_get(&c, ns, "Ready"), 0);
    assert_string_equal(slinky_doc_value_path_string(c, "lastTransitionTime", ""), "2025-01-01T00:10:00Z");
    assert_true(slinky_model_condition_is_true(ns, "Ready"));
    assert_int_equal(slinky_model_condition_set(ns, "Degraded", "False", "Fine", NULL, -1, NULL), 0);
    assert_int_equal(slinky_model_get_count(ns, "status.conditions"), 2);
    assert_int_equal(slinky_model_condition_set(ns, "X", "Maybe", "R", NULL, -1, NULL), SLINKY_EINVALID);
    assert_int_equal(slinky_model_condition_set(ns, "X", "True", "", NULL, -1, NULL), SLINKY_EINVALID);
    /* the conditions validate against the schema */
    slinky_model_problems *p = NULL;
    assert_int_equal(slinky_model_set_string(ns, "status.nodeSetHash", "h"), 0);
    assert_int_equal(slinky_model_set_string(ns, "status.selector", "s"), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.controllerRef.name", "slurm"), 0);
    assert_int_equal(slinky_model_validate(&p, ns), 0);
    print_problems(p);
    assert_int_equal(slinky_model_problems_error_count(p), 0);
    slinky_model_problems_free(p);
    assert_int_equal(slinky_model_condition_remove(ns, "Ready"), 0);
    assert_int_equal(slinky_model_condition_remove(ns, "Ready"), SLINKY_ENOTFOUND);
    assert_false(slinky_model_condition_is_true(ns, "Ready"));
    slinky_model_object *cm = NULL;
    assert_int_equal(slinky_model_object_new(&cm, SLINKY_MODEL_KIND_CONFIGMAP, "s", "c"), 0);
    assert_int_equal(slinky_model_condition_set(cm, "Ready", "True", "R", NULL, -1, NULL), SLINKY_EINVALID);
    slinky_model_object_free(cm);
    slinky_model_object_free(ns);
}

static void test_meta_and_owners(void **state)
{
    (void)state;
    slinky_model_object *c = obj_from(controller_yaml), *cm = NULL, *sec = NULL;
    const char *s = NULL;
    assert_string_equal(slinky_model_object_get_name(c), "slurm");
    assert_string_equal(slinky_model_object_get_namespace(c), "slinky");
    assert_string_equal(slinky_model_object_get_uid(c), "1111-2222");
    assert_null(slinky_model_object_get_resource_version(c));
    assert_int_equal(slinky_model_object_get_label(&s, c, "app"), 0);
    assert_string_equal(s, "slurm");
    assert_int_equal(slinky_model_object_get_annotation(&s, c, "x"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_model_object_set_annotation(c, "x", "1"), 0);
    assert_int_equal(slinky_model_object_get_annotation(&s, c, "x"), 0);
    assert_int_equal(slinky_model_object_set_annotation(c, "x", NULL), 0);
    assert_int_equal(slinky_model_object_get_annotation(&s, c, "x"), SLINKY_ENOTFOUND);

    assert_int_equal(slinky_model_object_new(&cm, SLINKY_MODEL_KIND_CONFIGMAP, "slinky", "slurm-conf"), 0);
    assert_int_equal(slinky_model_configmap_set_data_entry(cm, "slurm.conf", "ClusterName=x\n"), 0);
    assert_int_equal(slinky_model_configmap_get_data_entry(&s, cm, "slurm.conf"), 0);
    assert_string_equal(s, "ClusterName=x\n");
    assert_int_equal(slinky_model_object_set_owner(cm, c, true), 0);
    assert_int_equal(slinky_model_object_set_owner(cm, c, true), 0); /* idempotent */
    assert_true(slinky_model_object_is_owned_by(cm, c));
    const slinky_doc_value *refs = NULL;
    assert_int_equal(slinky_model_get_value(&refs, cm, "metadata.ownerReferences"), 0);
    assert_int_equal(slinky_doc_value_size(refs), 1);
    const slinky_doc_value *r = slinky_doc_value_at(refs, 0);
    assert_string_equal(slinky_doc_value_path_string(r, "apiVersion", ""), "slinky.slurm.net/v1beta1");
    assert_string_equal(slinky_doc_value_path_string(r, "kind", ""), "Controller");
    assert_string_equal(slinky_doc_value_path_string(r, "uid", ""), "1111-2222");
    assert_true(slinky_doc_value_path_bool(r, "controller", false));
    /* a second controller is a conflict */
    slinky_model_object *other = obj_from("apiVersion: slinky.slurm.net/v1beta1\nkind: Accounting\n"
                                          "metadata: {name: a, uid: \"3333\"}\n");
    assert_int_equal(slinky_model_object_set_owner(cm, other, true), SLINKY_ECONFLICT);
    assert_int_equal(slinky_model_object_set_owner(cm, other, false), 0);
    assert_int_equal(slinky_doc_value_size(refs), 2);
    /* owner without uid */
    assert_int_equal(slinky_model_object_new(&sec, SLINKY_MODEL_KIND_SECRET, "slinky", "s"), 0);
    assert_int_equal(slinky_model_object_set_owner(cm, sec, false), SLINKY_EINVALID);
    assert_int_equal(slinky_model_secret_set_string_data_entry(sec, "k", "v"), 0);
    assert_int_equal(slinky_model_secret_set_type(sec, "Opaque"), 0);
    /* list items without apiVersion/kind */
    slinky_doc *item = NULL;
    slinky_model_object *fromlist = NULL;
    const char *itext = "{\"metadata\":{\"name\":\"c1\"},\"data\":{\"a\":\"b\"}}";
    assert_int_equal(slinky_doc_parse_json(&item, itext, strlen(itext)), 0);
    assert_int_equal(slinky_model_object_new_from_value(&fromlist, slinky_doc_root(item)), SLINKY_EINVALID);
    assert_int_equal(slinky_model_object_new_from_value_kind(&fromlist, SLINKY_MODEL_KIND_CONFIGMAP,
                                                             slinky_doc_root(item)), 0);
    assert_int_equal(slinky_model_object_get_kind(fromlist), SLINKY_MODEL_KIND_CONFIGMAP);
    assert_string_equal(str_at(fromlist, "apiVersion"), "v1");
    slinky_model_object_free(fromlist);
    fromlist = NULL;
    assert_int_equal(slinky_model_object_new_from_value_kind(&fromlist, SLINKY_MODEL_KIND_SECRET,
                                                             slinky_model_object_get_value(cm)), SLINKY_EINVALID);
    assert_null(fromlist);
    slinky_doc_free(item);
    /* lease */
    slinky_model_object *l = NULL;
    int64_t n = 0;
    assert_int_equal(slinky_model_object_new(&l, SLINKY_MODEL_KIND_LEASE, "slinky", "op"), 0);
    assert_string_equal(str_at(l, "apiVersion"), "coordination.k8s.io/v1");
    assert_int_equal(slinky_model_lease_set_holder_identity(l, "pod-1"), 0);
    assert_int_equal(slinky_model_lease_set_lease_duration_seconds(l, 15), 0);
    assert_int_equal(slinky_model_lease_get_lease_duration_seconds(&n, l), 0);
    assert_int_equal(n, 15);
    slinky_model_problems *p = NULL;
    assert_int_equal(slinky_model_validate(&p, l), 0);
    assert_int_equal(slinky_model_problems_count(p), 0);
    slinky_model_problems_free(p);
    assert_int_equal(slinky_model_kind_lookup("Lease"), SLINKY_MODEL_KIND_LEASE);
    assert_null(slinky_model_crd_file_name(SLINKY_MODEL_KIND_LEASE));
    slinky_model_object_free(l);
    slinky_model_object_free(other);
    slinky_model_object_free(sec);
    slinky_model_object_free(cm);
    slinky_model_object_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_getters),   cmocka_unit_test(test_generic_paths),
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_copy_equal_hash),
        cmocka_unit_test(test_conditions),      cmocka_unit_test(test_meta_and_owners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
