/* PATCH: merge, JSON and strategic merge patches, and the scale subresource (verbs.h). */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

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
