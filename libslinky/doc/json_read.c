/*
 * doc: the strict RFC 8259 JSON reader (slinky_doc_parse_json, and the hot
 * path of kube's list and watch decoding), building slinky_doc values
 * directly. One complete value
 * per call; UTF-8 is validated, \u escapes (with surrogate pairs) decoded,
 * lone surrogates rejected, nesting limited to 1000. Values are made with
 * the doc module's internals: members and items wait on a scratch stack while their container is open and are stored in
 * one exact-size arena array when it closes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "doc/doc_internal.h"
#include "json_read.h"

#define MAX_DEPTH 1000

typedef struct jp {
    const char *p, *end, *start;
    char *tmp; /* scratch for unescaped strings and keys */
    size_t tmp_cap;
    slinky_doc__json_ent *ents; /* members/items of the open containers */
    size_t n_ents, cap_ents;
    int err;
    bool unique; /* a repeated key is an error */
    size_t err_off, dup_first;
    const char *err_what, *dup_key;
    size_t dup_keylen;
    bool trunc; /* the error may only mean that the input stopped early */
    bool plain; /* the last string had no escapes (so no NUL) */
} jp;

static int jerr(jp *j, const char *what)
{
    if (j->err == 0) {
        /* every failure caused by missing input happens within 6 bytes of the end */
        j->trunc = j->p + 6 >= j->end;
        j->err_off = (size_t)(j->p - j->start);
        j->err_what = what;
        j->err = slinky__error_set(SLINKY_EPARSE, "invalid JSON at offset %zu: %s",
                                   (size_t)(j->p - j->start), what);
    }
    return j->err;
}

static inline void ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static int tmp_reserve(jp *j, size_t n)
{
    if (n <= j->tmp_cap)
        return 0;
    size_t cap = j->tmp_cap ? j->tmp_cap : 256;
    while (cap < n)
        cap *= 2;
    char *t = slinky__realloc(j->tmp, cap);
    if (t == NULL)
        return j->err = SLINKY_ENOMEM;
    j->tmp = t;
    j->tmp_cap = cap;
    return 0;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Length of a valid UTF-8 sequence starting at p (lead byte >= 0x80), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF)
        return (end - p >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && p[1] >= 0xA0)
            return 0; /* surrogates */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (end - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90)
            return 0;
        if (c == 0xF4 && p[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

/*
 * Parse a string (j->p at the opening quote). s and n receive the text: a
 * pointer into the input when it has no escapes, else into j->tmp.
 */
static int parse_string(jp *j, const char **s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)j->p + 1;
    const unsigned char *end = (const unsigned char *)j->end;
    const unsigned char *begin = p;
    /* fast path: plain ASCII without escapes, 16 bytes at a time with SSE2
     * (every x86-64 has it), then 8 at a time */
#if defined(__SSE2__)
    {
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
        const __m128i ctl = _mm_set1_epi8(0x1f);
        while (end - p >= 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
            /* bytes >= 0x80 are negative as signed: cmplt against 0x20 catches
             * both control characters and non-ASCII */
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, quote),
                                                    _mm_cmpeq_epi8(w, bslash)),
                                       _mm_cmplt_epi8(w, _mm_add_epi8(ctl, _mm_set1_epi8(1))));
            int mask = _mm_movemask_epi8(hit);
            if (mask) {
                p += __builtin_ctz((unsigned)mask);
                goto scanned;
            }
            p += 16;
        }
    }
#endif
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t special = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w;
        if (special & highs)
            break;
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
        p++;
