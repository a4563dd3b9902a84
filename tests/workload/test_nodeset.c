/*
 * workload/nodeset: a NodeSet's objects as upstream makes them:
 *   ../shared/upstream/slinky/src/internal/builder/workerbuilder/worker_app.go
 *     (pod template, slurmd container, --conf; TestSlurmdConfArgs and
 *     TestBaselineFeatures in worker_app_test.go, byte for byte),
 *   worker_service.go, worker_pdb.go (their _test.go),
 *   ../shared/upstream/slinky/src/internal/controller/nodeset/utils/utils.go
 *     (NewNodeSetStatefulSetPod / NewNodeSetDaemonSetPod: names, hostnames,
 *     identity labels, storage, anti-affinity),
 * and where libslinky does better: Gres kept, no empty Topology= (containers#20),
 * values checked.
 */
#include <sys/wait.h>

#include "wl_test.h"

#include "workload/workload_internal.h"

static const char *base_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Controller\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-ctl}\n"
    "spec: {slurmKeyRef: {name: slurm-key, key: slurm.key}, jwtKeyRef: {name: jwt-key, key: jwt.key}}\n"
    WL_SECRETS("slinky");

static const char *ns_yaml =
    "---\napiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\n"
    "metadata: {name: gpu, namespace: slinky, uid: uid-ns, labels: {team: hpc}, annotations: {a: b}}\n"
    "spec:\n"
    "  controllerRef: {name: slurm}\n"
    "  replicas: 3\n"
    "  extraConf: \"Gres=gpu:4 RealMemory=1000\"\n"
    "  slurmd: {image: ghcr.io/slinkyproject/slurmd:25.05, resources: {limits: {cpu: 1500m, memory: 4Gi}}}\n"
    "  logfile: {image: alpine:latest}\n"
    "  template: {metadata: {labels: {tmpl: t}}, spec: {nodeSelector: {kubernetes.io/os: linux}}}\n"
    "  volumeClaimTemplates: [{metadata: {name: scratch}, spec: {accessModes: [ReadWriteOnce]}}]\n";

static slinky_model_object *nodeset(wl_cluster *c)
{
    return wl_obj(c, SLINKY_MODEL_KIND_NODESET, "gpu");
}

/* ---------------------------------------------------------------- --conf */

static char *conf_of(const char *extra, const char *hostname, unsigned flags)
{
    char yaml[1024], ex[256] = "", host[256] = "";
    if (extra)
        snprintf(ex, sizeof ex, ", extraConf: '%s'", extra);
    if (hostname)
        snprintf(host, sizeof host, ", template: {spec: {hostname: '%s'}}", hostname);
    snprintf(yaml, sizeof(yaml),
             "apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\nmetadata: {name: gpu}\n"
             "spec: {controllerRef: {name: slurm}%s%s}\n",
             ex, host);
    slinky_model_object *o = NULL;
    if (slinky_model_object_parse(&o, yaml, strlen(yaml)))
        fail_msg("parse %s: %s", yaml, slinky_error_last()->message);
    char *out = NULL;
    int rc = slinky_workload_slurmd_conf(&out, o, flags);
    slinky_model_object_free(o);
    if (rc)
        return NULL;
    return out;
}

static void expect_conf(const char *extra, const char *hostname, unsigned flags, const char *want)
{
    char *got = conf_of(extra, hostname, flags);
    if (!got)
        fail_msg("slurmd_conf(%s): %s", extra ? extra : "", slinky_error_last()->message);
    assert_string_equal(got, want);
    slinky_free(got);
}

/* worker_app_test.go TestSlurmdConfArgs, every case, byte for byte. */
static void test_slurmd_conf_args_upstream(void **state)
{
    (void)state;
    unsigned up = SLINKY_WORKLOAD_CONF_UPSTREAM;
    expect_conf(NULL, NULL, up, "'Features=gpu Topology='\"$SLINKY_TOPOLOGY\"''");
    expect_conf("Weight=10 feature=a", NULL, up,
                "'Features=a,gpu Topology='\"$SLINKY_TOPOLOGY\"' Weight=10'");
    expect_conf("Topology=switch-topo:s1", NULL, up, "'Features=gpu Topology=switch-topo:s1'");
    expect_conf("Features=z,a", NULL, up, "'Features=a,gpu,z Topology='\"$SLINKY_TOPOLOGY\"''");
    expect_conf(NULL, "foo-", up, "'Features=foo Topology='\"$SLINKY_TOPOLOGY\"''");
    expect_conf("Weight10 Feature=a", NULL, up, "'Features=gpu Topology='\"$SLINKY_TOPOLOGY\"''");
}

