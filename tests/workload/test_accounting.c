/*
 * workload/accounting: an Accounting's objects as upstream makes them:
 *   ../shared/upstream/slinky/src/internal/builder/accountingbuilder/accounting_service.go,
 *   accounting_config.go (Secret with slurmdbd.conf, StoragePass from passwordKeyRef,
 *   extraConf and the MERGED CONFIG section; accounting_config_test.go),
 *   accounting_app.go (StatefulSet; accounting_app_test.go),
 *   ../shared/upstream/slinky/src/internal/controller/accounting/accounting_sync.go
 *   (order; nothing for an external slurmdbd).
 */
#include "wl_test.h"

static const char *acct_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Accounting\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-acct, labels: {team: hpc}}\n"
    "spec:\n"
    "  slurmKeyRef: {name: slurm-key, key: slurm.key}\n"
    "  jwtKeyRef: {name: jwt-key, key: jwt.key}\n"
    "  storageConfig: {host: mariadb, port: 3306, username: slurm, database: slurm_acct_db, "
    "passwordKeyRef: {name: mariadb, key: password}}\n"
    "  extraConf: \"CommitDelay=1\\nAuthInfo=cred_expire=70\"\n"
    "  slurmdbd: {image: ghcr.io/slinkyproject/slurmdbd:25.05}\n"
    "  service: {spec: {type: ClusterIP}}\n"
    "---\napiVersion: v1\nkind: Secret\nmetadata: {name: mariadb, namespace: slinky}\n"
    "data: {password: bWFyaWFkYi1wYXNzd29yZA==}\n" /* mariadb-password */
    WL_SECRETS("slinky");

static slinky_model_object *acct(wl_cluster *c)
{
    return wl_obj(c, SLINKY_MODEL_KIND_ACCOUNTING, "slurm");
}

static void test_objects(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, acct_yaml);
    assert_int_equal(slinky_workload_build_accounting(c.w, acct(&c), &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 3);
    assert_string_equal(slinky_workload_kind_at(c.w, 0), "Service");
    assert_string_equal(slinky_workload_kind_at(c.w, 1), "Secret");
    assert_string_equal(slinky_workload_kind_at(c.w, 2), "StatefulSet");
    const char *labels =
        "{\"team\":\"hpc\",\"app.kubernetes.io/name\":\"slurmdbd\",\"app.kubernetes.io/instance\":\"slurm\","
        "\"app.kubernetes.io/component\":\"accounting\"}";
    for (size_t i = 0; i < 3; i++) {
        const slinky_doc_value *r = slinky_doc_root(slinky_workload_at(c.w, i));
        assert_string_equal(wl_str(r, "metadata.name"), "slurm-accounting");
        wl_json_eq(r, "metadata.labels", labels);
        wl_json_eq(r, "metadata.ownerReferences",
                   "[{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"Accounting\",\"name\":\"slurm\","
                   "\"uid\":\"uid-acct\",\"controller\":true,\"blockOwnerDeletion\":true}]");
    }
    /* accounting_service.go */
    wl_json_eq(wl_built(&c, "Service", "slurm-accounting"), "spec",
               "{\"type\":\"ClusterIP\",\"ports\":[{\"name\":\"slurmdbd\",\"protocol\":\"TCP\",\"port\":6819,"
               "\"targetPort\":\"slurmdbd\"}],\"selector\":{\"app.kubernetes.io/name\":\"slurmdbd\","
               "\"app.kubernetes.io/instance\":\"slurm\"}}");
    wl_free(&c);
}

