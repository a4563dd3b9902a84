/*
 * Admission (admit.h): identity of a body, dry-run, finalizers, generated
 * names, metadata checks, schema pruning, defaulting and validation.
 */
#include "admit.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

static void gen_name(char *out, size_t len, const char *prefix)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char r[5];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        for (size_t i = 0; i < sizeof(r); i++)
            r[i] = (unsigned char)rand();
    char sfx[6];
    for (size_t i = 0; i < 5; i++)
        sfx[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
    sfx[5] = '\0';
    size_t pl = strlen(prefix);
    if (pl > 58)
        pl = 58;
    snprintf(out, len, "%.*s%s", (int)pl, prefix, sfx);
}

/* ------------------------------------------------------------------ */
/* validation common to every kind                                    */
/* ------------------------------------------------------------------ */

/* a string value whose bytes hold a NUL (a C-string check would see only its start) */
static bool has_nul(const slinky_doc_value *v)
{
    return slinky_doc_value_type(v) == SLINKY_DOC_STRING &&
           strlen(slinky_doc_value_get_string(v)) != slinky_doc_value_get_string_len(v);
}

/* an object with a key holding a NUL: its JSON has an escaped NUL outside the values */
static bool keys_have_nul(const slinky_doc_value *obj)
{
    if (slinky_doc_value_type(obj) != SLINKY_DOC_OBJECT)
        return false;
    bool values = false;
    for (size_t i = 0; i < slinky_doc_value_size(obj); i++)
        values = values || has_nul(slinky_doc_value_member_at(obj, i));
    if (values)
        return false; /* reported for the value; the key check below would be unsure */
    char *json = NULL;
    size_t len = 0;
    if (slinky_doc_value_dump_json(&json, &len, obj, SLINKY_DOC_DUMP_COMPACT) != 0)
        return false;
    bool nul = memmem(json, len, "\\u0000", 6) != NULL || memchr(json, '\0', len) != NULL;
    slinky_free(json);
    return nul;
}

static void check_meta(as_causes *c, const as_rtype *rt, const slinky_doc_value *root)
{
    static const char k_nul[] = "must not contain a NUL character";
    const slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    static const char *const ids[] = {"name", "generateName", "namespace"};
    for (size_t i = 0; i < AS_ARRAY_SIZE(ids); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(md, ids[i]);
        char f[64];
        snprintf(f, sizeof(f), "metadata.%s", ids[i]);
        if (v && slinky_doc_value_type(v) != SLINKY_DOC_STRING && !slinky_doc_value_is_null(v))
            as_causes_add(c, "FieldValueTypeInvalid", f, "Invalid value: must be a string");
        else if (has_nul(v))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\\x00...\": %s",
                          slinky_doc_value_get_string(v), k_nul);
    }
    const char *name = slinky_doc_value_path_string(md, "name", "");
    const char *why = strcmp(rt->plural, "namespaces") == 0 ? as_check_dns_label(name)
                                                              : as_check_dns_subdomain(name);
    if (*name && why)
        as_causes_add(c, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", name,
                      why);
    const slinky_doc_value *labels = slinky_doc_value_get(md, "labels");
    if (keys_have_nul(labels))
        as_causes_add(c, "FieldValueInvalid", "metadata.labels", "Invalid value: a label key %s",
                      k_nul);
    for (size_t i = 0; i < slinky_doc_value_size(labels); i++) {
        const char *k = slinky_doc_value_key_at(labels, i);
        const slinky_doc_value *v = slinky_doc_value_member_at(labels, i);
        const char *f = "metadata.labels";
        if ((why = as_check_label_key(k)))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s", k, why);
        else if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
            as_causes_add(c, "FieldValueTypeInvalid", f,
                          "Invalid value: \"%s\": label values must be strings", k);
        else if (has_nul(v))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\\x00...\": %s",
                          slinky_doc_value_get_string(v), k_nul);
        else if ((why = as_check_label_value(slinky_doc_value_get_string(v))))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s",
                          slinky_doc_value_get_string(v), why);
    }
    const slinky_doc_value *ann = slinky_doc_value_get(md, "annotations");
    if (keys_have_nul(ann))
        as_causes_add(c, "FieldValueInvalid", "metadata.annotations",
                      "Invalid value: an annotation key %s", k_nul);
    const slinky_doc_value *fin = slinky_doc_value_get(md, "finalizers");
    for (size_t i = 0; i < slinky_doc_value_size(fin); i++)
        if (has_nul(slinky_doc_value_at(fin, i))) {
            char f[64];
            snprintf(f, sizeof(f), "metadata.finalizers[%zu]", i);
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: %s", k_nul);
        }
}

