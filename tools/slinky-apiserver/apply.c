/*
 * Server-side apply and managedFields.
 *
 * Field sets are sets of leaf paths in FieldsV1 tokens: "f:<field>" for
 * object members, "k:{...}" for items of map lists (keyed by the schema's
 * x-kubernetes-list-map-keys, or by name/containerPort/... for built-in
 * lists), "v:<json>" for items of set lists and "." for a list item itself.
 * Atomic lists and atomic maps are leaves. Granularity stops at those.
 *
 * Apply (PATCH application/apply-patch+yaml, fieldManager required):
 * fields of the applied configuration owned by another manager with a
 * different live value are conflicts (409 with one FieldManagerConflict cause
 * per field) unless force=true, which moves ownership. The applied values are
 * merged into the live object; fields the manager applied before, no longer
 * applies and nobody else owns are removed. Writes by PUT/PATCH/POST record an
 * "Update" entry for their manager (fieldManager, else the User-Agent's
 * product) with the fields they changed, taking those fields from others.
 */
#include "handlers.h"

#include <stdio.h>
#include <string.h>

#define SEP '\x01'

/* ------------------------------------------------------------------ */
/* merging an applied configuration into the live object               */
/* ------------------------------------------------------------------ */

static int apply_merge(slinky_doc_value *live, const slinky_doc_value *cfg,
                       const slinky_doc_value *schema, bool builtin, const char *field);

static int apply_members(slinky_doc_value *live, const slinky_doc_value *cfg,
                         const slinky_doc_value *schema, bool builtin)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < slinky_doc_value_size(cfg); i++) {
        const char *k = slinky_doc_value_key_at(cfg, i);
        const slinky_doc_value *cv = slinky_doc_value_member_at(cfg, i);
        if (slinky_doc_value_is_null(cv)) {
            /* an explicit null in an applied configuration unsets the field */
            if (slinky_doc_value_get(live, k))
                slinky_doc_value_object_remove(live, k);
            continue;
        }
        slinky_doc_value *lv = slinky_doc_value_get(live, k);
        if (!lv) {
            rc = slinky_doc_value_object_set(live, k, cv);
            continue;
        }
        rc = apply_merge(lv, cv, schema ? as_child_schema(schema, k) : NULL, builtin, k);
    }
    return rc;
}

static int apply_merge(slinky_doc_value *live, const slinky_doc_value *cfg,
                       const slinky_doc_value *schema, bool builtin, const char *field)
{
    slinky_doc_type lt = slinky_doc_value_type(live), ct = slinky_doc_value_type(cfg);
    if (ct == SLINKY_DOC_OBJECT && lt == SLINKY_DOC_OBJECT &&
        strcmp(slinky_doc_value_path_string(schema, "x-kubernetes-map-type", ""), "atomic") != 0)
        return apply_members(live, cfg, schema, builtin);
    if (ct == SLINKY_DOC_ARRAY && lt == SLINKY_DOC_ARRAY) {
        const slinky_doc_value *keys = NULL;
        const char *bkey = NULL;
        char k = as_list_kind(schema, field, builtin && !schema, &keys, &bkey);
        const slinky_doc_value *items = slinky_doc_value_get(schema, "items");
        if (k == 'm' || k == 's') {
            for (size_t i = 0; i < slinky_doc_value_size(cfg); i++) {
                const slinky_doc_value *ce = slinky_doc_value_at(cfg, i);
                slinky_doc_value *match = NULL;
                char *key = k == 'm' ? as_item_key(ce, keys, bkey) : NULL;
                slinky_doc *kd = NULL;
                if (key && slinky_doc_parse_json(&kd, key + 2, strlen(key) - 2) != 0)
                    kd = NULL;
                for (size_t j = 0; j < slinky_doc_value_size(live) && !match; j++) {
                    slinky_doc_value *le = slinky_doc_value_at(live, j);
                    if (k == 'm' ? kd && as_item_matches(le, slinky_doc_root(kd))
                                 : slinky_doc_value_equal(le, ce))
                        match = le;
                }
                slinky_doc_free(kd);
                free(key);
                int rc;
                if (match && k == 'm') {
                    rc = apply_merge(match, ce, items, builtin, "");
                } else if (!match) {
                    slinky_doc_value *e = NULL;
                    rc = slinky_doc_value_array_append(&e, live);
                    if (!rc)
                        rc = slinky_doc_value_set_copy(e, ce);
                } else {
                    rc = 0;
                }
                if (rc)
                    return rc;
            }
            return 0;
        }
    }
    return slinky_doc_value_set_copy(live, cfg);
}

