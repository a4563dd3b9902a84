/* Admission (schema, metadata, CRD checks), create, update, patch. */
#include "apiserver.h"
#include "handlers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

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
        for (size_t j = 0; j < SLINKY__ARRAY_SIZE(known) && !ok; j++)
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

static int admit(as_server *s, const as_rtype *rt, const as_version *ver, slinky_doc_value *root,
                 const as_req *req, as_resp *resp, const char *name)
{
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
        slinky__buf msg = SLINKY__BUF_INIT;
        slinky__buf_puts(&msg, "strict decoding error: ");
        for (size_t i = 0; i < unknown.n; i++)
            slinky__buf_printf(&msg, "%sunknown field \"%s\"", i ? ", " : "",
                               unknown.items[i].field);
        as_resp_status(resp, 400, "BadRequest", msg.data, NULL);
        slinky__buf_dispose(&msg);
        as_causes_dispose(&causes);
        as_causes_dispose(&unknown);
        return 400;
    }
    if (unknown.n && fv && strcmp(fv, "Warn") == 0) {
        slinky__buf w = SLINKY__BUF_INIT;
        for (size_t i = 0; i < unknown.n; i++)
            slinky__buf_printf(&w, "%s299 - \"unknown field \\\"%s\\\"\"", i ? ", " : "",
                               unknown.items[i].field);
        free(resp->warning);
        resp->warning = slinky__buf_detach(&w, NULL);
    }
    as_causes_dispose(&unknown);
    int code = 0;
    if (causes.n)
        code = as_resp_invalid(resp, rt, name, &causes);
    as_causes_dispose(&causes);
    (void)s;
    return code;
}

/* ------------------------------------------------------------------ */
/* CREATE                                                             */
/* ------------------------------------------------------------------ */

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

/* the final store step of create (also used by server-side apply) */
int as_create_doc(hctx *h, slinky_doc_value *root, int ok_code)
{
    as_server *s = h->s;
    slinky_doc_value *md = as_md_of(root);
    const char *name = slinky_doc_value_path_string(md, "name", "");
    char gname[300];
    if (!*name) {
        const char *gen = slinky_doc_value_path_string(md, "generateName", "");
        if (*gen) {
            for (int tries = 0; tries < 8; tries++) {
                gen_name(gname, sizeof(gname), gen);
                if (!as_store_get(h->rt, h->ns, gname))
                    break;
            }
            slinky_doc_value_object_set_string(md, "name", gname);
            name = slinky_doc_value_path_string(md, "name", "");
        } else {
            as_causes c = {0};
            as_causes_add(&c, "FieldValueRequired", "metadata.name",
                          "Required value: name or generateName is required");
            as_resp_invalid(h->resp, h->rt, "", &c);
            as_causes_dispose(&c);
            return 422;
        }
    }
    if (h->route->name && strcmp(h->route->name, name) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the name of the object (%s) does not match the name on the URL "
                             "(%s)",
                             name, h->route->name);
    if (h->rt->namespaced) {
        bool term = false;
        if (!ns_exists(s, h->ns, &term)) {
            as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
            return as_resp_not_found(h->resp, nrt, h->ns);
        }
        if (term)
            return as_resp_error(h->resp, NULL, 403, "Forbidden", NULL,
                                 "%s \"%s\" is forbidden: unable to create new content in "
                                 "namespace %s because it is being terminated",
                                 h->rt->plural, name, h->ns);
    }
    /* a custom resource with a status subresource starts without status */
    if (!h->rt->builtin && h->ver->has_status)
        slinky_doc_value_object_remove(root, "status");
    /* server-owned metadata */
    static const char *const drop[] = {"resourceVersion", "uid", "creationTimestamp",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "generation", "selfLink"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(drop); i++)
        if (slinky_doc_value_get(md, drop[i]))
            slinky_doc_value_object_remove(md, drop[i]);
    int code = admit(s, h->rt, h->ver, root, h->req, h->resp, name);
    if (code)
        return code;
    md = as_md_of(root);
    if (as_store_get(h->rt, h->ns, name)) {
        char q[300];
        as_qualified(q, sizeof(q), h->rt);
        return as_resp_error(h->resp, h->rt, 409, "AlreadyExists", name,
                             "%s \"%s\" already exists", q, name);
    }
    char uid[40], now[40];
    as_new_uid(uid);
    as_now_rfc3339(now, sizeof(now));
    slinky_doc_value_object_set_string(md, "uid", uid);
    slinky_doc_value_object_set_string(md, "creationTimestamp", now);
    if (h->rt->crd_sets_generation)
        slinky_doc_value_object_set_int(md, "generation", 1);
    as_hook_before_create(h, root);
    as_managed_update(h, NULL, root, "Update");
    if ((as_is_dry_run(h->req) || h->body_dry_run))
        return as_resp_doc(h->resp, ok_code, root);
    uint64_t rv = s->rv + 1;
    as_set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "storing the object failed", NULL);
    if (as_store_commit(s, h->rt, AS_EV_ADDED, o, NULL) != 0) {
        as_obj_unref(o);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message,
                              NULL);
    }
    as_hook_after_write(h, root);
    return as_resp_json(h->resp, ok_code, o->json, o->json_len);
}

