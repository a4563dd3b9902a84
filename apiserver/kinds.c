/*
 * Built-in workload kinds in admission (admit.h): the defaults, required
 * fields and immutable fields Kubernetes 1.32 gives apps/v1 StatefulSet,
 * Deployment, ReplicaSet, DaemonSet and ControllerRevision, policy/v1
 * PodDisruptionBudget and v1 Pod, PersistentVolumeClaim and Endpoints
 * (SetDefaults_* of pkg/apis/{apps,core}/v1 and the Validate*Spec/Update
 * functions of pkg/apis/{apps,core,policy}/validation), with the same field
 * paths in the causes.
 */
#include "admit.h"

#include <stdio.h>
#include <string.h>

static bool is_kind(const as_rtype *rt, const char *group, const char *plural)
{
    return rt->builtin && !strcmp(rt->group, group) && !strcmp(rt->plural, plural);
}

/* the value at `key` of obj, created as an object when missing (NULL when obj is not one) */
static slinky_doc_value *obj_at(slinky_doc_value *obj, const char *key)
{
    if (slinky_doc_value_type(obj) != SLINKY_DOC_OBJECT)
        return NULL;
    slinky_doc_value *v = slinky_doc_value_get(obj, key);
    if (v && slinky_doc_value_type(v) == SLINKY_DOC_OBJECT)
        return v;
    if (v && !slinky_doc_value_is_null(v))
        return NULL;
    if (slinky_doc_value_object_put(&v, obj, key) != 0)
        return NULL;
    slinky_doc_value_set_object(v);
    return v;
}

static bool missing(const slinky_doc_value *obj, const char *key)
{
    const slinky_doc_value *v = slinky_doc_value_get(obj, key);
    return !v || slinky_doc_value_is_null(v);
}

static void def_str(slinky_doc_value *obj, const char *key, const char *v)
{
    if (obj && missing(obj, key))
        slinky_doc_value_object_set_string(obj, key, v);
}

static void def_int(slinky_doc_value *obj, const char *key, long long v)
{
    if (obj && missing(obj, key))
        slinky_doc_value_object_set_int(obj, key, v);
}

