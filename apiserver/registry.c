/* Resource types: the built-in kinds and CRD registration (registry.h). */
#include "registry.h"

#include <stdio.h>
#include <string.h>

typedef struct builtin {
    const char *group, *version, *plural, *singular, *kind, *shorts;
    bool namespaced, status;
    bool scale;      /* /scale at .spec.replicas / .status.replicas */
    bool generation; /* metadata.generation follows spec changes */
    bool all;        /* in the "all" category */
} builtin;

static const builtin k_builtins[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", "ns", false, true},
    {"", "v1", "configmaps", "configmap", "ConfigMap", "cm", true, false},
    {"", "v1", "secrets", "secret", "Secret", "", true, false},
    {"", "v1", "services", "service", "Service", "svc", true, true},
    {"", "v1", "pods", "pod", "Pod", "po", true, true},
    {"", "v1", "events", "event", "Event", "ev", true, false},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "sa", true, false},
    {"", "v1", "endpoints", "endpoints", "Endpoints", "ep", true, false},
    {"", "v1", "nodes", "node", "Node", "no", false, true},
    {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", "pvc",
     true, true},
    {"apps", "v1", "statefulsets", "statefulset", "StatefulSet", "sts", true, true, true, true,
     true},
    {"apps", "v1", "deployments", "deployment", "Deployment", "deploy", true, true, true, true,
     true},
    {"apps", "v1", "replicasets", "replicaset", "ReplicaSet", "rs", true, true, true, true, true},
    {"apps", "v1", "daemonsets", "daemonset", "DaemonSet", "ds", true, true, false, true, true},
    {"apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", "", true,
     false},
    {"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", "pv", false, true},
    {"", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", "rc",
     true, true, true, true, true},
    {"", "v1", "limitranges", "limitrange", "LimitRange", "limits", true, false},
    {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", "quota", true, true},
    {"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", "", true, false},
    {"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", "", false,
     false},
    {"rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", "", true,
     false},
    {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding",
     "ClusterRoleBinding", "", false, false},
    {"networking.k8s.io", "v1", "networkpolicies", "networkpolicy", "NetworkPolicy", "netpol",
     true, false, false, true},
    {"networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", "ing", true, true, false, true},
    {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", "sc", false, false},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", "pc", false,
     false},
    {"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler",
     "HorizontalPodAutoscaler", "hpa", true, true, false, false, true},
    {"apiregistration.k8s.io", "v1", "apiservices", "apiservice", "APIService", "", false, true},
    {"discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", "", true,
     false},
    {"batch", "v1", "jobs", "job", "Job", "", true, true, false, true, true},
    {"batch", "v1", "cronjobs", "cronjob", "CronJob", "cj", true, true, false, true, true},
    {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", "pdb",
     true, true, false, true},
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", "", true, false},
    {"events.k8s.io", "v1", "events", "event", "Event", "ev", true, false},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
     "CustomResourceDefinition", "crd,crds", false, true},
};

