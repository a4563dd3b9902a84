/*
 * The reference JSON reader (slinky_doc__parse_json_yajl), on top of yajl's callback
 * parser: slinky_doc_parse_json reads with json_read.c, and the differential fuzz
 * test checks that reader against this one. Also the error reporting both share
 * (slinky_doc__json_error: the positions and words of the first bad byte).
 *
 * Strict RFC 8259 JSON reader on top of yajl's callback parser. yajl already
 * validates UTF-8 and rejects comments, trailing commas, leading zeros,
 * control characters and multiple values with the options used here; this
 * file adds what yajl lets through: lone UTF-16 surrogates in \u escapes and
 * nesting deeper than SLINKY_DOC__MAX_DEPTH. Numbers arrive as raw text.
 */
#include <stdio.h>
#include <yajl/yajl_parse.h>

#include "doc/doc_internal.h"
#include "doc/json_read.h"

typedef struct jctx {
    slinky_doc__builder b;
    yajl_handle h;
    int rc;        /* our own error, already recorded */
    size_t err_at; /* offset of our error */
    size_t end;    /* offset just past the top-level value, once complete */
    size_t total;  /* input length, the end of a value completed by yajl_complete_parse */
    int completing;
} jctx;

static int fail(jctx *c, int rc)
{
    c->rc = rc;
    c->err_at = yajl_get_bytes_consumed(c->h);
    return 0;
}

/* After a value was added: remember where the top-level value ended. yajl
 * misses trailing garbage that is an unterminated string ("3 \"x"), so the
 * rest of the input is checked against this offset at the end. */
static int added(jctx *c)
{
    if (c->b.result && !c->end)
        c->end = c->completing ? c->total : yajl_get_bytes_consumed(c->h);
    return 1;
}

static int add_new(jctx *c, slinky_doc_value **out)
{
    slinky_doc_value *v = slinky_doc__value_new(c->b.doc);
    if (!v)
        return fail(c, SLINKY_ENOMEM);
    *out = v;
    return 1;
}

static int cb_null(void *ctx)
{
    jctx *c = ctx;
    slinky_doc_value *v;
    if (!add_new(c, &v))
        return 0;
    int rc = slinky_doc__builder_add(&c->b, v);
    return rc < 0 ? fail(c, rc) : added(c);
}

static int cb_boolean(void *ctx, int b)
{
    jctx *c = ctx;
    slinky_doc_value *v;
    if (!add_new(c, &v))
        return 0;
    v->type = SLINKY_DOC_BOOL;
    v->u.b = b != 0;
    int rc = slinky_doc__builder_add(&c->b, v);
    return rc < 0 ? fail(c, rc) : added(c);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    jctx *c = ctx;
    slinky_doc_value *v;
    if (!add_new(c, &v))
        return 0;
    int rc = slinky_doc__number_from_text(v, s, len);
    if (rc == 0)
        rc = slinky_doc__builder_add(&c->b, v);
    return rc < 0 ? fail(c, rc) : added(c);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    jctx *c = ctx;
    slinky_doc_value *v;
    if (!add_new(c, &v))
        return 0;
    int rc = slinky_doc__set_str(v, (const char *)s, len);
    if (rc == 0)
        rc = slinky_doc__builder_add(&c->b, v);
    return rc < 0 ? fail(c, rc) : added(c);
}

static int open_container(jctx *c, int is_object)
{
    if (c->b.depth >= SLINKY_DOC__MAX_DEPTH) {
        c->rc = SLINKY_EPARSE;
        c->err_at = yajl_get_bytes_consumed(c->h);
        if (c->err_at)
            c->err_at--;
        return 0;
    }
    int rc = slinky_doc__builder_open(&c->b, is_object);
    return rc < 0 ? fail(c, rc) : 1;
}

static int cb_start_map(void *ctx)
{
    return open_container(ctx, 1);
}

static int cb_start_array(void *ctx)
{
    return open_container(ctx, 0);
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
    jctx *c = ctx;
    const char *k = slinky_doc__builder_key(&c->b, (const char *)key, len);
    if (!k)
        return fail(c, SLINKY_ENOMEM);
    slinky_doc__frame *f = &c->b.frames[c->b.depth - 1];
    f->key = k;
    f->keylen = len;
    f->key_pos = yajl_get_bytes_consumed(c->h);
    f->have_key = 1;
    return 1;
}

