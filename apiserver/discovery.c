/* Discovery documents: /api, /apis, group and group-version lists, aggregated. */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

static const char *const k_verbs =
    "[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"update\","
    "\"watch\"]";

/* ------------------------------------------------------------------ */
/* discovery                                                          */
/* ------------------------------------------------------------------ */

static bool is_pods(const as_rtype *rt)
{
    return rt->builtin && !*rt->group && !strcmp(rt->plural, "pods");
}

static void json_str_array(as_buf *b, char **v, size_t n)
{
    as_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            as_buf_putc(b, ',');
        as_json_str(b, v[i]);
    }
    as_buf_putc(b, ']');
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

static void group_json(as_server *s, as_buf *b, const char *group, bool kinded)
{
    const char *vers[16];
    size_t nv = group_versions(s, group, vers, 16);
    as_buf_puts(b, "{");
    if (kinded)
        as_buf_puts(b, "\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",");
    as_buf_puts(b, "\"name\":");
    as_json_str(b, group);
    as_buf_puts(b, ",\"versions\":[");
    for (size_t i = 0; i < nv; i++) {
        as_buf_printf(b, "%s{\"groupVersion\":\"%s/%s\",\"version\":\"%s\"}", i ? "," : "",
                           group, vers[i], vers[i]);
    }
    as_buf_puts(b, "]");
    if (nv)
        as_buf_printf(b, ",\"preferredVersion\":{\"groupVersion\":\"%s/%s\",\"version\":"
                              "\"%s\"}",
                           group, vers[0], vers[0]);
    as_buf_puts(b, "}");
}

static void resource_list(as_server *s, as_buf *b, const char *group, const char *version)
{
    as_buf_puts(b, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":");
    if (*group) {
        char *gv = as_sprintf("%s/%s", group, version);
        as_json_str(b, gv ? gv : "");
        free(gv);
    } else {
        as_json_str(b, version);
    }
    as_buf_puts(b, ",\"resources\":[");
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
        as_buf_printf(b, "%s{\"name\":\"%s\",\"singularName\":\"%s\",\"namespaced\":%s,"
                              "\"kind\":\"%s\",\"verbs\":%s",
                           first ? "" : ",", rt->plural, rt->singular,
                           rt->namespaced ? "true" : "false", rt->kind, k_verbs);
        if (rt->n_short) {
            as_buf_puts(b, ",\"shortNames\":");
            json_str_array(b, rt->short_names, rt->n_short);
        }
        if (rt->n_categories) {
            as_buf_puts(b, ",\"categories\":");
            json_str_array(b, rt->categories, rt->n_categories);
        }
        as_buf_puts(b, "}");
        first = false;
        if (v->has_status)
            as_buf_printf(b, ",{\"name\":\"%s/status\",\"singularName\":\"\","
                                  "\"namespaced\":%s,\"kind\":\"%s\",\"verbs\":[\"get\","
                                  "\"patch\",\"update\"]}",
                               rt->plural, rt->namespaced ? "true" : "false", rt->kind);
        if (v->has_scale)
            as_buf_printf(b, ",{\"name\":\"%s/scale\",\"singularName\":\"\","
                                  "\"namespaced\":%s,\"group\":\"autoscaling\",\"version\":"
                                  "\"v1\",\"kind\":\"Scale\",\"verbs\":[\"get\",\"patch\","
                                  "\"update\"]}",
                               rt->plural, rt->namespaced ? "true" : "false");
        if (rt->builtin && !*rt->group && !strcmp(rt->plural, "serviceaccounts"))
            as_buf_puts(b, ",{\"name\":\"serviceaccounts/token\",\"singularName\":\"\","
                           "\"namespaced\":true,\"group\":\"authentication.k8s.io\",\"version\":"
                           "\"v1\",\"kind\":\"TokenRequest\",\"verbs\":[\"create\"]}");
        if (is_pods(rt))
            as_buf_puts(b, ",{\"name\":\"pods/eviction\",\"singularName\":\"\",\"namespaced\":"
                           "true,\"group\":\"policy\",\"version\":\"v1\",\"kind\":\"Eviction\","
                           "\"verbs\":[\"create\"]},{\"name\":\"pods/binding\",\"singularName\":"
                           "\"\",\"namespaced\":true,\"kind\":\"Binding\",\"verbs\":[\"create\"]}");
    }
    as_buf_puts(b, "]}");
}

