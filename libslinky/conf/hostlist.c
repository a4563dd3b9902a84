/* conf: Slurm hostlist expressions, expanded and compressed as Slurm 22.05 does. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define MAX_RANGE 65536 /* Slurm: "Too many hosts in range" above this */
#define MAX_HOSTS (1u << 20) /* far above any real cluster; bounds memory */

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static int strv_push(strv *s, char *str)
{
    if (!str)
        return SLINKY_ENOMEM;
    if (s->n >= MAX_HOSTS) {
        free(str);
        return slinky__error_set(SLINKY_EPARSE, "hostlist: too many hosts (more than %u)",
                                 MAX_HOSTS);
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        char **nv = slinky__realloc(s->v, nc * sizeof(*nv));
        if (!nv) {
            free(str);
            return SLINKY_ENOMEM;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = str;
    return 0;
}

void slinky_conf_strv_free(char **v, size_t count)
{
    if (!v)
        return;
    for (size_t i = 0; i < count; i++)
        free(v[i]);
    free(v);
}

/* "%0*lu" and "%s%s" without printf: they ran once per host of every range (callgrind,
 * 10,000-node check: vsnprintf was 16M of 127M instructions). */
static char *num_str(int width, unsigned long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof(digits));
    int len = width > n ? width : n;
    char *s = slinky__malloc((size_t)len + 1);
    if (!s)
        return NULL;
    memset(s, '0', (size_t)(len - n));
    for (int i = 0; i < n; i++)
        s[len - 1 - i] = digits[i];
    s[len] = '\0';
    return s;
}

static char *cat2(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = slinky__malloc(la + lb + 1);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

/* One bracket body "001-128,130" -> list of formatted numbers. */
static int parse_ranges(strv *out, const char *s, size_t n, const char *expr)
{
    size_t i = 0;
    while (i <= n) {
        size_t e = i;
        while (e < n && s[e] != ',')
            e++;
        /* one range s[i..e) */
        char tok[128];
        size_t tl = e - i;
        if (tl == 0 || tl >= sizeof(tok))
            return slinky__error_set(SLINKY_EPARSE,
                                     "_parse_single_range: Invalid range: `%.*s' in hostlist %s",
                                     (int)tl, s + i, expr);
        memcpy(tok, s + i, tl);
        tok[tl] = '\0';
        char *dash = strchr(tok, '-');
        char *endp;
        if (dash)
            *dash = '\0';
        unsigned long lo = strtoul(tok, &endp, 10);
        int bad = endp == tok || *endp != '\0' || tok[0] == '-' || tok[0] == '+';
        int width = (int)strlen(tok);
        unsigned long hi = lo;
        if (!bad && dash) {
            char *h = dash + 1;
            hi = strtoul(h, &endp, 10);
            bad = endp == h || *endp != '\0' || h[0] == '-' || h[0] == '+';
        }
        if (dash)
            *dash = '-';
        if (bad || hi < lo)
            return slinky__error_set(SLINKY_EPARSE,
                                     "_parse_single_range: Invalid range: `%s' in hostlist %s", tok,
                                     expr);
        if (hi - lo + 1 > MAX_RANGE)
            return slinky__error_set(SLINKY_EPARSE,
                                     "_parse_single_range: Too many hosts in range `%s' in hostlist %s",
                                     tok, expr);
        for (unsigned long v = lo; v <= hi; v++) {
            int rc = strv_push(out, num_str(width, v));
            if (rc < 0)
                return rc;
        }
        i = e + 1;
        if (e == n)
            break;
    }
    return 0;
}

/*
 * One token (no top-level separators). Slurm's order: the last bracket group
 * varies fastest; the groups before it vary first-fastest.
 */
static int expand_token(strv *out, const char *t, size_t n, const char *expr)
{
    const char *lb = NULL;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '[')
            lb = t + i;
    if (!lb)
        return strv_push(out, slinky__strndup(t, n));
    if (t[n - 1] != ']')
        return slinky__error_set(SLINKY_EPARSE, "Invalid hostlist: %s", expr);
    /* prefix before the last '[': expand its groups, first group fastest */
    strv pre = {NULL, 0, 0};
    int rc = strv_push(&pre, slinky__strdup(""));
    size_t i = 0, plen = (size_t)(lb - t);
    while (rc == 0 && i < plen) {
        if (t[i] == ']')
            rc = slinky__error_set(SLINKY_EPARSE, "Invalid hostlist: %s", expr);
        else if (t[i] != '[') {
            size_t j = i;
            while (j < plen && t[j] != '[' && t[j] != ']')
                j++;
            for (size_t k = 0; rc == 0 && k < pre.n; k++) {
                char *s = slinky__sprintf("%s%.*s", pre.v[k], (int)(j - i), t + i);
                if (!s)
                    rc = SLINKY_ENOMEM;
                else {
                    free(pre.v[k]);
                    pre.v[k] = s;
                }
            }
            i = j;
        } else {
            const char *close = memchr(t + i, ']', plen - i);
            if (!close) {
                rc = slinky__error_set(SLINKY_EPARSE, "Invalid hostlist: %s", expr);
                break;
            }
            strv nums = {NULL, 0, 0};
            rc = parse_ranges(&nums, t + i + 1, (size_t)(close - (t + i + 1)), expr);
            strv next = {NULL, 0, 0};
            for (size_t a = 0; rc == 0 && a < nums.n; a++)
                for (size_t b = 0; rc == 0 && b < pre.n; b++)
                    rc = strv_push(&next, cat2(pre.v[b], nums.v[a]));
            slinky_conf_strv_free(nums.v, nums.n);
            slinky_conf_strv_free(pre.v, pre.n);
            pre = next;
            i = (size_t)(close - t) + 1;
        }
    }
    strv last = {NULL, 0, 0};
    if (rc == 0) {
        const char *body = lb + 1;
        size_t bl = (size_t)(t + n - 1 - body);
        if (memchr(body, '[', bl))
            rc = slinky__error_set(SLINKY_EPARSE, "Invalid hostlist: %s", expr);
        else
            rc = parse_ranges(&last, body, bl, expr);
    }
    for (size_t a = 0; rc == 0 && a < pre.n; a++)
        for (size_t b = 0; rc == 0 && b < last.n; b++)
            rc = strv_push(out, cat2(pre.v[a], last.v[b]));
    slinky_conf_strv_free(pre.v, pre.n);
    slinky_conf_strv_free(last.v, last.n);
    return rc;
}

slinky_status slinky_conf_hostlist_expand(char ***out, size_t *count_out, const char *expr)
{
    if (!out || !count_out || !expr)
        return slinky__error_set(SLINKY_EINVALID, "hostlist: NULL argument");
    strv s = {NULL, 0, 0};
    int rc = 0;
    size_t n = strlen(expr), i = 0;
    while (rc == 0 && i < n) {
        while (i < n && (expr[i] == ',' || isspace((unsigned char)expr[i])))
            i++;
        if (i >= n)
            break;
        size_t st = i;
        int depth = 0;
        while (i < n) {
            if (expr[i] == '[')
                depth++;
            else if (expr[i] == ']')
                depth = depth ? depth - 1 : 0;
            else if (depth == 0 && (expr[i] == ',' || isspace((unsigned char)expr[i])))
                break;
            i++;
        }
        rc = expand_token(&s, expr + st, i - st, expr);
    }
    if (rc < 0) {
        slinky_conf_strv_free(s.v, s.n);
        return rc;
    }
    if (!s.v) {
        s.v = slinky__calloc(1, sizeof(char *));
        if (!s.v)
            return SLINKY_ENOMEM;
    }
    *out = s.v;
    *count_out = s.n;
    return 0;
}

/* ---------------------------------------------------------------- compress */

typedef struct hrange {
    char *prefix;
    unsigned long lo, hi;
    int width;
    int single; /* no numeric suffix */
} hrange;

static int zero_padded(unsigned long num, int width)
{
    int n = 1;
    while (num /= 10)
        n++;
    return width > n ? width - n : 0;
}

/* Slurm's _width_equiv: may adjust one width to the other. */
static int width_equiv(unsigned long n, int *wn, unsigned long m, int *wm)
{
    if (*wn == *wm)
        return 1;
    int npad = zero_padded(n, *wn), nmpad = zero_padded(n, *wm);
    int mpad = zero_padded(m, *wm), mnpad = zero_padded(m, *wn);
    if (npad != nmpad && mpad != mnpad)
        return 0;
    if (npad != nmpad) {
        if (mpad == mnpad) {
            *wm = *wn;
            return 1;
        }
        return 0;
    }
    if (mpad != mnpad) {
        *wn = *wm;
        return 1;
    }
    return 0;
}

static void split_host(const char *h, hrange *r)
{
    size_t n = strlen(h), i = n;
    while (i > 0 && isdigit((unsigned char)h[i - 1]))
        i--;
    r->single = i == n || n - i > 18;
    r->prefix = slinky__strndup(h, r->single ? n : i);
    r->lo = r->hi = r->single ? 0 : strtoul(h + i, NULL, 10);
    r->width = r->single ? 0 : (int)(n - i);
}

slinky_status slinky_conf_hostlist_compress(char **out, const char *const *hosts, size_t count)
{
    if (!out || (!hosts && count))
        return slinky__error_set(SLINKY_EINVALID, "hostlist: NULL argument");
    hrange *r = slinky__calloc(count ? count : 1, sizeof(*r));
    if (!r)
        return SLINKY_ENOMEM;
    size_t nr = 0;
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        if (!hosts[i] || !*hosts[i]) {
            rc = slinky__error_set(SLINKY_EINVALID, "hostlist: empty host name at %zu", i);
            break;
        }
        hrange h;
        split_host(hosts[i], &h);
        if (!h.prefix) {
            rc = SLINKY_ENOMEM;
            break;
        }
        hrange *t = nr ? &r[nr - 1] : NULL;
        if (t && !t->single && !h.single && t->hi + 1 == h.lo && !strcmp(t->prefix, h.prefix) &&
            width_equiv(t->lo, &t->width, h.lo, &h.width)) {
            t->hi = h.hi;
            free(h.prefix);
            continue;
        }
        r[nr++] = h;
    }
    slinky__buf b = SLINKY__BUF_INIT;
    for (size_t i = 0; rc == 0 && i < nr;) {
        /* group consecutive ranges with one prefix (none single) into one bracket */
        size_t j = i + 1;
        while (!r[i].single && j < nr && !r[j].single && !strcmp(r[j].prefix, r[i].prefix))
            j++;
        if (i)
            slinky__buf_putc(&b, ',');
        slinky__buf_puts(&b, r[i].prefix);
        if (r[i].single) {
            i++;
            continue;
        }
        int bracket = j - i > 1 || r[i].hi > r[i].lo;
        if (bracket)
            slinky__buf_putc(&b, '[');
        for (size_t k = i; k < j; k++) {
            if (k > i)
                slinky__buf_putc(&b, ',');
            slinky__buf_printf(&b, "%0*lu", r[k].width, r[k].lo);
            if (r[k].hi > r[k].lo)
                slinky__buf_printf(&b, "-%0*lu", r[k].width, r[k].hi);
        }
        if (bracket)
            slinky__buf_putc(&b, ']');
        i = j;
    }
    for (size_t i = 0; i < nr; i++)
        free(r[i].prefix);
    free(r);
    if (rc == 0 && b.failed)
        rc = slinky__error_oom();
    if (rc < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    char *s = slinky__buf_detach(&b, NULL);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}
