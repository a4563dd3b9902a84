/* DELETE, deletecollection, finalizers and background garbage collection. */
#include "apiserver.h"
#include "handlers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* DELETE and garbage collection                                      */
/* ------------------------------------------------------------------ */

static int delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
                      slinky_doc **final_out);

static bool owner_exists(as_server *s, const char *uid)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        for (size_t i = 0; i < rt->n_items; i++)
            if (strcmp(rt->items[i]->uid, uid) == 0)
                return true;
    return false;
}

/* Background garbage collection of the dependents of `uid` (lock held). */
static void collect_garbage(hctx *h, const char *uid, const char *ns, bool orphan)
{
    as_server *s = h->s;
    bool again = true;
    while (again) {
        again = false;
        for (as_rtype *rt = s->types; rt && !again; rt = rt->next) {
            for (size_t i = 0; i < rt->n_items && !again; i++) {
                as_obj *o = rt->items[i];
                if (!strstr(o->json, uid))
                    continue;
                if (*o->ns && *ns && strcmp(o->ns, ns) != 0)
                    continue;
                slinky_doc *d = NULL;
                if (as_obj_doc(&d, o) != 0)
                    continue;
                slinky_doc_value *root = slinky_doc_root(d);
                slinky_doc_value *refs = slinky_doc_value_path(root, "metadata.ownerReferences");
                size_t n = slinky_doc_value_size(refs);
                bool mine = false, others = false;
                for (size_t j = 0; j < n; j++) {
                    const char *u =
                        slinky_doc_value_path_string(slinky_doc_value_at(refs, j), "uid", "");
                    if (strcmp(u, uid) == 0)
                        mine = true;
                    else if (owner_exists(s, u))
                        others = true;
                }
                if (!mine) {
                    slinky_doc_free(d);
                    continue;
                }
                bool deleting = slinky_doc_value_path(root, "metadata.deletionTimestamp");
                if (orphan || others) {
                    /* drop the dangling reference */
                    for (size_t j = n; j-- > 0;)
                        if (strcmp(slinky_doc_value_path_string(slinky_doc_value_at(refs, j),
                                                                "uid", ""),
                                   uid) == 0)
                            slinky_doc_value_array_remove(refs, j);
                    if (slinky_doc_value_size(refs) == 0)
                        slinky_doc_value_object_remove(slinky_doc_value_get(root, "metadata"),
                                                       "ownerReferences");
                    uint64_t rv = s->rv + 1;
                    as_set_rv(root, rv);
                    as_obj *no = NULL;
                    if (as_obj_new(&no, root, rv) == 0) {
                        if (as_store_commit(s, rt, AS_EV_MODIFIED, no, o) == 0)
                            again = true;
                        else
                            as_obj_unref(no);
                    }
                } else if (!deleting) {
                    slinky_doc *fd = NULL;
                    if (delete_one(h, rt, o, "Background", &fd) == 0)
                        again = true;
                    slinky_doc_free(fd);
                }
                slinky_doc_free(d);
            }
        }
    }
}

/* Remove an object for good (no finalizers left); DELETED event; GC. */
int as_remove_object(hctx *h, as_rtype *rt, as_obj *prev, slinky_doc_value *final_root,
                         bool orphan)
{
    as_server *s = h->s;
    uint64_t rv = s->rv + 1;
    as_set_rv(final_root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, final_root, rv) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "delete failed", NULL);
    char *uid = slinky__strdup(prev->uid), *ns = slinky__strdup(prev->ns);
    char *name = slinky__strdup(prev->name);
    if (as_store_commit(s, rt, AS_EV_DELETED, o, prev) != 0) {
        as_obj_unref(o);
        free(uid);
        free(ns);
        free(name);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message, NULL);
    }
    if (strcmp(rt->plural, "customresourcedefinitions") == 0 && rt->builtin)
        as_registry_remove_crd(s, final_root);
    if (uid && *uid)
        collect_garbage(h, uid, ns ? ns : "", orphan);
    /* a terminating namespace goes away once it is empty */
    if (ns && *ns) {
        as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
        as_obj *nso = nrt ? as_store_get(nrt, "", ns) : NULL;
        if (nso && strstr(nso->json, "\"deletionTimestamp\"")) {
            bool empty = true;
            for (as_rtype *t = s->types; t && empty; t = t->next)
                for (size_t i = 0; i < t->n_items && empty; i++)
                    if (strcmp(t->items[i]->ns, ns) == 0)
                        empty = false;
            if (empty) {
                slinky_doc *nd = NULL;
                if (as_obj_doc(&nd, nso) == 0)
                    as_remove_object(h, nrt, nso, slinky_doc_root(nd), false);
                slinky_doc_free(nd);
            }
        }
    }
    free(uid);
    free(ns);
    free(name);
    return 0;
}