/* worker_app_test.go TestBaselineFeatures, through the Features= token. */
static void test_baseline_features(void **state)
{
    (void)state;
    unsigned up = SLINKY_WORKLOAD_CONF_UPSTREAM;
    const char *t = " Topology='\"$SLINKY_TOPOLOGY\"''";
    char want[256];
    snprintf(want, sizeof want, "'Features=a100,gpu%s", t);
    expect_conf("Feature=a100", NULL, up, want);
    snprintf(want, sizeof want, "'Features=a100,gpu,nvlink%s", t);
    expect_conf("Features=a100,nvlink", NULL, up, want);
    expect_conf("Feature=a100 Feature=nvlink Features=a100", NULL, up, want);
    snprintf(want, sizeof want, "'Features=gpu-x%s", t);
    expect_conf(NULL, "gpu-x", up, want);
    snprintf(want, sizeof want, "'Features=gpu%s", t);
    expect_conf("bad", NULL, up, want);
}

/* Title-cased keys and repeated keys joined (ParseExtraConf). */
static void test_parse_extra_conf(void **state)
{
    (void)state;
    expect_conf("realmemory=10 RealMemory=20 cpus=4", NULL, SLINKY_WORKLOAD_CONF_UPSTREAM,
                "'Cpus=4 Features=gpu Realmemory=10,20 Topology='\"$SLINKY_TOPOLOGY\"''");
}

/* issue #191: Gres from extraConf reaches --conf in any spelling. */
static void test_gres_kept(void **state)
{
    (void)state;
    char *got = conf_of("gres=gpu:nvidia:4 Weight=1", NULL, SLINKY_WORKLOAD_CONF_DEFAULT);
    assert_non_null(got);
    assert_non_null(strstr(got, " Gres=gpu:nvidia:4 "));
    slinky_free(got);
    got = conf_of("GRES=gpu:2", NULL, SLINKY_WORKLOAD_CONF_UPSTREAM);
    assert_non_null(strstr(got, "'Features=gpu Gres=gpu:2 Topology="));
    slinky_free(got);
}

/* Run `printf %s <arg>` through sh as the container entrypoint would; return the word(s). */
static char *shell_expand(const char *arg, const char *topology)
{
    char script[2048];
    if (topology)
        snprintf(script, sizeof script, "SLINKY_TOPOLOGY='%s'; export SLINKY_TOPOLOGY; printf '[%%s]' %s", topology, arg);
    else
        snprintf(script, sizeof script, "unset SLINKY_TOPOLOGY; printf '[%%s]' %s", arg);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    static char buf[1024];
    ssize_t n, tot = 0;
    while ((n = read(fds[0], buf + tot, sizeof(buf) - 1 - (size_t)tot)) > 0)
        tot += n;
    close(fds[0]);
    buf[tot] = '\0';
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return buf;
}

/* containers#20: without a topology annotation the Pod's --conf has no empty Topology=. */
static void test_no_empty_topology(void **state)
{
    (void)state;
    char *up = conf_of("Weight=10", NULL, SLINKY_WORKLOAD_CONF_UPSTREAM);
    char *ours = conf_of("Weight=10", NULL, SLINKY_WORKLOAD_CONF_DEFAULT);
    assert_non_null(up);
    assert_non_null(ours);
    /* upstream's string gives the empty token when the variable is empty */
    assert_string_equal(shell_expand(up, NULL), "[Features=gpu Topology= Weight=10]");
    assert_string_equal(shell_expand(ours, NULL), "[Features=gpu  Weight=10]");
    assert_null(strstr(shell_expand(ours, NULL), "Topology"));
    assert_string_equal(shell_expand(ours, "topo-switch:s2"), "[Features=gpu Topology=topo-switch:s2 Weight=10]");
    slinky_free(up);
    slinky_free(ours);
    /* an empty Key= from extraConf is dropped too */
    ours = conf_of("Weight= Topology=", NULL, SLINKY_WORKLOAD_CONF_DEFAULT);
    assert_null(strstr(shell_expand(ours, NULL), "="  "  "));
    assert_string_equal(shell_expand(ours, NULL), "[Features=gpu ]");
    slinky_free(ours);
}

