/*
 * YAML writer: block style with 2-space indent and sequences at their
 * key's indentation, as kubectl `-o yaml` writes. Strings are written plain
 * only when they read back as the same string; multi-line strings use
 * literal blocks when that is exact, double quotes otherwise.
 */
#include <math.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

#define MAX_SIMPLE_KEY 1000

static int put(slinky__buf *b, const char *s, size_t n)
{
    return slinky__buf_put(b, s, n);
}

static int put_spaces(slinky__buf *b, size_t n)
{
    if (slinky__buf_grow(b, n) < 0)
        return SLINKY_ENOMEM;
    memset(b->data + b->len, ' ', n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

/* Printable for libyaml and not a line break (NEL, LS, PS) or BOM. */
static bool printable(uint32_t c)
{
    if (c >= 0x20 && c <= 0x7E)
        return true;
    if (c >= 0xA0 && c <= 0xD7FF)
        return c != 0x2028 && c != 0x2029;
    if (c >= 0xE000 && c <= 0xFFFD)
        return c != 0xFEFF;
    return c >= 0x10000 && c <= 0x10FFFF;
}

/* All characters printable (tabs and newlines allowed when asked). */
static bool all_printable(const char *str, size_t len, bool allow_nl_tab)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = slinky_doc__utf8_decode(s + i, len - i, &cp);
        if (!n)
            return false;
        if (!printable(cp) && !(allow_nl_tab && (cp == '\n' || cp == '\t')))
            return false;
        i += n;
    }
    return true;
}

static bool plain_ok(const char *s, size_t len)
{
    if (!len)
        return false;
    unsigned char c = (unsigned char)s[0];
    if (strchr("?:,[]{}#&*!|>'\"%@`-", c) && c) {
        if (!(c == '-' || c == '?' || c == ':'))
            return false;
        if (len < 2 || s[1] == ' ' || s[1] == '\t')
            return false;
        if (c == '-' && (s[1] == '-' || (s[1] >= '0' && s[1] <= '9') || s[1] == '.'))
            return false;
    }
    if ((c >= '0' && c <= '9') || c == '+' || c == '.' || c == '~')
        return false;
    if (s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
        return false;
    if (len >= 3 && (memcmp(s, "...", 3) == 0 || memcmp(s, "---", 3) == 0))
        return false;
    if (len == 2 && memcmp(s, "<<", 2) == 0)
        return false;
    for (size_t i = 0; i + 1 < len; i++) {
        if ((s[i] == ':' && s[i + 1] == ' ') || (s[i] == ' ' && s[i + 1] == '#'))
            return false;
    }
    if (!all_printable(s, len, false))
        return false;
    return slinky_doc__yaml_resolve_type(s, len) == SLINKY_DOC_STRING;
}

static int put_double_quoted(slinky__buf *b, const char *str, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)str;
    if (slinky__buf_putc(b, '"') < 0)
        return SLINKY_ENOMEM;
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        while (run < len && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            put(b, str + i, run - i);
            i = run;
            if (i >= len)
                break;
        }
        uint32_t cp;
        size_t n = slinky_doc__utf8_decode(s + i, len - i, &cp);
        if (!n) {
            put(b, "\\uFFFD", 6);
            i++;
            continue;
        }
        char esc[12];
        const char *e = NULL;
        switch (cp) {
        case '"':
            e = "\\\"";
            break;
        case '\\':
            e = "\\\\";
            break;
        case 0:
            e = "\\0";
            break;
        case '\a':
            e = "\\a";
            break;
        case '\b':
            e = "\\b";
            break;
        case '\t':
            e = "\\t";
            break;
        case '\n':
            e = "\\n";
            break;
        case '\v':
            e = "\\v";
            break;
        case '\f':
            e = "\\f";
            break;
        case '\r':
            e = "\\r";
            break;
        case 0x1B:
            e = "\\e";
            break;
        case 0x85:
            e = "\\N";
            break;
        case 0x2028:
            e = "\\L";
            break;
        case 0x2029:
            e = "\\P";
            break;
        default:
            break;
        }
        if (e) {
            put(b, e, strlen(e));
        } else if (printable(cp)) {
            put(b, str + i, n);
        } else if (cp <= 0xFF) {
            esc[0] = '\\';
            esc[1] = 'x';
            esc[2] = hex[cp >> 4];
            esc[3] = hex[cp & 15];
            put(b, esc, 4);
        } else if (cp <= 0xFFFF) {
            esc[0] = '\\';
            esc[1] = 'u';
            for (int k = 0; k < 4; k++)
                esc[2 + k] = hex[(cp >> (12 - 4 * k)) & 15];
            put(b, esc, 6);
        } else {
            esc[0] = '\\';
            esc[1] = 'U';
            for (int k = 0; k < 8; k++)
                esc[2 + k] = hex[(cp >> (28 - 4 * k)) & 15];
            put(b, esc, 10);
        }
        i += n;
    }
    return slinky__buf_putc(b, '"');
}

