/* PATCH: merge, JSON and strategic merge patches, and the scale subresource (verbs.h). */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

/* 413 for a write whose result would pass the object size limit */
static int too_large(hctx *h, const char *what)
{
    return as_resp_error(h->resp, NULL, 413, "RequestEntityTooLarge", NULL,
                         "%s makes the object larger than the limit of %zu bytes", what,
                         h->s->max_body);
}

static size_t json_size(const slinky_doc_value *v)
{
    char *json = NULL;
    size_t len = 0;
    if (slinky_doc_value_dump_json(&json, &len, v, SLINKY_DOC_DUMP_COMPACT) != 0)
        return SIZE_MAX;
    slinky_free(json);
    return len;
}

/*
 * RFC 6902, one operation at a time, refused (SLINKY_EBUSY) as soon as the
 * object could pass the size limit. Only "copy" makes an object grow by more
 * than the request's own bytes, so the running estimate is the object's size
 * plus the body plus every copied value: at most about twice the limit is
 * ever built or measured, whatever the operations (20 copies of /data into
 * itself would double it 20 times). `target` is a copy the caller drops on
 * failure, so applying the operations one by one keeps the patch atomic.
 */
static int bounded_json_patch(hctx *h, slinky_doc_value *target, const slinky_doc_value *patch)
{
    size_t limit = h->s->max_body;
    if (!limit || slinky_doc_value_type(patch) != SLINKY_DOC_ARRAY)
        return slinky_doc_json_patch_apply(target, patch);
    size_t estimate = json_size(target) + h->req->body_len;
    if (estimate > limit)
        return SLINKY_EBUSY;
    slinky_doc *one = NULL;
    int rc = slinky_doc_new(&one);
    for (size_t i = 0; !rc && i < slinky_doc_value_size(patch); i++) {
        const slinky_doc_value *op = slinky_doc_value_at(patch, i);
        if (!strcmp(slinky_doc_value_path_string(op, "op", ""), "copy")) {
            const char *from = slinky_doc_value_path_string(op, "from", NULL);
            const slinky_doc_value *src = from ? slinky_doc_value_pointer(target, from) : NULL;
            if (src) {
                size_t n = json_size(src);
                if (n > limit || estimate + n > limit) {
                    rc = SLINKY_EBUSY;
                    break;
                }
                estimate += n;
            }
        }
        slinky_doc_value *arr = slinky_doc_root(one), *slot = NULL;
        slinky_doc_value_set_array(arr);
        rc = slinky_doc_value_array_append(&slot, arr);
        if (!rc)
            rc = slinky_doc_value_set_copy(slot, op);
        if (!rc)
            rc = slinky_doc_json_patch_apply(target, arr);
        if (rc && rc != SLINKY_ENOMEM) {
            /* the library names operation 0 of our one-operation patch: name the real one */
            const char *m = slinky_error_last()->message;
            const char *tail = strncmp(m, "JSON patch operation 0", 22) == 0 ? m + 22 : NULL;
            if (tail)
                slinky_error_set(rc, "JSON patch operation %zu%s", i, tail);
        }
    }
    slinky_doc_free(one);
    return rc;
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
    if (as_parse_body(&pd, h->req, h->resp, h->s->max_body))
        return h->resp->status;
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
        rc = bounded_json_patch(h, target, slinky_doc_root(pd));
        if (rc == SLINKY_EBUSY) {
            code = too_large(h, "the JSON patch");
            goto done;
        }
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
            code = as_scale_apply(h, slinky_doc_root(od2), target);
            if (!code)
                code = as_update_doc(h, old, slinky_doc_root(od2), false);
            slinky_doc_free(od2);
            if (!code)
                as_scale_respond(h);
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