/* ------------------------------------------------------------------ */
/* managedFields bookkeeping                                          */
/* ------------------------------------------------------------------ */

typedef struct mentry {
    char *manager;
    char *operation;
    char *api_version;
    char *time;
    char *subresource;
    as_pset set;
    bool touched;
} mentry;

typedef struct mlist {
    mentry *e;
    size_t n;
} mlist;

static void mlist_dispose(mlist *m)
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
    return s ? slinky__strdup(s) : NULL;
}

static void mlist_load(mlist *m, const slinky_doc_value *obj)
{
    const slinky_doc_value *mf = slinky_doc_value_path(obj, "metadata.managedFields");
    size_t n = slinky_doc_value_size(mf);
    m->e = n ? slinky__calloc(n, sizeof(*m->e)) : NULL;
    m->n = 0;
    for (size_t i = 0; m->e && i < n; i++) {
        const slinky_doc_value *x = slinky_doc_value_at(mf, i);
        mentry *e = &m->e[m->n++];
        e->manager = dup_or_null(slinky_doc_value_path_string(x, "manager", ""));
        e->operation = dup_or_null(slinky_doc_value_path_string(x, "operation", "Update"));
        e->api_version = dup_or_null(slinky_doc_value_path_string(x, "apiVersion", NULL));
        e->time = dup_or_null(slinky_doc_value_path_string(x, "time", NULL));
        e->subresource = dup_or_null(slinky_doc_value_path_string(x, "subresource", NULL));
        as_fields_from_v1(&e->set, slinky_doc_value_get(x, "fieldsV1"));
    }
}

static mentry *mlist_get(mlist *m, const char *manager, const char *op, const char *sub)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->e[i].manager, manager) && !strcmp(m->e[i].operation, op) &&
            !strcmp(m->e[i].subresource ? m->e[i].subresource : "", sub ? sub : ""))
            return &m->e[i];
    mentry *n = realloc(m->e, (m->n + 1) * sizeof(*n));
    if (!n)
        return NULL;
    m->e = n;
    mentry *e = &m->e[m->n++];
    memset(e, 0, sizeof(*e));
    e->manager = slinky__strdup(manager);
    e->operation = slinky__strdup(op);
    e->subresource = sub ? slinky__strdup(sub) : NULL;
    return e;
}

static void mlist_store(mlist *m, slinky_doc_value *root, const char *gv)
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
        mentry *e = &m->e[i];
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

static char *gv_of(const hctx *h)
{
    return *h->rt->group ? slinky__sprintf("%s/%s", h->rt->group, h->ver->name)
                         : slinky__strdup(h->ver->name);
}

static const slinky_doc_value *schema_of(const hctx *h)
{
    return h->ver && h->ver->schema ? slinky_doc_root(h->ver->schema) : NULL;
}

static bool status_write(const hctx *h)
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
    bool sw = status_write(h);
    bool has_status = h->ver && h->ver->has_status;
    as_pset now = {0}, before = {0};
    as_fields_of(&now, root, schema_of(h), h->rt->builtin, sw, has_status);
    if (old)
        as_fields_of(&before, old, schema_of(h), h->rt->builtin, sw, has_status);
    mlist m = {0};
    mlist_load(&m, old ? old : root);
    if (!old) {
        /* a create keeps no managedFields from the body */
        mlist_dispose(&m);
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
        mentry *e = mlist_get(&m, manager, operation, sw ? "status" : NULL);
        for (size_t j = 0; e && j < changed.n; j++)
            as_pset_add(&e->set, changed.v[j]);
        if (e)
            e->touched = true;
    }
    char *gv = gv_of(h);
    mlist_store(&m, root, gv ? gv : "");
    free(gv);
    mlist_dispose(&m);
    as_pset_dispose(&now);
    as_pset_dispose(&before);
    as_pset_dispose(&changed);
}

/* ------------------------------------------------------------------ */
/* PATCH application/apply-patch+yaml                                 */
/* ------------------------------------------------------------------ */

