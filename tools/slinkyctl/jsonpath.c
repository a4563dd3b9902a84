/*
 * The JSONPath subset kubectl users write: {.a.b}, {.items[*].metadata.name},
 * [n], [*], .*, ['key'], [?(@.type=="Ready")] (==, != or bare existence),
 * {range EXPR}...{end}, {"literal\n"}, $ for the root. Several results of one
 * expression are joined with a space (printer columns: a comma).
 */
#include <stdlib.h>
#include <string.h>

#include "kctl.h"

typedef struct vals {
    const slinky_doc_value **v;
    size_t n, cap;
} vals;

static void push(vals *a, const slinky_doc_value *v)
{
    if (!v)
        return;
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 8;
        const slinky_doc_value **nv = realloc(a->v, nc * sizeof(*nv));
        if (!nv)
            return;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = v;
}

typedef struct buf {
    char *s;
    size_t n, cap;
    bool failed;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->n + n + 1) * 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->failed = true;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void put_value(buf *b, const slinky_doc_value *v)
{
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_STRING:
        put(b, slinky_doc_value_get_string(v), slinky_doc_value_get_string_len(v));
        break;
    case SLINKY_DOC_NULL: break;
    case SLINKY_DOC_BOOL: {
        const char *t = slinky_doc_value_get_bool(v) ? "true" : "false";
        put(b, t, strlen(t));
        break;
    }
    default:
        if (slinky_doc_value_is_number(v)) {
            const char *t = slinky_doc_value_get_number_text(v);
            char num[64];
            if (!t) { /* a number set in memory rather than parsed */
                if (slinky_doc_value_type(v) == SLINKY_DOC_INT)
                    snprintf(num, sizeof(num), "%lld", (long long)slinky_doc_value_get_int(v));
                else
                    snprintf(num, sizeof(num), "%.17g", slinky_doc_value_get_double(v));
                t = num;
            }
            put(b, t, strlen(t));
        } else {
            char *j = NULL;
            if (slinky_doc_value_dump_json(&j, NULL, v, SLINKY_DOC_DUMP_COMPACT) == 0)
                put(b, j, strlen(j));
            slinky_free(j);
        }
    }
}

/* The name after '.' or inside ['...']. */
static size_t name_len(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != '.' && p[n] != '[')
        n++;
    return n;
}

/* Does `e` pass the filter "@.path==\"value\"" (or "!=", or bare "@.path")? */
static bool filter_ok(const slinky_doc_value *e, const char *f, size_t flen)
{
    char tmp[512];
    snprintf(tmp, sizeof(tmp), "%.*s", (int)flen, f);
    char *op = strstr(tmp, "==");
    bool neg = false;
    if (!op && (op = strstr(tmp, "!=")))
        neg = true;
    char *lhs = tmp, *rhs = NULL;
    if (op) {
        *op = '\0';
        rhs = op + 2;
    }
    while (*lhs == ' ')
        lhs++;
    if (lhs[0] != '@')
        return false;
    lhs++;
    for (char *t = lhs + strlen(lhs); t > lhs && t[-1] == ' '; t--)
        t[-1] = '\0';
    const slinky_doc_value *v = *lhs == '.' ? slinky_doc_value_path(e, lhs + 1) : e;
    if (!rhs)
        return v != NULL;
    while (*rhs == ' ')
        rhs++;
    size_t rl = strlen(rhs);
    while (rl && rhs[rl - 1] == ' ')
        rhs[--rl] = '\0';
    if (rl >= 2 && (rhs[0] == '"' || rhs[0] == '\'') && rhs[rl - 1] == rhs[0]) {
        rhs[rl - 1] = '\0';
        rhs++;
    }
    buf b = {0};
    if (v)
        put_value(&b, v);
    bool eq = v && b.s && !strcmp(b.s, rhs);
    free(b.s);
    return neg ? v && !eq : eq;
}

