/*
 * Documents, value accessors and in-place mutators.
 */
#include <math.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

/* ------------------------------------------------------------------ documents */

int slinky_doc__create(slinky_doc **out, size_t hint)
{
    slinky_doc *doc = malloc(sizeof(*doc));
    if (!doc)
        return slinky__error_oom();
    slinky_doc__arena_init(&doc->arena, hint);
    doc->root = slinky_doc__value_new(doc);
    if (!doc->root) {
        slinky_doc__arena_dispose(&doc->arena);
        free(doc);
        return SLINKY_ENOMEM;
    }
    *out = doc;
    return 0;
}

slinky_status slinky_doc_new(slinky_doc **out)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_new: out is NULL");
    return slinky_doc__create(out, 0);
}

void slinky_doc_free(slinky_doc *doc)
{
    if (!doc)
        return;
    slinky_doc__arena_dispose(&doc->arena);
    free(doc);
}

slinky_doc_value *slinky_doc_root(slinky_doc *doc)
{
    return doc ? doc->root : NULL;
}

slinky_doc *slinky_doc_value_doc(const slinky_doc_value *v)
{
    return v ? v->doc : NULL;
}

slinky_status slinky_doc_new_copy(slinky_doc **out, const slinky_doc_value *v)
{
    if (!out || !v)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_new_copy: NULL argument");
    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, 0);
    if (rc < 0)
        return rc;
    slinky_doc_value *c = slinky_doc__copy(doc, v);
    if (!c) {
        slinky_doc_free(doc);
        return SLINKY_ENOMEM;
    }
    *doc->root = *c;
    *out = doc;
    return 0;
}

/* ------------------------------------------------------------------ copies */

slinky_doc_value *slinky_doc__copy(slinky_doc *doc, const slinky_doc_value *src)
{
    slinky_doc_value *v = slinky_doc__value_new(doc);
    if (!v)
        return NULL;
    v->type = src->type;
    switch (src->type) {
    case SLINKY_DOC_NULL:
        break;
    case SLINKY_DOC_BOOL:
        v->u.b = src->u.b;
        break;
    case SLINKY_DOC_INT:
        v->u.i = src->u.i;
        break;
    case SLINKY_DOC_DOUBLE:
        v->u.num.d = src->u.num.d;
        v->u.num.text = NULL;
        if (src->u.num.text) {
            v->u.num.text = slinky_doc__strdup(doc, src->u.num.text, strlen(src->u.num.text));
            if (!v->u.num.text)
                return NULL;
        }
        break;
    case SLINKY_DOC_STRING:
        v->u.str.s = slinky_doc__strdup(doc, src->u.str.s, src->u.str.len);
        if (!v->u.str.s)
            return NULL;
        v->u.str.len = src->u.str.len;
        break;
    case SLINKY_DOC_ARRAY: {
        uint32_t n = src->u.arr.n;
        v->u.arr.items = NULL;
        v->u.arr.n = v->u.arr.cap = 0;
        if (n) {
            slinky_doc_value **items = slinky_doc__alloc(doc, n * sizeof(*items));
            if (!items)
                return NULL;
            for (uint32_t i = 0; i < n; i++) {
                items[i] = slinky_doc__copy(doc, src->u.arr.items[i]);
                if (!items[i])
                    return NULL;
            }
            v->u.arr.items = items;
            v->u.arr.n = v->u.arr.cap = n;
        }
        break;
    }
    case SLINKY_DOC_OBJECT: {
        uint32_t n = src->u.obj.n;
        v->u.obj.m = NULL;
        v->u.obj.n = v->u.obj.cap = 0;
        if (n) {
            slinky_doc__member *m = slinky_doc__alloc(doc, n * sizeof(*m));
            if (!m)
                return NULL;
            for (uint32_t i = 0; i < n; i++) {
                const slinky_doc__member *sm = &src->u.obj.m[i];
                m[i].keylen = sm->keylen;
                m[i].key = slinky_doc__strdup(doc, sm->key, sm->keylen);
                m[i].value = slinky_doc__copy(doc, sm->value);
                if (!m[i].key || !m[i].value)
                    return NULL;
            }
            v->u.obj.m = m;
            v->u.obj.n = v->u.obj.cap = n;
        }
        break;
    }
    }
    return v;
}