int as_do_create(hctx *h)
{
    if (h->rt->namespaced && !h->ns)
        return as_resp_status(h->resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = as_check_identity(h, root);
    if (!code)
        code = as_create_doc(h, root, 201);
    slinky_doc_free(d);
    return code;
}

/* ------------------------------------------------------------------ */
/* UPDATE (PUT, PATCH, status, scale)                                 */
/* ------------------------------------------------------------------ */

/* everything but metadata and status */
static bool spec_equal(const slinky_doc_value *a, const slinky_doc_value *b)
{
    size_t na = slinky_doc_value_size(a), nb = slinky_doc_value_size(b), ca = 0, cb = 0;
    for (size_t i = 0; i < na; i++) {
        const char *k = slinky_doc_value_key_at(a, i);
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        ca++;
        if (!slinky_doc_value_equal(slinky_doc_value_member_at(a, i),
                                    slinky_doc_value_get(b, k)))
            return false;
    }
    for (size_t i = 0; i < nb; i++) {
        const char *k = slinky_doc_value_key_at(b, i);
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        cb++;
    }
    return ca == cb;
}

bool as_has_finalizers(const slinky_doc_value *root)
{
    return slinky_doc_value_size(slinky_doc_value_path(root, "metadata.finalizers")) > 0;
}


/*
 * Store `root` as the new state of `old` (lock held). `sub` is the
 * subresource written ("status" or NULL). Checks, admits, bumps generation.
 */
int as_update_doc(hctx *h, as_obj *old, slinky_doc_value *root, bool status_only)
{
    as_server *s = h->s;
    slinky_doc *od = NULL;
    if (as_obj_doc(&od, old) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "reading the object failed", NULL);
    slinky_doc_value *oroot = slinky_doc_root(od);
    slinky_doc_value *md = as_md_of(root);
    const slinky_doc_value *omd = slinky_doc_value_get(oroot, "metadata");
    int code = 0;
    /* immutable metadata */
    static const char *const keep[] = {"uid", "creationTimestamp", "deletionTimestamp",
                                       "deletionGracePeriodSeconds", "generation", "name",
                                       "namespace"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keep); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(omd, keep[i]);
        if (v)
            slinky_doc_value_object_set(md, keep[i], v);
        else if (slinky_doc_value_get(md, keep[i]))
            slinky_doc_value_object_remove(md, keep[i]);
    }
    bool has_status = h->ver->has_status;
    if (status_only) {
        /* only .status changes through /status */
        const slinky_doc_value *st = slinky_doc_value_get(root, "status");
        slinky_doc *nd = NULL;
        if (slinky_doc_new_copy(&nd, oroot) != 0) {
            slinky_doc_free(od);
            return as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
        }
        slinky_doc_value *nroot = slinky_doc_root(nd);
        const slinky_doc_value *mf = slinky_doc_value_path(root, "metadata.managedFields");
        if (h->managed_done && mf)
            slinky_doc_value_object_set(slinky_doc_value_get(nroot, "metadata"), "managedFields",
                                        mf);
        if (st)
            slinky_doc_value_object_set(nroot, "status", st);
        else if (slinky_doc_value_get(nroot, "status"))
            slinky_doc_value_object_remove(nroot, "status");
        slinky_doc_value_set_copy(root, nroot);
        slinky_doc_free(nd);
        md = as_md_of(root);
    } else if (has_status) {
        const slinky_doc_value *st = slinky_doc_value_get(oroot, "status");
        if (st)
            slinky_doc_value_object_set(root, "status", st);
        else if (slinky_doc_value_get(root, "status"))
            slinky_doc_value_object_remove(root, "status");
    }
    const char *name = slinky_doc_value_path_string(omd, "name", "");
    code = admit(s, h->rt, h->ver, root, h->req, h->resp, name);
    if (code)
        goto done;
    md = as_md_of(root);
    if (h->rt->crd_sets_generation && !spec_equal(oroot, root))
        slinky_doc_value_object_set_int(md, "generation",
                                        slinky_doc_value_path_int(omd, "generation", 1) + 1);
    as_managed_update(h, oroot, root, "Update");
    /* no change at all: no new resourceVersion, no event */
    as_set_rv(root, old->rv);
    if (slinky_doc_value_equal(oroot, root)) {
        code = as_resp_json(h->resp, 200, old->json, old->json_len);
        goto done;
    }
    if ((as_is_dry_run(h->req) || h->body_dry_run)) {
        code = as_resp_doc(h->resp, 200, root);
        goto done;
    }
    if (slinky_doc_value_get(md, "deletionTimestamp") && !as_has_finalizers(root)) {
        code = as_remove_object(h, h->rt, old, root, false);
        if (!code)
            code = as_resp_doc(h->resp, 200, root);
        goto done;
    }
    uint64_t rv = s->rv + 1;
    as_set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) != 0) {
        code = as_resp_status(h->resp, 500, "InternalError", "storing failed", NULL);
        goto done;
    }
    if (as_store_commit(s, h->rt, AS_EV_MODIFIED, o, old) != 0) {
        as_obj_unref(o);
        code = as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message, NULL);
        goto done;
    }
    as_hook_after_write(h, root);
    code = as_resp_json(h->resp, 200, o->json, o->json_len);
