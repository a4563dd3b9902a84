/*
 * Field sets for server-side apply: leaf paths of an object in FieldsV1
 * tokens ("f:<field>", "k:{...}" map-list items keyed by the schema's
 * x-kubernetes-list-map-keys or a built-in key, "v:<json>" set items, "." an
 * item itself; atomic lists and maps are leaves), their FieldsV1 form, display
 * form (".spec.ports[name=\"http\"].port") and the values at those paths.
 */
#include "pure.h"

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

int as_pset_add(as_pset *p, const char *s)
{
    long i = pset_find(p, s);
    if (i >= 0)
        return 0;
    size_t pos = (size_t)(-i - 1);
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        char **n = realloc(p->v, cap * sizeof(*n));
        if (!n)
            return as_err_oom();
        p->v = n;
        p->cap = cap;
    }
    char *d = as_strdup(s);
    if (!d)
        return SLINKY_ENOMEM;
    memmove(p->v + pos + 1, p->v + pos, (p->n - pos) * sizeof(*p->v));
    p->v[pos] = d;
    p->n++;
    return 0;
}

void as_pset_remove(as_pset *p, const char *s)
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

const slinky_doc_value *as_child_schema(const slinky_doc_value *schema, const char *key)
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
char as_list_kind(const slinky_doc_value *schema, const char *field, bool builtin,
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
        for (size_t i = 0; i < AS_ARRAY_SIZE(k_builtin_keys); i++)
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
char *as_item_key(const slinky_doc_value *item, const slinky_doc_value *keys, const char *bkey)
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
    as_buf b = AS_BUF_INIT;
    as_buf_puts(&b, "k:{");
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const slinky_doc_value *v = names[i] ? slinky_doc_value_get(item, names[i]) : NULL;
        if (!v)
            continue;
        char *json = NULL;
        if (slinky_doc_value_dump_json(&json, NULL, v, 0) != 0)
            continue;
        if (any)
            as_buf_putc(&b, ',');
        as_json_str(&b, names[i]);
        as_buf_printf(&b, ":%s", json);
        slinky_free(json);
        any = true;
    }
    as_buf_putc(&b, '}');
    if (!any) {
        as_buf_dispose(&b);
        return NULL;
    }
    return as_buf_detach(&b, NULL);
}

static int walk(as_pset *out, const slinky_doc_value *v, const slinky_doc_value *schema,
                bool builtin, as_buf *prefix);

static int add_leaf(as_pset *out, as_buf *prefix)
{
    return as_pset_add(out, prefix->data ? prefix->data : "");
}

static void push(as_buf *prefix, const char *token, size_t *saved)
{
    *saved = prefix->len;
    if (prefix->len)
        as_buf_putc(prefix, SEP);
    as_buf_puts(prefix, token);
}

static void pop(as_buf *prefix, size_t saved)
{
    prefix->len = saved;
    if (prefix->data)
        prefix->data[saved] = '\0';
}