/* ------------------------------------------------------------------ reading */

slinky_doc_type slinky_doc_value_type(const slinky_doc_value *v)
{
    return v ? (slinky_doc_type)v->type : SLINKY_DOC_NULL;
}

const char *slinky_doc_type_name(slinky_doc_type t)
{
    switch (t) {
    case SLINKY_DOC_NULL:
        return "null";
    case SLINKY_DOC_BOOL:
        return "boolean";
    case SLINKY_DOC_INT:
        return "integer";
    case SLINKY_DOC_DOUBLE:
        return "number";
    case SLINKY_DOC_STRING:
        return "string";
    case SLINKY_DOC_ARRAY:
        return "array";
    case SLINKY_DOC_OBJECT:
        return "object";
    }
    return "unknown";
}

bool slinky_doc_value_is_null(const slinky_doc_value *v)
{
    return !v || v->type == SLINKY_DOC_NULL;
}

bool slinky_doc_value_is_number(const slinky_doc_value *v)
{
    return v && (v->type == SLINKY_DOC_INT || v->type == SLINKY_DOC_DOUBLE);
}

bool slinky_doc_value_get_bool(const slinky_doc_value *v)
{
    return v && v->type == SLINKY_DOC_BOOL && v->u.b;
}

int64_t slinky_doc_value_get_int(const slinky_doc_value *v)
{
    if (!v)
        return 0;
    if (v->type == SLINKY_DOC_INT)
        return v->u.i;
    if (v->type == SLINKY_DOC_DOUBLE) {
        double d = v->u.num.d;
        if (isnan(d))
            return 0;
        if (d >= 9223372036854775807.0)
            return INT64_MAX;
        if (d <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)d;
    }
    return 0;
}

double slinky_doc_value_get_double(const slinky_doc_value *v)
{
    if (!v)
        return 0;
    if (v->type == SLINKY_DOC_INT)
        return (double)v->u.i;
    if (v->type == SLINKY_DOC_DOUBLE)
        return v->u.num.d;
    return 0;
}

const char *slinky_doc_value_get_number_text(const slinky_doc_value *v)
{
    return v && v->type == SLINKY_DOC_DOUBLE ? v->u.num.text : NULL;
}

const char *slinky_doc_value_get_string(const slinky_doc_value *v)
{
    return v && v->type == SLINKY_DOC_STRING ? v->u.str.s : NULL;
}

size_t slinky_doc_value_get_string_len(const slinky_doc_value *v)
{
    return v && v->type == SLINKY_DOC_STRING ? v->u.str.len : 0;
}

size_t slinky_doc_value_size(const slinky_doc_value *v)
{
    if (!v)
        return 0;
    if (v->type == SLINKY_DOC_ARRAY)
        return v->u.arr.n;
    if (v->type == SLINKY_DOC_OBJECT)
        return v->u.obj.n;
    return 0;
}

slinky_doc_value *slinky_doc_value_at(const slinky_doc_value *v, size_t i)
{
    if (!v || v->type != SLINKY_DOC_ARRAY || i >= v->u.arr.n)
        return NULL;
    return v->u.arr.items[i];
}

long slinky_doc__find(const slinky_doc_value *v, const char *key, size_t keylen)
{
    const slinky_doc__member *m = v->u.obj.m;
    for (uint32_t i = 0; i < v->u.obj.n; i++) {
        if (m[i].keylen == keylen && memcmp(m[i].key, key, keylen) == 0)
            return (long)i;
    }
    return -1;
}