static void test_secret(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, acct_yaml);
    assert_int_equal(slinky_workload_build_accounting(c.w, acct(&c), &c.in), 0);
    const slinky_doc_value *s = wl_built(&c, "Secret", "slurm-accounting");
    assert_false(wl_bool(s, "immutable"));
    assert_int_equal(wl_size(s, "stringData"), 1);
    const char *conf = wl_str(s, "stringData[\"slurmdbd.conf\"]");
    /* buildSlurmdbdConf: sections and values */
    static const char *const lines[] = {
        "DbdHost=slurm-accounting-0\n", "DbdPort=6819\n", "SlurmUser=slurm\n",
        "StorageType=accounting_storage/mysql\n", "StorageHost=mariadb\n", "StoragePort=3306\n",
        "StorageUser=slurm\n", "StorageLoc=slurm_acct_db\n", "StoragePass=mariadb-password\n",
        "### EXTRA CONFIG ###\nCommitDelay=1\nAuthInfo=cred_expire=70\n",
        /* BuildMergedConfig: the operator's use_client_ids plus the user's option */
        "### MERGED CONFIG ###\nAuthInfo=cred_expire=70,use_client_ids",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++)
        if (!strstr(conf, lines[i]))
            fail_msg("slurmdbd.conf lacks %s\n%s", lines[i], conf);
    /* byte for byte what the conf renderer makes */
    slinky_conf_accounting ca = {"slurm", "mariadb", 3306, "slurm", "mariadb-password",
                                 "slurm_acct_db", "CommitDelay=1\nAuthInfo=cred_expire=70", false};
    char *want = NULL;
    assert_int_equal(slinky_conf_render_slurmdbd(&want, &ca, NULL), 0);
    assert_string_equal(conf, want);
    slinky_free(want);
    wl_free(&c);
}

static void test_stateful_set(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, acct_yaml);
    assert_int_equal(slinky_workload_build_accounting(c.w, acct(&c), &c.in), 0);
    const slinky_doc_value *s = wl_built(&c, "StatefulSet", "slurm-accounting");
    assert_string_equal(wl_str(s, "spec.podManagementPolicy"), "Parallel");
    assert_int_equal(wl_int(s, "spec.replicas"), 1);
    assert_int_equal(wl_int(s, "spec.revisionHistoryLimit"), 0);
    assert_string_equal(wl_str(s, "spec.serviceName"), "slurm-accounting");
    wl_json_eq(s, "spec.selector.matchLabels",
               "{\"app.kubernetes.io/name\":\"slurmdbd\",\"app.kubernetes.io/instance\":\"slurm\"}");
    const slinky_doc_value *t = slinky_doc_value_path(s, "spec.template");
    const slinky_doc_value *ann = slinky_doc_value_path(t, "metadata.annotations");
    assert_string_equal(wl_str(ann, "[\"kubectl.kubernetes.io/default-container\"]"), "slurmdbd");
    assert_int_equal(strlen(wl_str(ann, "[\"slinky.slurm.net/slurmdbd-conf-hash\"]")), 64);
    assert_string_equal(wl_str(ann, "[\"slinky.slurm.net/slurm-key-hash\"]"),
                        "3e70998e5b7867b32d7a580befd9b47723fcd10807f237d2a3ac17075c9dffd4");
    const slinky_doc_value *ps = slinky_doc_value_get(t, "spec");
    assert_false(wl_bool(ps, "automountServiceAccountToken"));
    wl_json_eq(ps, "securityContext", "{\"runAsNonRoot\":true,\"runAsUser\":401,\"runAsGroup\":401,\"fsGroup\":401}");
    const slinky_doc_value *ct = wl_container(ps, "containers", "slurmdbd");
    assert_string_equal(wl_str(ct, "image"), "ghcr.io/slinkyproject/slurmdbd:25.05");
    wl_json_eq(ct, "ports", "[{\"name\":\"slurmdbd\",\"containerPort\":6819,\"protocol\":\"TCP\"}]");
    wl_json_eq(ct, "readinessProbe", "{\"tcpSocket\":{\"port\":6819}}");
    wl_json_eq(ct, "securityContext", "{\"runAsNonRoot\":true,\"runAsUser\":401,\"runAsGroup\":401}");
    wl_json_eq(ct, "volumeMounts",
               "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true},{\"name\":\"run\",\"mountPath\":\"/run\"}]");
    wl_json_eq(ps, "volumes",
               "[{\"name\":\"slurm-etc\",\"projected\":{\"defaultMode\":384,\"sources\":["
               "{\"secret\":{\"name\":\"slurm-accounting\",\"items\":[{\"key\":\"slurmdbd.conf\",\"path\":\"slurmdbd.conf\"}]}},"
               "{\"secret\":{\"name\":\"slurm-key\",\"items\":[{\"key\":\"slurm.key\",\"path\":\"slurm.key\"}]}},"
               "{\"secret\":{\"name\":\"jwt-key\",\"items\":[{\"key\":\"jwt.key\",\"path\":\"jwt.key\"}]}}]}},"
               "{\"name\":\"run\",\"emptyDir\":{\"medium\":\"Memory\"}}]");
    wl_free(&c);
}

