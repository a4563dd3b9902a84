/* Resource types: the built-in kinds, CRD registration, discovery documents. */
#include "apiserver.h"

#include <stdio.h>
#include <string.h>

static const char *const k_verbs =
    "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\","
    "\"watch\"]";

typedef struct builtin {
    const char *group, *version, *plural, *singular, *kind, *shorts;
    bool namespaced, status;
} builtin;

static const builtin k_builtins[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", "ns", false, true},
    {"", "v1", "configmaps", "configmap", "ConfigMap", "cm", true, false},
    {"", "v1", "secrets", "secret", "Secret", "", true, false},
    {"", "v1", "services", "service", "Service", "svc", true, true},
    {"", "v1", "pods", "pod", "Pod", "po", true, true},
    {"", "v1", "events", "event", "Event", "ev", true, false},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "sa", true, false},
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
        v[n++] = slinky__strndup(p, len);
        p = c ? c + 1 : NULL;
    }
    *out = v;
    *n_out = n;
    return 0;
}

int as_registry_init(as_server *s)
{
    as_rtype **tail = &s->types;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(k_builtins); i++) {
        const builtin *b = &k_builtins[i];
        as_rtype *rt = slinky__calloc(1, sizeof(*rt));
        if (!rt)
            return SLINKY_ENOMEM;
        rt->group = slinky__strdup(b->group);
        rt->plural = slinky__strdup(b->plural);
        rt->singular = slinky__strdup(b->singular);
        rt->kind = slinky__strdup(b->kind);
        rt->list_kind = slinky__sprintf("%sList", b->kind);
        rt->namespaced = b->namespaced;
        rt->builtin = true;
        rt->crd_sets_generation = strcmp(b->plural, "customresourcedefinitions") == 0;
        split_csv(&rt->short_names, &rt->n_short, b->shorts);
        if (!strcmp(b->group, "") && (!strcmp(b->plural, "pods") || !strcmp(b->plural, "services")))
            split_csv(&rt->categories, &rt->n_categories, "all");
        rt->versions = slinky__calloc(1, sizeof(*rt->versions));
        if (!rt->versions)
            return SLINKY_ENOMEM;
        rt->n_versions = 1;
        rt->versions[0].name = slinky__strdup(b->version);
        rt->versions[0].served = rt->versions[0].storage = true;
        rt->versions[0].has_status = b->status;
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
    return s ? slinky__strdup(s) : NULL;
}