slinky_doc_value *slinky_doc_value_get(const slinky_doc_value *v, const char *key)
{
    if (!v || !key || v->type != SLINKY_DOC_OBJECT)
        return NULL;
    long i = slinky_doc__find(v, key, strlen(key));
    return i < 0 ? NULL : v->u.obj.m[i].value;
}

const char *slinky_doc_value_key_at(const slinky_doc_value *v, size_t i)
{
    if (!v || v->type != SLINKY_DOC_OBJECT || i >= v->u.obj.n)
        return NULL;
    return v->u.obj.m[i].key;
}

slinky_doc_value *slinky_doc_value_member_at(const slinky_doc_value *v, size_t i)
{
    if (!v || v->type != SLINKY_DOC_OBJECT || i >= v->u.obj.n)
        return NULL;
    return v->u.obj.m[i].value;
}

/* ------------------------------------------------------------------ setting scalars */

#define CHECK_V(v, fn)                                                                     \
    do {                                                                                   \
        if (!(v))                                                                          \
            return slinky__error_set(SLINKY_EINVALID, fn ": value is NULL");               \
    } while (0)

slinky_status slinky_doc_value_set_null(slinky_doc_value *v)
{
    CHECK_V(v, "slinky_doc_value_set_null");
    v->type = SLINKY_DOC_NULL;
    v->u.num.text = NULL;
    v->u.i = 0;
    return 0;
}

slinky_status slinky_doc_value_set_bool(slinky_doc_value *v, bool b)
{
    CHECK_V(v, "slinky_doc_value_set_bool");
    v->type = SLINKY_DOC_BOOL;
    v->u.num.text = NULL;
    v->u.i = 0;
    v->u.b = b;
    return 0;
}

slinky_status slinky_doc_value_set_int(slinky_doc_value *v, int64_t i)
{
    CHECK_V(v, "slinky_doc_value_set_int");
    v->type = SLINKY_DOC_INT;
    v->u.num.text = NULL;
    v->u.i = i;
    return 0;
}

int slinky_doc__set_number(slinky_doc_value *v, double d, const char *text, size_t textlen)
{
    const char *t = NULL;
    if (text) {
        t = slinky_doc__strdup(v->doc, text, textlen);
        if (!t)
            return SLINKY_ENOMEM;
    }
    v->type = SLINKY_DOC_DOUBLE;
    v->u.num.d = d;
    v->u.num.text = t;
    return 0;
}

slinky_status slinky_doc_value_set_double(slinky_doc_value *v, double d)
{
    CHECK_V(v, "slinky_doc_value_set_double");
    if (!isfinite(d))
        return slinky__error_set(SLINKY_EINVALID, "a number must be finite (no NaN or infinity)");
    return slinky_doc__set_number(v, d, NULL, 0);
}

slinky_status slinky_doc_value_set_string_len(slinky_doc_value *v, const char *s, size_t len)
{
    CHECK_V(v, "slinky_doc_value_set_string_len");
    if (!s && len)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_set_string_len: s is NULL");
    return slinky_doc__set_str(v, s ? s : "", len);
}

slinky_status slinky_doc_value_set_string(slinky_doc_value *v, const char *s)
{
    CHECK_V(v, "slinky_doc_value_set_string");
    if (!s)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_set_string: s is NULL");
    return slinky_doc_value_set_string_len(v, s, strlen(s));
}

slinky_status slinky_doc_value_set_array(slinky_doc_value *v)
{
    CHECK_V(v, "slinky_doc_value_set_array");
    v->type = SLINKY_DOC_ARRAY;
    v->u.arr.items = NULL;
    v->u.arr.n = v->u.arr.cap = 0;
    return 0;
}

slinky_status slinky_doc_value_set_object(slinky_doc_value *v)
{
    CHECK_V(v, "slinky_doc_value_set_object");
    v->type = SLINKY_DOC_OBJECT;
    v->u.obj.m = NULL;
    v->u.obj.n = v->u.obj.cap = 0;
    return 0;
}