/* SetDefaults_Container: pull policy from the tag, termination message */
static void container_defaults(slinky_doc_value *list)
{
    for (size_t i = 0; i < slinky_doc_value_size(list); i++) {
        slinky_doc_value *c = slinky_doc_value_at(list, i);
        if (slinky_doc_value_type(c) != SLINKY_DOC_OBJECT)
            continue;
        const char *image = slinky_doc_value_path_string(c, "image", "");
        const char *slash = strrchr(image, '/');
        const char *colon = strrchr(slash ? slash : image, ':');
        bool latest = !strchr(image, '@') && (!colon || !strcmp(colon, ":latest"));
        def_str(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
        def_str(c, "terminationMessagePath", "/dev/termination-log");
        def_str(c, "terminationMessagePolicy", "File");
        obj_at(c, "resources");
        slinky_doc_value *ports = slinky_doc_value_get(c, "ports");
        for (size_t j = 0; j < slinky_doc_value_size(ports); j++)
            def_str(slinky_doc_value_at(ports, j), "protocol", "TCP");
    }
}

/* SetDefaults_PodSpec */
static void pod_spec_defaults(slinky_doc_value *spec)
{
    if (!spec)
        return;
    def_str(spec, "restartPolicy", "Always");
    def_str(spec, "dnsPolicy", "ClusterFirst");
    def_int(spec, "terminationGracePeriodSeconds", 30);
    def_str(spec, "schedulerName", "default-scheduler");
    obj_at(spec, "securityContext");
    container_defaults(slinky_doc_value_get(spec, "containers"));
    container_defaults(slinky_doc_value_get(spec, "initContainers"));
}

static void template_defaults(slinky_doc_value *spec)
{
    slinky_doc_value *tpl = spec ? slinky_doc_value_get(spec, "template") : NULL;
    if (slinky_doc_value_type(tpl) == SLINKY_DOC_OBJECT)
        pod_spec_defaults(obj_at(tpl, "spec"));
}

/* SetDefaults_Job (batch/v1) */
static void job_defaults(slinky_doc_value *spec)
{
    if (!spec)
        return;
    if (missing(spec, "completions") && missing(spec, "parallelism"))
        def_int(spec, "completions", 1);
    def_int(spec, "parallelism", 1);
    def_int(spec, "backoffLimit", missing(spec, "backoffLimitPerIndex") ? 6 : 2147483647);
    def_str(spec, "completionMode", "NonIndexed");
    if (missing(spec, "suspend"))
        slinky_doc_value_object_set_bool(spec, "suspend", false);
    if (missing(spec, "podFailurePolicy"))
        def_str(spec, "podReplacementPolicy", "TerminatingOrFailed");
    else
        def_str(spec, "podReplacementPolicy", "Failed");
    template_defaults(spec);
}

void as_kind_defaults(const as_rtype *rt, slinky_doc_value *root)
{
    if (!rt->builtin)
        return;
    if (is_kind(rt, "apps", "statefulsets")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "replicas", 1);
        def_str(spec, "podManagementPolicy", "OrderedReady");
        def_int(spec, "revisionHistoryLimit", 10);
        slinky_doc_value *us = obj_at(spec, "updateStrategy");
        def_str(us, "type", "RollingUpdate");
        if (!strcmp(slinky_doc_value_path_string(us, "type", ""), "RollingUpdate"))
            def_int(obj_at(us, "rollingUpdate"), "partition", 0);
        slinky_doc_value *ret = obj_at(spec, "persistentVolumeClaimRetentionPolicy");
        def_str(ret, "whenDeleted", "Retain");
        def_str(ret, "whenScaled", "Retain");
        template_defaults(spec);
    } else if (is_kind(rt, "apps", "deployments")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "replicas", 1);
        def_int(spec, "revisionHistoryLimit", 10);
        def_int(spec, "progressDeadlineSeconds", 600);
        slinky_doc_value *st = obj_at(spec, "strategy");
        def_str(st, "type", "RollingUpdate");
        if (!strcmp(slinky_doc_value_path_string(st, "type", ""), "RollingUpdate")) {
            slinky_doc_value *ru = obj_at(st, "rollingUpdate");
            def_str(ru, "maxUnavailable", "25%");
            def_str(ru, "maxSurge", "25%");
        }
        template_defaults(spec);
    } else if (is_kind(rt, "apps", "replicasets")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "replicas", 1);
        template_defaults(spec);
    } else if (is_kind(rt, "apps", "daemonsets")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "revisionHistoryLimit", 10);
        slinky_doc_value *us = obj_at(spec, "updateStrategy");
        def_str(us, "type", "RollingUpdate");
        if (!strcmp(slinky_doc_value_path_string(us, "type", ""), "RollingUpdate")) {
            slinky_doc_value *ru = obj_at(us, "rollingUpdate");
            def_int(ru, "maxUnavailable", 1);
            def_int(ru, "maxSurge", 0);
        }
        template_defaults(spec);
    } else if (is_kind(rt, "batch", "jobs")) {
        job_defaults(obj_at(root, "spec"));
    } else if (is_kind(rt, "batch", "cronjobs")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_str(spec, "concurrencyPolicy", "Allow");
        if (spec && missing(spec, "suspend"))
            slinky_doc_value_object_set_bool(spec, "suspend", false);
        def_int(spec, "successfulJobsHistoryLimit", 3);
        def_int(spec, "failedJobsHistoryLimit", 1);
        slinky_doc_value *jt = obj_at(spec, "jobTemplate");
        if (jt && slinky_doc_value_get(jt, "spec"))
            job_defaults(obj_at(jt, "spec"));
    } else if (is_kind(rt, "", "replicationcontrollers")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "replicas", 1);
        /* SetDefaults_ReplicationController: the selector (and labels) from the template */
        const slinky_doc_value *tl = slinky_doc_value_path(spec, "template.metadata.labels");
        if (tl && slinky_doc_value_size(tl) && missing(spec, "selector"))
            slinky_doc_value_object_set(spec, "selector", tl);
        slinky_doc_value *md = obj_at(root, "metadata");
        if (tl && slinky_doc_value_size(tl) && missing(md, "labels"))
            slinky_doc_value_object_set(md, "labels", tl);
        template_defaults(spec);
    } else if (is_kind(rt, "", "persistentvolumes")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_str(spec, "persistentVolumeReclaimPolicy", "Retain");
        def_str(spec, "volumeMode", "Filesystem");
        def_str(obj_at(root, "status"), "phase", "Pending");
    } else if (is_kind(rt, "networking.k8s.io", "networkpolicies")) {
        slinky_doc_value *spec = obj_at(root, "spec"), *pt = NULL, *e = NULL;
        if (spec && missing(spec, "policyTypes") &&
            slinky_doc_value_object_put(&pt, spec, "policyTypes") == 0 &&
            slinky_doc_value_set_array(pt) == 0) {
            if (slinky_doc_value_array_append(&e, pt) == 0)
                slinky_doc_value_set_string(e, "Ingress");
            if (slinky_doc_value_size(slinky_doc_value_get(spec, "egress")) &&
                slinky_doc_value_array_append(&e, pt) == 0)
                slinky_doc_value_set_string(e, "Egress");
        }
    } else if (is_kind(rt, "storage.k8s.io", "storageclasses")) {
        def_str(root, "reclaimPolicy", "Delete");
        def_str(root, "volumeBindingMode", "Immediate");
    } else if (is_kind(rt, "scheduling.k8s.io", "priorityclasses")) {
        def_str(root, "preemptionPolicy", "PreemptLowerPriority");
    } else if (is_kind(rt, "autoscaling", "horizontalpodautoscalers")) {
        slinky_doc_value *spec = obj_at(root, "spec");
        def_int(spec, "minReplicas", 1);
        /* SetDefaults_HorizontalPodAutoscaler: 80% CPU when no metric is given */
        slinky_doc_value *m = NULL;
        if (spec && missing(spec, "metrics") && slinky_doc_value_object_put(&m, spec, "metrics") == 0 &&
            slinky_doc_value_set_array(m) == 0) {
            slinky_doc_value *e = NULL;
            if (slinky_doc_value_array_append(&e, m) == 0) {
                slinky_doc_value_set_object(e);
                slinky_doc_value_object_set_string(e, "type", "Resource");
                slinky_doc_value *r = obj_at(e, "resource");
                slinky_doc_value_object_set_string(r, "name", "cpu");
                slinky_doc_value *t = obj_at(r, "target");
                slinky_doc_value_object_set_string(t, "type", "Utilization");
                slinky_doc_value_object_set_int(t, "averageUtilization", 80);
            }
        }
    } else if (is_kind(rt, "", "pods")) {
        pod_spec_defaults(obj_at(root, "spec"));
        def_str(obj_at(root, "status"), "phase", "Pending");
    } else if (is_kind(rt, "", "persistentvolumeclaims")) {
        def_str(obj_at(root, "spec"), "volumeMode", "Filesystem");
        def_str(obj_at(root, "status"), "phase", "Pending");
    } else if (is_kind(rt, "", "endpoints")) {
        slinky_doc_value *subsets = slinky_doc_value_get(root, "subsets");
        for (size_t i = 0; i < slinky_doc_value_size(subsets); i++) {
            slinky_doc_value *ports = slinky_doc_value_get(slinky_doc_value_at(subsets, i), "ports");
            for (size_t j = 0; j < slinky_doc_value_size(ports); j++)
                def_str(slinky_doc_value_at(ports, j), "protocol", "TCP");
        }
    }
}

