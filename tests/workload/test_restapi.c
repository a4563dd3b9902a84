/*
 * workload/restapi: a RestApi's objects as upstream makes them:
 *   ../shared/upstream/slinky/src/internal/builder/restapibuilder/restapi_service.go
 *   (restapi_service_test.go) and restapi_app.go (restapi_app_test.go):
 *   Deployment <name>-restapi with slurmrestd (SLURM_JWT=daemon, -s
 *   openapi/slurmctld without accounting, listen address last) and the Service on 6820.
 */
#include "wl_test.h"

static const char *yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-ctl}\n"
    "spec: {slurmKeyRef: {name: slurm-key, key: slurm.key}, jwtKeyRef: {name: jwt-key, key: jwt.key}}\n"
    "---\napiVersion: slinky.slurm.net/v1beta1\nkind: RestApi\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-rest, labels: {team: hpc}}\n"
    "spec:\n"
    "  controllerRef: {name: slurm}\n"
    "  replicas: 2\n"
    "  slurmrestd: {image: ghcr.io/slinkyproject/slurmrestd:25.05, args: [-vv], "
    "env: [{name: SLURM_JWT, value: daemon}, {name: EXTRA, value: \"1\"}]}\n"
    "  service: {metadata: {labels: {svc: s}}, spec: {type: LoadBalancer}, port: 8080}\n"
    "  template: {metadata: {annotations: {t: a}}, spec: {containers: [{name: sidecar, image: busybox}]}}\n"
    WL_SECRETS("slinky");

static void build(wl_cluster *c)
{
    wl_add(c, yaml);
    if (slinky_workload_build_restapi(c->w, wl_obj(c, SLINKY_MODEL_KIND_RESTAPI, "slurm"), &c->in))
        fail_msg("%s", slinky_error_last()->message);
}

static void test_service(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c);
    assert_int_equal(slinky_workload_count(c.w), 2);
    assert_string_equal(slinky_workload_kind_at(c.w, 0), "Service");
    const slinky_doc_value *s = wl_built(&c, "Service", "slurm-restapi");
    /* restapi_service.go: spec.service.metadata + WithRestapiLabels (not the RestApi's own labels) */
    wl_json_eq(s, "metadata.labels",
               "{\"svc\":\"s\",\"app.kubernetes.io/name\":\"slurmrestd\",\"app.kubernetes.io/instance\":\"slurm\","
               "\"app.kubernetes.io/component\":\"restapi\"}");
    wl_json_eq(s, "spec",
               "{\"type\":\"LoadBalancer\",\"ports\":[{\"name\":\"slurmrestd\",\"protocol\":\"TCP\",\"port\":8080,"
               "\"targetPort\":\"slurmrestd\"}],\"selector\":{\"app.kubernetes.io/name\":\"slurmrestd\","
               "\"app.kubernetes.io/instance\":\"slurm\"}}");
    wl_json_eq(s, "metadata.ownerReferences[0]",
               "{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"RestApi\",\"name\":\"slurm\",\"uid\":\"uid-rest\","
               "\"controller\":true,\"blockOwnerDeletion\":true}");
    wl_free(&c);
}

