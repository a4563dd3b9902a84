/* Server-side apply -- first cut: create or merge, fieldManager required. */
#include "handlers.h"

#include <string.h>

void as_managed_update(hctx *h, const slinky_doc_value *old, slinky_doc_value *root,
                       const char *operation)
{
    (void)h; (void)old; (void)root; (void)operation;
}

int as_apply_patch(hctx *h)
{
    const char *fm = as_req_query(h->req, "fieldManager");
    if (!fm || !*fm)
        return as_resp_status(h->resp, 400, "BadRequest",
                              "PATCH request with apply content type requires a fieldManager",
                              NULL);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = as_check_identity(h, root);
    if (code) {
        slinky_doc_free(d);
        return code;
    }
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old) {
        code = as_create_doc(h, root, 201);
        slinky_doc_free(d);
        return code;
    }
    slinky_doc *od = NULL;
    if (as_obj_doc(&od, old) != 0) {
        slinky_doc_free(d);
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    }
    slinky_doc_merge_patch_apply(slinky_doc_root(od), root);
    code = as_update_doc(h, old, slinky_doc_root(od),
                         h->route->sub && strcmp(h->route->sub, "status") == 0);
    slinky_doc_free(od);
    slinky_doc_free(d);
    return code;
}