/* ------------------------------------------------------------------ */
/* validation                                                         */
/* ------------------------------------------------------------------ */

static void containers_valid(as_causes *c, const slinky_doc_value *spec, const char *path)
{
    const slinky_doc_value *list = slinky_doc_value_get(spec, "containers");
    char f[300];
    snprintf(f, sizeof(f), "%s.containers", path);
    if (slinky_doc_value_size(list) == 0 || slinky_doc_value_type(list) != SLINKY_DOC_ARRAY) {
        as_causes_add(c, "FieldValueRequired", f, "Required value");
        return;
    }
    for (size_t i = 0; i < slinky_doc_value_size(list); i++) {
        const slinky_doc_value *ct = slinky_doc_value_at(list, i);
        char g[340];
        snprintf(g, sizeof(g), "%s[%zu].name", f, i);
        const char *name = slinky_doc_value_path_string(ct, "name", "");
        const char *why = as_check_dns_label(name);
        if (!*name)
            as_causes_add(c, "FieldValueRequired", g, "Required value");
        else if (why)
            as_causes_add(c, "FieldValueInvalid", g, "Invalid value: \"%s\": %s", name, why);
        snprintf(g, sizeof(g), "%s[%zu].image", f, i);
        if (!*slinky_doc_value_path_string(ct, "image", ""))
            as_causes_add(c, "FieldValueRequired", g, "Required value");
    }
}

bool as_label_selector_matches(const slinky_doc_value *sel, const slinky_doc_value *labels)
{
    const slinky_doc_value *ml = slinky_doc_value_get(sel, "matchLabels");
    for (size_t i = 0; i < slinky_doc_value_size(ml); i++) {
        const char *want = slinky_doc_value_get_string(slinky_doc_value_member_at(ml, i));
        const char *have =
            slinky_doc_value_path_string(labels, slinky_doc_value_key_at(ml, i), NULL);
        if (!have || !want || strcmp(have, want) != 0)
            return false;
    }
    const slinky_doc_value *me = slinky_doc_value_get(sel, "matchExpressions");
    for (size_t i = 0; i < slinky_doc_value_size(me); i++) {
        const slinky_doc_value *e = slinky_doc_value_at(me, i);
        const char *key = slinky_doc_value_path_string(e, "key", "");
        const char *op = slinky_doc_value_path_string(e, "operator", "");
        const slinky_doc_value *kv = slinky_doc_value_get(labels, key);
        const char *have = kv ? slinky_doc_value_get_string(kv) : NULL;
        const slinky_doc_value *vals = slinky_doc_value_get(e, "values");
        bool in = false;
        for (size_t j = 0; have && j < slinky_doc_value_size(vals); j++)
            in = in || !strcmp(have, slinky_doc_value_get_string(slinky_doc_value_at(vals, j)));
        if ((!strcmp(op, "In") && !in) || (!strcmp(op, "NotIn") && in) ||
            (!strcmp(op, "Exists") && !kv) || (!strcmp(op, "DoesNotExist") && kv))
            return false;
    }
    return true;
}