static void test_deployment(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c);
    const slinky_doc_value *d = wl_built(&c, "Deployment", "slurm-restapi");
    assert_string_equal(wl_str(d, "apiVersion"), "apps/v1");
    wl_json_eq(d, "metadata.labels",
               "{\"team\":\"hpc\",\"app.kubernetes.io/name\":\"slurmrestd\",\"app.kubernetes.io/instance\":\"slurm\","
               "\"app.kubernetes.io/component\":\"restapi\"}");
    assert_int_equal(wl_int(d, "spec.replicas"), 2);
    assert_int_equal(wl_int(d, "spec.revisionHistoryLimit"), 0);
    wl_json_eq(d, "spec.selector.matchLabels",
               "{\"app.kubernetes.io/name\":\"slurmrestd\",\"app.kubernetes.io/instance\":\"slurm\"}");
    const slinky_doc_value *t = slinky_doc_value_path(d, "spec.template");
    assert_string_equal(wl_str(t, "metadata.annotations.t"), "a");
    assert_string_equal(wl_str(t, "metadata.annotations[\"kubectl.kubernetes.io/default-container\"]"), "slurmrestd");
    const slinky_doc_value *ps = slinky_doc_value_get(t, "spec");
    wl_json_eq(ps, "securityContext",
               "{\"runAsNonRoot\":true,\"runAsUser\":65534,\"runAsGroup\":65534,\"fsGroup\":65534}");
    /* the user's containers are appended (MergeList) */
    assert_int_equal(wl_size(ps, "containers"), 2);
    assert_string_equal(wl_str(ps, "containers[1].name"), "sidecar");
    const slinky_doc_value *ct = wl_container(ps, "containers", "slurmrestd");
    assert_string_equal(wl_str(ct, "image"), "ghcr.io/slinkyproject/slurmrestd:25.05");
    /* no accountingRef: -s openapi/slurmctld; user args; the listen address last */
    wl_json_eq(ct, "args", "[\"-s\",\"openapi/slurmctld\",\"-vv\",\"0.0.0.0:6820\"]");
    /* env merged by name (strategic merge): SLURM_JWT kept once */
    wl_json_eq(ct, "env",
               "[{\"name\":\"SLURM_JWT\",\"value\":\"daemon\"},{\"name\":\"SLURMRESTD_SECURITY\","
               "\"value\":\"disable_unshare_files,disable_unshare_sysv\"},{\"name\":\"EXTRA\",\"value\":\"1\"}]");
    wl_json_eq(ct, "ports", "[{\"name\":\"slurmrestd\",\"containerPort\":6820,\"protocol\":\"TCP\"}]");
    wl_json_eq(ct, "startupProbe", "{\"tcpSocket\":{\"port\":6820},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "livenessProbe", "{\"tcpSocket\":{\"port\":6820},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "readinessProbe", "{\"tcpSocket\":{\"port\":6820}}");
    wl_json_eq(ct, "securityContext", "{\"runAsNonRoot\":true,\"runAsUser\":65534,\"runAsGroup\":65534}");
    wl_json_eq(ct, "volumeMounts", "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true}]");
    wl_json_eq(ps, "volumes",
               "[{\"name\":\"slurm-etc\",\"projected\":{\"defaultMode\":384,\"sources\":["
               "{\"configMap\":{\"name\":\"slurm-config\",\"items\":[{\"key\":\"slurm.conf\",\"path\":\"slurm.conf\"}]}},"
               "{\"secret\":{\"name\":\"slurm-key\",\"items\":[{\"key\":\"slurm.key\",\"path\":\"slurm.key\"}]}}]}}]");
    wl_free(&c);
}

static void test_with_accounting(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, yaml);
    assert_int_equal(slinky_model_set_string(wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm"),
                                             "spec.accountingRef.name", "slurm"), 0);
    assert_int_equal(slinky_workload_build_restapi(c.w, wl_obj(&c, SLINKY_MODEL_KIND_RESTAPI, "slurm"), &c.in), 0);
    const slinky_doc_value *ct = wl_container(wl_built(&c, "Deployment", "slurm-restapi"),
                                              "spec.template.spec.containers", "slurmrestd");
    wl_json_eq(ct, "args", "[\"-vv\",\"0.0.0.0:6820\"]");
    wl_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, yaml);
    slinky_model_object *r = wl_obj(&c, SLINKY_MODEL_KIND_RESTAPI, "slurm");
    assert_int_equal(slinky_model_set_string(r, "spec.controllerRef.name", "other"), 0);
    assert_int_equal(slinky_workload_build_restapi(c.w, r, &c.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "RestApi slinky/slurm: spec.controllerRef.name"));
    assert_int_equal(slinky_model_set_string(r, "spec.controllerRef.name", "slurm"), 0);
    /* common/service.go validateServicePorts: a user port with our name is refused */
    slinky_doc *d = NULL;
    const char *bad = "{\"ports\":[{\"name\":\"slurmrestd\",\"port\":9000}]}";
    assert_int_equal(slinky_doc_parse_json(&d, bad, strlen(bad)), 0);
    assert_int_equal(slinky_model_set_value(r, "spec.service.spec", slinky_doc_root(d)), 0);
    slinky_doc_free(d);
    assert_int_equal(slinky_workload_build_restapi(c.w, r, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "port name 'slurmrestd' is already taken"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_service),
        cmocka_unit_test(test_deployment),
        cmocka_unit_test(test_with_accounting),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