static void test_conf_values_checked(void **state)
{
    (void)state;
    slinky_model_object *o = NULL;
    const char *y = "apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\nmetadata: {name: gpu}\n"
                    "spec: {controllerRef: {name: slurm}, extraConf: \"Weight=1\\nNodeName=x\"}\n";
    assert_int_equal(slinky_model_object_parse(&o, y, strlen(y)), 0);
    char *out = NULL;
    assert_int_equal(slinky_workload_slurmd_conf(&out, o, 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.extraConf"));
    assert_int_equal(slinky_model_set_string(o, "spec.extraConf", "Weight=1#x"), 0);
    assert_int_equal(slinky_workload_slurmd_conf(&out, o, 0), SLINKY_EINVALID);
    assert_int_equal(slinky_model_set_string(o, "spec.extraConf", "Weight='1'"), 0);
    assert_int_equal(slinky_workload_slurmd_conf(&out, o, 0), SLINKY_EINVALID);
    assert_int_equal(slinky_model_set_string(o, "spec.extraConf", "Weight"), 0);
    assert_int_equal(slinky_workload_slurmd_conf(&out, o, 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "Key=Value"));
    assert_int_equal(slinky_model_unset(o, "spec.extraConf"), 0);
    assert_int_equal(slinky_model_set_string(o, "spec.template.spec.hostname", "a\nb"), 0);
    assert_int_equal(slinky_workload_slurmd_conf(&out, o, 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "spec.template.spec.hostname"));
    slinky_model_object_free(o);
}

/* ---------------------------------------------------------------- shared objects */

static void test_service_and_pdb(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    assert_int_equal(slinky_workload_build_nodeset(c.w, nodeset(&c), &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 2);
    /* worker_service.go: one headless Service for every NodeSet of the cluster, no owner */
    const slinky_doc_value *s = wl_built(&c, "Service", "slurm-workers-slurm");
    assert_string_equal(wl_str(s, "metadata.namespace"), "slinky");
    assert_false(wl_has(s, "metadata.ownerReferences"));
    wl_json_eq(s, "spec",
               "{\"ports\":[{\"name\":\"slurmd\",\"protocol\":\"TCP\",\"port\":6818,\"targetPort\":\"slurmd\"}],"
               "\"selector\":{\"app.kubernetes.io/name\":\"slurmd\",\"slinky.slurm.net/cluster\":\"slurm\"},"
               "\"clusterIP\":\"None\",\"publishNotReadyAddresses\":true}");
    /* worker_pdb.go */
    const slinky_doc_value *p = wl_built(&c, "PodDisruptionBudget", "slurm-workers-pdb-slurm");
    assert_string_equal(wl_str(p, "apiVersion"), "policy/v1");
    assert_false(wl_has(p, "metadata.ownerReferences"));
    wl_json_eq(p, "spec",
               "{\"selector\":{\"matchLabels\":{\"nodeset.slinky.slurm.net/pod-protect\":\"true\","
               "\"slinky.slurm.net/cluster\":\"slurm\"}},\"maxUnavailable\":0}");
    wl_free(&c);
}

/* ---------------------------------------------------------------- pods */

static void test_pods(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, nodeset(&c), &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 3);
    const slinky_doc_value *p = wl_built(&c, "Pod", "gpu-1");
    assert_string_equal(wl_str(p, "apiVersion"), "v1");
    assert_string_equal(wl_str(p, "metadata.generateName"), "gpu-");
    assert_string_equal(wl_str(p, "metadata.namespace"), "slinky");
    wl_json_eq(p, "metadata.ownerReferences",
               "[{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"NodeSet\",\"name\":\"gpu\","
               "\"uid\":\"uid-ns\",\"controller\":true,\"blockOwnerDeletion\":true}]");
    char *hash = NULL;
    assert_int_equal(slinky_workload_nodeset_template_hash(&hash, nodeset(&c), &c.in), 0);
    assert_int_equal(strlen(hash), 16);
    /* labels: NodeSet + template + WithWorkerLabels + identity (utils.go) + revision */
    char want[1024];
    snprintf(want, sizeof want,
             "{\"team\":\"hpc\",\"tmpl\":\"t\",\"app.kubernetes.io/name\":\"slurmd\","
             "\"app.kubernetes.io/instance\":\"gpu\",\"app.kubernetes.io/component\":\"worker\","
             "\"slinky.slurm.net/cluster\":\"slurm\",\"nodeset.slinky.slurm.net/pod-index\":\"1\","
             "\"nodeset.slinky.slurm.net/pod-name\":\"gpu-1\",\"nodeset.slinky.slurm.net/pod-hostname\":\"gpu-1\","
             "\"nodeset.slinky.slurm.net/scaling-mode\":\"StatefulSet\",\"controller-revision-hash\":\"%s\"}",
             hash);
    wl_json_eq(p, "metadata.labels", want);
    slinky_free(hash);
    const slinky_doc_value *ann = slinky_doc_value_path(p, "metadata.annotations");
    assert_string_equal(wl_str(ann, "a"), "b");
    assert_string_equal(wl_str(ann, "[\"kubectl.kubernetes.io/default-container\"]"), "slurmd");
    /* CheckSum of an absent sshd_config / sssd.conf: sha256 of nothing (crypto.CheckSum) */
    assert_string_equal(wl_str(ann, "[\"slinky.slurm.net/sshd-conf-hash\"]"),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const slinky_doc_value *s = slinky_doc_value_get(p, "spec");
    assert_string_equal(wl_str(s, "hostname"), "gpu-1");
    assert_string_equal(wl_str(s, "subdomain"), "slurm-workers-slurm");
    wl_json_eq(s, "dnsConfig", "{\"searches\":[\"slurm-workers-slurm.slinky.svc.cluster.local\"]}");
    assert_false(wl_bool(s, "automountServiceAccountToken"));
    assert_false(wl_bool(s, "enableServiceLinks"));
    wl_json_eq(s, "nodeSelector", "{\"kubernetes.io/os\":\"linux\"}");
    wl_json_eq(s, "tolerations",
               "[{\"key\":\"nodeset.slinky.slurm.net/worker\",\"operator\":\"Equal\",\"effect\":\"NoExecute\"}]");
    /* one NodeSet pod per node (updateNodeSetPodAntiAffinity) */
    wl_json_eq(s, "affinity",
               "{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
               "{\"matchExpressions\":[{\"key\":\"app.kubernetes.io/name\",\"operator\":\"In\",\"values\":[\"slurmd\"]}]},"
               "\"topologyKey\":\"kubernetes.io/hostname\"}]}}");
    /* UpdateStorage: the claim volume first */
    wl_json_eq(s, "volumes",
               "[{\"name\":\"scratch\",\"persistentVolumeClaim\":{\"claimName\":\"scratch-gpu-1\"}},"
               "{\"name\":\"slurm-etc\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"secret\":"
               "{\"name\":\"slurm-key\",\"items\":[{\"key\":\"slurm.key\",\"path\":\"slurm.key\"}]}}]}},"
               "{\"name\":\"slurm-logfile\",\"emptyDir\":{\"medium\":\"Memory\"}}]");
    const slinky_doc_value *ct = wl_container(s, "containers", "slurmd");
    assert_string_equal(wl_str(ct, "image"), "ghcr.io/slinkyproject/slurmd:25.05");
    wl_json_eq(ct, "args",
               "[\"-Z\",\"--conf-server\",\"slurm-controller.slinky:6817\",\"--conf\","
               "\"'Features=gpu Gres=gpu:4 Realmemory=1000 '\\\"${SLINKY_TOPOLOGY:+Topology=$SLINKY_TOPOLOGY}\\\"''\"]");
    /* POD_CPUS: 1500m rounds up (Quantity.Value); POD_MEMORY in MiB */
    wl_json_eq(ct, "env",
               "[{\"name\":\"SLINKY_TOPOLOGY\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
               "\"metadata.annotations['topology.slinky.slurm.net/spec']\"}}},"
               "{\"name\":\"POD_CPUS\",\"value\":\"2\"},{\"name\":\"POD_MEMORY\",\"value\":\"4096\"}]");
    wl_json_eq(ct, "ports", "[{\"name\":\"slurmd\",\"containerPort\":6818,\"protocol\":\"TCP\"}]");
    wl_json_eq(ct, "startupProbe", "{\"httpGet\":{\"path\":\"/livez\",\"port\":\"slurmd\"},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "livenessProbe", "{\"httpGet\":{\"path\":\"/livez\",\"port\":\"slurmd\"},\"failureThreshold\":6,\"periodSeconds\":10}");
    wl_json_eq(ct, "readinessProbe", "{\"httpGet\":{\"path\":\"/readyz\",\"port\":\"slurmd\"}}");
    wl_json_eq(ct, "securityContext",
               "{\"privileged\":true,\"capabilities\":{\"add\":[\"BPF\",\"NET_ADMIN\",\"SYS_ADMIN\",\"SYS_NICE\"]}}");
    wl_json_eq(ct, "lifecycle",
               "{\"preStop\":{\"exec\":{\"command\":[\"/usr/bin/sh\",\"-c\",\"scontrol update "
               "nodename=$(hostname) state=down reason='slurm-operator: Pod is terminating';\"]}}}");
    wl_json_eq(ct, "volumeMounts",
               "[{\"name\":\"slurm-etc\",\"mountPath\":\"/etc/slurm\",\"readOnly\":true},"
               "{\"name\":\"slurm-logfile\",\"mountPath\":\"/var/log/slurm\"}]");
    wl_json_eq(ct, "resources", "{\"limits\":{\"cpu\":\"1500m\",\"memory\":\"4Gi\"}}");
    const slinky_doc_value *lf = wl_container(s, "initContainers", "logfile");
    wl_json_eq(lf, "env", "[{\"name\":\"SOCKET\",\"value\":\"/var/log/slurm/slurmd.log\"}]");
    wl_free(&c);
}

/* build_nodeset_pods copies Pod 0 and sets the per-ordinal fields: the same as building each. */
static void test_pods_equal_single_builds(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    slinky_model_object *ns = nodeset(&c);
    assert_int_equal(slinky_model_set_int(ns, "spec.ordinalPadding", 2), 0);
    assert_int_equal(slinky_model_set_int(ns, "spec.replicas", 12), 0);
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, ns, &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 12);
    for (int64_t i = 0; i < 12; i++) {
        slinky_doc *one = NULL;
        assert_int_equal(slinky_workload_nodeset_pod(&one, ns, i, &c.in), 0);
        char *a = NULL, *b = NULL;
        assert_int_equal(slinky_doc_value_dump_json(&a, NULL, slinky_doc_root(one), 0), 0);
        assert_int_equal(slinky_doc_value_dump_json(&b, NULL, slinky_doc_root(slinky_workload_at(c.w, (size_t)i)), 0), 0);
        assert_string_equal(a, b);
        slinky_free(a);
        slinky_free(b);
        slinky_doc_free(one);
    }
    assert_string_equal(slinky_workload_name_at(c.w, 11), "gpu-11");
    wl_free(&c);
}

static void test_pod_naming(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    slinky_model_object *ns = nodeset(&c);
    /* ordinalPadding and a hostname prefix: <prefix><padded>, name <nodeset>-<padded> */
    assert_int_equal(slinky_model_set_int(ns, "spec.ordinalPadding", 3), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.template.spec.hostname", "node-"), 0);
    assert_int_equal(slinky_model_set_bool(ns, "spec.oversubscribeNode", true), 0);
    slinky_doc *pod = NULL;
    assert_int_equal(slinky_workload_nodeset_pod(&pod, ns, 7, &c.in), 0);
    const slinky_doc_value *p = slinky_doc_root(pod);
    assert_string_equal(wl_str(p, "metadata.name"), "gpu-007");
    assert_string_equal(wl_str(p, "spec.hostname"), "node-007");
    assert_string_equal(wl_str(p, "metadata.labels[\"nodeset.slinky.slurm.net/pod-index\"]"), "007");
    assert_string_equal(wl_str(p, "metadata.labels[\"nodeset.slinky.slurm.net/pod-hostname\"]"), "node-007");
    assert_string_equal(wl_str(p, "spec.volumes[0].persistentVolumeClaim.claimName"), "scratch-gpu-007");
    assert_false(wl_has(p, "spec.affinity")); /* oversubscribeNode: no anti-affinity */
    /* the Features name comes from the hostname prefix (GetSlurmNodeSetName) */
    assert_non_null(strstr(wl_str(wl_container(p, "spec.containers", "slurmd"), "args[4]"), "Features=node "));
    slinky_doc_free(pod);
    /* hostNetwork: the pod-hostname label is still the hostname (utils.go initIdentity order) */
    assert_int_equal(slinky_model_set_bool(ns, "spec.template.spec.hostNetwork", true), 0);
    assert_int_equal(slinky_workload_nodeset_pod(&pod, ns, 7, &c.in), 0);
    assert_string_equal(wl_str(slinky_doc_root(pod), "metadata.labels[\"nodeset.slinky.slurm.net/pod-hostname\"]"),
                        "node-007");
    assert_true(wl_bool(slinky_doc_root(pod), "spec.hostNetwork"));
    slinky_doc_free(pod);
    assert_int_equal(slinky_workload_nodeset_pod(&pod, ns, -1, &c.in), SLINKY_EINVALID);
    wl_free(&c);
}

static void test_daemonset_pod(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    slinky_model_object *ns = nodeset(&c);
    assert_int_equal(slinky_model_set_string(ns, "spec.scalingMode", "DaemonSet"), 0);
    /* pods per node only */
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, ns, &c.in), SLINKY_EINVALID);
    assert_int_equal(slinky_workload_count(c.w), 0);
    slinky_doc *pod = NULL;
    assert_int_equal(slinky_workload_nodeset_pod_for_node(&pod, ns, "kind-worker2.example.com", &c.in), 0);
    const slinky_doc_value *p = slinky_doc_root(pod);
    /* NewNodeSetDaemonSetPod: generateName, no name, hostname = node name up to the first dot */
    assert_false(wl_has(p, "metadata.name"));
    assert_string_equal(wl_str(p, "metadata.generateName"), "gpu-");
    assert_string_equal(wl_str(p, "spec.hostname"), "kind-worker2");
    assert_string_equal(wl_str(p, "metadata.labels[\"nodeset.slinky.slurm.net/scaling-mode\"]"), "DaemonSet");
    assert_string_equal(wl_str(p, "metadata.labels[\"nodeset.slinky.slurm.net/pod-hostname\"]"), "kind-worker2");
    assert_false(wl_has(p, "metadata.labels[\"nodeset.slinky.slurm.net/pod-index\"]"));
    assert_string_equal(wl_str(p, "spec.volumes[0].persistentVolumeClaim.claimName"), "scratch-gpu-kind-worker2");
    /* ReplaceDaemonSetPodNodeNameNodeAffinity */
    wl_json_eq(p, "spec.affinity.nodeAffinity",
               "{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{\"matchFields\":"
               "[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"kind-worker2.example.com\"]}]}]}}");
    assert_true(wl_has(p, "spec.affinity.podAntiAffinity"));
    slinky_doc_free(pod);
    wl_free(&c);
}

static void test_ssh(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    wl_add(&c, "apiVersion: v1\nkind: Secret\nmetadata: {name: sssd, namespace: slinky}\n"
               "data: {sssd.conf: W3Nzc2Rd}\n");
    slinky_model_object *ns = nodeset(&c);
    assert_int_equal(slinky_model_set_bool(ns, "spec.ssh.enabled", true), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.ssh.sssdConfRef.name", "sssd"), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.ssh.sssdConfRef.key", "sssd.conf"), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.ssh.extraSshdConfig", "MaxSessions 5"), 0);
    /* worker_config.go: the ConfigMap <nodeset>-ssh-config after the Service and the PDB */
    assert_int_equal(slinky_workload_build_nodeset(c.w, ns, &c.in), 0);
    assert_int_equal(slinky_workload_count(c.w), 3);
    const slinky_doc_value *cm = wl_built(&c, "ConfigMap", "gpu-ssh-config");
    const char *sshd = wl_str(cm, "data.sshd_config");
    assert_string_equal(sshd, "#\n### GENERAL ###\nInclude /etc/ssh/sshd_config.d/*.conf\nUsePAM yes\n"
                              "Subsystem sftp internal-sftp\nAuthenticationMethods publickey password\n"
                              "#\n### EXTRA CONFIG ###\nMaxSessions 5\n");
    wl_json_eq(cm, "metadata.labels",
               "{\"team\":\"hpc\",\"app.kubernetes.io/name\":\"slurmd\",\"app.kubernetes.io/instance\":\"gpu\","
               "\"app.kubernetes.io/component\":\"worker\",\"slinky.slurm.net/cluster\":\"slurm\"}");
    assert_string_equal(wl_str(cm, "metadata.ownerReferences[0].kind"), "NodeSet");
    char want_hash[65];
    slinky_workload__sha256_hex(want_hash, sshd, strlen(sshd));
    slinky_doc *pod = NULL;
    assert_int_equal(slinky_workload_nodeset_pod(&pod, ns, 0, &c.in), 0);
    const slinky_doc_value *p = slinky_doc_root(pod);
    /* the Pods' sshd-conf-hash is that ConfigMap's file (CheckSum) */
    assert_string_equal(wl_str(p, "metadata.annotations[\"slinky.slurm.net/sshd-conf-hash\"]"), want_hash);
    const slinky_doc_value *ct = wl_container(p, "spec.containers", "slurmd");
    wl_json_eq(ct, "ports[1]", "{\"name\":\"ssh\",\"containerPort\":22,\"protocol\":\"TCP\"}");
    wl_json_eq(ct, "volumeMounts[2]",
               "{\"name\":\"ssh-config\",\"mountPath\":\"/etc/ssh/sshd_config\",\"subPath\":\"sshd_config\",\"readOnly\":true}");
    wl_json_eq(ct, "volumeMounts[3]",
               "{\"name\":\"sssd-conf\",\"mountPath\":\"/etc/sssd/sssd.conf\",\"subPath\":\"sssd.conf\",\"readOnly\":true}");
    wl_json_eq(p, "spec.volumes[3]",
               "{\"name\":\"ssh-config\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"configMap\":"
               "{\"name\":\"gpu-ssh-config\",\"items\":[{\"key\":\"sshd_config\",\"path\":\"sshd_config\",\"mode\":384}]}}]}}");
    wl_json_eq(p, "spec.volumes[4]",
               "{\"name\":\"sssd-conf\",\"projected\":{\"defaultMode\":384,\"sources\":[{\"secret\":"
               "{\"name\":\"sssd\",\"items\":[{\"key\":\"sssd.conf\",\"path\":\"sssd.conf\",\"mode\":384}]}}]}}");
    /* sssd-conf-hash = sha256("[sssd]") */
    assert_string_equal(wl_str(p, "metadata.annotations[\"slinky.slurm.net/sssd-conf-hash\"]"),
                        "8be831736d8fbec5cb5dc15375659890ab215421236b1ee54de6a13c334afa8e");
    slinky_doc_free(pod);
    wl_free(&c);
}

static void test_template_hash(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    slinky_model_object *ns = nodeset(&c);
    char *h1 = NULL, *h2 = NULL;
    assert_int_equal(slinky_workload_nodeset_template_hash(&h1, ns, &c.in), 0);
    /* replicas and ordinal padding are outside the template */
    assert_int_equal(slinky_model_set_int(ns, "spec.replicas", 9), 0);
    assert_int_equal(slinky_workload_nodeset_template_hash(&h2, ns, &c.in), 0);
    assert_string_equal(h1, h2);
    slinky_free(h2);
    /* the image, the extraConf (--conf) and the template labels are inside */
    assert_int_equal(slinky_model_set_string(ns, "spec.slurmd.image", "slurmd:26"), 0);
    assert_int_equal(slinky_workload_nodeset_template_hash(&h2, ns, &c.in), 0);
    assert_string_not_equal(h1, h2);
    slinky_free(h2);
    assert_int_equal(slinky_model_set_string(ns, "spec.slurmd.image", "ghcr.io/slinkyproject/slurmd:25.05"), 0);
    assert_int_equal(slinky_workload_nodeset_template_hash(&h2, ns, &c.in), 0);
    assert_string_equal(h1, h2);
    slinky_free(h2);
    assert_int_equal(slinky_model_set_string(ns, "spec.extraConf", "Gres=gpu:8"), 0);
    assert_int_equal(slinky_workload_nodeset_template_hash(&h2, ns, &c.in), 0);
    assert_string_not_equal(h1, h2);
    slinky_free(h2);
    slinky_free(h1);
    wl_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_cluster c = {0};
    wl_add(&c, base_yaml);
    wl_add(&c, ns_yaml);
    slinky_model_object *ns = nodeset(&c);
    /* a controllerRef that names no Controller: clear error, nothing built */
    assert_int_equal(slinky_model_set_string(ns, "spec.controllerRef.name", "nope"), 0);
    assert_int_equal(slinky_workload_build_nodeset(c.w, ns, &c.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "NodeSet slinky/gpu: spec.controllerRef.name: no Controller \"nope\""));
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, ns, &c.in), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_workload_count(c.w), 0);
    assert_int_equal(slinky_model_set_string(ns, "spec.controllerRef.name", "slurm"), 0);
    /* a bad quantity names the field */
    assert_int_equal(slinky_model_set_string(ns, "spec.slurmd.resources.limits.cpu", "lots"), 0);
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, ns, &c.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "resources.limits"));
    assert_int_equal(slinky_model_set_string(ns, "spec.slurmd.resources.limits.cpu", "1"), 0);
    /* no uid: no owner reference */
    assert_int_equal(slinky_model_unset(ns, "metadata.uid"), 0);
    assert_int_equal(slinky_workload_build_nodeset_pods(c.w, ns, &c.in), SLINKY_EINVALID);
    assert_int_equal(slinky_workload_count(c.w), 0);
    /* a Controller passed as a NodeSet */
    slinky_doc *pod = NULL;
    assert_int_equal(slinky_workload_nodeset_pod(&pod, wl_obj(&c, SLINKY_MODEL_KIND_CONTROLLER, "slurm"), 0, &c.in),
                     SLINKY_EINVALID);
    wl_free(&c);
}

