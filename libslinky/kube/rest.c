/* kube: REST verbs on any group/version/resource. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_get_options, SLINKY_KUBE_GET_OPTIONS_VERSION)

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_list_options, SLINKY_KUBE_LIST_OPTIONS_VERSION)

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_write_options, SLINKY_KUBE_WRITE_OPTIONS_VERSION)

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_patch_options, SLINKY_KUBE_PATCH_OPTIONS_VERSION)

slinky_status slinky_kube_delete_options_init(slinky_kube_delete_options *opts, unsigned int version)
{
    if (opts == NULL || version != SLINKY_KUBE_DELETE_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "delete options: unknown version %u", version);
    memset(opts, 0, sizeof(*opts));
    opts->version = version;
    opts->grace_period_seconds = -1;
    return 0;
}

static int check_common(slinky_kube_client *c, const slinky_kube_resource *r, const char *ns,
                        const char *what)
{
    if (c == NULL || r == NULL)
        return slinky__error_set(SLINKY_EINVALID, "%s: NULL argument", what);
    if (r->namespaced && (ns == NULL || *ns == '\0') && strcmp(what, "list") != 0)
        return slinky__error_set(SLINKY_EINVALID, "%s: %s is namespaced: a namespace is required",
                                 what, r->resource ? r->resource : "?");
    return 0;
}

static int check_version(unsigned have, unsigned want, const char *what)
{
    if (have != want)
        return slinky__error_set(SLINKY_EINVALID, "%s options: unknown version %u", what, have);
    return 0;
}

int slinky_kube__call_doc(slinky_doc **out, slinky_kube_client *c, const char *method,
                          const char *path, const char *content_type, const slinky_doc_value *body,
                          bool idempotent)
{
    char *json = NULL;
    size_t jlen = 0;
    int err;
    if (body && (err = slinky_doc_value_dump_json(&json, &jlen, body, SLINKY_DOC_DUMP_COMPACT)) != 0)
        return err;
    slinky_kube__req req = {method, path, body ? content_type : NULL, json, jlen};
    req.idempotent = idempotent;
    slinky_kube__resp resp;
    err = slinky_kube__do(&resp, c, &req);
    slinky_free(json);
    if (err)
        return err;
    if (resp.status < 200 || resp.status >= 300) {
        err = slinky_kube__status_error(resp.status, resp.body, resp.body_len, resp.retry_after);
        slinky_kube__resp_dispose(&resp);
        return err;
    }
    if (out) {
        slinky_doc *d = NULL;
        err = slinky_doc_parse_json(&d, resp.body ? resp.body : "null",
                                    resp.body ? resp.body_len : 4);
        if (err) {
            slinky__error_prefix("%s %s: reply: ", method, path);
            slinky_kube__resp_dispose(&resp);
            return err;
        }
        *out = d;
    }
    slinky_kube__resp_dispose(&resp);
    return 0;
}

slinky_status slinky_kube_get(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                              const char *ns, const char *name, const slinky_kube_get_options *o)
{
    int err;
    if (out == NULL || name == NULL)
        return slinky__error_set(SLINKY_EINVALID, "get: NULL argument");
    if ((err = check_common(c, r, ns, "get")) != 0)
        return err;
    if (o && (err = check_version(o->version, SLINKY_KUBE_GET_OPTIONS_VERSION, "get")) != 0)
        return err;
    char *path = NULL;
    if ((err = slinky_kube_path(&path, r, ns, name, o ? o->subresource : NULL)) != 0)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, path);
    if (o)
        slinky_kube__query_add(&b, &first, "resourceVersion", o->resource_version);
    slinky_free(path);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    err = slinky_kube__call_doc(out, c, "GET", b.data, NULL, NULL, true);
    slinky__buf_dispose(&b);
    return err;
}

static void write_query(slinky__buf *b, bool *first, const char *field_manager, bool dry_run,
                        const char *field_validation)
{
    if (dry_run)
        slinky_kube__query_add(b, first, "dryRun", "All");
    slinky_kube__query_add(b, first, "fieldManager", field_manager);
    slinky_kube__query_add(b, first, "fieldValidation", field_validation);
}

static int write_verb(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                      const char *ns, const slinky_doc_value *obj,
                      const slinky_kube_write_options *o, const char *method, const char *sub)
{
    int err;
    const char *what = strcmp(method, "POST") == 0 ? "create" : "update";
    if (obj == NULL || slinky_doc_value_type(obj) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "%s: the object must be a JSON object", what);
    if ((err = check_common(c, r, ns, what)) != 0)
        return err;
    if (o && (err = check_version(o->version, SLINKY_KUBE_WRITE_OPTIONS_VERSION, what)) != 0)
        return err;
    const char *name = NULL;
    if (strcmp(method, "PUT") == 0) {
        name = slinky_doc_value_path_string(obj, "metadata.name", NULL);
        if (name == NULL || *name == '\0')
            return slinky__error_set(SLINKY_EINVALID, "update: metadata.name is missing");
    }
    const char *ons = slinky_doc_value_path_string(obj, "metadata.namespace", NULL);
    if (r->namespaced && ons && *ons && strcmp(ons, ns) != 0)
        return slinky__error_set(SLINKY_EINVALID, "%s: metadata.namespace \"%s\" differs from \"%s\"",
                                 what, ons, ns);
    char *path = NULL;
    if ((err = slinky_kube_path(&path, r, ns, name, sub)) != 0)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, path);
    slinky_free(path);
    if (o)
        write_query(&b, &first, o->field_manager, o->dry_run, o->field_validation);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    err = slinky_kube__call_doc(out, c, method, b.data, "application/json", obj,
                                strcmp(method, "PUT") == 0);
    slinky__buf_dispose(&b);
    return err;
}

slinky_status slinky_kube_create(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                                 const char *ns, const slinky_doc_value *obj,
                                 const slinky_kube_write_options *opts)
{
    return write_verb(out, c, r, ns, obj, opts, "POST", NULL);
}

slinky_status slinky_kube_update(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                                 const char *ns, const slinky_doc_value *obj,
                                 const slinky_kube_write_options *opts)
{
    return write_verb(out, c, r, ns, obj, opts, "PUT", NULL);
}

slinky_status slinky_kube_update_status(slinky_doc **out, slinky_kube_client *c,
                                        const slinky_kube_resource *r, const char *ns,
                                        const slinky_doc_value *obj,
                                        const slinky_kube_write_options *opts)
{
    return write_verb(out, c, r, ns, obj, opts, "PUT", "status");
}

static const char *patch_types[] = {
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
};

slinky_status slinky_kube_patch(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                                const char *ns, const char *name, slinky_kube_patch_type type,
                                const slinky_doc_value *patch, const slinky_kube_patch_options *o)
{
    int err;
    if (name == NULL || patch == NULL)
        return slinky__error_set(SLINKY_EINVALID, "patch: NULL argument");
    if ((err = check_common(c, r, ns, "patch")) != 0)
        return err;
    if (o && (err = check_version(o->version, SLINKY_KUBE_PATCH_OPTIONS_VERSION, "patch")) != 0)
        return err;
    if ((unsigned)type >= SLINKY__ARRAY_SIZE(patch_types))
        return slinky__error_set(SLINKY_EINVALID, "patch: unknown patch type %d", (int)type);
    if (type == SLINKY_KUBE_PATCH_JSON && slinky_doc_value_type(patch) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "patch: a JSON patch must be an array of operations");
    if (type != SLINKY_KUBE_PATCH_JSON && slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "patch: a %s patch must be an object",
                                 type == SLINKY_KUBE_PATCH_APPLY ? "server-side apply" : "merge");
    if (type == SLINKY_KUBE_PATCH_APPLY && (o == NULL || o->field_manager == NULL || !*o->field_manager))
        return slinky__error_set(SLINKY_EINVALID, "patch: server-side apply needs a field_manager");
    if (type != SLINKY_KUBE_PATCH_APPLY && o && o->force)
        return slinky__error_set(SLINKY_EINVALID, "patch: force is only valid for server-side apply");
    char *path = NULL;
    if ((err = slinky_kube_path(&path, r, ns, name, o ? o->subresource : NULL)) != 0)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, path);
    slinky_free(path);
    if (o) {
        write_query(&b, &first, o->field_manager, o->dry_run, o->field_validation);
        if (o->force)
            slinky_kube__query_add(&b, &first, "force", "true");
    }
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    err = slinky_kube__call_doc(out, c, "PATCH", b.data, patch_types[type], patch,
                                type == SLINKY_KUBE_PATCH_APPLY);
    slinky__buf_dispose(&b);
    return err;
}

slinky_status slinky_kube_delete(slinky_doc **out, slinky_kube_client *c, const slinky_kube_resource *r,
                                 const char *ns, const char *name,
                                 const slinky_kube_delete_options *o)
{
    int err;
    if (name == NULL)
        return slinky__error_set(SLINKY_EINVALID, "delete: NULL name");
    if ((err = check_common(c, r, ns, "delete")) != 0)
        return err;
    if (o && (err = check_version(o->version, SLINKY_KUBE_DELETE_OPTIONS_VERSION, "delete")) != 0)
        return err;
    char *path = NULL;
    if ((err = slinky_kube_path(&path, r, ns, name, NULL)) != 0)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, path);
    slinky_free(path);
    slinky_doc *body = NULL;
    if ((err = slinky_doc_new(&body)) != 0) {
        slinky__buf_dispose(&b);
        return err;
    }
    slinky_doc_value *root = slinky_doc_root(body);
    slinky_doc_value_set_object(root);
    slinky_doc_value_object_set_string(root, "apiVersion", "v1");
    slinky_doc_value_object_set_string(root, "kind", "DeleteOptions");
    if (o) {
        if (o->dry_run) {
            slinky_kube__query_add(&b, &first, "dryRun", "All");
            slinky_doc_value *arr;
            if (slinky_doc_value_object_put(&arr, root, "dryRun") == 0 &&
                slinky_doc_value_set_array(arr) == 0) {
                slinky_doc_value *e;
                if (slinky_doc_value_array_append(&e, arr) == 0)
                    slinky_doc_value_set_string(e, "All");
            }
        }
        if (o->propagation_policy)
            slinky_doc_value_object_set_string(root, "propagationPolicy", o->propagation_policy);
        if (o->grace_period_seconds >= 0)
            slinky_doc_value_object_set_int(root, "gracePeriodSeconds", o->grace_period_seconds);
        if (o->precondition_uid || o->precondition_resource_version) {
            slinky_doc_value *pre;
            if (slinky_doc_value_object_put(&pre, root, "preconditions") == 0 &&
                slinky_doc_value_set_object(pre) == 0) {
                if (o->precondition_uid)
                    slinky_doc_value_object_set_string(pre, "uid", o->precondition_uid);
                if (o->precondition_resource_version)
                    slinky_doc_value_object_set_string(pre, "resourceVersion",
                                                       o->precondition_resource_version);
            }
        }
    }
    if (b.failed)
        err = slinky__error_oom();
    else
        err = slinky_kube__call_doc(out, c, "DELETE", b.data, "application/json", root, false);
    slinky_doc_free(body);
    slinky__buf_dispose(&b);
    return err;
}

slinky_status slinky_kube_retry_on_conflict(slinky_doc **out, slinky_kube_client *c,
                                            const slinky_kube_resource *r, const char *ns,
                                            const char *name, int attempts,
                                            slinky_kube_mutate_cb cb, void *payload)
{
    if (cb == NULL)
        return slinky__error_set(SLINKY_EINVALID, "retry_on_conflict: NULL callback");
    if (attempts <= 0)
        attempts = 5;
    int err = 0;
    for (int i = 0; i < attempts; i++) {
        slinky_doc *obj = NULL;
        if ((err = slinky_kube_get(&obj, c, r, ns, name, NULL)) != 0)
            return err;
        if ((err = cb(slinky_doc_root(obj), payload)) == SLINKY_KUBE_MUTATE_NO_CHANGE) {
            if (out)
                *out = obj;
            else
                slinky_doc_free(obj);
            return 0;
        }
        if (err != 0) {
            slinky_doc_free(obj);
            return err;
        }
        err = slinky_kube_update(out, c, r, ns, slinky_doc_root(obj), NULL);
        slinky_doc_free(obj);
        if (err != SLINKY_ECONFLICT)
            return err;
        slinky_kube__sleep_ms((long)(10 * (1 << i) * (0.5 + slinky_kube__rand01())));
    }
    return err;
}
