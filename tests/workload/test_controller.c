/*
 * workload/controller: the objects of a Controller, field by field, as
 * upstream's builders make them:
 *   ../shared/upstream/slinky/src/internal/builder/controllerbuilder/controller_app.go
 *     (StatefulSet, pod template, volumes, probes, HA anti-affinity; tests in
 *     controller_app_test.go),
 *   controller_config.go (ConfigMap <name>-config, external mode; controller_config_test.go),
 *   controller_service.go, controller_service_internal.go (their _test.go),
 *   controller_servicemonitor.go (controller_servicemonitor_test.go),
 *   common/service.go (ports, headless, externalIPs), labels/labels.go.
 */
#include "wl_test.h"

static const char *cluster_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-ctl, labels: {team: hpc}, "
    "annotations: {note: x}}\n"
    "spec:\n"
    "  slurmKeyRef: {name: slurm-key, key: slurm.key}\n"
    "  jwtKeyRef: {name: jwt-key, key: jwt.key}\n"
    "  persistence: {enabled: true, accessModes: [ReadWriteOnce], resources: {requests: {storage: 4Gi}}}\n"
    "  configFileRefs: [{name: extra-conf}]\n"
    "  prologScriptRefs: [{name: prologs}]\n"
    "  service: {metadata: {labels: {svc: s}}, spec: {type: NodePort, externalIPs: [1.2.3.4]}, "
    "nodePort: 30017}\n"
    "  slurmctld: {image: ghcr.io/slinkyproject/slurmctld:25.05, args: [-vvv]}\n"
    "  logfile: {image: alpine:latest}\n"
    "  template: {metadata: {labels: {tmpl: t}}, spec: {nodeSelector: {kubernetes.io/os: linux}}}\n"
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra-conf, namespace: slinky}\n"
    "data: {gres.conf: \"AutoDetect=nvidia\"}\n"
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: prologs, namespace: slinky}\n"
    "data: {zz.sh: \"#!/bin/sh\", 00.sh: \"#!/bin/sh\"}\n"
    "---\napiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
    "metadata: {name: cpu, namespace: slinky, uid: uid-ns}\n"
    "spec: {controllerRef: {name: slurm}, partition: {enabled: true, config: \"MaxTime=UNLIMITED\"}}\n"
    WL_SECRETS("slinky");

static void build(wl_cluster *c, const char *extra)
{
    wl_add(c, cluster_yaml);
    if (extra)
        wl_add(c, extra);
    if (slinky_workload_build_controller(c->w, wl_obj(c, SLINKY_MODEL_KIND_CONTROLLER, "slurm"), &c->in))
        fail_msg("build: %s", slinky_error_last()->message);
}

static void test_object_set(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c, NULL);
    /* upstream's sync order (controller_sync.go): internal Service, Service, Config, StatefulSet */
    assert_int_equal(slinky_workload_count(c.w), 4);
    assert_string_equal(slinky_workload_kind_at(c.w, 0), "Service");
    assert_string_equal(slinky_workload_name_at(c.w, 0), "slurm-controller-internal");
    assert_string_equal(slinky_workload_name_at(c.w, 1), "slurm-controller");
    assert_string_equal(slinky_workload_kind_at(c.w, 2), "ConfigMap");
    assert_string_equal(slinky_workload_name_at(c.w, 2), "slurm-config");
    assert_string_equal(slinky_workload_kind_at(c.w, 3), "StatefulSet");
    assert_string_equal(slinky_workload_api_version_at(c.w, 3), "apps/v1");
    for (size_t i = 0; i < 4; i++) {
        const slinky_doc_value *r = slinky_doc_root(slinky_workload_at(c.w, i));
        assert_string_equal(wl_str(r, "metadata.namespace"), "slinky");
        wl_json_eq(r, "metadata.ownerReferences",
                   "[{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"Controller\","
                   "\"name\":\"slurm\",\"uid\":\"uid-ctl\",\"controller\":true,"
                   "\"blockOwnerDeletion\":true}]");
    }
    wl_free(&c);
}