static void test_determinism(void **state)
{
    (void)state;
    wl_cluster a = {0}, b = {0};
    wl_add(&a, base_yaml);
    wl_add(&a, ns_yaml);
    wl_add(&b, base_yaml);
    wl_add(&b, ns_yaml);
    assert_int_equal(slinky_workload_build_nodeset_pods(a.w, nodeset(&a), &a.in), 0);
    assert_int_equal(slinky_workload_build_nodeset_pods(b.w, nodeset(&b), &b.in), 0);
    char *ja = NULL, *jb = NULL;
    assert_int_equal(slinky_workload_dump_json(&ja, NULL, a.w, 0), 0);
    assert_int_equal(slinky_workload_dump_json(&jb, NULL, b.w, 0), 0);
    assert_string_equal(ja, jb);
    assert_non_null(strstr(ja, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{"));
    slinky_free(ja);
    slinky_free(jb);
    wl_free(&a);
    wl_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slurmd_conf_args_upstream),
        cmocka_unit_test(test_baseline_features),
        cmocka_unit_test(test_parse_extra_conf),
        cmocka_unit_test(test_gres_kept),
        cmocka_unit_test(test_no_empty_topology),
        cmocka_unit_test(test_conf_values_checked),
        cmocka_unit_test(test_service_and_pdb),
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pods_equal_single_builds),
        cmocka_unit_test(test_pod_naming),
        cmocka_unit_test(test_daemonset_pod),
        cmocka_unit_test(test_ssh),
        cmocka_unit_test(test_template_hash),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
