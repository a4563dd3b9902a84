/*
 * Server-side apply (verbs.h); managedFields bookkeeping is in managed.c.
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
#include "verbs.h"

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
    char *gv = as_gv_of(h);
    as_buf msg = AS_BUF_INIT, d = AS_BUF_INIT;
    as_buf_printf(&msg, "Apply failed with %zu conflict%s: ", n, n == 1 ? "" : "s");
    as_buf_puts(&d, "{\"name\":");
    as_json_str(&d, h->route->name);
    as_buf_puts(&d, ",\"group\":");
    as_json_str(&d, h->rt->group);
    as_buf_puts(&d, ",\"kind\":");
    as_json_str(&d, h->rt->plural);
    as_buf_puts(&d, ",\"causes\":[");
    for (size_t i = 0; i < n; i++) {
        char *disp = as_field_display(fields[i]);
        char cm[512];
        snprintf(cm, sizeof(cm), "conflict with \"%s\" using %s", managers[i], gv ? gv : "");
        as_buf_printf(&msg, "%s%s: %s", i ? "\n" : "", cm, disp ? disp : "");
        as_buf_puts(&d, i ? ",{\"reason\":\"FieldManagerConflict\",\"message\":"
                               : "{\"reason\":\"FieldManagerConflict\",\"message\":");
        as_json_str(&d, cm);
        as_buf_puts(&d, ",\"field\":");
        as_json_str(&d, disp ? disp : "");
        as_buf_puts(&d, "}");
        free(disp);
    }
    as_buf_puts(&d, "]}");
    as_resp_status(h->resp, 409, "Conflict", msg.data, d.data);
    as_buf_dispose(&msg);
    as_buf_dispose(&d);
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
    if (as_parse_body(&d, h->req, h->resp, h->s->max_body))
        return h->resp->status;
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
    bool sw = as_status_write(h);
    bool has_status = h->ver->has_status;
    as_pset applied = {0};
    as_fields_of(&applied, cfg, as_schema_of(h), h->rt->builtin, sw, has_status);
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    char *gv = as_gv_of(h);
    as_mlist m = {0};
    if (!old) {
        as_mentry *e = as_mlist_get(&m, fm, "Apply", sw ? "status" : NULL);
        for (size_t i = 0; e && i < applied.n; i++)
            as_pset_add(&e->set, applied.v[i]);
        if (e)
            e->touched = true;
        as_mlist_store(&m, cfg, gv ? gv : "");
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
    as_mlist_load(&m, live);
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
            for (size_t j = 0; lmd && j < AS_ARRAY_SIZE(keep); j++) {
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
            apply_merge(lv, cv, as_schema_of(h) ? as_child_schema(as_schema_of(h), k) : NULL,
                        h->rt->builtin, k);
        else
            slinky_doc_value_object_set(merged, k, cv);
    }
    /* conflicts */
    const char **cf = as_calloc(applied.n + 1, sizeof(char *));
    const char **cm = as_calloc(applied.n * (m.n ? m.n : 1) + 1, sizeof(char *));
    size_t nc = 0;
    for (size_t i = 0; cf && cm && i < m.n; i++) {
        as_mentry *e = &m.e[i];
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
    as_mentry *mine = as_mlist_get(&m, fm, "Apply", sw ? "status" : NULL);
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
    as_mlist_store(&m, merged, gv ? gv : "");
    h->managed_done = true;
    code = as_update_doc(h, old, merged, sw);
    slinky_doc_free(nd);
    slinky_doc_free(od);
done:
    as_mlist_dispose(&m);
    as_pset_dispose(&applied);
    free(gv);
    slinky_doc_free(d);
    return code;
}