/* Apply the path `p` to every value in `in`; false on a malformed path. */
static bool eval(vals *out, const char *p, const slinky_doc_value *start, char *err, size_t errlen)
{
    vals cur = {0};
    push(&cur, start);
    while (*p) {
        vals next = {0};
        if (p[0] == '.' && p[1] == '.') {
            snprintf(err, errlen, "recursive descent (..) is not supported");
            free(cur.v);
            return false;
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                for (size_t i = 0; i < cur.n; i++)
                    for (size_t j = 0; j < slinky_doc_value_size(cur.v[i]); j++)
                        push(&next, slinky_doc_value_at(cur.v[i], j));
                p++;
            } else {
                size_t n = name_len(p);
                char key[256];
                snprintf(key, sizeof(key), "%.*s", (int)n, p);
                for (size_t i = 0; n && i < cur.n; i++)
                    push(&next, slinky_doc_value_get(cur.v[i], key));
                p += n;
            }
        } else if (*p == '[') {
            const char *end = p[1] == '?' ? strstr(p, ")]") : strchr(p, ']');
            if (!end) {
                snprintf(err, errlen, "unclosed [ in \"%s\"", p);
                free(cur.v);
                return false;
            }
            if (p[1] == '?') {
                const char *f = p + 2 + (p[2] == '(');
                for (size_t i = 0; i < cur.n; i++)
                    for (size_t j = 0; j < slinky_doc_value_size(cur.v[i]); j++)
                        if (slinky_doc_value_type(cur.v[i]) == SLINKY_DOC_ARRAY &&
                            filter_ok(slinky_doc_value_at(cur.v[i], j), f, (size_t)(end - f)))
                            push(&next, slinky_doc_value_at(cur.v[i], j));
                end++;
            } else if (p[1] == '*') {
                for (size_t i = 0; i < cur.n; i++)
                    for (size_t j = 0; j < slinky_doc_value_size(cur.v[i]); j++)
                        push(&next, slinky_doc_value_at(cur.v[i], j));
            } else if (p[1] == '\'' || p[1] == '"') {
                char key[256];
                snprintf(key, sizeof(key), "%.*s", (int)(end - p - 3), p + 2);
                for (size_t i = 0; i < cur.n; i++)
                    push(&next, slinky_doc_value_get(cur.v[i], key));
            } else {
                char *e2 = NULL;
                long idx = strtol(p + 1, &e2, 10);
                if (e2 != end) {
                    snprintf(err, errlen, "unsupported index \"%.*s\"", (int)(end - p + 1), p);
                    free(cur.v);
                    free(next.v);
                    return false;
                }
                for (size_t i = 0; i < cur.n; i++) {
                    long sz = (long)slinky_doc_value_size(cur.v[i]);
                    long at = idx < 0 ? sz + idx : idx;
                    if (slinky_doc_value_type(cur.v[i]) == SLINKY_DOC_ARRAY && at >= 0 && at < sz)
                        push(&next, slinky_doc_value_at(cur.v[i], (size_t)at));
                }
            }
            p = end + 1;
        } else {
            snprintf(err, errlen, "unexpected \"%s\"", p);
            free(cur.v);
            return false;
        }
        free(cur.v);
        cur = next;
    }
    for (size_t i = 0; i < cur.n; i++)
        push(out, cur.v[i]);
    free(cur.v);
    return true;
}

static bool eval_expr(vals *out, const char *expr, size_t len, const slinky_doc_value *root,
                      const slinky_doc_value *cur, char *err, size_t errlen)
{
    char tmp[1024];
    while (len && *expr == ' ')
        expr++, len--;
    while (len && expr[len - 1] == ' ')
        len--;
    snprintf(tmp, sizeof(tmp), "%.*s", (int)len, expr);
    const char *p = tmp;
    const slinky_doc_value *start = cur;
    if (*p == '$') {
        start = root;
        p++;
    } else if (*p == '@') {
        p++;
    }
    if (*p && *p != '.' && *p != '[') {
        snprintf(err, errlen, "unrecognized identifier %s", tmp);
        return false;
    }
    return eval(out, p, start, err, errlen);
}

/* "range EXPR" (kubectl also takes "range.items[*]") */
static bool is_range(const char *in)
{
    return !strncmp(in, "range", 5) && (in[5] == ' ' || in[5] == '.' || in[5] == '@' || in[5] == '$');
}

