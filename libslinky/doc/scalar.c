/*
 * Scalar helpers: JSON number text, number formatting, go-yaml v2 plain
 * scalar resolution (the typing kubectl applies to manifests) and byte
 * offset to line/column conversion.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t skip_digits(const char *t, size_t len, size_t i)
{
    while (i < len && is_digit(t[i]))
        i++;
    return i;
}

/* An optional exponent [eE][-+]?[0-9]+ at *i; false when malformed. */
static bool skip_exponent(const char *t, size_t len, size_t *i)
{
    size_t k = *i;
    if (k >= len || (t[k] != 'e' && t[k] != 'E'))
        return true;
    k++;
    if (k < len && (t[k] == '+' || t[k] == '-'))
        k++;
    if (k >= len || !is_digit(t[k]))
        return false;
    *i = skip_digits(t, len, k);
    return true;
}

bool slinky_doc__is_json_number(const char *t, size_t len)
{
    size_t i = 0;
    if (i < len && t[i] == '-')
        i++;
    if (i >= len)
        return false;
    if (t[i] == '0')
        i++;
    else if (t[i] >= '1' && t[i] <= '9')
        i = skip_digits(t, len, i);
    else
        return false;
    if (i < len && t[i] == '.') {
        i++;
        if (i >= len || !is_digit(t[i]))
            return false;
        i = skip_digits(t, len, i);
    }
    return skip_exponent(t, len, &i) && i == len;
}

int slinky_doc__number_from_text(slinky_doc_value *v, const char *text, size_t len)
{
    size_t i = 0;
    int neg = 0;
    if (len && text[0] == '-') {
        neg = 1;
        i = 1;
    }
    uint64_t acc = 0;
    int ok = i < len;
    for (; i < len; i++) {
        unsigned d = (unsigned char)text[i] - '0';
        if (d > 9) {
            ok = 0;
            break;
        }
        if (acc > (UINT64_MAX - d) / 10) {
            ok = 0;
            break;
        }
        acc = acc * 10 + d;
    }
    if (ok) {
        if (!neg && acc <= (uint64_t)INT64_MAX) {
            v->type = SLINKY_DOC_INT;
            v->u.num.text = NULL;
            v->u.i = (int64_t)acc;
            return 0;
        }
        if (neg && acc <= (uint64_t)INT64_MAX + 1) {
            v->type = SLINKY_DOC_INT;
            v->u.num.text = NULL;
            v->u.i = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
            return 0;
        }
    }
    char *t = slinky_doc__strdup(v->doc, text, len);
    if (!t)
        return SLINKY_ENOMEM;
    v->type = SLINKY_DOC_DOUBLE;
    v->u.num.d = strtod(t, NULL);
    v->u.num.text = t;
    return 0;
}

size_t slinky_doc__format_int(char *buf, int64_t i)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (i < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

size_t slinky_doc__format_double(char *buf, size_t size, double d)
{
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (n < 0)
        n = 0;
    if ((size_t)n >= size)
        n = (int)size - 1;
    if (!strpbrk(buf, ".eEni") && (size_t)n + 2 < size) {
        buf[n++] = '.';
        buf[n++] = '0';
        buf[n] = '\0';
    }
    return (size_t)n;
}

void slinky_doc__position(const char *data, size_t len, size_t off, int *line, int *col)
{
    if (off > len)
        off = len;
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++) {
        if (data[i] == '\n') {
            l++;
            start = i + 1;
        }
    }
    *line = l;
    *col = (int)(off - start) + 1;
}

/* ------------------------------------------------------------------ YAML typing */

typedef struct resolved {
    slinky_doc_type type;
    bool b;
    int64_t i;
    double d;
    const char *text; /* number text for DOUBLE, or NULL */
    size_t textlen;
    char numbuf[24];
} resolved;

static bool in_list(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++) {
        if (strlen(*list) == len && memcmp(*list, s, len) == 0)
            return true;
    }
    return false;
}

/* Go strconv.ParseUint(s, 0, 64) on s (no underscores). */
static bool go_parse_uint(const char *s, size_t len, uint64_t *out)
{
    if (!len)
        return false;
    unsigned base = 10;
    if (s[0] == '0') {
        if (len >= 3 && (s[1] == 'b' || s[1] == 'B')) {
            base = 2;
            s += 2;
            len -= 2;
        } else if (len >= 3 && (s[1] == 'o' || s[1] == 'O')) {
            base = 8;
            s += 2;
            len -= 2;
        } else if (len >= 3 && (s[1] == 'x' || s[1] == 'X')) {
            base = 16;
            s += 2;
            len -= 2;
        } else {
            base = 8;
            s += 1;
            len -= 1;
        }
    }
    uint64_t acc = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'z')
            d = (unsigned)(c - 'a') + 10;
        else if (c >= 'A' && c <= 'Z')
            d = (unsigned)(c - 'A') + 10;
        else
            return false;
        if (d >= base)
            return false;
        if (acc > (UINT64_MAX - d) / base)
            return false;
        acc = acc * base + d;
    }
    *out = acc;
    return true;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *t, size_t len)
{
    size_t i = 0;
    if (i < len && (t[i] == '+' || t[i] == '-'))
        i++;
    if (i < len && t[i] == '.') {
        i++;
        if (i >= len || !is_digit(t[i]))
            return false;
        i = skip_digits(t, len, i);
    } else {
        if (i >= len || !is_digit(t[i]))
            return false;
        i = skip_digits(t, len, i);
        if (i < len && t[i] == '.')
            i = skip_digits(t, len, i + 1);
    }
    return skip_exponent(t, len, &i) && i == len;
}