/* A literal block is exact for this string. */
static bool literal_ok(const char *s, size_t len)
{
    if (!memchr(s, '\n', len))
        return false;
    if (s[0] == ' ' || s[0] == '\n' || s[0] == '\t')
        return false;
    for (size_t i = 0; i < len; i++) {
        if ((s[i] == ' ' || s[i] == '\t') && (i + 1 == len || s[i + 1] == '\n'))
            return false;
    }
    return all_printable(s, len, true);
}

static int put_literal(slinky__buf *b, const char *s, size_t len, size_t indent)
{
    size_t trailing = 0;
    while (trailing < len && s[len - 1 - trailing] == '\n')
        trailing++;
    const char *hdr = trailing == 0 ? "|-\n" : trailing == 1 ? "|\n" : "|+\n";
    put(b, hdr, strlen(hdr));
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) : len;
        if (end > i) {
            put_spaces(b, indent);
            put(b, s + i, end - i);
        }
        slinky__buf_putc(b, '\n');
        i = end + 1;
    }
    return b->failed ? SLINKY_ENOMEM : 0;
}

/* A scalar after "key:" or "- " (a leading space is written here); ends with "\n". */
static int put_scalar(slinky__buf *b, const slinky_doc_value *v, size_t indent, bool top)
{
    char num[48];
    switch (v->type) {
    case SLINKY_DOC_NULL:
        return put(b, "null\n", 5);
    case SLINKY_DOC_BOOL:
        return v->u.b ? put(b, "true\n", 5) : put(b, "false\n", 6);
    case SLINKY_DOC_INT: {
        size_t n = slinky_doc__format_int(num, v->u.i);
        num[n++] = '\n';
        return put(b, num, n);
    }
    case SLINKY_DOC_DOUBLE: {
        double d = v->u.num.d;
        if (isnan(d))
            return put(b, ".nan\n", 5);
        if (isinf(d))
            return d > 0 ? put(b, ".inf\n", 5) : put(b, "-.inf\n", 6);
        if (v->u.num.text) {
            put(b, v->u.num.text, strlen(v->u.num.text));
            return slinky__buf_putc(b, '\n');
        }
        size_t n = slinky_doc__format_double(num, sizeof(num) - 1, d);
        num[n++] = '\n';
        return put(b, num, n);
    }
    case SLINKY_DOC_STRING: {
        const char *s = v->u.str.s;
        size_t len = v->u.str.len;
        if (plain_ok(s, len)) {
            put(b, s, len);
            return slinky__buf_putc(b, '\n');
        }
        if (!top && literal_ok(s, len))
            return put_literal(b, s, len, indent + 2);
        put_double_quoted(b, s, len);
        return slinky__buf_putc(b, '\n');
    }
    default:
        return 0;
    }
}

static int put_key(slinky__buf *b, const char *k, size_t len, bool *explicit_key)
{
    size_t start = b->len;
    if (plain_ok(k, len))
        put(b, k, len);
    else
        put_double_quoted(b, k, len);
    *explicit_key = b->len - start > MAX_SIMPLE_KEY;
    return b->failed ? SLINKY_ENOMEM : 0;
}

static int emit_object(slinky__buf *b, const slinky_doc_value *v, unsigned flags, size_t indent,
                       bool inline_first);
static int emit_seq(slinky__buf *b, const slinky_doc_value *v, unsigned flags, size_t indent,
                    bool inline_first);

static bool is_empty_container(const slinky_doc_value *v)
{
    return (v->type == SLINKY_DOC_ARRAY && !v->u.arr.n) ||
           (v->type == SLINKY_DOC_OBJECT && !v->u.obj.n);
}