done:
    slinky_doc_free(od);
    return code;
}

static int apply_scale(hctx *h, slinky_doc_value *target, const slinky_doc_value *scale)
{
    const char *sp = h->ver->scale_spec ? h->ver->scale_spec : ".spec.replicas";
    slinky_doc_value *v = NULL;
    const slinky_doc_value *rep = slinky_doc_value_path(scale, "spec.replicas");
    if (!rep || slinky_doc_value_type(rep) != SLINKY_DOC_INT) {
        as_causes c = {0};
        as_causes_add(&c, "FieldValueRequired", "spec.replicas", "Required value");
        as_resp_invalid(h->resp, h->rt, h->route->name, &c);
        as_causes_dispose(&c);
        return 422;
    }
    if (slinky_doc_value_path_put(&v, target, sp + (*sp == '.')) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "setting replicas failed", NULL);
    slinky_doc_value_set_int(v, slinky_doc_value_get_int(rep));
    return 0;
}

static int respond_scale(hctx *h)
{
    if (h->resp->status != 200)
        return 0;
    as_obj *o = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL, *sd = NULL;
    if (!o || as_obj_doc(&d, o) || as_scale_doc(&sd, h->ver, slinky_doc_root(d))) {
        slinky_doc_free(d);
        return 0;
    }
    as_resp_doc(h->resp, 200, slinky_doc_root(sd));
    slinky_doc_free(sd);
    slinky_doc_free(d);
    return 0;
}

int as_do_put(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = 0;
    bool scale = h->route->sub && strcmp(h->route->sub, "scale") == 0;
    bool status = h->route->sub && strcmp(h->route->sub, "status") == 0;
    if (!old) {
        code = as_resp_not_found(h->resp, h->rt, h->route->name);
        goto done;
    }
    const char *brv = slinky_doc_value_path_string(root, "metadata.resourceVersion", NULL);
    bool ok = false;
    uint64_t rv = as_parse_rv(brv, &ok);
    if (brv && *brv && (!ok || rv != old->rv)) {
        code = as_resp_conflict(h->resp, h->rt, h->route->name, as_k_modified);
        goto done;
    }
    if (scale) {
        slinky_doc *od = NULL;
        if (as_obj_doc(&od, old) != 0) {
            code = as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
            goto done;
        }
        code = apply_scale(h, slinky_doc_root(od), root);
        if (!code)
            code = as_update_doc(h, old, slinky_doc_root(od), false);
        slinky_doc_free(od);
        if (!code)
            respond_scale(h);
        goto done;
    }
    if ((!brv || !*brv) && !h->rt->builtin) {
        as_causes c = {0};
        as_causes_add(&c, "FieldValueInvalid", "metadata.resourceVersion",
                      "Invalid value: 0x0: must be specified for an update");
        code = as_resp_invalid(h->resp, h->rt, h->route->name, &c);
        as_causes_dispose(&c);
        goto done;
    }
    code = as_check_identity(h, root);
    if (code)
        goto done;
    const char *bname = slinky_doc_value_path_string(root, "metadata.name", "");
    if (strcmp(bname, h->route->name) != 0) {
        code = as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the name of the object (%s) does not match the name on the URL "
                             "(%s)",
                             bname, h->route->name);
        goto done;
    }
    code = as_update_doc(h, old, root, status);