/* strtod of len bytes; false on overflow (Go's ParseFloat range error). */
static bool parse_float(const char *s, size_t len, double *out)
{
    char stack[128];
    char *tmp = len < sizeof(stack) ? stack : malloc(len + 1);
    if (!tmp)
        return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    double d = strtod(tmp, NULL);
    int err = errno;
    if (tmp != stack)
        free(tmp);
    if (err == ERANGE && isinf(d))
        return false;
    *out = d;
    return true;
}

static const char *const yaml_true[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                        "on", "On", "ON", NULL};
static const char *const yaml_false[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                         "off", "Off", "OFF", NULL};
static const char *const yaml_null[] = {"~", "null", "Null", "NULL", NULL};
static const char *const yaml_nan[] = {".nan", ".NaN", ".NAN", NULL};
static const char *const yaml_pinf[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
static const char *const yaml_ninf[] = {"-.inf", "-.Inf", "-.INF", NULL};

/* r->text may point into `scratch` (len+1 bytes, caller-provided) */
static void resolve(resolved *r, const char *s, size_t len, char *scratch)
{
    r->type = SLINKY_DOC_STRING;
    r->text = NULL;
    r->textlen = 0;
    if (len == 0 || in_list(s, len, yaml_null)) {
        r->type = SLINKY_DOC_NULL;
        return;
    }
    char c = s[0];
    if (in_list(s, len, yaml_true) || in_list(s, len, yaml_false)) {
        r->type = SLINKY_DOC_BOOL;
        r->b = in_list(s, len, yaml_true);
        return;
    }
    if (c == '.' || c == '+' || c == '-') {
        if (in_list(s, len, yaml_nan)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = NAN;
            return;
        }
        if (in_list(s, len, yaml_pinf)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = INFINITY;
            return;
        }
        if (in_list(s, len, yaml_ninf)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = -INFINITY;
            return;
        }
    }
    if (c == '.') {
        /* Go ParseFloat of the text as is */
        size_t i = 1;
        if (i >= len || !is_digit(s[i]))
            return;
        i = skip_digits(s, len, i);
        if (!skip_exponent(s, len, &i) || i != len)
            return;
        double d;
        if (parse_float(s, len, &d)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = d;
        }
        return;
    }
    if (!is_digit(c) && c != '+' && c != '-')
        return;
    /* remove underscores */
    size_t pl = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '_')
            scratch[pl++] = s[i];
    }
    scratch[pl] = '\0';
    const char *p = scratch;
    /* ParseInt(plain, 0, 64) */
    {
        const char *q = p;
        size_t ql = pl;
        int neg = 0;
        if (ql && (q[0] == '+' || q[0] == '-')) {
            neg = q[0] == '-';
            q++;
            ql--;
        }
        uint64_t u;
        if (go_parse_uint(q, ql, &u)) {
            if (!neg && u <= (uint64_t)INT64_MAX) {
                r->type = SLINKY_DOC_INT;
                r->i = (int64_t)u;
                return;
            }
            if (neg && u <= (uint64_t)INT64_MAX + 1) {
                r->type = SLINKY_DOC_INT;
                r->i = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
                return;
            }
        }
    }
    /* ParseUint(plain, 0, 64): beyond int64 */
    {
        uint64_t u;
        if (go_parse_uint(p, pl, &u)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = (double)u;
            size_t n = 0;
            char tmp[24];
            do {
                tmp[n++] = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            size_t k = 0;
            while (n)
                r->numbuf[k++] = tmp[--n];
            r->numbuf[k] = '\0';
            r->text = r->numbuf;
            r->textlen = k;
            return;
        }
    }
    if (yaml_style_float(p, pl)) {
        double d;
        if (parse_float(p, pl, &d)) {
            r->type = SLINKY_DOC_DOUBLE;
            r->d = d;
            if (slinky_doc__is_json_number(p, pl)) {
                r->text = p;
                r->textlen = pl;
            }
        }
    }
}

slinky_doc_type slinky_doc__yaml_resolve_type(const char *s, size_t len)
{
    resolved r;
    char stack[128];
    if (len && s[0] != '+' && s[0] != '-' && !is_digit(s[0])) {
        resolve(&r, s, len, stack); /* scratch unused */
        return r.type;
    }
    char *scratch = len < sizeof(stack) ? stack : malloc(len + 1);
    if (!scratch)
        return SLINKY_DOC_STRING;
    resolve(&r, s, len, scratch);
    if (scratch != stack)
        free(scratch);
    return r.type;
}

int slinky_doc__yaml_resolve(slinky_doc_value *v, const char *s, size_t len)
{
    resolved r;
    char stack[128];
    char *scratch = len < sizeof(stack) ? stack : malloc(len + 1);
    if (!scratch)
        return slinky__error_oom();
    resolve(&r, s, len, scratch);
    int rc = 0;
    switch (r.type) {
    case SLINKY_DOC_NULL:
        v->type = SLINKY_DOC_NULL;
        break;
    case SLINKY_DOC_BOOL:
        v->type = SLINKY_DOC_BOOL;
        v->u.b = r.b;
        break;
    case SLINKY_DOC_INT:
        v->type = SLINKY_DOC_INT;
        v->u.i = r.i;
        break;
    case SLINKY_DOC_DOUBLE:
        rc = slinky_doc__set_number(v, r.d, r.text, r.textlen);
        break;
    default:
        rc = slinky_doc__set_str(v, s, len);
        break;
    }
    if (scratch != stack)
        free(scratch);
    return rc;
}
