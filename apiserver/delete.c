/* DELETE and deletecollection: options, preconditions, the response (verbs.h). */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

int as_do_delete(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    const char *propagation = as_req_query(h->req, "propagationPolicy");
    slinky_doc *opts = NULL;
    if (h->req->body_len) {
        if (as_parse_body(&opts, h->req, h->resp, h->s->max_body))
            return h->resp->status;
        const slinky_doc_value *o = slinky_doc_root(opts);
        const char *p = slinky_doc_value_path_string(o, "propagationPolicy", NULL);
        if (p)
            propagation = p;
        if (slinky_doc_value_path_bool(o, "orphanDependents", false))
            propagation = "Orphan";
        const char *puid = slinky_doc_value_path_string(o, "preconditions.uid", NULL);
        const char *prv = slinky_doc_value_path_string(o, "preconditions.resourceVersion", NULL);
        char why[300];
        if (puid && strcmp(puid, old->uid) != 0) {
            snprintf(why, sizeof(why),
                     "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                     puid, old->uid);
            int code = as_resp_conflict(h->resp, h->rt, h->route->name, why);
            slinky_doc_free(opts);
            return code;
        }
        bool ok = false;
        if (prv && (as_parse_rv(prv, &ok) != old->rv || !ok)) {
            snprintf(why, sizeof(why),
                     "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion "
                     "in object meta: %llu",
                     prv, (unsigned long long)old->rv);
            int code = as_resp_conflict(h->resp, h->rt, h->route->name, why);
            slinky_doc_free(opts);
            return code;
        }
        const slinky_doc_value *dr = slinky_doc_value_get(o, "dryRun");
        if (dr && slinky_doc_value_size(dr) &&
            strcmp(slinky_doc_value_path_string(dr, "[0]", ""), "All") == 0)
            h->body_dry_run = true;
    }
    slinky_doc *final = NULL;
    int code = as_delete_one(h, h->rt, old, propagation, &final);
    if (!code)
        /* 202 while finalizers (or a namespace's content) hold the object */
        as_resp_doc(h->resp,
                    slinky_doc_value_path(slinky_doc_root(final), "metadata.deletionTimestamp")
                        ? 202
                        : 200,
                    slinky_doc_root(final));
    slinky_doc_free(final);
    slinky_doc_free(opts);
    return code;
}

int as_do_delete_collection(hctx *h)
{
    as_filter f;
    if (as_filter_init(&f, h->req, h->ns, h->resp) != 0)
        return 400;
    for (size_t i = 0; i < h->rt->n_items;) {
        as_obj *o = h->rt->items[i];
        if (!as_filter_match(&f, o) || strstr(o->json, "\"deletionTimestamp\"")) {
            i++;
            continue;
        }
        size_t before = h->rt->n_items;
        slinky_doc *fd = NULL;
        as_delete_one(h, h->rt, o, as_req_query(h->req, "propagationPolicy"), &fd);
        slinky_doc_free(fd);
        if (h->rt->n_items == before)
            i++;
    }
    as_filter_dispose(&f);
    h->resp->status = 0;
    return as_do_list(h);
}