static void version_dispose(as_version *v)
{
    free(v->name);
    free(v->scale_spec);
    free(v->scale_status);
    free(v->scale_selector);
    slinky_doc_free(v->schema);
    slinky_doc_free(v->columns);
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void rtype_free(as_rtype *rt)
{
    free(rt->group);
    free(rt->plural);
    free(rt->singular);
    free(rt->kind);
    free(rt->list_kind);
    strv_free(rt->short_names, rt->n_short);
    strv_free(rt->categories, rt->n_categories);
    for (size_t i = 0; i < rt->n_versions; i++)
        version_dispose(&rt->versions[i]);
    free(rt->versions);
    for (size_t i = 0; i < rt->n_items; i++)
        as_obj_unref(rt->items[i]);
    free(rt->items);
    free(rt);
}

void as_registry_free(as_server *s)
{
    as_rtype *rt = s->types;
    while (rt) {
        as_rtype *next = rt->next;
        rtype_free(rt);
        rt = next;
    }
    s->types = NULL;
}

static int split_csv(char ***out, size_t *n_out, const char *csv)
{
    char **v = NULL;
    size_t n = 0;
    const char *p = csv;
    while (p && *p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char **nv = realloc(v, (n + 1) * sizeof(*nv));
        if (!nv)
            break;
        v = nv;
        v[n++] = as_strndup(p, len);
        p = c ? c + 1 : NULL;
    }
    *out = v;
    *n_out = n;
    return 0;
}

int as_registry_init(as_server *s)
{
    as_rtype **tail = &s->types;
    for (size_t i = 0; i < AS_ARRAY_SIZE(k_builtins); i++) {
        const builtin *b = &k_builtins[i];
        as_rtype *rt = as_calloc(1, sizeof(*rt));
        if (!rt)
            return SLINKY_ENOMEM;
        rt->group = as_strdup(b->group);
        rt->plural = as_strdup(b->plural);
        rt->singular = as_strdup(b->singular);
        rt->kind = as_strdup(b->kind);
        rt->list_kind = as_sprintf("%sList", b->kind);
        rt->namespaced = b->namespaced;
        rt->builtin = true;
        rt->crd_sets_generation = b->generation || !strcmp(b->plural, "customresourcedefinitions");
        split_csv(&rt->short_names, &rt->n_short, b->shorts);
        if (b->all ||
            (!strcmp(b->group, "") && (!strcmp(b->plural, "pods") || !strcmp(b->plural, "services"))))
            split_csv(&rt->categories, &rt->n_categories, "all");
        rt->versions = as_calloc(1, sizeof(*rt->versions));
        if (!rt->versions)
            return SLINKY_ENOMEM;
        rt->n_versions = 1;
        rt->versions[0].name = as_strdup(b->version);
        rt->versions[0].served = rt->versions[0].storage = true;
        rt->versions[0].has_status = b->status;
        rt->versions[0].has_scale = b->scale;
        *tail = rt;
        tail = &rt->next;
    }
    return 0;
}

as_rtype *as_registry_find_gr(as_server *s, const char *group, const char *plural)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        if (!rt->removed && strcmp(rt->group, group) == 0 && strcmp(rt->plural, plural) == 0)
            return rt;
    return NULL;
}

as_rtype *as_registry_find(as_server *s, const char *group, const char *version,
                           const char *plural, as_version **ver_out)
{
    as_rtype *rt = as_registry_find_gr(s, group, plural);
    if (!rt)
        return NULL;
    for (size_t i = 0; i < rt->n_versions; i++) {
        if (rt->versions[i].served && strcmp(rt->versions[i].name, version) == 0) {
            if (ver_out)
                *ver_out = &rt->versions[i];
            return rt;
        }
    }
    return NULL;
}

static char *dup_path_string(const slinky_doc_value *v, const char *path)
{
    const char *s = slinky_doc_value_path_string(v, path, NULL);
    return s ? as_strdup(s) : NULL;
}

static int str_array(char ***out, size_t *n_out, const slinky_doc_value *arr)
{
    size_t n = slinky_doc_value_size(arr);
    char **v = n ? as_calloc(n, sizeof(*v)) : NULL;
    if (n && !v)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = as_strdup(slinky_doc_value_get_string(slinky_doc_value_at(arr, i))
                                  ? slinky_doc_value_get_string(slinky_doc_value_at(arr, i))
                                  : "");
    *out = v;
    *n_out = n;
    return 0;
}

