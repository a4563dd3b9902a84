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

static void check_meta(as_causes *c, const as_rtype *rt, const slinky_doc_value *root)
{
    const slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    const char *name = slinky_doc_value_path_string(md, "name", "");
    const char *why = strcmp(rt->plural, "namespaces") == 0 ? as_check_dns_label(name)
                                                              : as_check_dns_subdomain(name);
    if (*name && why)
        as_causes_add(c, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", name,
                      why);
    const slinky_doc_value *labels = slinky_doc_value_get(md, "labels");
    for (size_t i = 0; i < slinky_doc_value_size(labels); i++) {
        const char *k = slinky_doc_value_key_at(labels, i);
        const slinky_doc_value *v = slinky_doc_value_member_at(labels, i);
        char f[600];
        snprintf(f, sizeof(f), "metadata.labels");
        if ((why = as_check_label_key(k)))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s", k, why);
        else if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
            as_causes_add(c, "FieldValueTypeInvalid", f,
                          "Invalid value: \"%s\": label values must be strings", k);
        else if ((why = as_check_label_value(slinky_doc_value_get_string(v))))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s",
                          slinky_doc_value_get_string(v), why);
    }
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

int as_admit(hctx *h, slinky_doc_value *root, const char *name)
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
    check_meta(&causes, rt, root);
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