#if defined(__SSE2__)
scanned:
#endif
    if (p < end && *p == '"') {
        *s = (const char *)begin;
        *n = (size_t)(p - begin);
        j->p = (const char *)p + 1;
        j->plain = true;
        return 0;
    }
    j->plain = false;
    /* slow path: validate UTF-8, unescape into tmp */
    size_t o = (size_t)(p - begin);
    if (tmp_reserve(j, o + 64) != 0)
        return j->err;
    memcpy(j->tmp, begin, o);
    while (p < end) {
        unsigned c = *p;
        if (c == '"') {
            *s = j->tmp;
            *n = o;
            j->p = (const char *)p + 1;
            return 0;
        }
        if (tmp_reserve(j, o + 8) != 0)
            return j->err;
        if (c < 0x20) {
            j->p = (const char *)p;
            return jerr(j, "control character in a string");
        }
        if (c < 0x80 && c != '\\') {
            j->tmp[o++] = (char)c;
            p++;
            continue;
        }
        if (c >= 0x80) {
            size_t l = utf8_len(p, end);
            if (l == 0) {
                j->p = (const char *)p;
                return jerr(j, "invalid UTF-8 in a string");
            }
            memcpy(j->tmp + o, p, l);
            o += l;
            p += l;
            continue;
        }
        /* escape */
        if (end - p < 2) {
            j->p = (const char *)p;
            return jerr(j, "truncated escape");
        }
        char e = (char)p[1];
        p += 2;
        switch (e) {
        case '"': j->tmp[o++] = '"'; break;
        case '\\': j->tmp[o++] = '\\'; break;
        case '/': j->tmp[o++] = '/'; break;
        case 'b': j->tmp[o++] = '\b'; break;
        case 'f': j->tmp[o++] = '\f'; break;
        case 'n': j->tmp[o++] = '\n'; break;
        case 'r': j->tmp[o++] = '\r'; break;
        case 't': j->tmp[o++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (end - p < 4 || hex4((const char *)p, &cp) != 0) {
                j->p = (const char *)p;
                return jerr(j, "bad \\u escape");
            }
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4((const char *)p + 2, &lo) != 0 ||
                    lo < 0xDC00 || lo > 0xDFFF) {
                    j->p = (const char *)p;
                    return jerr(j, "lone surrogate in \\u escape");
                }
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                j->p = (const char *)p;
                return jerr(j, "lone surrogate in \\u escape");
            }
            if (cp < 0x80) {
                j->tmp[o++] = (char)cp;
            } else if (cp < 0x800) {
                j->tmp[o++] = (char)(0xC0 | (cp >> 6));
                j->tmp[o++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                j->tmp[o++] = (char)(0xE0 | (cp >> 12));
                j->tmp[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                j->tmp[o++] = (char)(0x80 | (cp & 0x3F));
            } else {
                j->tmp[o++] = (char)(0xF0 | (cp >> 18));
                j->tmp[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                j->tmp[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                j->tmp[o++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            j->p = (const char *)p - 1;
            return jerr(j, "unknown escape");
        }
    }
    j->p = (const char *)p;
    return jerr(j, "unterminated string");
}

static int parse_number(jp *j, slinky_doc_value *v)
{
    const char *p = j->p, *s = p;
    bool integral = true;
    if (p < j->end && *p == '-')
        p++;
    if (p >= j->end)
        return jerr(j, "truncated number");
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    } else {
        return jerr(j, "invalid number");
    }
    if (p < j->end && *p == '.') {
        integral = false;
        p++;
        if (p >= j->end || *p < '0' || *p > '9') {
            j->p = p;
            return jerr(j, "digit expected after '.'");
        }
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < j->end && (*p == 'e' || *p == 'E')) {
        integral = false;
        p++;
        if (p < j->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= j->end || *p < '0' || *p > '9') {
            j->p = p;
            return jerr(j, "digit expected in exponent");
        }
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    }
    j->p = p;
    if (v == NULL)
        return 0;
    size_t len = (size_t)(p - s);
    char buf[64];
    char *text = len < sizeof(buf) ? buf : slinky__strndup(s, len);
    if (text == NULL)
        return j->err = SLINKY_ENOMEM;
    if (text == buf) {
        memcpy(buf, s, len);
        buf[len] = '\0';
    }
    int err = 0;
    if (integral) {
        errno = 0;
        char *e;
        long long ll = strtoll(text, &e, 10);
        if (errno == 0 && *e == '\0')
            err = slinky_doc_value_set_int(v, (int64_t)ll);
        else
            integral = false;
    }
    if (!integral) /* keeps the number's text (exact round trip, beyond int64, 1e999) */
        err = slinky_doc__number_from_text(v, s, len);
    if (text != buf)
        free(text);
    if (err)
        j->err = err;
    return err;
}

static int literal(jp *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return jerr(j, "invalid literal");
    j->p += n;
    return 0;
}

static int parse_value(jp *j, slinky_doc_value *v, int depth);

/* After a member or item: 1 when ',' follows, 0 when `close` does, else the error. */
static int after_member(jp *j, char close)
{
    ws(j);
    if (j->p < j->end && (*j->p == ',' || *j->p == close))
        return *j->p++ == ',';
    return jerr(j, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
}

static int push_ent(jp *j, const char *key, size_t keylen, slinky_doc_value *v, size_t pos)
{
    if (slinky__array_room(&j->ents, &j->cap_ents, j->n_ents, sizeof(*j->ents), 256))
        return j->err = SLINKY_ENOMEM;
    slinky_doc__json_ent *e = &j->ents[j->n_ents++];
    e->key = key;
    e->keylen = keylen;
    e->value = v;
    e->pos = pos;
    return 0;
}

/*
 * Members and items are collected on j->ents while their container is open
 * and stored in one exact-size array when it closes (no growing, no
 * per-member API call). A repeated key keeps its first position and takes
 * the last value, as slinky_doc_value_object_put would.
 */
static int parse_object(jp *j, slinky_doc_value *v, int depth)
{
    j->p++; /* { */
    if (v && slinky_doc_value_set_object(v) != 0)
        return j->err = slinky_error_last()->code;
    size_t base = j->n_ents;
    uint64_t seen = 0; /* one bit per (length, first, last byte) hash of the keys so far */
    ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return 0;
    }
    for (;;) {
        ws(j);
        if (j->p >= j->end || *j->p != '"')
            return jerr(j, "object key expected");
        const char *k;
        size_t kn, kpos = (size_t)(j->p - j->start);
        if (parse_string(j, &k, &kn) != 0)
            return j->err;
        slinky_doc_value *child = NULL;
        if (v) {
            if (!j->plain && memchr(k, '\0', kn))
                return jerr(j, "object key contains a NUL");
            /* a repeated key is rare: scan the members only when this key's bit was seen */
            uint64_t bit = (uint64_t)1 << ((kn * 7u + (kn ? (unsigned char)k[0] * 3u +
                                                             (unsigned char)k[kn - 1] : 0u)) & 63u);
            size_t e = j->n_ents;
            if (seen & bit) {
                e = base;
                while (e < j->n_ents &&
                       (j->ents[e].keylen != kn || memcmp(j->ents[e].key, k, kn) != 0))
                    e++;
            }
            seen |= bit;
            child = slinky_doc__value_new(v->doc);
            if (child == NULL)
                return j->err = SLINKY_ENOMEM;
            if (e < j->n_ents && j->unique) {
                j->p = j->start + kpos;
                jerr(j, "duplicate key");
                j->dup_first = j->ents[e].pos;
                j->dup_key = j->ents[e].key;
                j->dup_keylen = kn;
                return j->err;
            }
            if (e < j->n_ents) {
                j->ents[e].value = child;
            } else {
                const char *key = slinky_doc__strdup(v->doc, k, kn);
                if (key == NULL)
                    return j->err = SLINKY_ENOMEM;
                if (push_ent(j, key, kn, child, kpos) != 0)
                    return j->err;
            }
        }
        ws(j);
        if (j->p >= j->end || *j->p != ':')
            return jerr(j, "':' expected");
        j->p++;
        int more = parse_value(j, child, depth + 1) != 0 ? j->err : after_member(j, '}');
        if (more < 0)
            return more;
        if (!more)
            break;
    }
    if (v) {
        size_t n = j->n_ents - base;
        if (n >= UINT32_MAX)
            return jerr(j, "object too large");
        slinky_doc__member *m = slinky_doc__alloc(v->doc, n * sizeof(*m));
        if (m == NULL)
            return j->err = SLINKY_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            m[i].key = j->ents[base + i].key;
            m[i].keylen = j->ents[base + i].keylen;
            m[i].value = j->ents[base + i].value;
        }
        v->u.obj.m = m;
        v->u.obj.n = v->u.obj.cap = (uint32_t)n;
        j->n_ents = base;
    }
    return 0;
}

static int parse_array(jp *j, slinky_doc_value *v, int depth)
{
    j->p++; /* [ */
    if (v && slinky_doc_value_set_array(v) != 0)
        return j->err = slinky_error_last()->code;
    size_t base = j->n_ents;
    ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return 0;
    }
    for (;;) {
        slinky_doc_value *child = NULL;
        if (v) {
            child = slinky_doc__value_new(v->doc);
            if (child == NULL)
                return j->err = SLINKY_ENOMEM;
            if (push_ent(j, NULL, 0, child, 0) != 0)
                return j->err;
        }
        int more = parse_value(j, child, depth + 1) != 0 ? j->err : after_member(j, ']');
        if (more < 0)
            return more;
        if (!more)
            break;
    }
    if (v) {
        size_t n = j->n_ents - base;
        if (n >= UINT32_MAX)
            return jerr(j, "array too large");
        slinky_doc_value **items = slinky_doc__alloc(v->doc, n * sizeof(*items));
        if (items == NULL)
            return j->err = SLINKY_ENOMEM;
        for (size_t i = 0; i < n; i++)
            items[i] = j->ents[base + i].value;
        v->u.arr.items = items;
        v->u.arr.n = v->u.arr.cap = (uint32_t)n;
        j->n_ents = base;
    }
    return 0;
}

static int parse_value(jp *j, slinky_doc_value *v, int depth)
{
    ws(j);
    if (j->p >= j->end)
        return jerr(j, "value expected");
    switch (*j->p) {
    case '{':
    case '[':
        if (depth >= MAX_DEPTH)
            return jerr(j, "nesting deeper than 1000 levels");
        return *j->p == '{' ? parse_object(j, v, depth) : parse_array(j, v, depth);
    case '"': {
        const char *s;
        size_t n;
        if (parse_string(j, &s, &n) != 0)
            return j->err;
        if (v && slinky_doc__set_str(v, s, n) != 0)
            return j->err = SLINKY_ENOMEM;
        return 0;
    }
    case 't':
        if (literal(j, "true", 4) != 0)
            return j->err;
        return v ? (j->err = slinky_doc_value_set_bool(v, true)) : 0;
    case 'f':
        if (literal(j, "false", 5) != 0)
            return j->err;
        return v ? (j->err = slinky_doc_value_set_bool(v, false)) : 0;
    case 'n':
        if (literal(j, "null", 4) != 0)
            return j->err;
        return v ? (j->err = slinky_doc_value_set_null(v)) : 0;
    default:
        return parse_number(j, v);
    }
}

void slinky_doc__json_init(slinky_doc__json *j)
{
    memset(j, 0, sizeof(*j));
}

void slinky_doc__json_dispose(slinky_doc__json *j)
{
    free(j->tmp);
    free(j->ents);
    memset(j, 0, sizeof(*j));
}

/* A parse of data[0..len) using ctx's scratch buffers; jp_end hands them back. */
static void jp_begin(jp *j, const slinky_doc__json *ctx, const char *data, size_t len)
{
    memset(j, 0, sizeof(*j));
    j->p = j->start = data;
    j->end = data + len;
    j->tmp = ctx->tmp;
    j->tmp_cap = ctx->tmp_cap;
    j->ents = ctx->ents;
    j->cap_ents = ctx->cap_ents;
    j->unique = ctx->unique_keys;
}

static void jp_end(const jp *j, slinky_doc__json *ctx)
{
    ctx->tmp = j->tmp;
    ctx->tmp_cap = j->tmp_cap;
    ctx->ents = j->ents;
    ctx->cap_ents = j->cap_ents;
    ctx->err_off = j->err_off;
    ctx->err_what = j->err_what;
    ctx->dup_first = j->dup_first;
    ctx->dup_key = j->dup_key;
    ctx->dup_keylen = j->dup_keylen;
}

int slinky_doc__json_parse(slinky_doc__json *ctx, slinky_doc_value *target, const char *data,
                            size_t len)
{
    jp j;
    jp_begin(&j, ctx, data, len);
    int err = parse_value(&j, target, 0);
    if (err == 0) {
        ws(&j);
        if (j.p != j.end)
            err = jerr(&j, "trailing characters after the value");
    }
    jp_end(&j, ctx);
    return err;
}

int slinky_doc__json_parse_prefix(slinky_doc__json *ctx, slinky_doc_value *target,
                                   const char *data, size_t len, size_t *consumed, bool *truncated)
{
    jp j;
    jp_begin(&j, ctx, data, len);
    int err = parse_value(&j, target, 0);
    jp_end(&j, ctx);
    *truncated = err == SLINKY_EPARSE && j.trunc;
    *consumed = (size_t)(j.p - data);
    return err;
}

int slinky_doc__json_string(slinky_doc__json *ctx, const char **s, size_t *n, const char *data,
                             size_t len)
{
    jp j;
    jp_begin(&j, ctx, data, len);
    ws(&j);
    int err = (j.p < j.end && *j.p == '"') ? parse_string(&j, s, n) : jerr(&j, "string expected");
    if (err == 0) {
        ws(&j);
        if (j.p != j.end)
            err = jerr(&j, "trailing characters after the string");
    }
    jp_end(&j, ctx);
    return err;
}

slinky_status slinky_doc_parse_json(slinky_doc **out, const char *data, size_t len)
{
    return slinky_doc__parse_json(out, data, len, false);
}

int slinky_doc__parse_json(slinky_doc **out, const char *data, size_t len, bool unique_keys)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_parse_json: NULL argument");
    if (!data)
        data = "";
    size_t skip = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        skip = 3; /* RFC 8259 section 8.1: a parser MAY ignore a BOM */
    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, len + len / 2);
    if (rc < 0)
        return rc;
    slinky_doc__json j;
    slinky_doc__json_init(&j);
    j.unique_keys = unique_keys;
    rc = slinky_doc__json_parse(&j, slinky_doc_root(doc), data + skip, len - skip);
    if (rc == SLINKY_EPARSE)
        rc = slinky_doc__json_error(data, len, skip, &j);
    slinky_doc__json_dispose(&j);
    if (rc < 0) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}