/* a field that must be map[string]string (base64: each value decodes as standard base64) */
static void check_string_map(as_causes *c, const slinky_doc_value *root, const char *field,
                             bool base64)
{
    const slinky_doc_value *m = slinky_doc_value_get(root, field);
    if (!m || slinky_doc_value_is_null(m))
        return;
    if (slinky_doc_value_type(m) != SLINKY_DOC_OBJECT) {
        as_causes_add(c, "FieldValueTypeInvalid", field,
                      "Invalid value: must be an object of strings (map[string]%s)",
                      base64 ? "[]byte" : "string");
        return;
    }
    for (size_t i = 0; i < slinky_doc_value_size(m); i++) {
        const char *k = slinky_doc_value_key_at(m, i);
        const slinky_doc_value *v = slinky_doc_value_member_at(m, i);
        char f[400];
        snprintf(f, sizeof(f), "%s[%.300s]", field, k);
        if (slinky_doc_value_type(v) != SLINKY_DOC_STRING) {
            as_causes_add(c, "FieldValueTypeInvalid", f, "Invalid value: must be a string%s",
                          base64 ? " (base64)" : "");
            continue;
        }
        if (!base64)
            continue;
        char *bytes = NULL;
        if (slinky_base64_decode(&bytes, NULL, slinky_doc_value_get_string(v),
                                 SLINKY_BASE64_STRICT) != 0)
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: illegal base64 data: %s",
                          slinky_error_last()->message);
        slinky_free(bytes);
    }
}

/* ConfigMap and Secret fields the real server types; Secret stringData folded into data */
static void check_builtin(as_causes *c, const as_rtype *rt, slinky_doc_value *root)
{
    if (!rt->builtin || *rt->group)
        return;
    if (!strcmp(rt->plural, "configmaps")) {
        check_string_map(c, root, "data", false);
        check_string_map(c, root, "binaryData", true);
    } else if (!strcmp(rt->plural, "secrets")) {
        check_string_map(c, root, "data", true);
        check_string_map(c, root, "stringData", false);
        if (slinky_doc_value_get(root, "type") &&
            slinky_doc_value_type(slinky_doc_value_get(root, "type")) != SLINKY_DOC_STRING)
            as_causes_add(c, "FieldValueTypeInvalid", "type", "Invalid value: must be a string");
    }
}

static void fold_string_data(slinky_doc_value *root)
{
    slinky_doc_value *sd = slinky_doc_value_get(root, "stringData");
    if (!sd)
        return;
    slinky_doc_value *data = NULL;
    if (slinky_doc_value_size(sd) && slinky_doc_value_object_put(&data, root, "data") == 0) {
        if (slinky_doc_value_type(data) != SLINKY_DOC_OBJECT)
            slinky_doc_value_set_object(data);
        for (size_t i = 0; i < slinky_doc_value_size(sd); i++) {
            const slinky_doc_value *v = slinky_doc_value_member_at(sd, i);
            char *enc = as_base64(slinky_doc_value_get_string(v),
                                  slinky_doc_value_get_string_len(v), false);
            if (enc)
                slinky_doc_value_object_set_string(data, slinky_doc_value_key_at(sd, i), enc);
            free(enc);
        }
    }
    slinky_doc_value_object_remove(root, "stringData");
}

/*
 * Prune, default and validate a custom object (or check a built-in one).
 * Returns 0 or an HTTP code with resp filled. Unknown fields go to `unknown`.
 */
/* ObjectMeta fields; anything else in metadata is dropped (and is an unknown field) */
static void prune_meta(slinky_doc_value *root, as_causes *unknown)
{
    static const char *const known[] = {
        "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
        "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
        "annotations", "ownerReferences", "finalizers", "managedFields"};
    slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    for (size_t i = 0; i < slinky_doc_value_size(md);) {
        const char *k = slinky_doc_value_key_at(md, i);
        bool ok = false;
        for (size_t j = 0; j < AS_ARRAY_SIZE(known) && !ok; j++)
            ok = !strcmp(k, known[j]);
        if (!ok) {
            char f[300];
            snprintf(f, sizeof(f), "metadata.%s", k);
            as_causes_add(unknown, "FieldValueInvalid", f, "unknown field");
            slinky_doc_value_object_remove(md, k);
            continue;
        }
        i++;
    }
}

int as_admit(hctx *h, slinky_doc_value *root, const char *name, const slinky_doc_value *old)
{
    const as_rtype *rt = h->rt;
    const as_version *ver = h->ver;
    as_resp *resp = h->resp;
    const as_req *req = h->req;
    as_causes causes = {0}, unknown = {0};
    const char *fv = as_req_query(req, "fieldValidation");
    prune_meta(root, &unknown);
    if (ver && ver->schema) {
        const slinky_doc_value *schema = slinky_doc_root(ver->schema);
        as_schema_prune(root, schema, true, &unknown, "");
        as_schema_default(root, schema);
        as_schema_validate(&causes, root, schema, "");
    }
    as_kind_defaults(rt, root);
    check_meta(&causes, rt, root);
    check_builtin(&causes, rt, root);
    /* pods/binding sets spec.nodeName, which a Pod update may not change */
    bool binding = h->route && h->route->sub && !strcmp(h->route->sub, "binding");
    as_kind_validate(&causes, rt, root, binding ? NULL : old);
    as_service_admit(h->s, rt, root, old, &causes);
    if (strcmp(rt->plural, "customresourcedefinitions") == 0)
        as_registry_check_crd(&causes, root);
    if (unknown.n && fv && strcmp(fv, "Strict") == 0) {
        as_buf msg = AS_BUF_INIT;
        as_buf_puts(&msg, "strict decoding error: ");
        for (size_t i = 0; i < unknown.n; i++)
            as_buf_printf(&msg, "%sunknown field \"%s\"", i ? ", " : "",
                               unknown.items[i].field);
        as_resp_status(resp, 400, "BadRequest", msg.data, NULL);
        as_buf_dispose(&msg);
        as_causes_dispose(&causes);
        as_causes_dispose(&unknown);
        return 400;
    }
    if (unknown.n && fv && strcmp(fv, "Warn") == 0) {
        as_buf w = AS_BUF_INIT;
        for (size_t i = 0; i < unknown.n; i++)
            as_buf_printf(&w, "%s299 - \"unknown field \\\"%s\\\"\"", i ? ", " : "",
                               unknown.items[i].field);
        free(resp->warning);
        resp->warning = as_buf_detach(&w, NULL);
    }
    as_causes_dispose(&unknown);
    int code = 0;
    if (causes.n)
        code = as_resp_invalid(resp, rt, name, &causes);
    else if (rt->builtin && !*rt->group && !strcmp(rt->plural, "secrets"))
        fold_string_data(root);
    as_causes_dispose(&causes);
    return code;
}