/* selector + template of a workload: ValidateDeploymentSpec and friends */
static void workload_valid(as_causes *c, const slinky_doc_value *root, bool restart_always)
{
    const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
    const slinky_doc_value *sel = slinky_doc_value_get(spec, "selector");
    bool empty_sel = slinky_doc_value_size(slinky_doc_value_get(sel, "matchLabels")) == 0 &&
                     slinky_doc_value_size(slinky_doc_value_get(sel, "matchExpressions")) == 0;
    if (!sel || slinky_doc_value_is_null(sel))
        as_causes_add(c, "FieldValueRequired", "spec.selector", "Required value");
    else if (empty_sel)
        as_causes_add(c, "FieldValueInvalid", "spec.selector",
                      "Invalid value: \"null\": empty selector is invalid for deployment");
    const slinky_doc_value *tpl = slinky_doc_value_get(spec, "template");
    if (!tpl) {
        as_causes_add(c, "FieldValueRequired", "spec.template", "Required value");
        return;
    }
    const slinky_doc_value *labels = slinky_doc_value_path(tpl, "metadata.labels");
    if (sel && !empty_sel && !as_label_selector_matches(sel, labels))
        as_causes_add(c, "FieldValueInvalid", "spec.template.metadata.labels",
                      "Invalid value: `selector` does not match template `labels`");
    const slinky_doc_value *ps = slinky_doc_value_get(tpl, "spec");
    containers_valid(c, ps, "spec.template.spec");
    const char *rp = slinky_doc_value_path_string(ps, "restartPolicy", "Always");
    if (restart_always && strcmp(rp, "Always") != 0)
        as_causes_add(c, "FieldValueNotSupported", "spec.template.spec.restartPolicy",
                      "Unsupported value: \"%s\": supported values: \"Always\"", rp);
    const slinky_doc_value *rep = slinky_doc_value_get(spec, "replicas");
    if (rep && slinky_doc_value_type(rep) == SLINKY_DOC_INT && slinky_doc_value_get_int(rep) < 0)
        as_causes_add(c, "FieldValueInvalid", "spec.replicas",
                      "Invalid value: %lld: must be greater than or equal to 0",
                      (long long)slinky_doc_value_get_int(rep));
}

/* ValidateJobSpec: a template of containers that restart OnFailure or Never */
static void job_valid(as_causes *c, const slinky_doc_value *spec, const char *path, bool create)
{
    char f[200];
    const slinky_doc_value *tpl = slinky_doc_value_get(spec, "template");
    if (!tpl) {
        snprintf(f, sizeof(f), "%s.template", path);
        as_causes_add(c, "FieldValueRequired", f, "Required value");
        return;
    }
    snprintf(f, sizeof(f), "%s.template.spec", path);
    containers_valid(c, slinky_doc_value_get(tpl, "spec"), f);
    const char *rp = slinky_doc_value_path_string(tpl, "spec.restartPolicy", "Always");
    snprintf(f, sizeof(f), "%s.template.spec.restartPolicy", path);
    if (strcmp(rp, "OnFailure") != 0 && strcmp(rp, "Never") != 0)
        as_causes_add(c, "FieldValueNotSupported", f,
                      "Unsupported value: \"%s\": supported values: \"OnFailure\", \"Never\"",
                      rp);
    static const char *const ints[] = {"parallelism", "completions", "backoffLimit",
                                       "activeDeadlineSeconds", "ttlSecondsAfterFinished"};
    for (size_t i = 0; i < AS_ARRAY_SIZE(ints); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(spec, ints[i]);
        snprintf(f, sizeof(f), "%s.%s", path, ints[i]);
        if (v && slinky_doc_value_type(v) == SLINKY_DOC_INT && slinky_doc_value_get_int(v) < 0)
            as_causes_add(c, "FieldValueInvalid", f,
                          "Invalid value: %lld: must be greater than or equal to 0",
                          (long long)slinky_doc_value_get_int(v));
    }
    (void)create;
}

static bool same(const slinky_doc_value *a, const slinky_doc_value *b, const char *path)
{
    return slinky_doc_value_equal(slinky_doc_value_path(a, path), slinky_doc_value_path(b, path));
}

/* spec members other than `allowed` equal in both (StatefulSet, Pod updates) */
static bool spec_rest_equal(const slinky_doc_value *a, const slinky_doc_value *b,
                            const char *const *allowed, size_t n)
{
    const slinky_doc_value *sa = slinky_doc_value_get(a, "spec"),
                           *sb = slinky_doc_value_get(b, "spec");
    for (int pass = 0; pass < 2; pass++) {
        const slinky_doc_value *x = pass ? sb : sa, *y = pass ? sa : sb;
        for (size_t i = 0; i < slinky_doc_value_size(x); i++) {
            const char *k = slinky_doc_value_key_at(x, i);
            bool skip = false;
            for (size_t j = 0; j < n && !skip; j++)
                skip = !strcmp(k, allowed[j]);
            if (!skip && !slinky_doc_value_equal(slinky_doc_value_member_at(x, i),
                                                 slinky_doc_value_get(y, k)))
                return false;
        }
    }
    return true;
}

/* Pod spec on update: only images, activeDeadlineSeconds and tolerations may change */
static bool pod_spec_update_ok(const slinky_doc_value *old, const slinky_doc_value *root)
{
    static const char *const allowed[] = {"containers", "initContainers",
                                          "activeDeadlineSeconds", "tolerations"};
    if (!spec_rest_equal(old, root, allowed, AS_ARRAY_SIZE(allowed)))
        return false;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < AS_ARRAY_SIZE(lists); l++) {
        const slinky_doc_value *a = slinky_doc_value_path(old, "spec"),
                               *b = slinky_doc_value_path(root, "spec");
        a = slinky_doc_value_get(a, lists[l]);
        b = slinky_doc_value_get(b, lists[l]);
        if (slinky_doc_value_size(a) != slinky_doc_value_size(b))
            return false;
        for (size_t i = 0; i < slinky_doc_value_size(a); i++) {
            const slinky_doc_value *ca = slinky_doc_value_at(a, i), *cb = slinky_doc_value_at(b, i);
            for (size_t k = 0; k < slinky_doc_value_size(ca); k++) {
                const char *key = slinky_doc_value_key_at(ca, k);
                if (strcmp(key, "image") != 0 &&
                    !slinky_doc_value_equal(slinky_doc_value_member_at(ca, k),
                                            slinky_doc_value_get(cb, key)))
                    return false;
            }
            if (slinky_doc_value_size(ca) != slinky_doc_value_size(cb))
                return false;
        }
    }
    return true;
}

