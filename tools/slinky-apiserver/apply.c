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

void as_pset_dispose(as_pset *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    memset(p, 0, sizeof(*p));
}

static long pset_find(const as_pset *p, const char *s)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(p->v[mid], s);
        if (!c)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

bool as_pset_has(const as_pset *p, const char *path)
{
    return pset_find(p, path) >= 0;
}

static int pset_add(as_pset *p, const char *s)
{
    long i = pset_find(p, s);
    if (i >= 0)
        return 0;
    size_t pos = (size_t)(-i - 1);
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        char **n = realloc(p->v, cap * sizeof(*n));
        if (!n)
            return slinky__error_oom();
        p->v = n;
        p->cap = cap;
    }
    char *d = slinky__strdup(s);
    if (!d)
        return SLINKY_ENOMEM;
    memmove(p->v + pos + 1, p->v + pos, (p->n - pos) * sizeof(*p->v));
    p->v[pos] = d;
    p->n++;
    return 0;
}

static void pset_remove(as_pset *p, const char *s)
{
    long i = pset_find(p, s);
    if (i < 0)
        return;
    free(p->v[i]);
    memmove(p->v + i, p->v + i + 1, (p->n - (size_t)i - 1) * sizeof(*p->v));
    p->n--;
}

/* ------------------------------------------------------------------ */
/* schema helpers                                                     */
/* ------------------------------------------------------------------ */

static const slinky_doc_value *child_schema(const slinky_doc_value *schema, const char *key)
{
    const slinky_doc_value *p = slinky_doc_value_path(schema, "properties");
    const slinky_doc_value *c = slinky_doc_value_get(p, key);
    if (c)
        return c;
    c = slinky_doc_value_get(schema, "additionalProperties");
    return slinky_doc_value_type(c) == SLINKY_DOC_OBJECT ? c : NULL;
}

static const char *const k_builtin_keys[][2] = {
    {"containers", "name"},       {"initContainers", "name"},   {"env", "name"},
    {"volumes", "name"},          {"volumeMounts", "mountPath"}, {"imagePullSecrets", "name"},
    {"ownerReferences", "uid"},   {"conditions", "type"},
};

/* list kind: 'm' map (keys in keys_out), 's' set, 'a' atomic */
static char list_kind(const slinky_doc_value *schema, const char *field, bool builtin,
                      const slinky_doc_value **keys_out, const char **bkey)
{
    *keys_out = NULL;
    *bkey = NULL;
    if (schema) {
        const char *t = slinky_doc_value_path_string(schema, "x-kubernetes-list-type", "atomic");
        if (!strcmp(t, "map")) {
            *keys_out = slinky_doc_value_get(schema, "x-kubernetes-list-map-keys");
            return slinky_doc_value_size(*keys_out) ? 'm' : 'a';
        }
        return !strcmp(t, "set") ? 's' : 'a';
    }
    if (builtin) {
        if (!strcmp(field, "finalizers"))
            return 's';
        for (size_t i = 0; i < SLINKY__ARRAY_SIZE(k_builtin_keys); i++)
            if (!strcmp(field, k_builtin_keys[i][0])) {
                *bkey = k_builtin_keys[i][1];
                return 'm';
            }
        if (!strcmp(field, "ports")) {
            *bkey = "port";
            return 'm';
        }
    }
    return 'a';
}

/* "k:{...}" token for an item of a map list (keys sorted) */
static char *item_key(const slinky_doc_value *item, const slinky_doc_value *keys, const char *bkey)
{
    const char *names[8];
    size_t n = 0;
    if (keys) {
        for (size_t i = 0; i < slinky_doc_value_size(keys) && n < 8; i++)
            names[n++] = slinky_doc_value_get_string(slinky_doc_value_at(keys, i));
    } else if (bkey) {
        if (!strcmp(bkey, "port") && slinky_doc_value_get(item, "containerPort"))
            names[n++] = "containerPort";
        else
            names[n++] = bkey;
        if (slinky_doc_value_get(item, "protocol") && strstr(names[0], "ort"))
            names[n++] = "protocol";
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "k:{");
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const slinky_doc_value *v = names[i] ? slinky_doc_value_get(item, names[i]) : NULL;
        if (!v)
            continue;
        char *json = NULL;
        if (slinky_doc_value_dump_json(&json, NULL, v, 0) != 0)
            continue;
        if (any)
            slinky__buf_putc(&b, ',');
        as_json_str(&b, names[i]);
        slinky__buf_printf(&b, ":%s", json);
        slinky_free(json);
        any = true;
    }
    slinky__buf_putc(&b, '}');
    if (!any) {
        slinky__buf_dispose(&b);
        return NULL;
    }
    return slinky__buf_detach(&b, NULL);
}

static int walk(as_pset *out, const slinky_doc_value *v, const slinky_doc_value *schema,
                bool builtin, slinky__buf *prefix);

