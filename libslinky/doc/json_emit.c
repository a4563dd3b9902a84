/*
 * JSON writer (compact and pretty). Writes straight into a growable buffer;
 * strings are copied in runs and escaped only where needed.
 */
#include <math.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

static inline int reserve(slinky__buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return 0;
    return slinky__buf_grow(b, n);
}

static inline void put_raw(slinky__buf *b, const char *s, size_t n)
{
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

/* 0: copy; 1: escape; 2: non-ASCII (validate) */
static const unsigned char json_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Eight bytes that need no escaping: no control character, '"', '\\' or non-ASCII byte. */
static inline int plain_word(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t q = w ^ (ONES * '"');
    uint64_t bs = w ^ (ONES * '\\');
    uint64_t bad = (w | ((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((bs - ONES) & ~bs)) & HIGHS;
    return bad == 0;
}

static int put_string(slinky__buf *b, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    /* worst case: every byte becomes \u00XX (6 bytes) */
    if (len > (SIZE_MAX - 3) / 6)
        return slinky__error_oom();
    if (reserve(b, len * 6 + 2) < 0)
        return SLINKY_ENOMEM;
    char *o = b->data + b->len;
    *o++ = '"';
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        while (run + 8 <= len && plain_word(s + run))
            run += 8;
        while (run < len && json_class[s[run]] == 0)
            run++;
        if (run > i) {
            memcpy(o, s + i, run - i);
            o += run - i;
            i = run;
            if (i >= len)
                break;
        }
        unsigned char c = s[i];
        if (json_class[c] == 1) {
            *o++ = '\\';
            switch (c) {
            case '"':
                *o++ = '"';
                break;
            case '\\':
                *o++ = '\\';
                break;
            case '\n':
                *o++ = 'n';
                break;
            case '\r':
                *o++ = 'r';
                break;
            case '\t':
                *o++ = 't';
                break;
            case '\b':
                *o++ = 'b';
                break;
            case '\f':
                *o++ = 'f';
                break;
            default:
                *o++ = 'u';
                *o++ = '0';
                *o++ = '0';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
            }
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = slinky_doc__utf8_decode(s + i, len - i, &cp);
        if (!n) {
            memcpy(o, "\\ufffd", 6);
            o += 6;
            i++;
            continue;
        }
        if (cp == 0x2028 || cp == 0x2029) {
            memcpy(o, cp == 0x2028 ? "\\u2028" : "\\u2029", 6);
            o += 6;
        } else {
            memcpy(o, s + i, n);
            o += n;
        }
        i += n;
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return 0;
}

static int put_indent(slinky__buf *b, int level)
{
    size_t n = 1 + 2 * (size_t)level;
    if (reserve(b, n) < 0)
        return SLINKY_ENOMEM;
    b->data[b->len++] = '\n';
    memset(b->data + b->len, ' ', n - 1);
    b->len += n - 1;
    return 0;
}

static int emit(slinky__buf *b, const slinky_doc_value *v, unsigned flags, int level)
{
    char num[40];
    int pretty = flags & SLINKY_DOC_DUMP_PRETTY;
    switch (v->type) {
    case SLINKY_DOC_NULL:
        if (reserve(b, 4) < 0)
            return SLINKY_ENOMEM;
        put_raw(b, "null", 4);
        return 0;
    case SLINKY_DOC_BOOL:
        if (reserve(b, 5) < 0)
            return SLINKY_ENOMEM;
        if (v->u.b)
            put_raw(b, "true", 4);
        else
            put_raw(b, "false", 5);
        return 0;
    case SLINKY_DOC_INT: {
        if (reserve(b, 24) < 0)
            return SLINKY_ENOMEM;
        b->len += slinky_doc__format_int(b->data + b->len, v->u.i);
        return 0;
    }
    case SLINKY_DOC_DOUBLE: {
        const char *t = v->u.num.text;
        size_t n;
        if (t) {
            n = strlen(t);
        } else {
            if (!isfinite(v->u.num.d))
                return slinky__error_set(SLINKY_EINVALID,
                                         "cannot write NaN or infinity as JSON");
            n = slinky_doc__format_double(num, sizeof(num), v->u.num.d);
            t = num;
        }
        if (reserve(b, n) < 0)
            return SLINKY_ENOMEM;
        put_raw(b, t, n);
        return 0;
    }
    case SLINKY_DOC_STRING:
        return put_string(b, v->u.str.s, v->u.str.len);
    case SLINKY_DOC_ARRAY: {
        uint32_t n = v->u.arr.n;
        if (reserve(b, 2) < 0)
            return SLINKY_ENOMEM;
        b->data[b->len++] = '[';
        for (uint32_t i = 0; i < n; i++) {
            if (i) {
                if (reserve(b, 1) < 0)
                    return SLINKY_ENOMEM;
                b->data[b->len++] = ',';
            }
            if (pretty && put_indent(b, level + 1) < 0)
                return SLINKY_ENOMEM;
            int rc = emit(b, v->u.arr.items[i], flags, level + 1);
            if (rc < 0)
                return rc;
        }
        if (pretty && n && put_indent(b, level) < 0)
            return SLINKY_ENOMEM;
        if (reserve(b, 1) < 0)
            return SLINKY_ENOMEM;
        b->data[b->len++] = ']';
        return 0;
    }
    case SLINKY_DOC_OBJECT: {
        uint32_t n = v->u.obj.n;
        uint32_t *order;
        int rc = slinky_doc__member_order(&order, v, flags);
        if (rc < 0)
            return rc;
        if (reserve(b, 2) < 0) {
            rc = SLINKY_ENOMEM;
            goto out;
        }
        b->data[b->len++] = '{';
        for (uint32_t i = 0; i < n; i++) {
            const slinky_doc__member *m = &v->u.obj.m[order ? order[i] : i];
            if (i) {
                if (reserve(b, 1) < 0) {
                    rc = SLINKY_ENOMEM;
                    goto out;
                }
                b->data[b->len++] = ',';
            }
            if (pretty && (rc = put_indent(b, level + 1)) < 0)
                goto out;
            if ((rc = put_string(b, m->key, m->keylen)) < 0)
                goto out;
            if ((rc = reserve(b, 2)) < 0)
                goto out;
            b->data[b->len++] = ':';
            if (pretty)
                b->data[b->len++] = ' ';
            if ((rc = emit(b, m->value, flags, level + 1)) < 0)
                goto out;
        }
        if (pretty && n && (rc = put_indent(b, level)) < 0)
            goto out;
        if ((rc = reserve(b, 1)) < 0)
            goto out;
        b->data[b->len++] = '}';
    out:
        free(order);
        return rc;
    }
    }
    return 0;
}

static int cmp_members(const slinky_doc_value *v, uint32_t a, uint32_t b)
{
    const slinky_doc__member *ma = &v->u.obj.m[a];
    const slinky_doc__member *mb = &v->u.obj.m[b];
    size_t n = ma->keylen < mb->keylen ? ma->keylen : mb->keylen;
    int c = memcmp(ma->key, mb->key, n);
    if (c)
        return c;
    return ma->keylen < mb->keylen ? -1 : ma->keylen > mb->keylen;
}

static void merge_sort(const slinky_doc_value *v, uint32_t *a, uint32_t *tmp, uint32_t n)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    merge_sort(v, a, tmp, h);
    merge_sort(v, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_members(v, a[i], a[j]) <= 0 ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof(*a));
}

int slinky_doc__member_order(uint32_t **order, const slinky_doc_value *v, unsigned flags)
{
    *order = NULL;
    if (!(flags & SLINKY_DOC_DUMP_SORT_KEYS) || v->u.obj.n < 2)
        return 0;
    *order = slinky_doc__sorted_members(v);
    return *order ? 0 : SLINKY_ENOMEM;
}

uint32_t *slinky_doc__sorted_members(const slinky_doc_value *v)
{
    uint32_t n = v->u.obj.n;
    uint32_t *order = slinky__malloc((n ? n : 1) * 2 * sizeof(*order));
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    merge_sort(v, order, order + n, n);
    return order;
}

int slinky_doc__emit_json(slinky__buf *out, const slinky_doc_value *v, unsigned flags)
{
    int rc = emit(out, v, flags, 0);
    if (rc < 0)
        return rc;
    if (reserve(out, 0) < 0)
        return SLINKY_ENOMEM;
    out->data[out->len] = '\0';
    return 0;
}

int slinky_doc__dump(char **out, size_t *len_out, const slinky_doc_value *v, unsigned flags,
                     int (*emit_fn)(slinky__buf *, const slinky_doc_value *, unsigned))
{
    slinky__buf b = SLINKY__BUF_INIT;
    int rc = emit_fn(&b, v, flags);
    if (rc < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    size_t len;
    char *s = slinky__buf_detach(&b, &len);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    if (len_out)
        *len_out = len;
    return 0;
}

slinky_status slinky_doc_value_dump_json(char **json_out, size_t *len_out,
                                         const slinky_doc_value *v, unsigned flags)
{
    if (!json_out || !v)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_dump_json: NULL argument");
    return slinky_doc__dump(json_out, len_out, v, flags, slinky_doc__emit_json);
}