static void test_conf_hash_follows_password(void **state)
{
    (void)state;
    wl_cluster a = {0}, b = {0};
    wl_add(&a, acct_yaml);
    wl_add(&b, acct_yaml);
    assert_int_equal(slinky_model_set_string(wl_obj(&b, SLINKY_MODEL_KIND_SECRET, "mariadb"),
                                             "data.password", "b3RoZXI="), 0);
    assert_int_equal(slinky_workload_build_accounting(a.w, acct(&a), &a.in), 0);
    assert_int_equal(slinky_workload_build_accounting(b.w, acct(&b), &b.in), 0);
    const char *p = "spec.template.metadata.annotations[\"slinky.slurm.net/slurmdbd-conf-hash\"]";
    const char *k = "spec.template.metadata.annotations[\"slinky.slurm.net/slurm-key-hash\"]";
    assert_string_not_equal(wl_str(wl_built(&a, "StatefulSet", "slurm-accounting"), p),
                            wl_str(wl_built(&b, "StatefulSet", "slurm-accounting"), p));
    assert_string_equal(wl_str(wl_built(&a, "StatefulSet", "slurm-accounting"), k),
                        wl_str(wl_built(&b, "StatefulSet", "slurm-accounting"), k));
    wl_free(&a);
    wl_free(&b);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, acct_yaml);
    slinky_model_object *a = acct(&c);
    /* the passwordKeyRef's key is not in the Secret: error naming the field, nothing built */
    assert_int_equal(slinky_model_set_string(a, "spec.storageConfig.passwordKeyRef.key", "nope"), 0);
    assert_int_equal(slinky_workload_build_accounting(c.w, a, &c.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message,
                           "Accounting slinky/slurm: spec.storageConfig.passwordKeyRef: Secret \"mariadb\" has no key \"nope\""));
    assert_int_equal(slinky_workload_count(c.w), 0);
    /* the Secret itself is missing */
    assert_int_equal(slinky_model_set_string(a, "spec.storageConfig.passwordKeyRef.name", "gone"), 0);
    assert_int_equal(slinky_workload_build_accounting(c.w, a, &c.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "no Secret \"gone\""));
    assert_int_equal(slinky_model_set_string(a, "spec.storageConfig.passwordKeyRef.name", "mariadb"), 0);
    assert_int_equal(slinky_model_set_string(a, "spec.storageConfig.passwordKeyRef.key", "password"), 0);
    /* a host that would inject a line */
    assert_int_equal(slinky_model_set_string(a, "spec.storageConfig.host", "db\nStoragePass=x"), 0);
    assert_int_equal(slinky_workload_build_accounting(c.w, a, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.storageConfig.host"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

static void test_external(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, acct_yaml);
    assert_int_equal(slinky_model_set_bool(acct(&c), "spec.external", true), 0);
    assert_int_equal(slinky_workload_build_accounting(c.w, acct(&c), &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_secret),
        cmocka_unit_test(test_stateful_set),
        cmocka_unit_test(test_conf_hash_follows_password),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_external),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