static int add_leaf(as_pset *out, slinky__buf *prefix)
{
    return pset_add(out, prefix->data ? prefix->data : "");
}

static void push(slinky__buf *prefix, const char *token, size_t *saved)
{
    *saved = prefix->len;
    if (prefix->len)
        slinky__buf_putc(prefix, SEP);
    slinky__buf_puts(prefix, token);
}

static void pop(slinky__buf *prefix, size_t saved)
{
    prefix->len = saved;
    if (prefix->data)
        prefix->data[saved] = '\0';
}

static int walk_member(as_pset *out, const char *key, const slinky_doc_value *v,
                       const slinky_doc_value *schema, bool builtin, slinky__buf *prefix)
{
    size_t saved;
    char *tok = slinky__sprintf("f:%s", key);
    if (!tok)
        return SLINKY_ENOMEM;
    push(prefix, tok, &saved);
    free(tok);
    const slinky_doc_value *cs = schema ? child_schema(schema, key) : NULL;
    int rc = 0;
    slinky_doc_type t = slinky_doc_value_type(v);
    if (t == SLINKY_DOC_OBJECT && slinky_doc_value_size(v) &&
        strcmp(slinky_doc_value_path_string(cs, "x-kubernetes-map-type", ""), "atomic") != 0) {
        rc = walk(out, v, cs, builtin, prefix);
    } else if (t == SLINKY_DOC_ARRAY && slinky_doc_value_size(v)) {
        const slinky_doc_value *keys = NULL;
        const char *bkey = NULL;
        char k = list_kind(cs, key, builtin && !schema, &keys, &bkey);
        if (k == 'a') {
            rc = add_leaf(out, prefix);
        } else {
            const slinky_doc_value *items = slinky_doc_value_get(cs, "items");
            for (size_t i = 0; !rc && i < slinky_doc_value_size(v); i++) {
                const slinky_doc_value *e = slinky_doc_value_at(v, i);
                char *etok = NULL;
                if (k == 'm' && slinky_doc_value_type(e) == SLINKY_DOC_OBJECT) {
                    etok = item_key(e, keys, bkey);
                } else {
                    char *json = NULL;
                    if (slinky_doc_value_dump_json(&json, NULL, e, 0) == 0) {
                        etok = slinky__sprintf("v:%s", json);
                        slinky_free(json);
                    }
                }
                if (!etok) {
                    rc = add_leaf(out, prefix);
                    break;
                }
                size_t s2;
                push(prefix, etok, &s2);
                free(etok);
                if (k == 'm') {
                    size_t s3;
                    push(prefix, ".", &s3);
                    rc = add_leaf(out, prefix);
                    pop(prefix, s3);
                    if (!rc)
                        rc = walk(out, e, items, builtin, prefix);
                } else {
                    rc = add_leaf(out, prefix);
                }
                pop(prefix, s2);
            }
        }
    } else {
        rc = add_leaf(out, prefix);
    }
    pop(prefix, saved);
    return rc;
}

static int walk(as_pset *out, const slinky_doc_value *v, const slinky_doc_value *schema,
                bool builtin, slinky__buf *prefix)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < slinky_doc_value_size(v); i++)
        rc = walk_member(out, slinky_doc_value_key_at(v, i), slinky_doc_value_member_at(v, i),
                         schema, builtin, prefix);
    return rc;
}

int as_fields_of(as_pset *out, const slinky_doc_value *obj, const slinky_doc_value *schema,
                 bool builtin, bool status_only, bool has_status)
{
    slinky__buf prefix = SLINKY__BUF_INIT;
    int rc = 0;
    for (size_t i = 0; !rc && i < slinky_doc_value_size(obj); i++) {
        const char *k = slinky_doc_value_key_at(obj, i);
        const slinky_doc_value *v = slinky_doc_value_member_at(obj, i);
        if (!strcmp(k, "apiVersion") || !strcmp(k, "kind"))
            continue;
        bool is_status = !strcmp(k, "status");
        if (status_only != is_status && (has_status || status_only))
            continue;
        if (!strcmp(k, "metadata")) {
            static const char *const keep[] = {"labels", "annotations", "finalizers",
                                               "ownerReferences"};
            size_t saved;
            push(&prefix, "f:metadata", &saved);
            for (size_t j = 0; !rc && j < SLINKY__ARRAY_SIZE(keep); j++) {
                const slinky_doc_value *m = slinky_doc_value_get(v, keep[j]);
                if (m)
                    rc = walk_member(out, keep[j], m, NULL, true, &prefix);
            }
            pop(&prefix, saved);
            continue;
        }
        rc = walk_member(out, k, v, schema, builtin, &prefix);
    }
    slinky__buf_dispose(&prefix);
    return rc;
}