static void test_config_map(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c, NULL);
    const slinky_doc_value *cm = wl_built(&c, "ConfigMap", "slurm-config");
    /* controller_config.go: controller labels + WithControllerLabels, controller annotations */
    wl_json_eq(cm, "metadata.labels",
               "{\"team\":\"hpc\",\"app.kubernetes.io/name\":\"slurmctld\","
               "\"app.kubernetes.io/instance\":\"slurm\",\"app.kubernetes.io/component\":\"controller\"}");
    wl_json_eq(cm, "metadata.annotations", "{\"note\":\"x\"}");
    assert_false(wl_bool(cm, "immutable"));
    assert_int_equal(wl_size(cm, "data"), 2);
    assert_string_equal(wl_str(cm, "data[\"cgroup.conf\"]"), "CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n");
    const char *conf = wl_str(cm, "data[\"slurm.conf\"]");
    assert_non_null(strstr(conf, "ClusterName=slinky_slurm\n"));
    assert_non_null(strstr(conf, "SlurmctldHost=slurm-controller-0(slurm-controller-0.slurm-controller-internal.slinky)"));
    assert_non_null(strstr(conf, "NodeSet=cpu Feature=cpu\n"));
    assert_non_null(strstr(conf, "PartitionName=cpu Nodes=cpu MaxTime=UNLIMITED\n"));
    /* prolog ConfigMap keys, sorted (controller_config.go) */
    const char *p0 = strstr(conf, "Prolog=00.sh\n"), *p1 = strstr(conf, "Prolog=zz.sh\n");
    assert_non_null(p0);
    assert_non_null(p1);
    assert_true(p0 < p1);
    /* the same text the conf renderer gives for the same input */
    slinky_conf_cluster cl = SLINKY_CONF_CLUSTER_INIT;
    slinky_conf_nodeset ns = {"cpu", NULL, true, "MaxTime=UNLIMITED", 0, NULL, NULL};
    const char *pro[] = {"00.sh", "zz.sh"};
    cl.name = "slurm";
    cl.namespace_ = "slinky";
    cl.nodesets = &ns;
    cl.nodeset_count = 1;
    cl.prolog = pro;
    cl.prolog_count = 2;
    char *want = NULL;
    assert_int_equal(slinky_conf_render_slurm(&want, &cl, NULL), 0);
    assert_string_equal(conf, want);
    slinky_free(want);
    wl_free(&c);
}