slinky_status slinky_doc_value_set_copy(slinky_doc_value *v, const slinky_doc_value *src)
{
    CHECK_V(v, "slinky_doc_value_set_copy");
    if (!src)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_set_copy: src is NULL");
    if (src == v)
        return 0;
    /* copy first: src may lie inside v */
    slinky_doc_value *c = slinky_doc__copy(v->doc, src);
    if (!c)
        return SLINKY_ENOMEM;
    *v = *c;
    return 0;
}

/* ------------------------------------------------------------------ containers */

/* Make room for one more element in a container array (elements of `size` bytes). */
static int grow(slinky_doc *doc, void **items, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    if (*cap >= UINT32_MAX / 2)
        return slinky__error_set(SLINKY_EINVALID, "container too large");
    uint32_t ncap = *cap ? *cap * 2 : 4;
    void *p = slinky_doc__alloc(doc, (size_t)ncap * size);
    if (!p)
        return SLINKY_ENOMEM;
    if (n)
        memcpy(p, *items, (size_t)n * size);
    *items = p;
    *cap = ncap;
    return 0;
}

static int grow_object(slinky_doc_value *v)
{
    return grow(v->doc, (void **)&v->u.obj.m, v->u.obj.n, &v->u.obj.cap,
                sizeof(slinky_doc__member));
}

static int grow_array(slinky_doc_value *v)
{
    return grow(v->doc, (void **)&v->u.arr.items, v->u.arr.n, &v->u.arr.cap,
                sizeof(slinky_doc_value *));
}

slinky_doc_value *slinky_doc__object_append(slinky_doc_value *v, const char *key, size_t keylen)
{
    if (grow_object(v) < 0)
        return NULL;
    char *k = slinky_doc__strdup(v->doc, key, keylen);
    slinky_doc_value *nv = slinky_doc__value_new(v->doc);
    if (!k || !nv)
        return NULL;
    slinky_doc__member *m = &v->u.obj.m[v->u.obj.n++];
    m->key = k;
    m->keylen = keylen;
    m->value = nv;
    return nv;
}

static int need_object(const slinky_doc_value *v, const char *fn)
{
    if (!v)
        return slinky__error_set(SLINKY_EINVALID, "%s: value is NULL", fn);
    if (v->type != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "%s: value is a %s, not an object", fn,
                                 slinky_doc_type_name((slinky_doc_type)v->type));
    return 0;
}

static int need_array(const slinky_doc_value *v, const char *fn)
{
    if (!v)
        return slinky__error_set(SLINKY_EINVALID, "%s: value is NULL", fn);
    if (v->type != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "%s: value is a %s, not an array", fn,
                                 slinky_doc_type_name((slinky_doc_type)v->type));
    return 0;
}

slinky_status slinky_doc_value_object_put(slinky_doc_value **out, slinky_doc_value *v,
                                          const char *key)
{
    int rc = need_object(v, "slinky_doc_value_object_put");
    if (rc < 0)
        return rc;
    if (!out || !key)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_object_put: NULL argument");
    size_t keylen = strlen(key);
    long i = slinky_doc__find(v, key, keylen);
    if (i >= 0) {
        *out = v->u.obj.m[i].value;
        return 0;
    }
    slinky_doc_value *nv = slinky_doc__object_append(v, key, keylen);
    if (!nv)
        return slinky_error_last()->code ? slinky_error_last()->code : SLINKY_ENOMEM;
    *out = nv;
    return 0;
}

slinky_status slinky_doc_value_object_set(slinky_doc_value *v, const char *key,
                                          const slinky_doc_value *src)
{
    int rc = need_object(v, "slinky_doc_value_object_set");
    if (rc < 0)
        return rc;
    if (!key || !src)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_object_set: NULL argument");
    slinky_doc_value *c = slinky_doc__copy(v->doc, src);
    if (!c)
        return SLINKY_ENOMEM;
    slinky_doc_value *slot;
    rc = slinky_doc_value_object_put(&slot, v, key);
    if (rc < 0)
        return rc;
    *slot = *c;
    return 0;
}