done:
    slinky_doc_free(d);
    return code;
}

static const char *k_415 = "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml";

int as_do_patch(hctx *h)
{
    const char *ct = h->req->content_type ? h->req->content_type : "";
    bool merge = strncmp(ct, "application/merge-patch+json", 28) == 0;
    bool json = strncmp(ct, "application/json-patch+json", 27) == 0;
    bool smp = strncmp(ct, "application/strategic-merge-patch+json", 38) == 0;
    bool apply = strncmp(ct, "application/apply-patch+yaml", 28) == 0 ||
                 strncmp(ct, "application/apply-patch+json", 28) == 0;
    if (!merge && !json && !(smp && h->rt->builtin) && !apply)
        return as_resp_status(h->resp, 415, "UnsupportedMediaType",
                              h->rt->builtin ? "the body of the request was in an unknown "
                                               "format - accepted media types include: "
                                               "application/json-patch+json, "
                                               "application/merge-patch+json, "
                                               "application/apply-patch+yaml, "
                                               "application/strategic-merge-patch+json"
                                             : k_415,
                              NULL);
    if (apply)
        return as_apply_patch(h);
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    slinky_doc *pd = NULL, *od = NULL;
    int code = 0;
    if (as_parse_body(&pd, h->req, h->resp))
        return 400;
    if (as_obj_doc(&od, old) != 0) {
        slinky_doc_free(pd);
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    }
    slinky_doc_value *target = slinky_doc_root(od);
    bool scale = h->route->sub && strcmp(h->route->sub, "scale") == 0;
    slinky_doc *sd = NULL;
    if (scale) {
        if (as_scale_doc(&sd, h->ver, target) != 0) {
            code = as_resp_status(h->resp, 500, "InternalError", "scale failed", NULL);
            goto done;
        }
        target = slinky_doc_root(sd);
    }
    int rc;
    if (json) {
        rc = slinky_doc_json_patch_apply(target, slinky_doc_root(pd));
    } else if (smp) {
        rc = as_strategic_merge(target, slinky_doc_root(pd));
    } else {
        if (slinky_doc_value_type(slinky_doc_root(pd)) != SLINKY_DOC_OBJECT) {
            code = as_resp_status(h->resp, 400, "BadRequest",
                                  "the body of the request must be a JSON object", NULL);
            goto done;
        }
        rc = slinky_doc_merge_patch_apply(target, slinky_doc_root(pd));
    }
    if (rc) {
        char msg[1200];
        snprintf(msg, sizeof(msg), "the server rejected our request due to an error in our "
                                   "request: %s",
                 slinky_error_last()->message);
        code = as_resp_status(h->resp, json ? 422 : 400, json ? "Invalid" : "BadRequest", msg,
                              NULL);
        goto done;
    }
    const char *prv = slinky_doc_value_path_string(target, "metadata.resourceVersion", NULL);
    bool ok = false;
    if (prv && *prv && (as_parse_rv(prv, &ok) != old->rv || !ok)) {
        code = as_resp_conflict(h->resp, h->rt, h->route->name, as_k_modified);
        goto done;
    }
    if (scale) {
        slinky_doc *od2 = NULL;
        if (as_obj_doc(&od2, old) == 0) {
            code = apply_scale(h, slinky_doc_root(od2), target);
            if (!code)
                code = as_update_doc(h, old, slinky_doc_root(od2), false);
            slinky_doc_free(od2);
            if (!code)
                respond_scale(h);
        }
        goto done;
    }
    if (slinky_doc_value_type(target) != SLINKY_DOC_OBJECT) {
        code = as_resp_status(h->resp, 422, "Invalid", "the patched object is not an object",
                              NULL);
        goto done;
    }
    code = as_check_identity(h, target);
    if (!code)
        code = as_update_doc(h, old, target,
                             h->route->sub && strcmp(h->route->sub, "status") == 0);
done:
    slinky_doc_free(sd);
    slinky_doc_free(pd);
    slinky_doc_free(od);
    return code;
}

