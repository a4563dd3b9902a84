/* POST (create) and PUT (update, status, scale) (verbs.h). */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

int as_do_create(hctx *h)
{
    if (h->rt->namespaced && !h->ns)
        return as_resp_status(h->resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp, h->s->max_body))
        return h->resp->status;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = as_check_identity(h, root);
    if (!code)
        code = as_create_doc(h, root, 201);
    slinky_doc_free(d);
    return code;
}

int as_do_put(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp, h->s->max_body))
        return h->resp->status;
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
        code = as_scale_apply(h, slinky_doc_root(od), root);
        if (!code)
            code = as_update_doc(h, old, slinky_doc_root(od), false);
        slinky_doc_free(od);
        if (!code)
            as_scale_respond(h);
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