static int walk_member(as_pset *out, const char *key, const slinky_doc_value *v,
                       const slinky_doc_value *schema, bool builtin, as_buf *prefix)
{
    size_t saved;
    char *tok = as_sprintf("f:%s", key);
    if (!tok)
        return SLINKY_ENOMEM;
    push(prefix, tok, &saved);
    free(tok);
    const slinky_doc_value *cs = schema ? as_child_schema(schema, key) : NULL;
    int rc = 0;
    slinky_doc_type t = slinky_doc_value_type(v);
    if (t == SLINKY_DOC_OBJECT && slinky_doc_value_size(v) &&
        strcmp(slinky_doc_value_path_string(cs, "x-kubernetes-map-type", ""), "atomic") != 0) {
        rc = walk(out, v, cs, builtin, prefix);
    } else if (t == SLINKY_DOC_ARRAY && slinky_doc_value_size(v)) {
        const slinky_doc_value *keys = NULL;
        const char *bkey = NULL;
        char k = as_list_kind(cs, key, builtin && !schema, &keys, &bkey);
        if (k == 'a') {
            rc = add_leaf(out, prefix);
        } else {
            const slinky_doc_value *items = slinky_doc_value_get(cs, "items");
            for (size_t i = 0; !rc && i < slinky_doc_value_size(v); i++) {
                const slinky_doc_value *e = slinky_doc_value_at(v, i);
                char *etok = NULL;
                if (k == 'm' && slinky_doc_value_type(e) == SLINKY_DOC_OBJECT) {
                    etok = as_item_key(e, keys, bkey);
                } else {
                    char *json = NULL;
                    if (slinky_doc_value_dump_json(&json, NULL, e, 0) == 0) {
                        etok = as_sprintf("v:%s", json);
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
                bool builtin, as_buf *prefix)
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
    as_buf prefix = AS_BUF_INIT;
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
            for (size_t j = 0; !rc && j < AS_ARRAY_SIZE(keep); j++) {
                const slinky_doc_value *m = slinky_doc_value_get(v, keep[j]);
                if (m)
                    rc = walk_member(out, keep[j], m, NULL, true, &prefix);
            }
            pop(&prefix, saved);
            continue;
        }
        rc = walk_member(out, k, v, schema, builtin, &prefix);
    }
    as_buf_dispose(&prefix);
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
            char *tok = as_strndup(s, len);
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

static int from_v1(as_pset *out, const slinky_doc_value *v, as_buf *prefix)
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
    as_buf prefix = AS_BUF_INIT;
    int rc = from_v1(out, v1, &prefix);
    as_buf_dispose(&prefix);
    return rc;
}

char *as_field_display(const char *path)
{
    as_buf b = AS_BUF_INIT;
    const char *s = path;
    while (*s) {
        const char *e = strchr(s, SEP);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= 2 && !strncmp(s, "f:", 2)) {
            as_buf_putc(&b, '.');
            as_buf_put(&b, s + 2, len - 2);
        } else if (len >= 2 && !strncmp(s, "k:", 2)) {
            /* k:{"name":"a"} -> [name="a"] */
            slinky_doc *d = NULL;
            if (slinky_doc_parse_json(&d, s + 2, len - 2) == 0) {
                const slinky_doc_value *r = slinky_doc_root(d);
                as_buf_putc(&b, '[');
                for (size_t i = 0; i < slinky_doc_value_size(r); i++) {
                    char *json = NULL;
                    slinky_doc_value_dump_json(&json, NULL, slinky_doc_value_member_at(r, i), 0);
                    as_buf_printf(&b, "%s%s=%s", i ? "," : "", slinky_doc_value_key_at(r, i),
                                       json ? json : "");
                    slinky_free(json);
                }
                as_buf_putc(&b, ']');
                slinky_doc_free(d);
            }
        } else if (len >= 2 && !strncmp(s, "v:", 2)) {
            as_buf_puts(&b, "[=");
            as_buf_put(&b, s + 2, len - 2);
            as_buf_putc(&b, ']');
        }
        s = e ? e + 1 : s + len;
    }
    return as_buf_detach(&b, NULL);
}

/* ------------------------------------------------------------------ */
/* values at paths                                                    */
/* ------------------------------------------------------------------ */

bool as_item_matches(const slinky_doc_value *item, const slinky_doc_value *keyobj)
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
slinky_doc_value *as_value_at(slinky_doc_value *root, const char *path,
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
                bool m = s[0] == 'k' ? as_item_matches(it, slinky_doc_root(d))
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

void as_remove_at(slinky_doc_value *root, const char *path)
{
    slinky_doc_value *parent = NULL;
    long index = -1;
    const char *key = NULL;
    size_t len = strlen(path);
    char *p = as_strdup(path);
    if (!p)
        return;
    /* removing "<item>\x01." removes the item */
    if (len >= 2 && p[len - 1] == '.' && p[len - 2] == SEP)
        p[len - 2] = '\0';
    slinky_doc_value *v = as_value_at(root, p, &parent, &index, &key);
    if (v && parent) {
        if (index >= 0)
            slinky_doc_value_array_remove(parent, (size_t)index);
        else if (key)
            slinky_doc_value_object_remove(parent, key);
    }
    free(p);
}