static bool ns_exists(as_server *s, const char *ns, bool *terminating)
{
    as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
    as_obj *o = nrt ? as_store_get(nrt, "", ns) : NULL;
    *terminating = o && strstr(o->json, "\"deletionTimestamp\"") != NULL;
    return o != NULL;
}

/* apiVersion / kind / namespace checks shared by create and update */
int as_check_identity(hctx *h, slinky_doc_value *root)
{
    if (slinky_doc_value_type(root) != SLINKY_DOC_OBJECT)
        return as_resp_status(h->resp, 400, "BadRequest",
                              "the body of the request must be a JSON object", NULL);
    char gv[300];
    if (*h->rt->group)
        snprintf(gv, sizeof(gv), "%s/%s", h->rt->group, h->ver->name);
    else
        snprintf(gv, sizeof(gv), "%s", h->ver->name);
    const char *kind = slinky_doc_value_path_string(root, "kind", NULL);
    const char *api = slinky_doc_value_path_string(root, "apiVersion", NULL);
    if (kind && *kind && strcmp(kind, h->rt->kind) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the API version in the data (%s) does not match the expected API "
                             "version (%s) or kind %s does not match %s",
                             api ? api : "", gv, kind, h->rt->kind);
    if (api && *api && strcmp(api, gv) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the API version in the data (%s) does not match the expected API "
                             "version (%s)",
                             api, gv);
    slinky_doc_value_object_set_string(root, "apiVersion", gv);
    slinky_doc_value_object_set_string(root, "kind", h->rt->kind);
    slinky_doc_value *md = as_md_of(root);
    if (!md)
        return as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
    if (has_nul(slinky_doc_value_get(md, "namespace"))) {
        as_causes c = {0};
        as_causes_add(&c, "FieldValueInvalid", "metadata.namespace",
                      "Invalid value: must not contain a NUL character");
        int code = as_resp_invalid(h->resp, h->rt, slinky_doc_value_path_string(md, "name", ""),
                                   &c);
        as_causes_dispose(&c);
        return code;
    }
    const char *bns = slinky_doc_value_path_string(md, "namespace", NULL);
    if (h->rt->namespaced) {
        if (bns && *bns && strcmp(bns, h->ns) != 0)
            return as_resp_status(h->resp, 400, "BadRequest",
                                  "the namespace of the provided object does not match the "
                                  "namespace sent on the request",
                                  NULL);
        slinky_doc_value_object_set_string(md, "namespace", h->ns);
    } else if (slinky_doc_value_get(md, "namespace")) {
        slinky_doc_value_object_remove(md, "namespace");
    }
    return 0;
}

bool as_is_dry_run(const as_req *req)
{
    const char *d = as_req_query(req, "dryRun");
    return d && strcmp(d, "All") == 0;
}

bool as_dry(const hctx *h)
{
    return as_is_dry_run(h->req) || h->body_dry_run;
}

bool as_has_finalizers(const slinky_doc_value *root)
{
    return slinky_doc_value_size(slinky_doc_value_path(root, "metadata.finalizers")) > 0;
}

void as_generate_name(hctx *h, char *out, size_t len, const char *prefix)
{
    for (int tries = 0; tries < 8; tries++) {
        gen_name(out, len, prefix);
        if (!as_store_get(h->rt, h->ns, out))
            break;
    }
}

int as_check_namespace(hctx *h, const char *name)
{
    if (!h->rt->namespaced)
        return 0;
    bool term = false;
    if (!ns_exists(h->s, h->ns, &term)) {
        as_rtype *nrt = as_registry_find_gr(h->s, "", "namespaces");
        return as_resp_not_found(h->resp, nrt, h->ns);
    }
    if (term)
        return as_resp_error(h->resp, NULL, 403, "Forbidden", NULL,
                             "%s \"%s\" is forbidden: unable to create new content in "
                             "namespace %s because it is being terminated",
                             h->rt->plural, name, h->ns);
    return 0;
}
