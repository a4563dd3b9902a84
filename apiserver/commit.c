/*
 * The write steps every verb ends in (commit.h): create, update, delete or
 * mark for deletion, removal with background garbage collection of
 * dependents and of an emptied terminating namespace.
 */
#include "commit.h"

#include <stdio.h>
#include <string.h>

/* An object over the size limit (the body limit) is not stored: 413, o dropped. */
static bool too_large(hctx *h, as_obj *o)
{
    if (!h->s->max_body || o->json_len <= h->s->max_body)
        return false;
    as_resp_error(h->resp, NULL, 413, "RequestEntityTooLarge", NULL,
                  "the object would be %zu bytes, more than the limit of %zu", o->json_len,
                  h->s->max_body);
    as_obj_unref(o);
    return true;
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
            as_generate_name(h, gname, sizeof(gname), gen);
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
    int code = as_check_namespace(h, name);
    if (code)
        return code;
    /* a custom resource with a status subresource starts without status */
    if (!h->rt->builtin && h->ver->has_status)
        slinky_doc_value_object_remove(root, "status");
    /* server-owned metadata */
    static const char *const drop[] = {"resourceVersion", "uid", "creationTimestamp",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "generation", "selfLink"};
    for (size_t i = 0; i < AS_ARRAY_SIZE(drop); i++)
        if (slinky_doc_value_get(md, drop[i]))
            slinky_doc_value_object_remove(md, drop[i]);
    code = as_admit(h, root, name, NULL);
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
    if (as_dry(h))
        return as_resp_doc(h->resp, ok_code, root);
    uint64_t rv = s->rv + 1;
    as_set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "storing the object failed", NULL);
    if (too_large(h, o))
        return 413;
    if (as_store_commit(s, h->rt, AS_EV_ADDED, o, NULL) != 0) {
        as_obj_unref(o);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message,
                              NULL);
    }
    as_hook_after_write(h, root);
    return as_resp_json(h->resp, ok_code, o->json, o->json_len);
}

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
    for (size_t i = 0; i < AS_ARRAY_SIZE(keep); i++) {
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
    code = as_admit(h, root, name, oroot);
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
    if (as_dry(h)) {
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
    if (too_large(h, o)) {
        code = 413;
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

static bool owner_exists(as_server *s, const char *uid)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        for (size_t i = 0; i < rt->n_items; i++)
            if (strcmp(rt->items[i]->uid, uid) == 0)
                return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* foreground deletion: dependents first, then the owner               */
/* ------------------------------------------------------------------ */

static void finish_foreground(hctx *h, const char *uid);

/* o's ownerReferences name uid (blocking: with blockOwnerDeletion true) */
static bool owned_by(const as_obj *o, const char *uid, bool blocking)
{
    if (!strstr(o->json, uid))
        return false;
    slinky_doc *d = NULL;
    if (as_obj_doc(&d, o) != 0)
        return false;
    const slinky_doc_value *refs = slinky_doc_value_path(slinky_doc_root(d),
                                                         "metadata.ownerReferences");
    bool found = false;
    for (size_t j = 0; j < slinky_doc_value_size(refs) && !found; j++) {
        const slinky_doc_value *r = slinky_doc_value_at(refs, j);
        found = !strcmp(slinky_doc_value_path_string(r, "uid", ""), uid) &&
                (!blocking || slinky_doc_value_path_bool(r, "blockOwnerDeletion", false));
    }
    slinky_doc_free(d);
    return found;
}

static bool has_dependents(as_server *s, const char *uid, bool blocking)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        for (size_t i = 0; i < rt->n_items; i++)
            if (owned_by(rt->items[i], uid, blocking))
                return true;
    return false;
}

static as_obj *find_uid(as_server *s, const char *uid, as_rtype **rt_out)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        for (size_t i = 0; i < rt->n_items; i++)
            if (!strcmp(rt->items[i]->uid, uid)) {
                *rt_out = rt;
                return rt->items[i];
            }
    return NULL;
}

/* delete every dependent of uid not being deleted yet, in the foreground too */
static void delete_dependents(hctx *h, const char *uid, const char *ns)
{
    bool again = true;
    while (again) {
        again = false;
        for (as_rtype *rt = h->s->types; rt && !again; rt = rt->next) {
            for (size_t i = 0; i < rt->n_items && !again; i++) {
                as_obj *o = rt->items[i];
                if ((*o->ns && *ns && strcmp(o->ns, ns) != 0) ||
                    strstr(o->json, "\"deletionTimestamp\"") || !owned_by(o, uid, false))
                    continue;
                char *dns = as_strdup(o->ns), *dname = as_strdup(o->name);
                slinky_doc *fd = NULL;
                as_delete_one(h, rt, o, "Foreground", &fd);
                slinky_doc_free(fd);
                /* go round again only when the store changed (no endless loop on errors) */
                again = dns && dname && as_store_get(rt, dns, dname) != o;
                free(dns);
                free(dname);
            }
        }
    }
}

/* change the finalizers of the object with this uid: add or remove one */
static int set_finalizer(hctx *h, as_rtype *rt, as_obj *o, const char *fin, bool add,
                         bool mark_deleted)
{
    slinky_doc *d = NULL;
    if (as_obj_doc(&d, o) != 0)
        return SLINKY_ENOMEM;
    slinky_doc_value *root = slinky_doc_root(d), *md = as_md_of(root), *list = NULL;
    if (slinky_doc_value_object_put(&list, md, "finalizers") == 0 &&
        slinky_doc_value_type(list) != SLINKY_DOC_ARRAY)
        slinky_doc_value_set_array(list);
    size_t n = slinky_doc_value_size(list);
    for (size_t i = n; i-- > 0;)
        if (!strcmp(slinky_doc_value_get_string(slinky_doc_value_at(list, i)), fin))
            slinky_doc_value_array_remove(list, i);
    if (add) {
        slinky_doc_value *e = NULL;
        if (slinky_doc_value_array_append(&e, list) == 0)
            slinky_doc_value_set_string(e, fin);
    }
    if (!slinky_doc_value_size(list))
        slinky_doc_value_object_remove(md, "finalizers");
    if (mark_deleted && !slinky_doc_value_get(md, "deletionTimestamp")) {
        char now[40];
        as_now_rfc3339(now, sizeof(now));
        slinky_doc_value_object_set_string(md, "deletionTimestamp", now);
        slinky_doc_value_object_set_int(md, "deletionGracePeriodSeconds", 0);
    }
    int rc = 0;
    if (!add && slinky_doc_value_get(md, "deletionTimestamp") && !as_has_finalizers(root)) {
        as_obj_ref(o);
        rc = as_remove_object(h, rt, o, root, false) ? SLINKY_ERROR : 0;
        as_obj_unref(o);
    } else {
        uint64_t rv = h->s->rv + 1;
        as_set_rv(root, rv);
        as_obj *no = NULL;
        rc = as_obj_new(&no, root, rv);
        if (!rc && (rc = as_store_commit(h->s, rt, AS_EV_MODIFIED, no, o)) != 0)
            as_obj_unref(no);
    }
    slinky_doc_free(d);
    return rc;
}

/* the owner uid in foreground deletion goes once no blocking dependent is left */
static void finish_foreground(hctx *h, const char *uid)
{
    as_rtype *rt = NULL;
    as_obj *o = find_uid(h->s, uid, &rt);
    if (!o || !strstr(o->json, "\"foregroundDeletion\"") || has_dependents(h->s, uid, true))
        return;
    set_finalizer(h, rt, o, "foregroundDeletion", false, false);
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
                    if (as_delete_one(h, rt, o, "Background", &fd) == 0)
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
    char *uid = as_strdup(prev->uid), *ns = as_strdup(prev->ns);
    char *name = as_strdup(prev->name);
    if (as_store_commit(s, rt, AS_EV_DELETED, o, prev) != 0) {
        as_obj_unref(o);
        free(uid);
        free(ns);
        free(name);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message, NULL);
    }
    if (strcmp(rt->plural, "customresourcedefinitions") == 0 && rt->builtin)
        as_registry_remove_crd(s, final_root);
    as_events_mirror(h, rt, final_root, true);
    if (uid && *uid)
        collect_garbage(h, uid, ns ? ns : "", orphan);
    /* owners waiting in the foreground for this dependent */
    const slinky_doc_value *orefs = slinky_doc_value_path(final_root, "metadata.ownerReferences");
    for (size_t i = 0; i < slinky_doc_value_size(orefs); i++) {
        char *ouid = as_strdup(slinky_doc_value_path_string(slinky_doc_value_at(orefs, i), "uid",
                                                            ""));
        if (ouid && *ouid)
            finish_foreground(h, ouid);
        free(ouid);
    }
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
int as_delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
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
    bool foreground = propagation && strcmp(propagation, "Foreground") == 0;
    if (foreground && !ns_kind && !as_dry(h) && has_dependents(s, old->uid, false) &&
        !slinky_doc_value_get(md, "deletionTimestamp")) {
        /* foregroundDeletion: mark the owner, delete its dependents, remove it when none blocks */
        char *uid = as_strdup(old->uid), *ns = as_strdup(old->ns), *name = as_strdup(old->name);
        int rc = uid && ns && name ? set_finalizer(h, rt, old, "foregroundDeletion", true, true)
                           : SLINKY_ENOMEM;
        if (rc) {
            free(uid);
            free(ns);
            free(name);
            slinky_doc_free(d);
            return as_resp_status(h->resp, 500, "InternalError", "delete failed", NULL);
        }
        as_obj *marked = as_obj_ref(as_store_get(rt, ns, name));
        free(name);
        slinky_doc_free(d);
        d = NULL;
        if (marked)
            as_obj_doc(&d, marked);
        as_obj_unref(marked);
        delete_dependents(h, uid, ns);
        finish_foreground(h, uid);
        free(uid);
        free(ns);
        if (!d)
            return as_resp_status(h->resp, 500, "InternalError", "delete failed", NULL);
        *final_out = d;
        return 0;
    }
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
                if (!as_dry(h)) {
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
                        char *nsname = as_strdup(old->name);
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
                                as_delete_one(h, t, c, "Background", &cd);
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
    if (as_dry(h)) {
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
