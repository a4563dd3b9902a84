/*
 * /openapi/v3: an index of group-versions and one document per group-version
 * with the paths of every resource (operations tagged with
 * x-kubernetes-group-version-kind and the fieldValidation/dryRun/fieldManager
 * query parameters kubectl looks for) and, for custom resources, the CRD's
 * openAPIV3Schema as a component schema.
 */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

static void gv_prefix(char *buf, size_t len, const char *group, const char *version)
{
    if (*group)
        snprintf(buf, len, "apis/%s/%s", group, version);
    else
        snprintf(buf, len, "api/%s", version);
}

/* "slinky.slurm.net" -> "net.slurm.slinky" */
static void reversed_group(as_buf *b, const char *group)
{
    const char *end = group + strlen(group);
    const char *p = end;
    bool first = true;
    while (p > group) {
        const char *q = p;
        while (q > group && q[-1] != '.')
            q--;
        if (!first)
            as_buf_putc(b, '.');
        as_buf_put(b, q, (size_t)(p - q));
        first = false;
        p = q > group ? q - 1 : group;
    }
}

static void schema_name(as_buf *b, const as_rtype *rt, const char *version)
{
    if (*rt->group) {
        reversed_group(b, rt->group);
        as_buf_printf(b, ".%s.%s", version, rt->kind);
    } else {
        as_buf_printf(b, "io.k8s.api.core.%s.%s", version, rt->kind);
    }
}

static unsigned long hash_str(const char *s, unsigned long h)
{
    while (*s)
        h = h * 131 + (unsigned char)*s++;
    return h;
}

static unsigned long gv_hash(as_server *s, const char *group, const char *version)
{
    unsigned long h = 5381;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        h = hash_str(rt->plural, h);
        h = hash_str(rt->kind, h);
        for (size_t i = 0; i < rt->n_versions; i++) {
            if (strcmp(rt->versions[i].name, version) != 0)
                continue;
            h = h * 7 + (rt->versions[i].schema ? 1 : 0);
            h = h * 7 + rt->versions[i].has_status + 2 * rt->versions[i].has_scale;
        }
    }
    return h + s->reg_gen;
}

static const char *const k_params =
    "[{\"name\":\"dryRun\",\"in\":\"query\",\"schema\":{\"type\":\"string\",\"uniqueItems\":true}},"
    "{\"name\":\"fieldManager\",\"in\":\"query\",\"schema\":{\"type\":\"string\","
    "\"uniqueItems\":true}},"
    "{\"name\":\"fieldValidation\",\"in\":\"query\",\"schema\":{\"type\":\"string\","
    "\"uniqueItems\":true}}";

static void op(as_buf *b, bool *first, const char *method, const char *action,
               const as_rtype *rt, const char *version, const char *ref, bool write, bool patch)
{
    as_buf_printf(b, "%s\"%s\":{\"operationId\":\"%s%s\",\"x-kubernetes-action\":\"%s\","
                          "\"x-kubernetes-group-version-kind\":{\"group\":\"%s\",\"version\":"
                          "\"%s\",\"kind\":\"%s\"},\"parameters\":",
                       *first ? "" : ",", method, action, rt->kind, action, rt->group, version,
                       rt->kind);
    *first = false;
    if (write) {
        as_buf_puts(b, k_params);
        if (patch)
            as_buf_puts(b, ",{\"name\":\"force\",\"in\":\"query\",\"schema\":{\"type\":"
                                "\"boolean\",\"uniqueItems\":true}}");
        as_buf_puts(b, "]");
    } else {
        as_buf_puts(b, "[]");
    }
    if (patch)
        as_buf_puts(b, ",\"requestBody\":{\"content\":{\"application/json-patch+json\":"
                            "{\"schema\":{\"type\":\"object\"}},\"application/merge-patch+json\":"
                            "{\"schema\":{\"type\":\"object\"}},\"application/apply-patch+yaml\":"
                            "{\"schema\":{\"type\":\"object\"}}}}");
    as_buf_puts(b, ",\"responses\":{\"200\":{\"description\":\"OK\"");
    if (ref)
        as_buf_printf(b, ",\"content\":{\"application/json\":{\"schema\":{\"$ref\":"
                              "\"#/components/schemas/%s\"}}}",
                           ref);
    as_buf_puts(b, "}}}");
}