int as_registry_check_crd(as_causes *causes, const slinky_doc_value *crd)
{
    const slinky_doc_value *spec = slinky_doc_value_get(crd, "spec");
    const char *group = slinky_doc_value_path_string(spec, "group", "");
    const char *plural = slinky_doc_value_path_string(spec, "names.plural", "");
    const char *kind = slinky_doc_value_path_string(spec, "names.kind", "");
    const char *scope = slinky_doc_value_path_string(spec, "scope", "");
    const char *name = slinky_doc_value_path_string(crd, "metadata.name", "");
    if (!*group)
        as_causes_add(causes, "FieldValueRequired", "spec.group", "Required value");
    else if (!strchr(group, '.'))
        as_causes_add(causes, "FieldValueInvalid", "spec.group",
                      "Invalid value: \"%s\": should be a domain with at least one dot", group);
    if (!*plural)
        as_causes_add(causes, "FieldValueRequired", "spec.names.plural", "Required value");
    if (!*kind)
        as_causes_add(causes, "FieldValueRequired", "spec.names.kind", "Required value");
    if (strcmp(scope, "Namespaced") != 0 && strcmp(scope, "Cluster") != 0)
        as_causes_add(causes, "FieldValueNotSupported", "spec.scope",
                      "Unsupported value: \"%s\": supported values: \"Cluster\", \"Namespaced\"",
                      scope);
    if (*plural && *group) {
        char *expect = as_sprintf("%s.%s", plural, group);
        if (expect && strcmp(expect, name) != 0)
            as_causes_add(causes, "FieldValueInvalid", "metadata.name",
                          "Invalid value: \"%s\": must be spec.names.plural+\".\"+spec.group",
                          name);
        free(expect);
    }
    const slinky_doc_value *versions = slinky_doc_value_get(spec, "versions");
    size_t nv = slinky_doc_value_size(versions), storage = 0;
    if (nv == 0)
        as_causes_add(causes, "FieldValueRequired", "spec.versions", "Required value");
    for (size_t i = 0; i < nv; i++) {
        const slinky_doc_value *v = slinky_doc_value_at(versions, i);
        if (slinky_doc_value_path_bool(v, "storage", false))
            storage++;
        if (!slinky_doc_value_path_string(v, "name", NULL)) {
            char f[64];
            snprintf(f, sizeof(f), "spec.versions[%zu].name", i);
            as_causes_add(causes, "FieldValueRequired", f, "Required value");
        }
    }
    if (nv && storage != 1)
        as_causes_add(causes, "FieldValueInvalid", "spec.versions",
                      "Invalid value: %zu: must have exactly one version marked as storage version",
                      storage);
    return 0;
}