/* nulls in an applied configuration: the field is simply not applied */
static void strip_nulls(slinky_doc_value *v)
{
    if (slinky_doc_value_type(v) == SLINKY_DOC_ARRAY) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            strip_nulls(slinky_doc_value_at(v, i));
        return;
    }
    for (size_t i = 0; i < slinky_doc_value_size(v);) {
        slinky_doc_value *c = slinky_doc_value_member_at(v, i);
        if (slinky_doc_value_is_null(c)) {
            slinky_doc_value_object_remove(v, slinky_doc_value_key_at(v, i));
            continue;
        }
        strip_nulls(c);
        i++;
    }
}

static int conflict_resp(hctx *h, const char **fields, const char **managers, size_t n)
{
    char *gv = gv_of(h);
    slinky__buf msg = SLINKY__BUF_INIT, d = SLINKY__BUF_INIT;
    slinky__buf_printf(&msg, "Apply failed with %zu conflict%s: ", n, n == 1 ? "" : "s");
    slinky__buf_puts(&d, "{\"name\":");
    as_json_str(&d, h->route->name);
    slinky__buf_puts(&d, ",\"group\":");
    as_json_str(&d, h->rt->group);
    slinky__buf_puts(&d, ",\"kind\":");
    as_json_str(&d, h->rt->plural);
    slinky__buf_puts(&d, ",\"causes\":[");
    for (size_t i = 0; i < n; i++) {
        char *disp = as_field_display(fields[i]);
        char cm[512];
        snprintf(cm, sizeof(cm), "conflict with \"%s\" using %s", managers[i], gv ? gv : "");
        slinky__buf_printf(&msg, "%s%s: %s", i ? "\n" : "", cm, disp ? disp : "");
        slinky__buf_puts(&d, i ? ",{\"reason\":\"FieldManagerConflict\",\"message\":"
                               : "{\"reason\":\"FieldManagerConflict\",\"message\":");
        as_json_str(&d, cm);
        slinky__buf_puts(&d, ",\"field\":");
        as_json_str(&d, disp ? disp : "");
        slinky__buf_puts(&d, "}");
        free(disp);
    }
    slinky__buf_puts(&d, "]}");
    as_resp_status(h->resp, 409, "Conflict", msg.data, d.data);
    slinky__buf_dispose(&msg);
    slinky__buf_dispose(&d);
    free(gv);
    return 409;
}