static int str_array(char ***out, size_t *n_out, const slinky_doc_value *arr)
{
    size_t n = slinky_doc_value_size(arr);
    char **v = n ? slinky__calloc(n, sizeof(*v)) : NULL;
    if (n && !v)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = slinky__strdup(slinky_doc_value_get_string(slinky_doc_value_at(arr, i))
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
        char *expect = slinky__sprintf("%s.%s", plural, group);
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
        return slinky__error_set(SLINKY_EEXISTS, "%s.%s is a built-in resource", plural, group);
    if (fresh) {
        rt = slinky__calloc(1, sizeof(*rt));
        if (!rt)
            return SLINKY_ENOMEM;
        rt->group = slinky__strdup(group);
        rt->plural = slinky__strdup(plural);
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
    rt->kind = slinky__strdup(kind);
    rt->singular = dup_path_string(names, "singular");
    if (!rt->singular) {
        rt->singular = slinky__strdup(kind);
        for (char *p = rt->singular; p && *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    rt->list_kind = dup_path_string(names, "listKind");
    if (!rt->list_kind)
        rt->list_kind = slinky__sprintf("%sList", kind);
    str_array(&rt->short_names, &rt->n_short, slinky_doc_value_get(names, "shortNames"));
    str_array(&rt->categories, &rt->n_categories, slinky_doc_value_get(names, "categories"));
    rt->namespaced = strcmp(slinky_doc_value_path_string(spec, "scope", ""), "Cluster") != 0;
    rt->crd_sets_generation = true;
    rt->removed = false;
    const slinky_doc_value *versions = slinky_doc_value_get(spec, "versions");
    size_t nv = slinky_doc_value_size(versions);
    rt->versions = slinky__calloc(nv ? nv : 1, sizeof(*rt->versions));
    if (!rt->versions)
        return SLINKY_ENOMEM;
    rt->n_versions = nv;
    for (size_t i = 0; i < nv; i++) {
        const slinky_doc_value *v = slinky_doc_value_at(versions, i);
        as_version *av = &rt->versions[i];
        av->name = slinky__strdup(slinky_doc_value_path_string(v, "name", ""));
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

/* ------------------------------------------------------------------ */
/* discovery                                                          */
/* ------------------------------------------------------------------ */

static void json_str_array(slinky__buf *b, char **v, size_t n)
{
    slinky__buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            slinky__buf_putc(b, ',');
        as_json_str(b, v[i]);
    }
    slinky__buf_putc(b, ']');
}

static bool group_served(as_server *s, const char *group, const char *version)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        if (!version)
            return true;
        for (size_t i = 0; i < rt->n_versions; i++)
            if (rt->versions[i].served && strcmp(rt->versions[i].name, version) == 0)
                return true;
    }
    return false;
}

/* Kubernetes version priority: GA > beta > alpha, higher numbers first, then others by name */
static void version_key(const char *v, int *kind, long *major, long *minor)
{
    char *end = NULL;
    *kind = 0;
    *major = *minor = 0;
    if (v[0] != 'v' || v[1] < '0' || v[1] > '9')
        return;
    *major = strtol(v + 1, &end, 10);
    if (!*end) {
        *kind = 3;
    } else if (!strncmp(end, "beta", 4) || !strncmp(end, "alpha", 5)) {
        bool beta = end[0] == 'b';
        char *e2 = NULL;
        *minor = strtol(end + (beta ? 4 : 5), &e2, 10);
        if (!*e2 && e2 != end + (beta ? 4 : 5))
            *kind = beta ? 2 : 1;
    }
}

int as_version_priority_cmp(const char *a, const char *b)
{
    int ka, kb;
    long ma, mb, na, nb;
    version_key(a, &ka, &ma, &na);
    version_key(b, &kb, &mb, &nb);
    if (ka != kb)
        return kb - ka;
    if (ka == 0)
        return strcmp(a, b);
    if (ma != mb)
        return mb > ma ? 1 : -1;
    if (na != nb)
        return nb > na ? 1 : -1;
    return 0;
}

/* served versions of a group, by Kubernetes version priority (preferred first) */
static size_t group_versions(as_server *s, const char *group, const char **out, size_t max)
{
    size_t n = 0;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        for (size_t i = 0; i < rt->n_versions; i++) {
            if (!rt->versions[i].served)
                continue;
            bool seen = false;
            for (size_t j = 0; j < n; j++)
                if (strcmp(out[j], rt->versions[i].name) == 0)
                    seen = true;
            if (!seen && n < max)
                out[n++] = rt->versions[i].name;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && as_version_priority_cmp(out[j - 1], out[j]) > 0; j--) {
            const char *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void group_json(as_server *s, slinky__buf *b, const char *group, bool kinded)
{
    const char *vers[16];
    size_t nv = group_versions(s, group, vers, 16);
    slinky__buf_puts(b, "{");
    if (kinded)
        slinky__buf_puts(b, "\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",");
    slinky__buf_puts(b, "\"name\":");
    as_json_str(b, group);
    slinky__buf_puts(b, ",\"versions\":[");
    for (size_t i = 0; i < nv; i++) {
        slinky__buf_printf(b, "%s{\"groupVersion\":\"%s/%s\",\"version\":\"%s\"}", i ? "," : "",
                           group, vers[i], vers[i]);
    }
    slinky__buf_puts(b, "]");
    if (nv)
        slinky__buf_printf(b, ",\"preferredVersion\":{\"groupVersion\":\"%s/%s\",\"version\":"
                              "\"%s\"}",
                           group, vers[0], vers[0]);
    slinky__buf_puts(b, "}");
}

static void resource_list(as_server *s, slinky__buf *b, const char *group, const char *version)
{
    slinky__buf_puts(b, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":");
    if (*group) {
        char *gv = slinky__sprintf("%s/%s", group, version);
        as_json_str(b, gv ? gv : "");
        free(gv);
    } else {
        as_json_str(b, version);
    }
    slinky__buf_puts(b, ",\"resources\":[");
    bool first = true;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        as_version *v = NULL;
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        for (size_t i = 0; i < rt->n_versions; i++)
            if (rt->versions[i].served && strcmp(rt->versions[i].name, version) == 0)
                v = &rt->versions[i];
        if (!v)
            continue;
        slinky__buf_printf(b, "%s{\"name\":\"%s\",\"singularName\":\"%s\",\"namespaced\":%s,"
                              "\"kind\":\"%s\",\"verbs\":%s",
                           first ? "" : ",", rt->plural, rt->singular,
                           rt->namespaced ? "true" : "false", rt->kind, k_verbs);
        if (rt->n_short) {
            slinky__buf_puts(b, ",\"shortNames\":");
            json_str_array(b, rt->short_names, rt->n_short);
        }
        if (rt->n_categories) {
            slinky__buf_puts(b, ",\"categories\":");
            json_str_array(b, rt->categories, rt->n_categories);
        }
        slinky__buf_puts(b, "}");
        first = false;
        if (v->has_status)
            slinky__buf_printf(b, ",{\"name\":\"%s/status\",\"singularName\":\"\","
                                  "\"namespaced\":%s,\"kind\":\"%s\",\"verbs\":[\"get\","
                                  "\"patch\",\"update\"]}",
                               rt->plural, rt->namespaced ? "true" : "false", rt->kind);
        if (v->has_scale)
            slinky__buf_printf(b, ",{\"name\":\"%s/scale\",\"singularName\":\"\","
                                  "\"namespaced\":%s,\"group\":\"autoscaling\",\"version\":"
                                  "\"v1\",\"kind\":\"Scale\",\"verbs\":[\"get\",\"patch\","
                                  "\"update\"]}",
                               rt->plural, rt->namespaced ? "true" : "false");
    }
    slinky__buf_puts(b, "]}");
}

/* aggregated discovery (apidiscovery.k8s.io v2/v2beta1): core group or all named groups */
static void aggregated(as_server *s, slinky__buf *b, bool core, const char *api_version)
{
    slinky__buf_printf(b, "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"%s\","
                          "\"metadata\":{},\"items\":[",
                       api_version);
    const char *groups[64];
    size_t ng = 0;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || (core != !*rt->group))
            continue;
        bool seen = false;
        for (size_t i = 0; i < ng; i++)
            seen |= !strcmp(groups[i], rt->group);
        if (!seen && ng < 64)
            groups[ng++] = rt->group;
    }
    for (size_t g = 0; g < ng; g++) {
        const char *vers[16];
        size_t nv = group_versions(s, groups[g], vers, 16);
        slinky__buf_puts(b, g ? ",{\"metadata\":{\"name\":" : "{\"metadata\":{\"name\":");
        as_json_str(b, groups[g]);
        slinky__buf_puts(b, ",\"creationTimestamp\":null},\"versions\":[");
        for (size_t v = 0; v < nv; v++) {
            slinky__buf_printf(b, "%s{\"version\":\"%s\",\"resources\":[", v ? "," : "", vers[v]);
            bool first = true;
            for (as_rtype *rt = s->types; rt; rt = rt->next) {
                if (rt->removed || strcmp(rt->group, groups[g]) != 0)
                    continue;
                const as_version *ver = NULL;
                for (size_t i = 0; i < rt->n_versions; i++)
                    if (rt->versions[i].served && !strcmp(rt->versions[i].name, vers[v]))
                        ver = &rt->versions[i];
                if (!ver)
                    continue;
                slinky__buf_printf(b,
                                   "%s{\"resource\":\"%s\",\"responseKind\":{\"group\":\"%s\","
                                   "\"version\":\"%s\",\"kind\":\"%s\"},\"scope\":\"%s\","
                                   "\"singularResource\":\"%s\",\"verbs\":%s",
                                   first ? "" : ",", rt->plural, rt->group, vers[v], rt->kind,
                                   rt->namespaced ? "Namespaced" : "Cluster", rt->singular,
                                   k_verbs);
                first = false;
                if (rt->n_short) {
                    slinky__buf_puts(b, ",\"shortNames\":");
                    json_str_array(b, rt->short_names, rt->n_short);
                }
                if (rt->n_categories) {
                    slinky__buf_puts(b, ",\"categories\":");
                    json_str_array(b, rt->categories, rt->n_categories);
                }
                if (ver->has_status || ver->has_scale) {
                    slinky__buf_puts(b, ",\"subresources\":[");
                    if (ver->has_status)
                        slinky__buf_printf(b,
                                           "{\"subresource\":\"status\",\"responseKind\":{"
                                           "\"group\":\"%s\",\"version\":\"%s\",\"kind\":"
                                           "\"%s\"},\"verbs\":[\"get\",\"patch\",\"update\"]}",
                                           rt->group, vers[v], rt->kind);
                    if (ver->has_scale)
                        slinky__buf_printf(b,
                                           "%s{\"subresource\":\"scale\",\"responseKind\":{"
                                           "\"group\":\"autoscaling\",\"version\":\"v1\","
                                           "\"kind\":\"Scale\"},\"verbs\":[\"get\",\"patch\","
                                           "\"update\"]}",
                                           ver->has_status ? "," : "");
                    slinky__buf_puts(b, "]");
                }
                slinky__buf_puts(b, "}");
            }
            slinky__buf_puts(b, "],\"freshness\":\"Current\"}");
        }
        slinky__buf_puts(b, "]}");
    }
    slinky__buf_puts(b, "]}");
}

/* the aggregated discovery version the client accepts, or NULL */
static const char *wants_aggregated(const char *accept)
{
    if (!accept || !strstr(accept, "as=APIGroupDiscoveryList"))
        return NULL;
    if (strstr(accept, "g=apidiscovery.k8s.io;v=v2;") || strstr(accept, "v=v2;g=apidiscovery.k8s.io"))
        return "v2";
    if (strstr(accept, "v=v2beta1"))
        return "v2beta1";
    return NULL;
}

int as_discovery(as_server *s, as_resp *resp, int kind, const char *group, const char *version,
                 const char *accept)
{
    slinky__buf *b = &resp->body;
    resp->status = 200;
    resp->content_type = "application/json";
    const char *agg = wants_aggregated(accept);
    if (agg && (kind == AS_ROUTE_API || kind == AS_ROUTE_APIS)) {
        resp->content_type = !strcmp(agg, "v2")
                                 ? "application/json;g=apidiscovery.k8s.io;v=v2;"
                                   "as=APIGroupDiscoveryList"
                                 : "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                                   "as=APIGroupDiscoveryList";
        aggregated(s, b, kind == AS_ROUTE_API,
                   !strcmp(agg, "v2") ? "apidiscovery.k8s.io/v2" : "apidiscovery.k8s.io/v2beta1");
        return 0;
    }
    switch (kind) {
    case AS_ROUTE_API:
        slinky__buf_printf(b, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                              "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\","
                              "\"serverAddress\":\"127.0.0.1:%d\"}]}",
                           s->port);
        return 0;
    case AS_ROUTE_API_V1:
        if (strcmp(version, "v1") != 0)
            return as_resp_status(resp, 404, "NotFound", "the server could not find the "
                                                         "requested resource",
                                  NULL);
        resource_list(s, b, "", "v1");
        return 0;
    case AS_ROUTE_APIS: {
        slinky__buf_puts(b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
        const char *done[64];
        size_t nd = 0;
        for (as_rtype *rt = s->types; rt; rt = rt->next) {
            if (rt->removed || !*rt->group)
                continue;
            bool seen = false;
            for (size_t i = 0; i < nd; i++)
                if (strcmp(done[i], rt->group) == 0)
                    seen = true;
            if (seen || nd == 64)
                continue;
            if (nd)
                slinky__buf_putc(b, ',');
            done[nd++] = rt->group;
            group_json(s, b, rt->group, false);
        }
        slinky__buf_puts(b, "]}");
        return 0;
    }
    case AS_ROUTE_APIS_GROUP:
        if (!group_served(s, group, NULL))
            return as_resp_status(resp, 404, "NotFound", "the server could not find the "
                                                         "requested resource",
                                  NULL);
        group_json(s, b, group, true);
        return 0;
    case AS_ROUTE_APIS_GV:
        if (!group_served(s, group, version))
            return as_resp_status(resp, 404, "NotFound", "the server could not find the "
                                                         "requested resource",
                                  NULL);
        resource_list(s, b, group, version);
        return 0;
    default:
        return as_resp_status(resp, 404, "NotFound", "the server could not find the requested "
                                                     "resource",
                              NULL);
    }
}