void as_kind_validate(as_causes *c, const as_rtype *rt, const slinky_doc_value *root,
                      const slinky_doc_value *old)
{
    if (!rt->builtin)
        return;
    bool apps = !strcmp(rt->group, "apps");
    if (apps && (!strcmp(rt->plural, "deployments") || !strcmp(rt->plural, "replicasets") ||
                 !strcmp(rt->plural, "statefulsets") || !strcmp(rt->plural, "daemonsets"))) {
        workload_valid(c, root, true);
        if (!old)
            return;
        if (!strcmp(rt->plural, "statefulsets")) {
            static const char *const allowed[] = {"replicas", "ordinals", "template",
                                                  "updateStrategy",
                                                  "persistentVolumeClaimRetentionPolicy",
                                                  "minReadySeconds"};
            if (!spec_rest_equal(old, root, allowed, AS_ARRAY_SIZE(allowed)))
                as_causes_add(c, "FieldValueForbidden", "spec",
                              "Forbidden: updates to statefulset spec for fields other than "
                              "'replicas', 'ordinals', 'template', 'updateStrategy', "
                              "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                              "forbidden");
        } else if (!same(old, root, "spec.selector")) {
            as_causes_add(c, "FieldValueInvalid", "spec.selector",
                          "Invalid value: field is immutable");
        }
    } else if (apps && !strcmp(rt->plural, "controllerrevisions")) {
        const slinky_doc_value *rev = slinky_doc_value_get(root, "revision");
        if (!rev || slinky_doc_value_type(rev) != SLINKY_DOC_INT)
            as_causes_add(c, "FieldValueRequired", "revision", "Required value");
        else if (slinky_doc_value_get_int(rev) < 0)
            as_causes_add(c, "FieldValueInvalid", "revision",
                          "Invalid value: %lld: must be greater than or equal to 0",
                          (long long)slinky_doc_value_get_int(rev));
        if (old && !same(old, root, "data"))
            as_causes_add(c, "FieldValueInvalid", "data", "Invalid value: field is immutable");
    } else if (is_kind(rt, "batch", "jobs")) {
        job_valid(c, slinky_doc_value_get(root, "spec"), "spec", !old);
        if (old) {
            if (!same(old, root, "spec.selector"))
                as_causes_add(c, "FieldValueInvalid", "spec.selector",
                              "Invalid value: field is immutable");
            if (!same(old, root, "spec.completions"))
                as_causes_add(c, "FieldValueInvalid", "spec.completions",
                              "Invalid value: field is immutable");
            if (!same(old, root, "spec.template") &&
                !slinky_doc_value_path_bool(old, "spec.suspend", false))
                as_causes_add(c, "FieldValueInvalid", "spec.template",
                              "Invalid value: field is immutable");
        }
    } else if (is_kind(rt, "batch", "cronjobs")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        if (!*slinky_doc_value_path_string(spec, "schedule", ""))
            as_causes_add(c, "FieldValueRequired", "spec.schedule", "Required value");
        const char *cp = slinky_doc_value_path_string(spec, "concurrencyPolicy", "Allow");
        if (strcmp(cp, "Allow") && strcmp(cp, "Forbid") && strcmp(cp, "Replace"))
            as_causes_add(c, "FieldValueNotSupported", "spec.concurrencyPolicy",
                          "Unsupported value: \"%s\": supported values: \"Allow\", \"Forbid\", "
                          "\"Replace\"",
                          cp);
        job_valid(c, slinky_doc_value_path(spec, "jobTemplate.spec"), "spec.jobTemplate.spec",
                  false);
    } else if (is_kind(rt, "", "persistentvolumes")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        if (missing(slinky_doc_value_get(spec, "capacity"), "storage"))
            as_causes_add(c, "FieldValueRequired", "spec.capacity", "Required value");
        if (slinky_doc_value_size(slinky_doc_value_get(spec, "accessModes")) == 0)
            as_causes_add(c, "FieldValueRequired", "spec.accessModes", "Required value");
        static const char *const sources[] = {
            "hostPath", "local", "nfs", "csi", "iscsi", "fc", "rbd", "cephfs", "glusterfs",
            "awsElasticBlockStore", "gcePersistentDisk", "azureDisk", "azureFile", "vsphereVolume",
            "flexVolume", "cinder", "portworxVolume", "photonPersistentDisk", "quobyte",
            "scaleIO", "storageos", "flocker"};
        bool any = false;
        for (size_t i = 0; i < AS_ARRAY_SIZE(sources) && !any; i++)
            any = !missing(spec, sources[i]);
        if (!any)
            as_causes_add(c, "FieldValueRequired", "spec", "Required value: must specify a "
                                                            "volume type");
    } else if (is_kind(rt, "", "replicationcontrollers")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        if (slinky_doc_value_size(slinky_doc_value_get(spec, "selector")) == 0)
            as_causes_add(c, "FieldValueRequired", "spec.selector", "Required value");
        const slinky_doc_value *tpl = slinky_doc_value_get(spec, "template");
        if (!tpl)
            as_causes_add(c, "FieldValueRequired", "spec.template", "Required value");
        else
            containers_valid(c, slinky_doc_value_get(tpl, "spec"), "spec.template.spec");
    } else if (!strcmp(rt->group, "rbac.authorization.k8s.io") &&
               (!strcmp(rt->plural, "rolebindings") || !strcmp(rt->plural, "clusterrolebindings"))) {
        const slinky_doc_value *ref = slinky_doc_value_get(root, "roleRef");
        if (!*slinky_doc_value_path_string(ref, "kind", ""))
            as_causes_add(c, "FieldValueRequired", "roleRef.kind", "Required value");
        if (!*slinky_doc_value_path_string(ref, "name", ""))
            as_causes_add(c, "FieldValueRequired", "roleRef.name", "Required value");
        if (old && !same(old, root, "roleRef"))
            as_causes_add(c, "FieldValueInvalid", "roleRef",
                          "Invalid value: cannot change roleRef");
    } else if (is_kind(rt, "networking.k8s.io", "ingresses")) {
        const slinky_doc_value *rules = slinky_doc_value_path(root, "spec.rules");
        for (size_t i = 0; i < slinky_doc_value_size(rules); i++) {
            const slinky_doc_value *paths =
                slinky_doc_value_path(slinky_doc_value_at(rules, i), "http.paths");
            for (size_t j = 0; j < slinky_doc_value_size(paths); j++) {
                char f[120];
                snprintf(f, sizeof(f), "spec.rules[%zu].http.paths[%zu].pathType", i, j);
                if (missing(slinky_doc_value_at(paths, j), "pathType"))
                    as_causes_add(c, "FieldValueRequired", f,
                                  "Required value: pathType must be specified");
            }
        }
    } else if (is_kind(rt, "storage.k8s.io", "storageclasses")) {
        if (!*slinky_doc_value_path_string(root, "provisioner", ""))
            as_causes_add(c, "FieldValueRequired", "provisioner", "Required value");
        if (old && !same(old, root, "parameters"))
            as_causes_add(c, "FieldValueForbidden", "parameters",
                          "Forbidden: updates to parameters are forbidden.");
        if (old && !same(old, root, "provisioner"))
            as_causes_add(c, "FieldValueForbidden", "provisioner",
                          "Forbidden: updates to provisioner are forbidden.");
    } else if (is_kind(rt, "scheduling.k8s.io", "priorityclasses")) {
        const slinky_doc_value *v = slinky_doc_value_get(root, "value");
        if (!v || slinky_doc_value_type(v) != SLINKY_DOC_INT)
            as_causes_add(c, "FieldValueRequired", "value", "Required value");
        if (old && !same(old, root, "value"))
            as_causes_add(c, "FieldValueForbidden", "value",
                          "Forbidden: may not be changed in an update.");
    } else if (is_kind(rt, "autoscaling", "horizontalpodautoscalers")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        const slinky_doc_value *ref = slinky_doc_value_get(spec, "scaleTargetRef");
        if (!*slinky_doc_value_path_string(ref, "kind", ""))
            as_causes_add(c, "FieldValueRequired", "spec.scaleTargetRef.kind", "Required value");
        if (!*slinky_doc_value_path_string(ref, "name", ""))
            as_causes_add(c, "FieldValueRequired", "spec.scaleTargetRef.name", "Required value");
        long long max = slinky_doc_value_path_int(spec, "maxReplicas", 0);
        long long min = slinky_doc_value_path_int(spec, "minReplicas", 1);
        if (max < 1)
            as_causes_add(c, "FieldValueInvalid", "spec.maxReplicas",
                          "Invalid value: %lld: must be greater than or equal to 1", max);
        else if (min > max)
            as_causes_add(c, "FieldValueInvalid", "spec.maxReplicas",
                          "Invalid value: %lld: must be greater than or equal to `minReplicas`",
                          max);
    } else if (is_kind(rt, "discovery.k8s.io", "endpointslices")) {
        const char *at = slinky_doc_value_path_string(root, "addressType", "");
        if (!*at)
            as_causes_add(c, "FieldValueRequired", "addressType", "Required value");
        else if (strcmp(at, "IPv4") && strcmp(at, "IPv6") && strcmp(at, "FQDN"))
            as_causes_add(c, "FieldValueNotSupported", "addressType",
                          "Unsupported value: \"%s\": supported values: \"FQDN\", \"IPv4\", "
                          "\"IPv6\"",
                          at);
        if (old && !same(old, root, "addressType"))
            as_causes_add(c, "FieldValueInvalid", "addressType",
                          "Invalid value: field is immutable");
    } else if (is_kind(rt, "policy", "poddisruptionbudgets")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        if (!missing(spec, "minAvailable") && !missing(spec, "maxUnavailable"))
            as_causes_add(c, "FieldValueInvalid", "spec",
                          "Invalid value: minAvailable and maxUnavailable cannot be both set");
    } else if (is_kind(rt, "", "pods")) {
        containers_valid(c, slinky_doc_value_get(root, "spec"), "spec");
        if (old && !pod_spec_update_ok(old, root))
            as_causes_add(c, "FieldValueForbidden", "spec",
                          "Forbidden: pod updates may not change fields other than "
                          "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                          "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
                          "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it "
                          "to be set to 1 if it was previously negative)");
    } else if (is_kind(rt, "", "persistentvolumeclaims")) {
        const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        if (slinky_doc_value_size(slinky_doc_value_get(spec, "accessModes")) == 0)
            as_causes_add(c, "FieldValueRequired", "spec.accessModes",
                          "Required value: at least 1 access mode is required");
        if (missing(slinky_doc_value_path(spec, "resources.requests"), "storage"))
            as_causes_add(c, "FieldValueRequired", "spec.resources[storage]", "Required value");
        static const char *const allowed[] = {"resources", "volumeName",
                                              "volumeAttributesClassName"};
        if (old && !spec_rest_equal(old, root, allowed, AS_ARRAY_SIZE(allowed)))
            as_causes_add(c, "FieldValueForbidden", "spec",
                          "Forbidden: spec is immutable after creation except resources.requests "
                          "and volumeAttributesClassName for bound claims");
    }
}

/* ------------------------------------------------------------------ */
/* v1 Service: defaults, ClusterIP and NodePort allocation, checks     */
/* ------------------------------------------------------------------ */

#define NODEPORT_MIN 30000
#define NODEPORT_MAX 32767

/* IPs and node ports of the other Services (not `self`, "ns/name") */
typedef struct svc_used {
    char (*ips)[48];
    size_t n_ips;
    unsigned char ports[NODEPORT_MAX - NODEPORT_MIN + 1];
} svc_used;

static void collect_used(as_server *s, svc_used *u, const char *ns, const char *name)
{
    as_rtype *rt = as_registry_find_gr(s, "", "services");
    u->ips = rt && rt->n_items ? calloc(rt->n_items, sizeof(*u->ips)) : NULL;
    for (size_t i = 0; rt && i < rt->n_items; i++) {
        as_obj *o = rt->items[i];
        if (!strcmp(o->ns, ns) && !strcmp(o->name, name))
            continue;
        slinky_doc *d = NULL;
        if (as_obj_doc(&d, o) != 0)
            continue;
        const slinky_doc_value *spec = slinky_doc_value_get(slinky_doc_root(d), "spec");
        if (u->ips)
            snprintf(u->ips[u->n_ips++], sizeof(*u->ips), "%s",
                     slinky_doc_value_path_string(spec, "clusterIP", ""));
        const slinky_doc_value *ports = slinky_doc_value_get(spec, "ports");
        for (size_t j = 0; j < slinky_doc_value_size(ports); j++) {
            long long np = slinky_doc_value_path_int(slinky_doc_value_at(ports, j), "nodePort", 0);
            if (np >= NODEPORT_MIN && np <= NODEPORT_MAX)
                u->ports[np - NODEPORT_MIN] = 1;
        }
        slinky_doc_free(d);
    }
}

static bool ip_used(const svc_used *u, const char *ip)
{
    for (size_t i = 0; i < u->n_ips; i++)
        if (!strcmp(u->ips[i], ip))
            return true;
    return false;
}

/* a.b.c.d in the service range 10.96.0.0/12 */
static bool in_service_range(const char *ip)
{
    unsigned a, b, c, d;
    char tail;
    return sscanf(ip, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 && a == 10 && b >= 96 &&
           b <= 111 && c <= 255 && d <= 255;
}

static void set_cluster_ips(slinky_doc_value *spec, const char *ip)
{
    slinky_doc_value *list = NULL;
    if (slinky_doc_value_object_put(&list, spec, "clusterIPs") != 0)
        return;
    slinky_doc_value_set_array(list);
    slinky_doc_value *e = NULL;
    if (slinky_doc_value_array_append(&e, list) == 0)
        slinky_doc_value_set_string(e, ip);
}

void as_service_admit(as_server *s, const as_rtype *rt, slinky_doc_value *root,
                      const slinky_doc_value *old, as_causes *c)
{
    if (!is_kind(rt, "", "services"))
        return;
    slinky_doc_value *spec = obj_at(root, "spec");
    if (!spec)
        return;
    def_str(spec, "type", "ClusterIP");
    const char *type = slinky_doc_value_path_string(spec, "type", "");
    bool external = !strcmp(type, "ExternalName");
    bool node_ports = !strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer");
    if (!external && !node_ports && strcmp(type, "ClusterIP") != 0) {
        as_causes_add(c, "FieldValueNotSupported", "spec.type",
                      "Unsupported value: \"%s\": supported values: \"ClusterIP\", "
                      "\"ExternalName\", \"LoadBalancer\", \"NodePort\"",
                      type);
        return;
    }
    def_str(spec, "sessionAffinity", "None");
    if (!external) {
        def_str(spec, "internalTrafficPolicy", "Cluster");
        def_str(spec, "ipFamilyPolicy", "SingleStack");
        if (missing(spec, "ipFamilies")) {
            slinky_doc_value *f = NULL, *e = NULL;
            if (slinky_doc_value_object_put(&f, spec, "ipFamilies") == 0 &&
                slinky_doc_value_set_array(f) == 0 && slinky_doc_value_array_append(&e, f) == 0)
                slinky_doc_value_set_string(e, "IPv4");
        }
    }
    if (node_ports)
        def_str(spec, "externalTrafficPolicy", "Cluster");
    slinky_doc_value *ports = slinky_doc_value_get(spec, "ports");
    for (size_t i = 0; i < slinky_doc_value_size(ports); i++) {
        slinky_doc_value *p = slinky_doc_value_at(ports, i);
        def_str(p, "protocol", "TCP");
        if (p && missing(p, "targetPort") && slinky_doc_value_get(p, "port"))
            slinky_doc_value_object_set(p, "targetPort", slinky_doc_value_get(p, "port"));
    }
    const char *ip = slinky_doc_value_path_string(spec, "clusterIP", "");
    bool headless = !strcmp(ip, "None");
    if (external && !*slinky_doc_value_path_string(spec, "externalName", ""))
        as_causes_add(c, "FieldValueRequired", "spec.externalName", "Required value");
    if (!external && !headless && slinky_doc_value_size(ports) == 0)
        as_causes_add(c, "FieldValueRequired", "spec.ports", "Required value");
    /* an update keeps what was allocated; a changed cluster IP is refused */
    const slinky_doc_value *ospec = old ? slinky_doc_value_get(old, "spec") : NULL;
    const char *oip = slinky_doc_value_path_string(ospec, "clusterIP", "");
    if (ospec && *oip && !external) {
        if (!*ip) {
            slinky_doc_value_object_set_string(spec, "clusterIP", oip);
            ip = slinky_doc_value_path_string(spec, "clusterIP", "");
        } else if (strcmp(ip, oip) != 0) {
            as_causes_add(c, "FieldValueInvalid", "spec.clusterIPs[0]",
                          "Invalid value: []string{\"%s\"}: may not change once set", ip);
        }
        const slinky_doc_value *oports = slinky_doc_value_get(ospec, "ports");
        for (size_t i = 0; i < slinky_doc_value_size(ports); i++) {
            slinky_doc_value *p = slinky_doc_value_at(ports, i);
            if (!node_ports || !missing(p, "nodePort"))
                continue;
            for (size_t j = 0; j < slinky_doc_value_size(oports); j++) {
                const slinky_doc_value *q = slinky_doc_value_at(oports, j);
                if (slinky_doc_value_path_int(q, "port", -1) ==
                        slinky_doc_value_path_int(p, "port", -2) &&
                    slinky_doc_value_get(q, "nodePort"))
                    slinky_doc_value_object_set(p, "nodePort", slinky_doc_value_get(q, "nodePort"));
            }
        }
    }
    if (external || c->n)
        return;
    svc_used u = {0};
    const slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    collect_used(s, &u, slinky_doc_value_path_string(md, "namespace", ""),
                 slinky_doc_value_path_string(md, "name", ""));
    if (!*ip) {
        char buf[48];
        for (unsigned n = 10; n < 16 * 65536; n++) {
            snprintf(buf, sizeof(buf), "10.%u.%u.%u", 96 + n / 65536, (n / 256) % 256, n % 256);
            if (n % 256 && !ip_used(&u, buf))
                break;
        }
        slinky_doc_value_object_set_string(spec, "clusterIP", buf);
        ip = slinky_doc_value_path_string(spec, "clusterIP", "");
    } else if (!headless && (!ospec || strcmp(ip, oip) != 0)) {
        if (!in_service_range(ip))
            as_causes_add(c, "FieldValueInvalid", "spec.clusterIPs[0]",
                          "Invalid value: \"%s\": failed to allocate IP %s: the provided IP (%s) "
                          "is not in the valid range. The range of valid IPs is 10.96.0.0/12",
                          ip, ip, ip);
        else if (ip_used(&u, ip))
            as_causes_add(c, "FieldValueInvalid", "spec.clusterIPs[0]",
                          "Invalid value: \"%s\": failed to allocate IP %s: provided IP is already "
                          "allocated",
                          ip, ip);
    }
    set_cluster_ips(spec, ip);
    for (size_t i = 0; node_ports && i < slinky_doc_value_size(ports); i++) {
        slinky_doc_value *p = slinky_doc_value_at(ports, i);
        char f[64];
        snprintf(f, sizeof(f), "spec.ports[%zu].nodePort", i);
        long long np = slinky_doc_value_path_int(p, "nodePort", 0);
        if (!np) {
            for (long k = 0; k <= NODEPORT_MAX - NODEPORT_MIN && !np; k++)
                if (!u.ports[k])
                    np = NODEPORT_MIN + k;
            if (!np) {
                as_causes_add(c, "FieldValueInvalid", f, "Invalid value: no node port left");
                continue;
            }
            slinky_doc_value_object_set_int(p, "nodePort", np);
        } else if (np < NODEPORT_MIN || np > NODEPORT_MAX) {
            as_causes_add(c, "FieldValueInvalid", f,
                          "Invalid value: %lld: provided port is not in the valid range. The "
                          "range of valid ports is %d-%d",
                          np, NODEPORT_MIN, NODEPORT_MAX);
            continue;
        } else if (u.ports[np - NODEPORT_MIN]) {
            as_causes_add(c, "FieldValueInvalid", f,
                          "Invalid value: %lld: provided port is already allocated", np);
            continue;
        }
        u.ports[np - NODEPORT_MIN] = 1; /* two ports of this Service differ too */
    }
    free(u.ips);
}