int as_registry_apply_crd(as_server *s, const slinky_doc_value *crd)
{
    const slinky_doc_value *spec = slinky_doc_value_get(crd, "spec");
    const char *group = slinky_doc_value_path_string(spec, "group", "");
    const char *plural = slinky_doc_value_path_string(spec, "names.plural", "");
    as_rtype *rt = NULL;
    for (as_rtype *t = s->types; t; t = t->next)
        if (strcmp(t->group, group) == 0 && strcmp(t->plural, plural) == 0)
            rt = t;
    bool fresh = !rt;
    if (rt && rt->builtin)
        return slinky_error_set(SLINKY_EEXISTS, "%s.%s is a built-in resource", plural, group);
    if (fresh) {
        rt = as_calloc(1, sizeof(*rt));
        if (!rt)
            return SLINKY_ENOMEM;
        rt->group = as_strdup(group);
        rt->plural = as_strdup(plural);
    } else {
        free(rt->singular);
        free(rt->kind);
        free(rt->list_kind);
        strv_free(rt->short_names, rt->n_short);
        strv_free(rt->categories, rt->n_categories);
        for (size_t i = 0; i < rt->n_versions; i++)
            version_dispose(&rt->versions[i]);
        free(rt->versions);
        rt->short_names = rt->categories = NULL;
        rt->n_short = rt->n_categories = 0;
        rt->versions = NULL;
        rt->n_versions = 0;
    }
    const slinky_doc_value *names = slinky_doc_value_get(spec, "names");
    const char *kind = slinky_doc_value_path_string(names, "kind", "");
    rt->kind = as_strdup(kind);
    rt->singular = dup_path_string(names, "singular");
    if (!rt->singular) {
        rt->singular = as_strdup(kind);
        for (char *p = rt->singular; p && *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    rt->list_kind = dup_path_string(names, "listKind");
    if (!rt->list_kind)
        rt->list_kind = as_sprintf("%sList", kind);
    str_array(&rt->short_names, &rt->n_short, slinky_doc_value_get(names, "shortNames"));
    str_array(&rt->categories, &rt->n_categories, slinky_doc_value_get(names, "categories"));
    rt->namespaced = strcmp(slinky_doc_value_path_string(spec, "scope", ""), "Cluster") != 0;
    rt->crd_sets_generation = true;
    rt->removed = false;
    const slinky_doc_value *versions = slinky_doc_value_get(spec, "versions");
    size_t nv = slinky_doc_value_size(versions);
    rt->versions = as_calloc(nv ? nv : 1, sizeof(*rt->versions));
    if (!rt->versions)
        return SLINKY_ENOMEM;
    rt->n_versions = nv;
    for (size_t i = 0; i < nv; i++) {
        const slinky_doc_value *v = slinky_doc_value_at(versions, i);
        as_version *av = &rt->versions[i];
        av->name = as_strdup(slinky_doc_value_path_string(v, "name", ""));
        av->served = slinky_doc_value_path_bool(v, "served", true);
        av->storage = slinky_doc_value_path_bool(v, "storage", false);
        const slinky_doc_value *sub = slinky_doc_value_get(v, "subresources");
        av->has_status = slinky_doc_value_get(sub, "status") != NULL;
        const slinky_doc_value *scale = slinky_doc_value_get(sub, "scale");
        if (scale) {
            av->has_scale = true;
            av->scale_spec = dup_path_string(scale, "specReplicasPath");
            av->scale_status = dup_path_string(scale, "statusReplicasPath");
            av->scale_selector = dup_path_string(scale, "labelSelectorPath");
        }
        const slinky_doc_value *schema = slinky_doc_value_path(v, "schema.openAPIV3Schema");
        if (schema)
            slinky_doc_new_copy(&av->schema, schema);
        const slinky_doc_value *cols = slinky_doc_value_get(v, "additionalPrinterColumns");
        if (cols)
            slinky_doc_new_copy(&av->columns, cols);
    }
    s->reg_gen++;
    if (fresh) {
        as_rtype **tail = &s->types;
        while (*tail)
            tail = &(*tail)->next;
        *tail = rt;
    }
    return 0;
}

void as_registry_remove_crd(as_server *s, const slinky_doc_value *crd)
{
    const char *group = slinky_doc_value_path_string(crd, "spec.group", "");
    const char *plural = slinky_doc_value_path_string(crd, "spec.names.plural", "");
    as_rtype *rt = as_registry_find_gr(s, group, plural);
    if (!rt || rt->builtin)
        return;
    /* drop every custom object, with DELETED events for watchers */
    while (rt->n_items) {
        as_obj *prev = rt->items[rt->n_items - 1];
        slinky_doc *d = NULL;
        if (as_obj_doc(&d, prev) == 0) {
            uint64_t rv = s->rv + 1;
            char rvs[32];
            snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
            slinky_doc_value_object_set_string(
                slinky_doc_value_get(slinky_doc_root(d), "metadata"), "resourceVersion", rvs);
            as_obj *o = NULL;
            if (as_obj_new(&o, slinky_doc_root(d), rv) == 0 &&
                as_store_commit(s, rt, AS_EV_DELETED, o, prev) == 0) {
                slinky_doc_free(d);
                continue;
            }
            as_obj_unref(o);
        }
        slinky_doc_free(d);
        as_obj_unref(prev);
        rt->n_items--;
    }
    rt->removed = true;
    s->reg_gen++;
}

void as_registry_drop_crd(as_server *s, const slinky_doc_value *crd)
{
    as_rtype *crt = as_registry_find_gr(s, slinky_doc_value_path_string(crd, "spec.group", ""),
                                        slinky_doc_value_path_string(crd, "spec.names.plural", ""));
    if (!crt || crt->builtin)
        return;
    for (size_t i = 0; i < crt->n_items; i++)
        as_obj_unref(crt->items[i]);
    crt->n_items = 0;
    crt->removed = true;
}