slinky_status slinky_doc_value_object_set_string(slinky_doc_value *v, const char *key,
                                                 const char *s)
{
    int rc = need_object(v, "slinky_doc_value_object_set_string");
    if (rc < 0)
        return rc;
    if (!s)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_object_set_string: s is NULL");
    /* s may point into the member being replaced: fine, arena memory is never reused */
    slinky_doc_value *slot;
    rc = slinky_doc_value_object_put(&slot, v, key);
    if (rc < 0)
        return rc;
    return slinky_doc_value_set_string(slot, s);
}

slinky_status slinky_doc_value_object_set_int(slinky_doc_value *v, const char *key, int64_t i)
{
    slinky_doc_value *slot;
    int rc = slinky_doc_value_object_put(&slot, v, key);
    if (rc < 0)
        return rc;
    return slinky_doc_value_set_int(slot, i);
}

slinky_status slinky_doc_value_object_set_bool(slinky_doc_value *v, const char *key, bool b)
{
    slinky_doc_value *slot;
    int rc = slinky_doc_value_object_put(&slot, v, key);
    if (rc < 0)
        return rc;
    return slinky_doc_value_set_bool(slot, b);
}

slinky_status slinky_doc_value_object_remove(slinky_doc_value *v, const char *key)
{
    int rc = need_object(v, "slinky_doc_value_object_remove");
    if (rc < 0)
        return rc;
    if (!key)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_object_remove: key is NULL");
    long i = slinky_doc__find(v, key, strlen(key));
    if (i < 0)
        return slinky__error_set(SLINKY_ENOTFOUND, "no member \"%s\"", key);
    memmove(&v->u.obj.m[i], &v->u.obj.m[i + 1],
            (v->u.obj.n - (size_t)i - 1) * sizeof(slinky_doc__member));
    v->u.obj.n--;
    return 0;
}

slinky_status slinky_doc_value_array_insert(slinky_doc_value **out, slinky_doc_value *v, size_t i)
{
    int rc = need_array(v, "slinky_doc_value_array_insert");
    if (rc < 0)
        return rc;
    if (i > v->u.arr.n)
        return slinky__error_set(SLINKY_ENOTFOUND, "array index %zu out of range (size %u)", i,
                                 (unsigned)v->u.arr.n);
    slinky_doc_value *nv = slinky_doc__value_new(v->doc);
    if (!nv)
        return SLINKY_ENOMEM;
    rc = grow_array(v);
    if (rc < 0)
        return rc;
    memmove(&v->u.arr.items[i + 1], &v->u.arr.items[i],
            (v->u.arr.n - i) * sizeof(slinky_doc_value *));
    v->u.arr.items[i] = nv;
    v->u.arr.n++;
    if (out)
        *out = nv;
    return 0;
}

slinky_status slinky_doc_value_array_append(slinky_doc_value **out, slinky_doc_value *v)
{
    int rc = need_array(v, "slinky_doc_value_array_append");
    if (rc < 0)
        return rc;
    return slinky_doc_value_array_insert(out, v, v->u.arr.n);
}

slinky_status slinky_doc_value_array_remove(slinky_doc_value *v, size_t i)
{
    int rc = need_array(v, "slinky_doc_value_array_remove");
    if (rc < 0)
        return rc;
    if (i >= v->u.arr.n)
        return slinky__error_set(SLINKY_ENOTFOUND, "array index %zu out of range (size %u)", i,
                                 (unsigned)v->u.arr.n);
    memmove(&v->u.arr.items[i], &v->u.arr.items[i + 1],
            (v->u.arr.n - i - 1) * sizeof(slinky_doc_value *));
    v->u.arr.n--;
    return 0;
}