/* The end of the {...} that starts at p (p at '{'), skipping quoted text. */
static const char *close_brace(const char *p)
{
    bool q = false;
    for (p++; *p; p++) {
        if (q && *p == '\\' && p[1])
            p++;
        else if (*p == '"')
            q = !q;
        else if (!q && *p == '}')
            return p;
    }
    return NULL;
}

/* The matching {end} of a {range} whose body starts at p. */
static const char *find_end(const char *p, const char **after)
{
    int depth = 1;
    while ((p = strchr(p, '{'))) {
        const char *c = close_brace(p);
        if (!c)
            return NULL;
        const char *in = p + 1;
        while (*in == ' ')
            in++;
        if (is_range(in))
            depth++;
        else if (!strncmp(in, "end", 3) && (in[3] == '}' || in[3] == ' ') && --depth == 0) {
            *after = c + 1;
            return p;
        }
        p = c + 1;
    }
    return NULL;
}

static bool render(buf *b, const char *t, const char *tend, const slinky_doc_value *root,
                   const slinky_doc_value *cur, char *err, size_t errlen)
{
    while (t < tend) {
        const char *open = memchr(t, '{', (size_t)(tend - t));
        if (!open) {
            put(b, t, (size_t)(tend - t));
            return true;
        }
        put(b, t, (size_t)(open - t));
        const char *close = close_brace(open);
        if (!close || close >= tend) {
            snprintf(err, errlen, "unclosed action");
            return false;
        }
        const char *in = open + 1;
        while (*in == ' ')
            in++;
        if (*in == '"') { /* a literal with \n, \t, \" and \\ */
            for (const char *q = in + 1; q < close && *q != '"'; q++) {
                char ch = *q;
                if (ch == '\\' && q + 1 < close) {
                    q++;
                    ch = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q == 'r' ? '\r' : *q;
                }
                put(b, &ch, 1);
            }
            t = close + 1;
        } else if (is_range(in)) {
            const char *after = NULL, *end = find_end(close + 1, &after);
            if (!end) {
                snprintf(err, errlen, "{range} without {end}");
                return false;
            }
            vals items = {0};
            if (!eval_expr(&items, in + 5, (size_t)(close - in - 5), root, cur, err, errlen)) {
                free(items.v);
                return false;
            }
            /* a range over one array value walks its elements */
            if (items.n == 1 && slinky_doc_value_type(items.v[0]) == SLINKY_DOC_ARRAY) {
                const slinky_doc_value *arr = items.v[0];
                items.n = 0;
                for (size_t i = 0; i < slinky_doc_value_size(arr); i++)
                    push(&items, slinky_doc_value_at(arr, i));
            }
            for (size_t i = 0; i < items.n; i++)
                if (!render(b, close + 1, end, root, items.v[i], err, errlen)) {
                    free(items.v);
                    return false;
                }
            free(items.v);
            t = after;
        } else if (!strncmp(in, "end", 3)) {
            snprintf(err, errlen, "{end} without {range}");
            return false;
        } else {
            vals r = {0};
            if (!eval_expr(&r, in, (size_t)(close - in), root, cur, err, errlen)) {
                free(r.v);
                return false;
            }
            for (size_t i = 0; i < r.n; i++) {
                if (i)
                    put(b, " ", 1);
                put_value(b, r.v[i]);
            }
            free(r.v);
            t = close + 1;
        }
    }
    return true;
}

char *kctl_jsonpath(const char *tmpl, const slinky_doc_value *root, char *err, size_t errlen)
{
    buf b = {0};
    put(&b, "", 0);
    if (!render(&b, tmpl, tmpl + strlen(tmpl), root, root, err, errlen) || b.failed) {
        if (b.failed)
            snprintf(err, errlen, "out of memory");
        free(b.s);
        return NULL;
    }
    return b.s;
}

char *kctl_jsonpath_values(const char *expr, const slinky_doc_value *root, const char *sep)
{
    vals r = {0};
    char err[128];
    buf b = {0};
    put(&b, "", 0);
    if (eval_expr(&r, expr, strlen(expr), root, root, err, sizeof(err)))
        for (size_t i = 0; i < r.n; i++) {
            if (i)
                put(&b, sep, strlen(sep));
            put_value(&b, r.v[i]);
        }
    free(r.v);
    return b.s;
}