/* Value after "key:" (nothing written yet after the colon). */
static int emit_member_value(slinky__buf *b, const slinky_doc_value *v, unsigned flags,
                             size_t indent, bool explicit_key)
{
    if (v->type == SLINKY_DOC_OBJECT && v->u.obj.n) {
        slinky__buf_putc(b, '\n');
        return emit_object(b, v, flags, indent + 2, false);
    }
    if (v->type == SLINKY_DOC_ARRAY && v->u.arr.n) {
        slinky__buf_putc(b, '\n');
        return emit_seq(b, v, flags, explicit_key ? indent + 2 : indent, false);
    }
    if (is_empty_container(v))
        return put(b, v->type == SLINKY_DOC_ARRAY ? " []\n" : " {}\n", 4);
    slinky__buf_putc(b, ' ');
    return put_scalar(b, v, indent, false);
}

static int emit_object(slinky__buf *b, const slinky_doc_value *v, unsigned flags, size_t indent,
                       bool inline_first)
{
    uint32_t n = v->u.obj.n;
    uint32_t *order;
    int rc = slinky_doc__member_order(&order, v, flags);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const slinky_doc__member *m = &v->u.obj.m[order ? order[i] : i];
        if (i || !inline_first)
            put_spaces(b, indent);
        size_t mark = b->len;
        bool explicit_key;
        rc = put_key(b, m->key, m->keylen, &explicit_key);
        if (rc < 0)
            break;
        if (explicit_key) {
            /* too long for a simple key: "? key" then ": value" */
            size_t klen = b->len - mark;
            rc = slinky__buf_grow(b, 2);
            if (rc < 0)
                break;
            memmove(b->data + mark + 2, b->data + mark, klen);
            memcpy(b->data + mark, "? ", 2);
            b->len += 2;
            b->data[b->len] = '\0';
            slinky__buf_putc(b, '\n');
            put_spaces(b, indent);
        }
        slinky__buf_putc(b, ':');
        rc = emit_member_value(b, m->value, flags, indent, explicit_key);
    }
    free(order);
    if (rc == 0 && b->failed)
        rc = SLINKY_ENOMEM;
    return rc;
}

static int emit_seq(slinky__buf *b, const slinky_doc_value *v, unsigned flags, size_t indent,
                    bool inline_first)
{
    int rc = 0;
    for (uint32_t i = 0; i < v->u.arr.n && rc == 0; i++) {
        const slinky_doc_value *item = v->u.arr.items[i];
        if (i || !inline_first)
            put_spaces(b, indent);
        slinky__buf_putc(b, '-');
        if (item->type == SLINKY_DOC_OBJECT && item->u.obj.n) {
            slinky__buf_putc(b, ' ');
            rc = emit_object(b, item, flags, indent + 2, true);
        } else if (item->type == SLINKY_DOC_ARRAY && item->u.arr.n) {
            slinky__buf_putc(b, ' ');
            rc = emit_seq(b, item, flags, indent + 2, true);
        } else if (is_empty_container(item)) {
            rc = put(b, item->type == SLINKY_DOC_ARRAY ? " []\n" : " {}\n", 4);
        } else {
            slinky__buf_putc(b, ' ');
            rc = put_scalar(b, item, indent, false);
        }
    }
    if (rc == 0 && b->failed)
        rc = SLINKY_ENOMEM;
    return rc;
}

int slinky_doc__emit_yaml(slinky__buf *out, const slinky_doc_value *v, unsigned flags)
{
    int rc;
    if (v->type == SLINKY_DOC_OBJECT && v->u.obj.n)
        rc = emit_object(out, v, flags, 0, false);
    else if (v->type == SLINKY_DOC_ARRAY && v->u.arr.n)
        rc = emit_seq(out, v, flags, 0, false);
    else if (is_empty_container(v))
        rc = put(out, v->type == SLINKY_DOC_ARRAY ? "[]\n" : "{}\n", 3);
    else
        rc = put_scalar(out, v, 0, true);
    if (rc == 0 && out->failed)
        rc = SLINKY_ENOMEM;
    return rc;
}

slinky_status slinky_doc_value_dump_yaml(char **yaml_out, size_t *len_out,
                                         const slinky_doc_value *v, unsigned flags)
{
    if (!yaml_out || !v)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_dump_yaml: NULL argument");
    return slinky_doc__dump(yaml_out, len_out, v, flags, slinky_doc__emit_yaml);
}