/* aggregated discovery (apidiscovery.k8s.io v2/v2beta1): core group or all named groups */
static void aggregated(as_server *s, as_buf *b, bool core, const char *api_version)
{
    as_buf_printf(b, "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"%s\","
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
        as_buf_puts(b, g ? ",{\"metadata\":{\"name\":" : "{\"metadata\":{\"name\":");
        as_json_str(b, groups[g]);
        as_buf_puts(b, ",\"creationTimestamp\":null},\"versions\":[");
        for (size_t v = 0; v < nv; v++) {
            as_buf_printf(b, "%s{\"version\":\"%s\",\"resources\":[", v ? "," : "", vers[v]);
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
                as_buf_printf(b,
                                   "%s{\"resource\":\"%s\",\"responseKind\":{\"group\":\"%s\","
                                   "\"version\":\"%s\",\"kind\":\"%s\"},\"scope\":\"%s\","
                                   "\"singularResource\":\"%s\",\"verbs\":%s",
                                   first ? "" : ",", rt->plural, rt->group, vers[v], rt->kind,
                                   rt->namespaced ? "Namespaced" : "Cluster", rt->singular,
                                   k_verbs);
                first = false;
                if (rt->n_short) {
                    as_buf_puts(b, ",\"shortNames\":");
                    json_str_array(b, rt->short_names, rt->n_short);
                }
                if (rt->n_categories) {
                    as_buf_puts(b, ",\"categories\":");
                    json_str_array(b, rt->categories, rt->n_categories);
                }
                if (ver->has_status || ver->has_scale) {
                    as_buf_puts(b, ",\"subresources\":[");
                    if (ver->has_status)
                        as_buf_printf(b,
                                           "{\"subresource\":\"status\",\"responseKind\":{"
                                           "\"group\":\"%s\",\"version\":\"%s\",\"kind\":"
                                           "\"%s\"},\"verbs\":[\"get\",\"patch\",\"update\"]}",
                                           rt->group, vers[v], rt->kind);
                    if (ver->has_scale)
                        as_buf_printf(b,
                                           "%s{\"subresource\":\"scale\",\"responseKind\":{"
                                           "\"group\":\"autoscaling\",\"version\":\"v1\","
                                           "\"kind\":\"Scale\"},\"verbs\":[\"get\",\"patch\","
                                           "\"update\"]}",
                                           ver->has_status ? "," : "");
                    if (is_pods(rt))
                        as_buf_puts(b, ",{\"subresource\":\"eviction\",\"responseKind\":{"
                                       "\"group\":\"policy\",\"version\":\"v1\",\"kind\":"
                                       "\"Eviction\"},\"verbs\":[\"create\"]},{\"subresource\":"
                                       "\"binding\",\"responseKind\":{\"group\":\"\",\"version\":"
                                       "\"v1\",\"kind\":\"Binding\"},\"verbs\":[\"create\"]}");
                    as_buf_puts(b, "]");
                }
                as_buf_puts(b, "}");
            }
            as_buf_puts(b, "],\"freshness\":\"Current\"}");
        }
        as_buf_puts(b, "]}");
    }
    as_buf_puts(b, "]}");
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
    as_buf *b = &resp->body;
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
        as_buf_printf(b, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
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
        as_buf_puts(b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
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
                as_buf_putc(b, ',');
            done[nd++] = rt->group;
            group_json(s, b, rt->group, false);
        }
        as_buf_puts(b, "]}");
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