static int cb_end(void *ctx)
{
    jctx *c = ctx;
    slinky_doc_value *v;
    int rc = slinky_doc__builder_close(&c->b, &v);
    if (rc == 0)
        rc = slinky_doc__builder_add(&c->b, v);
    return rc < 0 ? fail(c, rc) : added(c);
}

static const yajl_callbacks callbacks = {
    cb_null,   cb_boolean,     NULL,   NULL,           cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end,
};

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static long hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Find a \u escape that is a lone surrogate; returns its offset or -1. */
static long find_lone_surrogate(const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs || bs + 1 >= end)
            return -1;
        if (bs[1] != 'u') {
            p = bs + 2;
            continue;
        }
        long cp = hex4(bs + 2, end);
        if (cp < 0) {
            p = bs + 2; /* yajl reports the bad escape */
            continue;
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return bs - data;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            const char *q = bs + 6;
            long lo = (end - q >= 6 && q[0] == '\\' && q[1] == 'u') ? hex4(q + 2, end) : -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return bs - data;
            p = q + 6;
            continue;
        }
        p = bs + 6;
    }
    return -1;
}

/*
 * Bytes yajl lets through but RFC 8259 forbids: invalid UTF-8 (yajl accepts
 * overlongs, surrogates and code points above U+10FFFF) and the control
 * characters \f and \v, which yajl takes for whitespace. (Other control
 * characters are errors for yajl too.) Returns the offset of the first such
 * byte, or -1; *what names the problem.
 */
static long find_bad_byte(const char *data, size_t len, const char **what)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t i = 0;
    while (i < len) {
        /* skip eight plain ASCII bytes (no control characters) at a time */
        while (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if ((w | ((w - 0x2020202020202020ULL) & ~w)) & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= len)
            break;
        if (s[i] < 0x20) {
            if (s[i] != '\t' && s[i] != '\n' && s[i] != '\r') {
                *what = "invalid control character";
                return (long)i;
            }
            i++;
            continue;
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = slinky_doc__utf8_decode(s + i, len - i, &cp);
        if (!n) {
            *what = "invalid UTF-8";
            return (long)i;
        }
        i += n;
    }
    return -1;
}

/* yajl reports the offset after the offending token: point at its start. */
static size_t token_start(const char *data, size_t off)
{
    size_t i = off;
    while (i > 0 && (data[i - 1] == ' ' || data[i - 1] == '\t' || data[i - 1] == '\n' ||
                     data[i - 1] == '\r'))
        i--;
    if (i == 0)
        return off;
    char c = data[i - 1];
    if (strchr("[]{},:", c))
        return i - 1;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '+' || c == '-') {
        while (i > 0) {
            c = data[i - 1];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '+' || c == '-'))
                break;
            i--;
        }
        return i;
    }
    return off;
}

static int parse_error_at(const char *data, size_t len, size_t off, const char *msg)
{
    int line, col;
    slinky_doc__position(data, len, off, &line, &col);
    return slinky__error_set_pos(SLINKY_EPARSE, line, col, "invalid JSON: %s", msg);
}

static int parse_yajl(slinky_doc **out, const char *data, size_t len, bool unique_keys);

int slinky_doc__json_error(const char *data, size_t len, size_t skip, const slinky_doc__json *j)
{
    if (j->dup_key) {
        int l1, c1, l2, c2;
        slinky_doc__position(data, len, skip + j->dup_first, &l1, &c1);
        slinky_doc__position(data, len, skip + j->err_off, &l2, &c2);
        return slinky__error_set_pos(SLINKY_EPARSE, l2, c2,
                                     "line %d: duplicate key \"%.*s\" (already defined at line %d)",
                                     l2, (int)(j->dup_keylen > 200 ? 200 : j->dup_keylen),
                                     j->dup_key, l1);
    }
    /* a bad byte or a lone surrogate up to where the reader stopped: the words and
     * places yajl's strict mode gave */
    const char *what = NULL;
    size_t upto = j->err_off + 16 < len - skip ? j->err_off + 16 : len - skip;
    long bad = find_bad_byte(data + skip, upto, &what);
    if (bad >= 0)
        return parse_error_at(data, len, skip + (size_t)bad, what);
    long sur = find_lone_surrogate(data + skip, upto);
    if (sur >= 0)
        return parse_error_at(data, len, skip + (size_t)sur, "lone UTF-16 surrogate in \\u escape");
    size_t i = skip;
    while (i < len && strchr(" \t\n\r", data[i]))
        i++;
    if (i == len)
        return parse_error_at(data, len, len, "empty input");
    return parse_error_at(data, len, skip + j->err_off, j->err_what ? j->err_what : "syntax error");
}