static void test_config_map_cgroup_from_ref(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    /* a configFileRefs ConfigMap with cgroup.conf: upstream leaves cgroup.conf out */
    slinky_model_object *cm = wl_obj(&c, SLINKY_MODEL_KIND_CONFIGMAP, "extra-conf");
    assert_int_equal(slinky_model_set_string(cm, "data[\"cgroup.conf\"]", "CgroupPlugin=autodetect\n"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm"), &c.in), 0);
    const slinky_doc_value *b = wl_built(&c, "ConfigMap", "slurm-config");
    assert_int_equal(wl_size(b, "data"), 1);
    assert_true(wl_has(b, "data[\"slurm.conf\"]"));
    wl_free(&c);
}

/* slurm-operator#191: Gres in a NodeSet's extraConf needs GresTypes in slurm.conf. */
static void test_gres_types(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_model_object *ns = wl_obj(&c, SLINKY_MODEL_KIND_NODESET, "cpu");
    slinky_model_object *ctl = wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm");
    assert_int_equal(slinky_model_set_string(ns, "spec.extraConf", "Weight=1 gres=shard:8,gpu:nvidia:4 Gres=gpu:2"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    const char *conf = wl_str(wl_built(&c, "ConfigMap", "slurm-config"), "data[\"slurm.conf\"]");
    assert_non_null(strstr(conf, "\nGresTypes=gpu,shard\n"));
    /* the user's own GresTypes wins: nothing added */
    slinky_workload_clear(c.w);
    assert_int_equal(slinky_model_set_string(ctl, "spec.extraConf", "MinJobAge=2\ngrestypes=gpu"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    conf = wl_str(wl_built(&c, "ConfigMap", "slurm-config"), "data[\"slurm.conf\"]");
    assert_null(strstr(conf, "GresTypes="));
    assert_non_null(strstr(conf, "grestypes=gpu"));
    /* without Gres nothing changes (test_config_map compares with the renderer byte for byte) */
    wl_free(&c);
}

static void test_services(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c, NULL);
    /* controller_service.go: user spec + our port, selector adds the active label,
     * externalIPs dropped (common/service.go) */
    const slinky_doc_value *s = wl_built(&c, "Service", "slurm-controller");
    wl_json_eq(s, "metadata.labels",
               "{\"team\":\"hpc\",\"svc\":\"s\",\"app.kubernetes.io/name\":\"slurmctld\","
               "\"app.kubernetes.io/instance\":\"slurm\",\"app.kubernetes.io/component\":\"controller\"}");
    wl_json_eq(s, "spec",
               "{\"type\":\"NodePort\",\"ports\":[{\"name\":\"slurmctld\",\"protocol\":\"TCP\","
               "\"port\":6817,\"targetPort\":\"slurmctld\",\"nodePort\":30017}],"
               "\"selector\":{\"app.kubernetes.io/name\":\"slurmctld\","
               "\"app.kubernetes.io/instance\":\"slurm\",\"controller.slinky.slurm.net/active\":\"true\"}}");
    /* controller_service_internal.go: headless, every replica */
    const slinky_doc_value *i = wl_built(&c, "Service", "slurm-controller-internal");
    wl_json_eq(i, "spec",
               "{\"ports\":[{\"name\":\"slurmctld\",\"protocol\":\"TCP\",\"port\":6817,"
               "\"targetPort\":\"slurmctld\"}],\"selector\":{\"app.kubernetes.io/name\":\"slurmctld\","
               "\"app.kubernetes.io/instance\":\"slurm\"},\"clusterIP\":\"None\","
               "\"publishNotReadyAddresses\":true}");
    wl_json_eq(i, "metadata.annotations", "{\"note\":\"x\"}");
    wl_free(&c);
}

static void test_stateful_set(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c, NULL);
    const slinky_doc_value *s = wl_built(&c, "StatefulSet", "slurm-controller");
    wl_json_eq(s, "metadata.labels",
               "{\"team\":\"hpc\",\"tmpl\":\"t\",\"app.kubernetes.io/name\":\"slurmctld\","
               "\"app.kubernetes.io/instance\":\"slurm\",\"app.kubernetes.io/component\":\"controller\"}");
    assert_int_equal(wl_int(s, "spec.replicas"), 1);
    assert_int_equal(wl_int(s, "spec.revisionHistoryLimit"), 0);
    assert_string_equal(wl_str(s, "spec.serviceName"), "slurm-controller-internal");
    wl_json_eq(s, "spec.selector",
               "{\"matchLabels\":{\"app.kubernetes.io/name\":\"slurmctld\",\"app.kubernetes.io/instance\":\"slurm\"}}");
    /* persistence without a claim: a volumeClaimTemplate named statesave */
    wl_json_eq(s, "spec.volumeClaimTemplates",
               "[{\"metadata\":{\"name\":\"statesave\",\"namespace\":\"slinky\"},"
               "\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"4Gi\"}}}}]");
    const slinky_doc_value *t = slinky_doc_value_path(s, "spec.template");
    /* pod template annotations: hashes + default container */
    assert_string_equal(wl_str(t, "metadata.annotations[\"kubectl.kubernetes.io/default-container\"]"), "slurmctld");
    /* slurm-key-hash: CheckSumFromMap over the decoded Secret data = sha256("key-bytes") */
    assert_string_equal(wl_str(t, "metadata.annotations[\"slinky.slurm.net/slurm-key-hash\"]"),
                        "3e70998e5b7867b32d7a580befd9b47723fcd10807f237d2a3ac17075c9dffd4");
    assert_string_equal(wl_str(t, "metadata.annotations[\"slinky.slurm.net/jwt-key-hash\"]"),
                        "70bfa1dc5e7303751ede7d5a356695626e055d4374bdf8d024f189a07f617c6e");
    assert_int_equal(strlen(wl_str(t, "metadata.annotations[\"slinky.slurm.net/jwt-key-hash\"]")), 64);
    assert_int_equal(strlen(wl_str(t, "metadata.annotations[\"slinky.slurm.net/slurm-config-hash\"]")), 64);
    const slinky_doc_value *ps = slinky_doc_value_path(t, "spec");
    assert_false(wl_bool(ps, "automountServiceAccountToken"));
    wl_json_eq(ps, "securityContext", "{\"runAsNonRoot\":true,\"runAsUser\":401,\"runAsGroup\":401,\"fsGroup\":401}");
    wl_json_eq(ps, "nodeSelector", "{\"kubernetes.io/os\":\"linux\"}");
    wl_json_eq(ps, "affinity",
               "{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
               "{\"matchLabels\":{\"app.kubernetes.io/name\":\"slurmctld\",\"app.kubernetes.io/instance\":\"slurm\"}},"
               "\"topologyKey\":\"kubernetes.io/hostname\"}]}}");
    const slinky_doc_value *ct = wl_container(ps, "containers", "slurmctld");
    assert_string_equal(wl_str(ct, "image"), "ghcr.io/slinkyproject/slurmctld:25.05");
    wl_json_eq(ct, "args", "[\"-vvv\"]");
    wl_json_eq(ct, "ports", "[{\"name\":\"slurmctld\",\"containerPort\":6817,\"protocol\":\"TCP\"}]");
    wl_json_eq(ct, "startupProbe", "{\"httpGet\":{\"path\":\"/livez\",\"port\":\"slurmctld\"},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "readinessProbe", "{\"httpGet\":{\"path\":\"/readyz\",\"port\":\"slurmctld\"}}");
    wl_json_eq(ct, "livenessProbe", "{\"httpGet\":{\"path\":\"/livez\",\"port\":\"slurmctld\"},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "securityContext", "{\"runAsNonRoot\":true,\"runAsUser\":401,\"runAsGroup\":401}");
    wl_json_eq(ct, "volumeMounts",
               "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true},"
               "{\"name\":\"run\",\"mountPath\":\"/run\"},"
               "{\"name\":\"statesave\",\"mountPath\":\"/var/spool/slurmctld/slinky_slurm\"},"
               "{\"name\":\"slurm-authsocket\",\"mountPath\":\"/run/slurmctld\"},"
               "{\"name\":\"slurm-logfile\",\"mountPath\":\"/var/log/slurm\"}]");
    /* init containers: logfile only (no inplaceReconfigure) */
    assert_int_equal(wl_size(ps, "initContainers"), 1);
    const slinky_doc_value *lf = wl_container(ps, "initContainers", "logfile");
    assert_string_equal(wl_str(lf, "image"), "alpine:latest");
    assert_string_equal(wl_str(lf, "restartPolicy"), "Always");
    wl_json_eq(lf, "env", "[{\"name\":\"SOCKET\",\"value\":\"/var/log/slurm/slurmctld.log\"}]");
    wl_json_eq(lf, "volumeMounts", "[{\"name\":\"slurm-logfile\",\"mountPath\":\"/var/log/slurm\"}]");
    /* volumes: projected /etc/slurm (mode 0610) with config, keys and every referenced ConfigMap sorted */
    wl_json_eq(ps, "volumes",
               "[{\"name\":\"slurm-etc\",\"projected\":{\"defaultMode\":392,\"sources\":["
               "{\"configMap\":{\"name\":\"slurm-config\"}},"
               "{\"secret\":{\"name\":\"slurm-key\",\"items\":[{\"key\":\"slurm.key\",\"path\":\"slurm.key\"}]}},"
               "{\"secret\":{\"name\":\"jwt-key\",\"items\":[{\"key\":\"jwt.key\",\"path\":\"jwt.key\"}]}},"
               "{\"configMap\":{\"name\":\"extra-conf\"}},{\"configMap\":{\"name\":\"prologs\"}}]}},"
               "{\"name\":\"slurm-logfile\",\"emptyDir\":{\"medium\":\"Memory\"}},"
               "{\"name\":\"run\",\"emptyDir\":{\"medium\":\"Memory\"}},"
               "{\"name\":\"slurm-authsocket\",\"emptyDir\":{}}]");
    wl_free(&c);
}

static void test_hashes(void **state)
{
    (void)state;
    wl_cluster c = {0};
    build(&c, NULL);
    const slinky_doc_value *t = slinky_doc_value_path(wl_built(&c, "StatefulSet", "slurm-controller"), "spec.template");
    /* (the exact CheckSumFromMap values are checked in workload/examples with python's hashlib) */
    wl_cluster d = {0};
    /* a second build with a changed Secret changes exactly the slurm key hash */
    char h_key[65], h_jwt[65], h_conf[65];
    snprintf(h_key, sizeof h_key, "%s", wl_str(t, "metadata.annotations[\"slinky.slurm.net/slurm-key-hash\"]"));
    snprintf(h_jwt, sizeof h_jwt, "%s", wl_str(t, "metadata.annotations[\"slinky.slurm.net/jwt-key-hash\"]"));
    snprintf(h_conf, sizeof h_conf, "%s", wl_str(t, "metadata.annotations[\"slinky.slurm.net/slurm-config-hash\"]"));
    wl_add(&d, cluster_yaml);
    assert_int_equal(slinky_model_set_string(wl_obj(&d, SLINKY_MODEL_KIND_SECRET, "slurm-key"),
                                             "data[\"slurm.key\"]", "b3RoZXI="), 0);
    assert_int_equal(slinky_workload_build_controller(d.w, wl_obj(&d, SLINKY_MODEL_KIND_CONTROLLER, "slurm"), &d.in), 0);
    const slinky_doc_value *t2 = slinky_doc_value_path(wl_built(&d, "StatefulSet", "slurm-controller"), "spec.template");
    assert_string_not_equal(wl_str(t2, "metadata.annotations[\"slinky.slurm.net/slurm-key-hash\"]"), h_key);
    assert_string_equal(wl_str(t2, "metadata.annotations[\"slinky.slurm.net/jwt-key-hash\"]"), h_jwt);
    assert_string_equal(wl_str(t2, "metadata.annotations[\"slinky.slurm.net/slurm-config-hash\"]"), h_conf);
    /* a NodeSet change changes slurm.conf and so only the config hash */
    wl_free(&d);
    wl_add(&d, cluster_yaml);
    assert_int_equal(slinky_model_set_string(wl_obj(&d, SLINKY_MODEL_KIND_NODESET, "cpu"),
                                             "spec.partition.config", "MaxTime=1:00:00"), 0);
    assert_int_equal(slinky_workload_build_controller(d.w, wl_obj(&d, SLINKY_MODEL_KIND_CONTROLLER, "slurm"), &d.in), 0);
    t2 = slinky_doc_value_path(wl_built(&d, "StatefulSet", "slurm-controller"), "spec.template");
    assert_string_equal(wl_str(t2, "metadata.annotations[\"slinky.slurm.net/slurm-key-hash\"]"), h_key);
    assert_string_not_equal(wl_str(t2, "metadata.annotations[\"slinky.slurm.net/slurm-config-hash\"]"), h_conf);
    wl_free(&d);
    wl_free(&c);
}

static void test_ha(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_model_object *ctl = wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm");
    assert_int_equal(slinky_model_set_bool(ctl, "spec.ha.enabled", true), 0);
    assert_int_equal(slinky_model_set_int(ctl, "spec.ha.backups", 1), 0);
    /* controller_app_test.go: HA without existingClaim is an error; nothing built */
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.persistence.existingClaim"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    assert_int_equal(slinky_model_set_string(ctl, "spec.persistence.existingClaim", "shared"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    const slinky_doc_value *s = wl_built(&c, "StatefulSet", "slurm-controller");
    assert_int_equal(wl_int(s, "spec.replicas"), 2);
    assert_false(wl_has(s, "spec.volumeClaimTemplates"));
    const slinky_doc_value *ps = slinky_doc_value_path(s, "spec.template.spec");
    const slinky_doc_value *vols = slinky_doc_value_get(ps, "volumes");
    wl_json_eq(slinky_doc_value_at(vols, slinky_doc_value_size(vols) - 1), "",
               "{\"name\":\"statesave\",\"persistentVolumeClaim\":{\"claimName\":\"shared\"}}");
    /* HA readiness gates on /livez */
    wl_json_eq(wl_container(ps, "containers", "slurmctld"), "readinessProbe.httpGet",
               "{\"path\":\"/livez\",\"port\":\"slurmctld\"}");
    const char *conf = wl_str(wl_built(&c, "ConfigMap", "slurm-config"), "data[\"slurm.conf\"]");
    assert_non_null(strstr(conf, "slurm-controller-1"));
    /* persistence off with HA: refused */
    slinky_workload_clear(c.w);
    assert_int_equal(slinky_model_set_bool(ctl, "spec.persistence.enabled", false), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    wl_free(&c);
}

static void test_no_persistence_and_reconfigure(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_model_object *ctl = wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm");
    assert_int_equal(slinky_model_set_bool(ctl, "spec.persistence.enabled", false), 0);
    assert_int_equal(slinky_model_set_bool(ctl, "spec.inplaceReconfigure", true), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    const slinky_doc_value *t = slinky_doc_value_path(wl_built(&c, "StatefulSet", "slurm-controller"), "spec.template");
    const slinky_doc_value *vols = slinky_doc_value_path(t, "spec.volumes");
    wl_json_eq(slinky_doc_value_at(vols, slinky_doc_value_size(vols) - 1), "",
               "{\"name\":\"statesave\",\"emptyDir\":{}}");
    /* inplaceReconfigure: auth hashes only, reconfigure sidecar first */
    assert_false(wl_has(t, "metadata.annotations[\"slinky.slurm.net/slurm-config-hash\"]"));
    assert_string_equal(wl_str(t, "spec.initContainers[0].name"), "reconfigure");
    assert_string_equal(wl_str(t, "spec.initContainers[0].restartPolicy"), "Always");
    assert_string_equal(wl_str(t, "spec.initContainers[0].command[0]"), "tini");
    wl_json_eq(t, "spec.initContainers[0].volumeMounts",
               "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true},"
               "{\"name\":\"slurm-authsocket\",\"mountPath\":\"/run/slurmctld\",\"readOnly\":true}]");
    assert_string_equal(wl_str(t, "spec.initContainers[1].name"), "logfile");
    wl_free(&c);
}

static void test_service_monitor(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_model_object *ctl = wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm");
    assert_int_equal(slinky_model_set_bool(ctl, "spec.metrics.enabled", true), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 4); /* serviceMonitor.enabled false: none */
    slinky_workload_clear(c.w);
    assert_int_equal(slinky_model_set_bool(ctl, "spec.metrics.serviceMonitor.enabled", true), 0);
    assert_int_equal(slinky_model_set_string(ctl, "spec.metrics.serviceMonitor.interval", "30s"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 5);
    const slinky_doc_value *sm = wl_built(&c, "ServiceMonitor", "slurm-controller");
    assert_string_equal(wl_str(sm, "apiVersion"), "monitoring.coreos.com/v1");
    /* controller_servicemonitor.go: the four default endpoints with the monitor's interval */
    wl_json_eq(sm, "spec",
               "{\"selector\":{\"matchLabels\":{\"app.kubernetes.io/name\":\"slurmctld\",\"app.kubernetes.io/instance\":\"slurm\"}},"
               "\"namespaceSelector\":{\"matchNames\":[\"slinky\"]},\"endpoints\":["
               "{\"path\":\"/metrics/jobs\",\"port\":\"slurmctld\",\"scheme\":\"http\",\"interval\":\"30s\"},"
               "{\"path\":\"/metrics/nodes\",\"port\":\"slurmctld\",\"scheme\":\"http\",\"interval\":\"30s\"},"
               "{\"path\":\"/metrics/partitions\",\"port\":\"slurmctld\",\"scheme\":\"http\",\"interval\":\"30s\"},"
               "{\"path\":\"/metrics/scheduler\",\"port\":\"slurmctld\",\"scheme\":\"http\",\"interval\":\"30s\"}]}");
    wl_free(&c);
}

static void test_external(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
               "metadata: {name: slurm, uid: u1}\n"
               "spec: {external: true, externalConfig: {host: my-controller, port: 6817}, "
               "template: {metadata: {labels: {a: b}}}, slurmKeyRef: {name: k, key: k}}\n");
    assert_int_equal(slinky_workload_build_controller(c.w, c.objs[0], &c.in), 0);
    /* BuildControllerConfigExternal only: the minimal slurm.conf, byte for byte the fixture */
    assert_int_equal(slinky_workload_count(c.w), 1);
    const slinky_doc_value *cm = wl_built(&c, "ConfigMap", "slurm-config");
    wl_json_eq(cm, "metadata.labels",
               "{\"a\":\"b\",\"app.kubernetes.io/name\":\"slurmctld\",\"app.kubernetes.io/instance\":\"slurm\","
               "\"app.kubernetes.io/component\":\"controller\"}");
    assert_int_equal(wl_size(cm, "data"), 1);
    const char *dir = getenv("SLINKY_SHARED_DIR");
    assert_non_null(dir);
    char path[4096], buf[8192];
    snprintf(path, sizeof(path), "%s/upstream/slinky/fixtures/external_minimal_default.conf", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_string_equal(wl_str(cm, "data[\"slurm.conf\"]"), buf);
    wl_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, cluster_yaml);
    slinky_model_object *ctl = wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm");
    /* clusterName with a newline: refused naming the field, nothing built */
    assert_int_equal(slinky_model_set_string(ctl, "spec.clusterName", "a\nSlurmUser=root"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.clusterName"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    assert_int_equal(slinky_model_set_string(ctl, "spec.clusterName", "ok#x"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_int_equal(slinky_model_unset(ctl, "spec.clusterName"), 0);
    /* a NodeSet partition config that would inject a line */
    slinky_model_object *ns = wl_obj(&c, SLINKY_MODEL_KIND_NODESET, "cpu");
    assert_int_equal(slinky_model_set_string(ns, "spec.partition.config", "MaxTime=1\nNodeName=evil"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "NodeSet slinky/cpu: spec.partition.config"));
    assert_int_equal(slinky_model_set_string(ns, "spec.partition.config", "MaxTime=1"), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.template.spec.hostname", "h#-"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.template.spec.hostname"));
    assert_int_equal(slinky_model_unset(ns, "spec.template.spec.hostname"), 0);
    /* a referenced ConfigMap that is not there */
    assert_int_equal(slinky_model_set_string(ctl, "spec.prologScriptRefs[0].name", "missing"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "Controller slinky/slurm: spec.prologScriptRefs[0]: no ConfigMap \"missing\""));
    assert_int_equal(slinky_workload_count(c.w), 0);
    /* no uid: no owner reference can be made */
    assert_int_equal(slinky_model_set_string(ctl, "spec.prologScriptRefs[0].name", "prologs"), 0);
    assert_int_equal(slinky_model_unset(ctl, "metadata.uid"), 0);
    assert_int_equal(slinky_workload_build_controller(c.w, ctl, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "metadata.uid"));
    assert_int_equal(slinky_workload_count(c.w), 0);
    wl_free(&c);
}

static void test_determinism(void **state)
{
    (void)state;
    wl_cluster a = {0}, b = {0};
    build(&a, NULL);
    build(&b, NULL);
    char *ya = NULL, *yb = NULL;
    assert_int_equal(slinky_workload_dump_yaml(&ya, NULL, a.w), 0);
    assert_int_equal(slinky_workload_dump_yaml(&yb, NULL, b.w), 0);
    assert_string_equal(ya, yb);
    assert_non_null(strstr(ya, "---\napiVersion: v1\nkind: Service\n"));
    slinky_free(ya);
    slinky_free(yb);
    wl_free(&a);
    wl_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_set),
        cmocka_unit_test(test_config_map),
        cmocka_unit_test(test_config_map_cgroup_from_ref),
        cmocka_unit_test(test_gres_types),
        cmocka_unit_test(test_services),
        cmocka_unit_test(test_stateful_set),
        cmocka_unit_test(test_hashes),
        cmocka_unit_test(test_ha),
        cmocka_unit_test(test_no_persistence_and_reconfigure),
        cmocka_unit_test(test_service_monitor),
        cmocka_unit_test(test_external),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