int as_fields_to_v1(slinky_doc_value *out, const as_pset *p)
{
    int rc = slinky_doc_value_set_object(out);
    for (size_t i = 0; !rc && i < p->n; i++) {
        slinky_doc_value *cur = out;
        const char *s = p->v[i];
        while (!rc && *s) {
            const char *e = strchr(s, SEP);
            size_t len = e ? (size_t)(e - s) : strlen(s);
            char *tok = slinky__strndup(s, len);
            slinky_doc_value *next = NULL;
            rc = tok ? slinky_doc_value_object_put(&next, cur, tok) : SLINKY_ENOMEM;
            free(tok);
            if (!rc && slinky_doc_value_type(next) != SLINKY_DOC_OBJECT)
                rc = slinky_doc_value_set_object(next);
            cur = next;
            s = e ? e + 1 : s + len;
        }
    }
    return rc;
}

static int from_v1(as_pset *out, const slinky_doc_value *v, slinky__buf *prefix)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < slinky_doc_value_size(v); i++) {
        size_t saved;
        push(prefix, slinky_doc_value_key_at(v, i), &saved);
        const slinky_doc_value *c = slinky_doc_value_member_at(v, i);
        if (slinky_doc_value_size(c) == 0)
            rc = add_leaf(out, prefix);
        else
            rc = from_v1(out, c, prefix);
        pop(prefix, saved);
    }
    return rc;
}

int as_fields_from_v1(as_pset *out, const slinky_doc_value *v1)
{
    slinky__buf prefix = SLINKY__BUF_INIT;
    int rc = from_v1(out, v1, &prefix);
    slinky__buf_dispose(&prefix);
    return rc;
}

char *as_field_display(const char *path)
{
    slinky__buf b = SLINKY__BUF_INIT;
    const char *s = path;
    while (*s) {
        const char *e = strchr(s, SEP);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= 2 && !strncmp(s, "f:", 2)) {
            slinky__buf_putc(&b, '.');
            slinky__buf_put(&b, s + 2, len - 2);
        } else if (len >= 2 && !strncmp(s, "k:", 2)) {
            /* k:{"name":"a"} -> [name="a"] */
            slinky_doc *d = NULL;
            if (slinky_doc_parse_json(&d, s + 2, len - 2) == 0) {
                const slinky_doc_value *r = slinky_doc_root(d);
                slinky__buf_putc(&b, '[');
                for (size_t i = 0; i < slinky_doc_value_size(r); i++) {
                    char *json = NULL;
                    slinky_doc_value_dump_json(&json, NULL, slinky_doc_value_member_at(r, i), 0);
                    slinky__buf_printf(&b, "%s%s=%s", i ? "," : "", slinky_doc_value_key_at(r, i),
                                       json ? json : "");
                    slinky_free(json);
                }
                slinky__buf_putc(&b, ']');
                slinky_doc_free(d);
            }
        } else if (len >= 2 && !strncmp(s, "v:", 2)) {
            slinky__buf_puts(&b, "[=");
            slinky__buf_put(&b, s + 2, len - 2);
            slinky__buf_putc(&b, ']');
        }
        s = e ? e + 1 : s + len;
    }
    return slinky__buf_detach(&b, NULL);
}

/* ------------------------------------------------------------------ */
/* values at paths                                                    */
/* ------------------------------------------------------------------ */

static bool item_matches(const slinky_doc_value *item, const slinky_doc_value *keyobj)
{
    if (slinky_doc_value_type(item) != SLINKY_DOC_OBJECT)
        return false;
    for (size_t i = 0; i < slinky_doc_value_size(keyobj); i++)
        if (!slinky_doc_value_equal(slinky_doc_value_get(item, slinky_doc_value_key_at(keyobj, i)),
                                    slinky_doc_value_member_at(keyobj, i)))
            return false;
    return true;
}

/* the value at a path (NULL when missing); parent_out and index_out locate it */
static slinky_doc_value *value_at(slinky_doc_value *root, const char *path,
                                  slinky_doc_value **parent_out, long *index_out,
                                  const char **key_out)
{
    slinky_doc_value *cur = root, *parent = NULL;
    long index = -1;
    const char *s = path, *last_key = NULL;
    static _Thread_local char keybuf[512];
    while (cur && *s) {
        const char *e = strchr(s, SEP);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 1 && s[0] == '.') {
            /* the item itself */
        } else if (!strncmp(s, "f:", 2)) {
            size_t kl = len - 2 < sizeof(keybuf) - 1 ? len - 2 : sizeof(keybuf) - 1;
            memcpy(keybuf, s + 2, kl);
            keybuf[kl] = '\0';
            parent = cur;
            index = -1;
            last_key = keybuf;
            cur = slinky_doc_value_get(cur, keybuf);
        } else if (!strncmp(s, "k:", 2) || !strncmp(s, "v:", 2)) {
            slinky_doc *d = NULL;
            if (slinky_doc_parse_json(&d, s + 2, len - 2) != 0)
                return NULL;
            slinky_doc_value *found = NULL;
            long fi = -1;
            for (size_t i = 0; i < slinky_doc_value_size(cur) && !found; i++) {
                slinky_doc_value *it = slinky_doc_value_at(cur, i);
                bool m = s[0] == 'k' ? item_matches(it, slinky_doc_root(d))
                                     : slinky_doc_value_equal(it, slinky_doc_root(d));
                if (m) {
                    found = it;
                    fi = (long)i;
                }
            }
            slinky_doc_free(d);
            parent = cur;
            index = fi;
            last_key = NULL;
            cur = found;
        } else {
            return NULL;
        }
        s = e ? e + 1 : s + len;
    }
    if (parent_out)
        *parent_out = parent;
    if (index_out)
        *index_out = index;
    if (key_out)
        *key_out = last_key;
    return cur;
}