/*
 * Delete (or mark for deletion when finalizers remain). *final_out gets the
 * object's last state for the response. Returns 0 or an HTTP code.
 */
static int delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
                      slinky_doc **final_out)
{
    as_server *s = h->s;
    slinky_doc *d = NULL;
    if (as_obj_doc(&d, old) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    slinky_doc_value *root = slinky_doc_root(d);
    slinky_doc_value *md = as_md_of(root);
    bool ns_kind = strcmp(rt->plural, "namespaces") == 0 && !*rt->group;
    bool orphan = propagation && strcmp(propagation, "Orphan") == 0;
    if (as_has_finalizers(root) || (ns_kind && old->ns)) {
        bool ns_has_content = false;
        if (ns_kind) {
            for (as_rtype *t = s->types; t && !ns_has_content; t = t->next)
                for (size_t i = 0; i < t->n_items; i++)
                    if (strcmp(t->items[i]->ns, old->name) == 0)
                        ns_has_content = true;
        }
        if (as_has_finalizers(root) || ns_has_content) {
            if (!slinky_doc_value_get(md, "deletionTimestamp")) {
                char now[40];
                as_now_rfc3339(now, sizeof(now));
                slinky_doc_value_object_set_string(md, "deletionTimestamp", now);
                slinky_doc_value_object_set_int(md, "deletionGracePeriodSeconds", 0);
                if (ns_kind) {
                    slinky_doc_value *st = NULL;
                    if (slinky_doc_value_path_put(&st, root, "status.phase") == 0)
                        slinky_doc_value_set_string(st, "Terminating");
                }
                if (!(as_is_dry_run(h->req) || h->body_dry_run)) {
                    uint64_t rv = s->rv + 1;
                    as_set_rv(root, rv);
                    as_obj *o = NULL;
                    if (as_obj_new(&o, root, rv) != 0 ||
                        as_store_commit(s, rt, AS_EV_MODIFIED, o, old) != 0) {
                        as_obj_unref(o);
                        slinky_doc_free(d);
                        return as_resp_status(h->resp, 500, "InternalError", "delete failed",
                                              NULL);
                    }
                    if (ns_kind) {
                        /* delete the content now; the namespace goes when empty */
                        char *nsname = slinky__strdup(old->name);
                        for (as_rtype *t = s->types; t && nsname; t = t->next) {
                            for (size_t i = 0; i < t->n_items;) {
                                as_obj *c = t->items[i];
                                if (strcmp(c->ns, nsname) != 0 ||
                                    strstr(c->json, "\"deletionTimestamp\"")) {
                                    i++;
                                    continue;
                                }
                                slinky_doc *cd = NULL;
                                size_t before = t->n_items;
                                delete_one(h, t, c, "Background", &cd);
                                slinky_doc_free(cd);
                                if (t->n_items == before)
                                    i++;
                            }
                        }
                        free(nsname);
                    }
                }
            }
            *final_out = d;
            return 0;
        }
    }
    if ((as_is_dry_run(h->req) || h->body_dry_run)) {
        *final_out = d;
        return 0;
    }
    as_obj_ref(old);
    int code = as_remove_object(h, rt, old, root, orphan);
    as_obj_unref(old);
    if (code) {
        slinky_doc_free(d);
        return code;
    }
    *final_out = d;
    return 0;
}

int as_do_delete(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    const char *propagation = as_req_query(h->req, "propagationPolicy");
    slinky_doc *opts = NULL;
    if (h->req->body_len) {
        if (as_parse_body(&opts, h->req, h->resp))
            return 400;
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
    int code = delete_one(h, h->rt, old, propagation, &final);
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
        delete_one(h, h->rt, o, as_req_query(h->req, "propagationPolicy"), &fd);
        slinky_doc_free(fd);
        if (h->rt->n_items == before)
            i++;
    }
    as_filter_dispose(&f);
    h->resp->status = 0;
    return as_do_list(h);
}

