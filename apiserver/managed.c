/*
 * managedFields (admit.h): the entries of an object's managedFields as field
 * sets, and the Update entry every non-apply write records for its manager
 * (fieldManager, else the User-Agent's product) with the fields it changed,
 * taking those fields from other managers.
 */
#include "admit.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* managedFields bookkeeping                                          */
/* ------------------------------------------------------------------ */

void as_mlist_dispose(as_mlist *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->e[i].manager);
        free(m->e[i].operation);
        free(m->e[i].api_version);
        free(m->e[i].time);
        free(m->e[i].subresource);
        as_pset_dispose(&m->e[i].set);
    }
    free(m->e);
    memset(m, 0, sizeof(*m));
}

static char *dup_or_null(const char *s)
{
    return s ? as_strdup(s) : NULL;
}

void as_mlist_load(as_mlist *m, const slinky_doc_value *obj)
{
    const slinky_doc_value *mf = slinky_doc_value_path(obj, "metadata.managedFields");
    size_t n = slinky_doc_value_size(mf);
    m->e = n ? as_calloc(n, sizeof(*m->e)) : NULL;
    m->n = 0;
    for (size_t i = 0; m->e && i < n; i++) {
        const slinky_doc_value *x = slinky_doc_value_at(mf, i);
        as_mentry *e = &m->e[m->n++];
        e->manager = dup_or_null(slinky_doc_value_path_string(x, "manager", ""));
        e->operation = dup_or_null(slinky_doc_value_path_string(x, "operation", "Update"));
        e->api_version = dup_or_null(slinky_doc_value_path_string(x, "apiVersion", NULL));
        e->time = dup_or_null(slinky_doc_value_path_string(x, "time", NULL));
        e->subresource = dup_or_null(slinky_doc_value_path_string(x, "subresource", NULL));
        as_fields_from_v1(&e->set, slinky_doc_value_get(x, "fieldsV1"));
    }
}

as_mentry *as_mlist_get(as_mlist *m, const char *manager, const char *op, const char *sub)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->e[i].manager, manager) && !strcmp(m->e[i].operation, op) &&
            !strcmp(m->e[i].subresource ? m->e[i].subresource : "", sub ? sub : ""))
            return &m->e[i];
    as_mentry *n = realloc(m->e, (m->n + 1) * sizeof(*n));
    if (!n)
        return NULL;
    m->e = n;
    as_mentry *e = &m->e[m->n++];
    memset(e, 0, sizeof(*e));
    e->manager = as_strdup(manager);
    e->operation = as_strdup(op);
    e->subresource = sub ? as_strdup(sub) : NULL;
    return e;
}

void as_mlist_store(as_mlist *m, slinky_doc_value *root, const char *gv)
{
    slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    if (!md)
        return;
    slinky_doc_value *arr = NULL;
    size_t live = 0;
    for (size_t i = 0; i < m->n; i++)
        live += m->e[i].set.n > 0;
    if (!live) {
        if (slinky_doc_value_get(md, "managedFields"))
            slinky_doc_value_object_remove(md, "managedFields");
        return;
    }
    if (slinky_doc_value_object_put(&arr, md, "managedFields") != 0)
        return;
    slinky_doc_value_set_array(arr);
    char now[40];
    as_now_rfc3339(now, sizeof(now));
    for (size_t i = 0; i < m->n; i++) {
        as_mentry *e = &m->e[i];
        if (!e->set.n)
            continue;
        slinky_doc_value *x = NULL, *f = NULL;
        slinky_doc_value_array_append(&x, arr);
        slinky_doc_value_set_object(x);
        slinky_doc_value_object_set_string(x, "manager", e->manager);
        slinky_doc_value_object_set_string(x, "operation", e->operation);
        slinky_doc_value_object_set_string(x, "apiVersion",
                                           e->touched || !e->api_version ? gv : e->api_version);
        slinky_doc_value_object_set_string(x, "time", e->touched || !e->time ? now : e->time);
        slinky_doc_value_object_set_string(x, "fieldsType", "FieldsV1");
        slinky_doc_value_object_put(&f, x, "fieldsV1");
        as_fields_to_v1(f, &e->set);
        if (e->subresource)
            slinky_doc_value_object_set_string(x, "subresource", e->subresource);
    }
}