int as_apply_patch(hctx *h)
{
    const char *fm = as_req_query(h->req, "fieldManager");
    if (!fm || !*fm)
        return as_resp_status(h->resp, 400, "BadRequest",
                              "PATCH request with apply content type requires a fieldManager",
                              NULL);
    const char *fs = as_req_query(h->req, "force");
    bool force = false;
    if (fs && (!*fs || (as_parse_bool(&force, fs) == 0 && force)))
        force = true;
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *cfg = slinky_doc_root(d);
    strip_nulls(cfg);
    int code = as_check_identity(h, cfg);
    if (code) {
        slinky_doc_free(d);
        return code;
    }
    slinky_doc_value *cmd = slinky_doc_value_get(cfg, "metadata");
    if (cmd && slinky_doc_value_get(cmd, "managedFields"))
        slinky_doc_value_object_remove(cmd, "managedFields");
    const char *cname = slinky_doc_value_path_string(cfg, "metadata.name", "");
    if (strcmp(cname, h->route->name) != 0) {
        slinky_doc_free(d);
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the name of the object (%s) does not match the name on the URL (%s)",
                             cname, h->route->name);
    }
    bool sw = status_write(h);
    bool has_status = h->ver->has_status;
    as_pset applied = {0};
    as_fields_of(&applied, cfg, schema_of(h), h->rt->builtin, sw, has_status);
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    char *gv = gv_of(h);
    mlist m = {0};
    if (!old) {
        mentry *e = mlist_get(&m, fm, "Apply", sw ? "status" : NULL);
        for (size_t i = 0; e && i < applied.n; i++)
            as_pset_add(&e->set, applied.v[i]);
        if (e)
            e->touched = true;
        mlist_store(&m, cfg, gv ? gv : "");
        h->managed_done = true;
        code = as_create_doc(h, cfg, 201);
        goto done;
    }
    slinky_doc *od = NULL;
    if (as_obj_doc(&od, old) != 0) {
        code = as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
        goto done;
    }
    slinky_doc_value *live = slinky_doc_root(od);
    mlist_load(&m, live);
    /* merge the configuration into the live object */
    slinky_doc *nd = NULL;
    if (slinky_doc_new_copy(&nd, live) != 0) {
        slinky_doc_free(od);
        code = as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
        goto done;
    }
    slinky_doc_value *merged = slinky_doc_root(nd);
    for (size_t i = 0; i < slinky_doc_value_size(cfg); i++) {
        const char *k = slinky_doc_value_key_at(cfg, i);
        if (!strcmp(k, "apiVersion") || !strcmp(k, "kind"))
            continue;
        bool is_status = !strcmp(k, "status");
        if (is_status != sw && (has_status || sw) && strcmp(k, "metadata") != 0)
            continue;
        const slinky_doc_value *cv = slinky_doc_value_member_at(cfg, i);
        if (!strcmp(k, "metadata")) {
            static const char *const keep[] = {"labels", "annotations", "finalizers",
                                               "ownerReferences"};
            slinky_doc_value *lmd = slinky_doc_value_get(merged, "metadata");
            for (size_t j = 0; lmd && j < SLINKY__ARRAY_SIZE(keep); j++) {
                const slinky_doc_value *v = slinky_doc_value_get(cv, keep[j]);
                if (!v)
                    continue;
                slinky_doc_value *lv = slinky_doc_value_get(lmd, keep[j]);
                if (lv)
                    apply_merge(lv, v, NULL, true, keep[j]);
                else
                    slinky_doc_value_object_set(lmd, keep[j], v);
            }
            continue;
        }
        slinky_doc_value *lv = slinky_doc_value_get(merged, k);
        if (slinky_doc_value_is_null(cv))
            (void)(lv && slinky_doc_value_object_remove(merged, k));
        else if (lv)
            apply_merge(lv, cv, schema_of(h) ? as_child_schema(schema_of(h), k) : NULL,
                        h->rt->builtin, k);
        else
            slinky_doc_value_object_set(merged, k, cv);
    }
    /* conflicts */
    const char **cf = slinky__calloc(applied.n + 1, sizeof(char *));
    const char **cm = slinky__calloc(applied.n * (m.n ? m.n : 1) + 1, sizeof(char *));
    size_t nc = 0;
    for (size_t i = 0; cf && cm && i < m.n; i++) {
        mentry *e = &m.e[i];
        if (!strcmp(e->manager, fm) && !strcmp(e->operation, "Apply"))
            continue;
        if ((e->subresource != NULL) != sw)
            continue;
        for (size_t j = 0; j < applied.n; j++) {
            if (!as_pset_has(&e->set, applied.v[j]))
                continue;
            const slinky_doc_value *lv = as_value_at(live, applied.v[j], NULL, NULL, NULL);
            const slinky_doc_value *av = as_value_at(merged, applied.v[j], NULL, NULL, NULL);
            if (slinky_doc_value_equal(lv, av))
                continue;
            if (force) {
                as_pset_remove(&e->set, applied.v[j]);
                e->touched = true;
                j--;
                continue;
            }
            cf[nc] = applied.v[j];
            cm[nc] = e->manager;
            nc++;
        }
    }
    if (nc) {
        code = conflict_resp(h, cf, cm, nc);
        free(cf);
        free(cm);
        slinky_doc_free(nd);
        slinky_doc_free(od);
        goto done;
    }
    free(cf);
    free(cm);
    /* fields this manager applied before and dropped now, owned by nobody else */
    mentry *mine = mlist_get(&m, fm, "Apply", sw ? "status" : NULL);
    if (mine) {
        as_pset drop = {0};
        for (size_t i = 0; i < mine->set.n; i++) {
            const char *p = mine->set.v[i];
            if (as_pset_has(&applied, p))
                continue;
            bool other = false;
            for (size_t j = 0; j < m.n && !other; j++)
                if (&m.e[j] != mine && as_pset_has(&m.e[j].set, p))
                    other = true;
            if (!other)
                as_pset_add(&drop, p);
        }
        for (size_t i = drop.n; i-- > 0;)
            as_remove_at(merged, drop.v[i]);
        as_pset_dispose(&drop);
        as_pset_dispose(&mine->set);
        for (size_t i = 0; i < applied.n; i++)
            as_pset_add(&mine->set, applied.v[i]);
        mine->touched = true;
    }
    mlist_store(&m, merged, gv ? gv : "");
    h->managed_done = true;
    code = as_update_doc(h, old, merged, sw);
    slinky_doc_free(nd);
    slinky_doc_free(od);
done:
    mlist_dispose(&m);
    as_pset_dispose(&applied);
    free(gv);
    slinky_doc_free(d);
    return code;
}
