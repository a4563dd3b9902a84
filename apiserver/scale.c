/* The scale subresource (commit.h): Scale documents and replicas writes. */
#include "commit.h"

#include <string.h>

int as_scale_doc(slinky_doc **out, const as_version *ver, const slinky_doc_value *root)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d);
    slinky_doc_value_set_object(r);
    slinky_doc_value_object_set_string(r, "kind", "Scale");
    slinky_doc_value_object_set_string(r, "apiVersion", "autoscaling/v1");
    slinky_doc_value *md = as_md_of(r);
    const slinky_doc_value *omd = slinky_doc_value_get(root, "metadata");
    static const char *const keep[] = {"name", "namespace", "uid", "resourceVersion",
                                       "creationTimestamp"};
    for (size_t i = 0; i < AS_ARRAY_SIZE(keep); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(omd, keep[i]);
        if (v)
            slinky_doc_value_object_set(md, keep[i], v);
    }
    slinky_doc_value *spec = NULL, *status = NULL;
    slinky_doc_value_object_put(&spec, r, "spec");
    slinky_doc_value_set_object(spec);
    slinky_doc_value_object_put(&status, r, "status");
    slinky_doc_value_set_object(status);
    const char *sp = ver->scale_spec ? ver->scale_spec : ".spec.replicas";
    const char *st = ver->scale_status ? ver->scale_status : ".status.replicas";
    slinky_doc_value_object_set_int(spec, "replicas",
                                    slinky_doc_value_path_int(root, sp + (*sp == '.'), 0));
    slinky_doc_value_object_set_int(status, "replicas",
                                    slinky_doc_value_path_int(root, st + (*st == '.'), 0));
    if (ver->scale_selector) {
        const char *sel = slinky_doc_value_path_string(
            root, ver->scale_selector + (*ver->scale_selector == '.'), NULL);
        if (sel)
            slinky_doc_value_object_set_string(status, "selector", sel);
    }
    *out = d;
    return 0;
}

int as_scale_apply(hctx *h, slinky_doc_value *target, const slinky_doc_value *scale)
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

void as_scale_respond(hctx *h)
{
    if (h->resp->status != 200)
        return;
    as_obj *o = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL, *sd = NULL;
    if (!o || as_obj_doc(&d, o) || as_scale_doc(&sd, h->ver, slinky_doc_root(d))) {
        slinky_doc_free(d);
        return;
    }
    as_resp_doc(h->resp, 200, slinky_doc_root(sd));
    slinky_doc_free(sd);
    slinky_doc_free(d);
}