char *as_gv_of(const hctx *h)
{
    return *h->rt->group ? as_sprintf("%s/%s", h->rt->group, h->ver->name)
                         : as_strdup(h->ver->name);
}

const slinky_doc_value *as_schema_of(const hctx *h)
{
    return h->ver && h->ver->schema ? slinky_doc_root(h->ver->schema) : NULL;
}

bool as_status_write(const hctx *h)
{
    return h->route && h->route->sub && !strcmp(h->route->sub, "status");
}

/* the manager of a non-apply write: fieldManager, else the User-Agent product */
static void default_manager(char *buf, size_t len, const hctx *h)
{
    const char *fm = as_req_query(h->req, "fieldManager");
    if (fm && *fm) {
        snprintf(buf, len, "%s", fm);
        return;
    }
    const char *ua = h->req->user_agent ? h->req->user_agent : "unknown";
    size_t n = strcspn(ua, "/ ");
    if (n == 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), ua);
}

void as_managed_update(hctx *h, const slinky_doc_value *old, slinky_doc_value *root,
                       const char *operation)
{
    if (h->managed_done || !h->req)
        return;
    bool sw = as_status_write(h);
    bool has_status = h->ver && h->ver->has_status;
    as_pset now = {0}, before = {0};
    as_fields_of(&now, root, as_schema_of(h), h->rt->builtin, sw, has_status);
    if (old)
        as_fields_of(&before, old, as_schema_of(h), h->rt->builtin, sw, has_status);
    as_mlist m = {0};
    as_mlist_load(&m, old ? old : root);
    if (!old) {
        /* a create keeps no managedFields from the body */
        as_mlist_dispose(&m);
    }
    char manager[256];
    default_manager(manager, sizeof(manager), h);
    /* changed = fields now whose value differs from before (or new) */
    as_pset changed = {0};
    for (size_t i = 0; i < now.n; i++) {
        const char *p = now.v[i];
        if (old && as_pset_has(&before, p)) {
            const slinky_doc_value *a = as_value_at((slinky_doc_value *)old, p, NULL, NULL, NULL);
            const slinky_doc_value *b = as_value_at(root, p, NULL, NULL, NULL);
            if (slinky_doc_value_equal(a, b))
                continue;
        }
        as_pset_add(&changed, p);
    }
    for (size_t i = 0; i < m.n; i++) {
        for (size_t j = 0; j < changed.n; j++)
            if (as_pset_has(&m.e[i].set, changed.v[j])) {
                as_pset_remove(&m.e[i].set, changed.v[j]);
                m.e[i].touched = true;
            }
        /* fields that disappeared */
        for (size_t j = 0; j < m.e[i].set.n;) {
            bool sub_match = (m.e[i].subresource != NULL) == sw;
            if (sub_match && !as_pset_has(&now, m.e[i].set.v[j])) {
                as_pset_remove(&m.e[i].set, m.e[i].set.v[j]);
                m.e[i].touched = true;
                continue;
            }
            j++;
        }
    }
    if (changed.n) {
        as_mentry *e = as_mlist_get(&m, manager, operation, sw ? "status" : NULL);
        for (size_t j = 0; e && j < changed.n; j++)
            as_pset_add(&e->set, changed.v[j]);
        if (e)
            e->touched = true;
    }
    char *gv = as_gv_of(h);
    as_mlist_store(&m, root, gv ? gv : "");
    free(gv);
    as_mlist_dispose(&m);
    as_pset_dispose(&now);
    as_pset_dispose(&before);
    as_pset_dispose(&changed);
}