int slinky_doc__parse_json_yajl(slinky_doc **out, const char *data, size_t len)
{
    return parse_yajl(out, data, len, false);
}

static int parse_yajl(slinky_doc **out, const char *data, size_t len, bool unique_keys)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_parse_json: NULL argument");
    if (!data)
        data = "";
    const char *orig = data;
    size_t origlen = len;
    size_t skip = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        skip = 3; /* RFC 8259 section 8.1: a parser MAY ignore a BOM */

    const char *what = NULL;
    long bad = find_bad_byte(data + skip, len - skip, &what);
    if (bad >= 0)
        return parse_error_at(orig, origlen, skip + (size_t)bad, what);
    long sur = find_lone_surrogate(data + skip, len - skip);
    if (sur >= 0)
        return parse_error_at(orig, origlen, skip + (size_t)sur,
                              "lone UTF-16 surrogate in \\u escape");

    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, len + len / 2);
    if (rc < 0)
        return rc;
    jctx c;
    slinky_doc__builder_init(&c.b, doc);
    c.b.unique_keys = unique_keys;
    c.b.src = data + skip;
    c.b.src_len = len - skip;
    c.rc = 0;
    c.err_at = 0;
    c.end = 0;
    c.total = len - skip;
    c.completing = 0;
    c.h = yajl_alloc(&callbacks, NULL, &c);
    if (!c.h) {
        slinky_doc__builder_dispose(&c.b);
        slinky_doc_free(doc);
        return slinky__error_oom();
    }
    yajl_config(c.h, yajl_allow_comments, 0);
    yajl_config(c.h, yajl_dont_validate_strings, 0);
    yajl_config(c.h, yajl_allow_trailing_garbage, 0);
    yajl_config(c.h, yajl_allow_multiple_values, 0);
    yajl_config(c.h, yajl_allow_partial_values, 0);

    yajl_status st = yajl_parse(c.h, (const unsigned char *)data + skip, len - skip);
    int at_end = 0;
    if (st == yajl_status_ok) {
        c.completing = 1;
        st = yajl_complete_parse(c.h);
        at_end = 1;
    }
    if (st != yajl_status_ok) {
        if (c.rc == SLINKY_EPARSE && !c.b.dup_failed) {
            rc = parse_error_at(orig, origlen, skip + c.err_at,
                                "nesting deeper than 1000 levels");
        } else if (c.rc < 0) {
            rc = c.rc;
        } else {
            unsigned char *msg = yajl_get_error(c.h, 0, NULL, 0);
            char text[256];
            const char *m = msg ? (const char *)msg : "syntax error";
            if (strncmp(m, "parse error: ", 13) == 0)
                m += 13;
            else if (strncmp(m, "lexical error: ", 15) == 0)
                m += 15;
            snprintf(text, sizeof(text), "%s", m);
            size_t tl = strlen(text);
            while (tl && (text[tl - 1] == '\n' || text[tl - 1] == ' '))
                text[--tl] = '\0';
            if (msg)
                yajl_free_error(c.h, msg);
            size_t off = at_end ? len - skip
                                : token_start(data + skip, yajl_get_bytes_consumed(c.h));
            if (len - skip == 0 || !c.b.result) {
                int only_space = 1;
                for (size_t i = skip; i < len; i++) {
                    char ch = data[i];
                    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
                        only_space = 0;
                }
                if (only_space)
                    snprintf(text, sizeof(text), "empty input");
            }
            rc = parse_error_at(orig, origlen, skip + off, text);
        }
        yajl_free(c.h);
        slinky_doc__builder_dispose(&c.b);
        slinky_doc_free(doc);
        return rc;
    }
    yajl_free(c.h);
    for (size_t i = skip + c.end; i < len; i++) {
        char ch = data[i];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
            slinky_doc__builder_dispose(&c.b);
            slinky_doc_free(doc);
            return parse_error_at(orig, origlen, i, "trailing garbage");
        }
    }
    *doc->root = *c.b.result;
    slinky_doc__builder_dispose(&c.b);
    *out = doc;
    return 0;
}