static void gv_document(as_server *s, as_buf *b, const char *group, const char *version)
{
    as_buf_puts(b, "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Kubernetes\",\"version\":"
                        "\"v1.32.0\"},\"paths\":{");
    bool first_path = true;
    char prefix[300];
    gv_prefix(prefix, sizeof(prefix), group, version);
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        as_version *v = NULL;
        for (size_t i = 0; i < rt->n_versions; i++)
            if (rt->versions[i].served && strcmp(rt->versions[i].name, version) == 0)
                v = &rt->versions[i];
        if (!v)
            continue;
        as_buf ref = AS_BUF_INIT;
        if (v->schema)
            schema_name(&ref, rt, version);
        const char *r = ref.data;
        const char *nsp = rt->namespaced ? "/namespaces/{namespace}" : "";
        /* collection */
        as_buf_printf(b, "%s\"/%s%s/%s\":{", first_path ? "" : ",", prefix, nsp,
                           rt->plural);
        first_path = false;
        bool first = true;
        op(b, &first, "get", "list", rt, version, NULL, false, false);
        op(b, &first, "post", "post", rt, version, r, true, false);
        op(b, &first, "delete", "deletecollection", rt, version, NULL, true, false);
        as_buf_puts(b, "}");
        /* item and subresources */
        const char *subs[] = {"", v->has_status ? "/status" : NULL,
                              v->has_scale ? "/scale" : NULL};
        for (size_t k = 0; k < 3; k++) {
            if (!subs[k])
                continue;
            as_buf_printf(b, ",\"/%s%s/%s/{name}%s\":{", prefix, nsp, rt->plural, subs[k]);
            first = true;
            op(b, &first, "get", "get", rt, version, k == 2 ? NULL : r, false, false);
            op(b, &first, "put", "put", rt, version, k == 2 ? NULL : r, true, false);
            op(b, &first, "patch", "patch", rt, version, k == 2 ? NULL : r, true, true);
            if (k == 0)
                op(b, &first, "delete", "delete", rt, version, NULL, true, false);
            as_buf_puts(b, "}");
        }
        as_buf_dispose(&ref);
    }
    as_buf_puts(b, "},\"components\":{\"schemas\":{");
    bool first = true;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed || strcmp(rt->group, group) != 0)
            continue;
        for (size_t i = 0; i < rt->n_versions; i++) {
            as_version *v = &rt->versions[i];
            if (!v->served || !v->schema || strcmp(v->name, version) != 0)
                continue;
            slinky_doc *d = NULL;
            if (slinky_doc_new_copy(&d, slinky_doc_root(v->schema)) != 0)
                continue;
            slinky_doc_value *root = slinky_doc_root(d);
            slinky_doc_value *gvk = NULL, *e = NULL;
            slinky_doc_value_object_put(&gvk, root, "x-kubernetes-group-version-kind");
            slinky_doc_value_set_array(gvk);
            slinky_doc_value_array_append(&e, gvk);
            slinky_doc_value_set_object(e);
            slinky_doc_value_object_set_string(e, "group", rt->group);
            slinky_doc_value_object_set_string(e, "kind", rt->kind);
            slinky_doc_value_object_set_string(e, "version", version);
            char *json = NULL;
            size_t len = 0;
            if (slinky_doc_value_dump_json(&json, &len, root, 0) == 0) {
                if (!first)
                    as_buf_putc(b, ',');
                first = false;
                as_buf_putc(b, '"');
                schema_name(b, rt, version);
                as_buf_puts(b, "\":");
                as_buf_put(b, json, len);
                slinky_free(json);
            }
            slinky_doc_free(d);
        }
    }
    as_buf_puts(b, "}}}");
}

int as_openapi(as_server *s, as_resp *resp, const char *path)
{
    as_buf *b = &resp->body;
    if (strcmp(path, "/openapi/v3") == 0 || strcmp(path, "/openapi/v3/") == 0) {
        resp->status = 200;
        resp->content_type = "application/json";
        as_buf_puts(b, "{\"paths\":{");
        const char *done_g[64], *done_v[64];
        size_t nd = 0;
        for (as_rtype *rt = s->types; rt; rt = rt->next) {
            if (rt->removed)
                continue;
            for (size_t i = 0; i < rt->n_versions; i++) {
                if (!rt->versions[i].served)
                    continue;
                bool seen = false;
                for (size_t j = 0; j < nd; j++)
                    if (!strcmp(done_g[j], rt->group) && !strcmp(done_v[j], rt->versions[i].name))
                        seen = true;
                if (seen || nd == 64)
                    continue;
                done_g[nd] = rt->group;
                done_v[nd] = rt->versions[i].name;
                char prefix[300];
                gv_prefix(prefix, sizeof(prefix), rt->group, rt->versions[i].name);
                as_buf_printf(b, "%s\"%s\":{\"serverRelativeURL\":\"/openapi/v3/%s?hash=%lX\"}",
                                   nd ? "," : "", prefix, prefix,
                                   gv_hash(s, rt->group, rt->versions[i].name));
                nd++;
            }
        }
        as_buf_puts(b, "}}");
        return 0;
    }
    if (strncmp(path, "/openapi/v3/", 12) == 0) {
        const char *rest = path + 12;
        char group[256] = "", version[64] = "";
        if (sscanf(rest, "api/%63[^/]", version) == 1 && strncmp(rest, "api/", 4) == 0) {
            group[0] = '\0';
        } else if (sscanf(rest, "apis/%255[^/]/%63[^/]", group, version) != 2) {
            return as_resp_status(resp, 404, "NotFound",
                                  "the server could not find the requested resource", NULL);
        }
        bool served = false;
        for (as_rtype *rt = s->types; rt && !served; rt = rt->next)
            if (!rt->removed && !strcmp(rt->group, group))
                for (size_t i = 0; i < rt->n_versions; i++)
                    if (rt->versions[i].served && !strcmp(rt->versions[i].name, version))
                        served = true;
        if (!served)
            return as_resp_status(resp, 404, "NotFound",
                                  "the server could not find the requested resource", NULL);
        resp->status = 200;
        resp->content_type = "application/json";
        gv_document(s, b, group, version);
        return 0;
    }
    return as_resp_status(resp, 404, "NotFound", "the server could not find the requested resource",
                          NULL);
}