static void remove_at(slinky_doc_value *root, const char *path)
{
    slinky_doc_value *parent = NULL;
    long index = -1;
    const char *key = NULL;
    size_t len = strlen(path);
    char *p = slinky__strdup(path);
    if (!p)
        return;
    /* removing "<item>\x01." removes the item */
    if (len >= 2 && p[len - 1] == '.' && p[len - 2] == SEP)
        p[len - 2] = '\0';
    slinky_doc_value *v = value_at(root, p, &parent, &index, &key);
    if (v && parent) {
        if (index >= 0)
            slinky_doc_value_array_remove(parent, (size_t)index);
        else if (key)
            slinky_doc_value_object_remove(parent, key);
    }
    free(p);
}

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
        rc = apply_merge(lv, cv, schema ? child_schema(schema, k) : NULL, builtin, k);
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
        char k = list_kind(schema, field, builtin && !schema, &keys, &bkey);
        const slinky_doc_value *items = slinky_doc_value_get(schema, "items");
        if (k == 'm' || k == 's') {
            for (size_t i = 0; i < slinky_doc_value_size(cfg); i++) {
                const slinky_doc_value *ce = slinky_doc_value_at(cfg, i);
                slinky_doc_value *match = NULL;
                char *key = k == 'm' ? item_key(ce, keys, bkey) : NULL;
                slinky_doc *kd = NULL;
                if (key && slinky_doc_parse_json(&kd, key + 2, strlen(key) - 2) != 0)
                    kd = NULL;
                for (size_t j = 0; j < slinky_doc_value_size(live) && !match; j++) {
                    slinky_doc_value *le = slinky_doc_value_at(live, j);
                    if (k == 'm' ? kd && item_matches(le, slinky_doc_root(kd))
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
            const slinky_doc_value *a = value_at((slinky_doc_value *)old, p, NULL, NULL, NULL);
            const slinky_doc_value *b = value_at(root, p, NULL, NULL, NULL);
            if (slinky_doc_value_equal(a, b))
                continue;
        }
        pset_add(&changed, p);
    }
    for (size_t i = 0; i < m.n; i++) {
        for (size_t j = 0; j < changed.n; j++)
            if (as_pset_has(&m.e[i].set, changed.v[j])) {
                pset_remove(&m.e[i].set, changed.v[j]);
                m.e[i].touched = true;
            }
        /* fields that disappeared */
        for (size_t j = 0; j < m.e[i].set.n;) {
            bool sub_match = (m.e[i].subresource != NULL) == sw;
            if (sub_match && !as_pset_has(&now, m.e[i].set.v[j])) {
                pset_remove(&m.e[i].set, m.e[i].set.v[j]);
                m.e[i].touched = true;
                continue;
            }
            j++;
        }
    }
    if (changed.n) {
        mentry *e = mlist_get(&m, manager, operation, sw ? "status" : NULL);
        for (size_t j = 0; e && j < changed.n; j++)
            pset_add(&e->set, changed.v[j]);
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
            pset_add(&e->set, applied.v[i]);
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
            apply_merge(lv, cv, schema_of(h) ? child_schema(schema_of(h), k) : NULL,
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
            const slinky_doc_value *lv = value_at(live, applied.v[j], NULL, NULL, NULL);
            const slinky_doc_value *av = value_at(merged, applied.v[j], NULL, NULL, NULL);
            if (slinky_doc_value_equal(lv, av))
                continue;
            if (force) {
                pset_remove(&e->set, applied.v[j]);
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
                pset_add(&drop, p);
        }
        for (size_t i = drop.n; i-- > 0;)
            remove_at(merged, drop.v[i]);
        as_pset_dispose(&drop);
        as_pset_dispose(&mine->set);
        for (size_t i = 0; i < applied.n; i++)
            pset_add(&mine->set, applied.v[i]);
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
