/* conf: the slurm.conf grammar (as measured against slurmctld 22.05). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define MAX_INCLUDE_DEPTH 16

static const char *const record_types[] = {"NodeName", "PartitionName", "NodeSet", "DownNodes",
                                           "FrontendName"};

const char *slinky_conf__record_type(const char *key)
{
    /* every line's first key comes here: most are not records, tell by the first letter */
    unsigned char k0 = (unsigned char)(key[0] | 0x20);
    if (k0 != 'n' && k0 != 'p' && k0 != 'd' && k0 != 'f')
        return NULL;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(record_types); i++)
        if (slinky_conf__ieq(key, record_types[i]))
            return record_types[i];
    return NULL;
}

int slinky_conf__is_record_key(const char *key)
{
    return slinky_conf__record_type(key) != NULL;
}

slinky_status slinky_conf_parse_options_init(slinky_conf_parse_options *opts, unsigned int version)
{
    if (!opts || version != SLINKY_CONF_PARSE_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown parse options version %u", version);
    slinky_conf_parse_options d = SLINKY_CONF_PARSE_OPTIONS_INIT;
    *opts = d;
    return 0;
}

int slinky_conf__warn(slinky_conf *conf, int line, int col, const char *fmt, ...)
{
    slinky__buf b = SLINKY__BUF_INIT;
    va_list ap;
    slinky__buf_printf(&b, "%s:%d:%d: warning: ", conf->filename, line, col);
    va_start(ap, fmt);
    slinky__buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return SLINKY_ENOMEM;
    }
    size_t n = conf->nwarnings;
    if ((n & (n - 1)) == 0) { /* grow at 0, 1, 2, 4, 8... */
        char **w = slinky__realloc(conf->warnings, (n ? n * 2 : 1) * sizeof(*w));
        if (!w) {
            slinky__buf_dispose(&b);
            return SLINKY_ENOMEM;
        }
        conf->warnings = w;
    }
    conf->warnings[conf->nwarnings++] = slinky__buf_detach(&b, NULL);
    return 0;
}

void slinky_conf__pairs_free(slinky_conf__pair *p, size_t n)
{
    /* A parsed line's pairs share one block, key i right after value i-1; the block is at
     * the end of the array's own allocation, or (an edit replaced pair 0) on its own. Last to
     * first, so that pair i-1 is still there to ask. */
    for (size_t i = n; i-- > 0;) {
        if (i > 0 && p[i].key == p[i - 1].value + strlen(p[i - 1].value) + 1)
            continue;
        if (i == 0 && p[0].key == (char *)(p + n))
            continue; /* in the array's allocation */
        free(p[i].key); /* the value lives in the same block */
    }
    free(p);
}

void slinky_conf__pair0_free(slinky_conf__pair *p, size_t n)
{
    if (p[0].key != (char *)(p + n)) /* not in the array's allocation */
        free(p[0].key);
}

static void line_dispose(slinky_conf__line *l)
{
    free(l->raw);
    slinky_conf__pairs_free(l->pairs, l->npairs);
    slinky_conf_free(l->included);
}

void slinky_conf_free(slinky_conf *conf)
{
    if (!conf)
        return;
    for (size_t i = 0; i < conf->nlines; i++)
        line_dispose(&conf->lines[i]);
    free(conf->lines);
    for (size_t i = 0; i < conf->nwarnings; i++)
        free(conf->warnings[i]);
    free(conf->warnings);
    free(conf->filename);
    free(conf->dir);
    free(conf);
}

/* Parse error with Slurm's wording, prefixed with FILE:LINE:COL. */
static int perr(const slinky_conf *c, int line, int col, const char *fmt, ...) SLINKY_PRINTF(4, 5);
static int perr(const slinky_conf *c, int line, int col, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* "FILE: line L, column C: message" */
    slinky__error_set_pos(SLINKY_EPARSE, line, col, "%s", msg);
    slinky__error_prefix("%s: ", c->filename);
    return SLINKY_EPARSE;
}

/* Key and value live in one block: key, NUL, value, NUL (free the key only). */
int slinky_conf__pair_block(slinky_conf__pair *p, const char *k, size_t klen, const char *v,
                            size_t vlen)
{
    char *blk = slinky__malloc(klen + vlen + 2);
    if (!blk)
        return SLINKY_ENOMEM;
    memcpy(blk, k, klen);
    blk[klen] = '\0';
    char *val = blk + klen + 1;
    size_t o = 0;
    for (size_t i = 0; i < vlen; i++) {
        if (v[i] == '\\' && i + 1 < vlen && v[i + 1] == '#')
            continue; /* \# is a literal # */
        val[o++] = v[i];
    }
    val[o] = '\0';
    p->key = blk;
    p->value = val;
    return 0;
}

/* isspace() of the C locale as one table load (the locale call ran for every byte). */
static const unsigned char blank_tab[256] = {['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1,
                                             ['\r'] = 1, [' '] = 1};
static inline int is_blank(char ch)
{
    return blank_tab[(unsigned char)ch];
}

/* Room for the line's pairs, allocated once: the number of '=' of the logical line bounds
 * them (every pair has one); a directive or an Include has one pair and may have none. */
static int reserve_pairs(slinky_conf__line *l, const char *s, size_t n)
{
    size_t cap = 0;
    for (const char *p = s, *e = s + n; (p = memchr(p, '=', (size_t)(e - p))) != NULL; p++)
        cap++;
    if (cap == 0)
        cap = 1;
    l->pairs = slinky__malloc(cap * sizeof(*l->pairs));
    return l->pairs ? 0 : SLINKY_ENOMEM;
}

/*
 * A parsed line's keys and values live in one block, "k0\0v0\0k1\0v1\0..." owned by the
 * first key (slinky_conf__pairs_free): one allocation a line instead of one a pair (50,000
 * NodeName lines: 150,000 fewer blocks, ~2.4 MB of peak RSS). While the line is split they are
 * built in `pb` and key/value hold offsets into it; bind_pairs() makes them pointers.
 */
static int add_pair(slinky_conf__line *l, slinky__buf *pb, const char *k, size_t klen,
                    const char *v, size_t vlen, int col, int vcol)
{
    slinky_conf__pair *p = &l->pairs[l->npairs];
    if (slinky__buf_grow(pb, klen + vlen + 2) < 0)
        return SLINKY_ENOMEM;
    size_t koff = pb->len, voff = koff + klen + 1;
    char *d = pb->data + koff;
    memcpy(d, k, klen);
    d[klen] = '\0';
    char *val = d + klen + 1;
    size_t o = 0;
    for (const char *bs, *e = v + vlen; v < e; v = bs + 1) {
        bs = memchr(v, '\\', (size_t)(e - v));
        if (!bs)
            bs = e;
        memcpy(val + o, v, (size_t)(bs - v));
        o += (size_t)(bs - v);
        if (bs < e && !(bs + 1 < e && bs[1] == '#')) /* \# is a literal #; other \ stay */
            val[o++] = '\\';
    }
    val[o] = '\0';
    pb->len = voff + o + 1;
    p->key = (char *)(uintptr_t)koff;
    p->value = (char *)(uintptr_t)voff;
    p->column = col;
    p->vcolumn = vcol;
    l->npairs++;
    return 0;
}

/* The text goes right after the pair array, in the same allocation (slinky_conf__pairs_free
 * knows it by key 0 starting at the array's end). */
static int bind_pairs(slinky_conf__line *l, const slinky__buf *pb)
{
    size_t arr = l->npairs * sizeof(*l->pairs);
    slinky_conf__pair *np = slinky__realloc(l->pairs, arr + pb->len);
    if (!np)
        return SLINKY_ENOMEM;
    l->pairs = np;
    char *blk = (char *)np + arr;
    memcpy(blk, pb->data, pb->len);
    for (size_t i = 0; i < l->npairs; i++) {
        l->pairs[i].key = blk + (uintptr_t)l->pairs[i].key;
        l->pairs[i].value = blk + (uintptr_t)l->pairs[i].value;
    }
    return 0;
}

/*
 * Split the logical text `s` (comments and continuations removed) into pairs.
 * `col0` maps offsets in s to columns (1-based) for the first physical line.
 */
static int split_pairs(slinky_conf *c, slinky_conf__line *l, const char *s, size_t n,
                       slinky__buf *pb)
{
    size_t i = 0;
    int rc;
    while (i < n && is_blank(s[i]))
        i++;
    l->indent = (int)i;
    if (i == n) {
        l->type = l->comment_off < l->raw_len ? SLINKY_CONF_LINE_COMMENT : SLINKY_CONF_LINE_BLANK;
        return 0;
    }
    if ((rc = reserve_pairs(l, s + i, n - i)) < 0)
        return rc;
    if (c->kind == SLINKY_CONF_KIND_PLUGSTACK) {
        size_t ks = i;
        while (i < n && !is_blank(s[i]))
            i++;
        size_t ke = i;
        while (i < n && is_blank(s[i]))
            i++;
        size_t ve = n;
        while (ve > i && is_blank(s[ve - 1]))
            ve--;
        l->type = SLINKY_CONF_LINE_DIRECTIVE;
        return add_pair(l, pb, s + ks, ke - ks, s + i, ve - i, (int)ks + 1, (int)i + 1);
    }
    /* Include FILE (no '=') */
    if (n - i > 7 && !strncasecmp(s + i, "include", 7) && is_blank(s[i + 7])) {
        size_t ps = i + 7;
        while (ps < n && is_blank(s[ps]))
            ps++;
        size_t pe = n;
        while (pe > ps && is_blank(s[pe - 1]))
            pe--;
        if (pe == ps)
            return perr(c, l->lineno, (int)i + 1, "Parse error in file %s line %d: \"%.*s\"",
                        c->filename, l->lineno, (int)n, s);
        l->type = SLINKY_CONF_LINE_INCLUDE;
        return add_pair(l, pb, s + i, 7, s + ps, pe - ps, (int)i + 1, (int)ps + 1);
    }
    int multi = 0;
    for (;;) {
        size_t ks = i;
        while (i < n && s[i] != '=' && !is_blank(s[i]))
            i++;
        size_t ke = i;
        while (i < n && is_blank(s[i]))
            i++;
        if (ke == ks || i >= n || s[i] != '=') {
            if (l->npairs == 0)
                return perr(c, l->lineno, (int)ks + 1,
                            "_parse_next_key: Parsing error at unrecognized key: %.*s",
                            (int)(ke - ks), s + ks);
            return perr(c, l->lineno, (int)ks + 1, "Parse error in file %s line %d: \"%.*s\"",
                        c->filename, l->lineno, (int)(n - ks), s + ks);
        }
        i++; /* '=' */
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t vs = i, ve;
        int vcol = (int)i + 1;
        if (i < n && s[i] == '"') {
            vs = ++i;
            while (i < n && s[i] != '"')
                i++;
            if (i >= n)
                return perr(c, l->lineno, (int)vs, "Parse error in file %s line %d: \"%.*s\"",
                            c->filename, l->lineno, (int)(n - ks), s + ks);
            ve = i++;
        } else {
            while (i < n && !is_blank(s[i]))
                i++;
            ve = i;
        }
        if (ve == vs && !(ve > 0 && s[ve] == '"'))
            return perr(c, l->lineno, (int)ks + 1, "Parse error in file %s line %d: \"%.*s\"",
                        c->filename, l->lineno, (int)(i - ks), s + ks);
        if ((rc = add_pair(l, pb, s + ks, ke - ks, s + vs, ve - vs, (int)ks + 1, vcol)) < 0)
            return rc;
        if (l->npairs == 1) {
            if (c->kind == SLINKY_CONF_KIND_SLURM)
                multi = (l->rtype = slinky_conf__record_type(pb->data)) != NULL; /* key 0 */
            else
                multi = c->kind == SLINKY_CONF_KIND_GRES ||
                        c->kind == SLINKY_CONF_KIND_JOB_CONTAINER;
        }
        size_t rest = i;
        while (i < n && is_blank(s[i]))
            i++;
        if (i >= n)
            break;
        if (!multi)
            return perr(c, l->lineno, (int)rest + 1, "Parse error in file %s line %d: \"%.*s\"",
                        c->filename, l->lineno, (int)(n - rest), s + rest);
    }
    l->type = (c->kind == SLINKY_CONF_KIND_SLURM ? l->rtype != NULL : l->npairs > 1)
                  ? SLINKY_CONF_LINE_RECORD
                  : SLINKY_CONF_LINE_PAIR;
    return 0;
}

static int parse_pairs(slinky_conf *c, slinky_conf__line *l, const char *s, size_t n,
                       slinky__buf *pb)
{
    slinky__buf_clear(pb);
    int rc = split_pairs(c, l, s, n, pb);
    if (rc == 0 && l->npairs)
        rc = bind_pairs(l, pb);
    if (rc < 0)
        l->npairs = 0; /* offsets, not blocks: nothing of them to free */
    return rc;
}

/*
 * Build the logical text of one physical line into `lg`: drop the comment
 * (`#` not preceded by `\`), and report whether it ends with a continuation.
 */
/* Where the comment of a physical line starts (`#` not after `\`), or n. */
static size_t comment_start(const char *p, size_t n)
{
    for (const char *h = p, *e = p + n; (h = memchr(h, '#', (size_t)(e - h))) != NULL; h++)
        if (h == p || h[-1] != '\\')
            return (size_t)(h - p);
    return n;
}

/* Slurm: an odd number of trailing backslashes (blanks after them allowed). */
static size_t trailing_backslashes(const char *p, size_t end, size_t *j_out)
{
    size_t bs = 0, j = end;
    while (j > 0) {
        char ch = p[j - 1];
        if (ch == '\\')
            bs++;
        else if (is_blank(ch) && bs == 0)
            ;
        else
            break;
        j--;
    }
    *j_out = j;
    return bs;
}

int slinky_conf__continues(const char *raw, size_t len)
{
    size_t start = len;
    if (start && raw[start - 1] == '\n')
        start--;
    while (start && raw[start - 1] != '\n')
        start--;
    size_t j;
    return trailing_backslashes(raw + start, comment_start(raw + start, len - start), &j) % 2 == 1;
}

static int physical(slinky__buf *lg, const char *p, size_t n, size_t *comment_at, int *cont)
{
    size_t end = comment_start(p, n);
    *comment_at = end;
    size_t j, bs = trailing_backslashes(p, end, &j);
    *cont = bs % 2 == 1;
    if (*cont)
        end = j + bs - 1;
    else {
        while (end > 0 && (p[end - 1] == '\r' || p[end - 1] == '\n'))
            end--;
    }
    return slinky__buf_put(lg, p, end);
}

static int conf_push_line(slinky_conf *c, slinky_conf__line **out)
{
    if (c->nlines == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        slinky_conf__line *nl = slinky__realloc(c->lines, nc * sizeof(*nl));
        if (!nl)
            return SLINKY_ENOMEM;
        c->lines = nl;
        c->cap = nc;
    }
    *out = &c->lines[c->nlines++];
    memset(*out, 0, sizeof(**out));
    return 0;
}

static int conf_new(slinky_conf **out, const char *filename, const slinky_conf_parse_options *o,
                    int depth)
{
    slinky_conf *c = slinky__calloc(1, sizeof(*c));
    if (!c)
        return SLINKY_ENOMEM;
    c->filename = slinky__strdup(filename ? filename : "slurm.conf");
    const char *slash = filename ? strrchr(filename, '/') : NULL;
    if (o->include_dir && depth == 0)
        c->dir = slinky__strdup(o->include_dir);
    else if (slash)
        c->dir = slinky__strndup(filename, slash == filename ? 1 : (size_t)(slash - filename));
    else
        c->dir = slinky__strdup(".");
    if (!c->filename || !c->dir) {
        slinky_conf_free(c);
        return SLINKY_ENOMEM;
    }
    c->kind = o->kind;
    c->depth = depth;
    *out = c;
    return 0;
}

static int parse_text(slinky_conf *c, const char *data, size_t len,
                      const slinky_conf_parse_options *o, const char **cluster);

static int load_include(slinky_conf *c, slinky_conf__line *l, const slinky_conf_parse_options *o,
                        const char **cluster)
{
    const char *spec = l->pairs[0].value;
    slinky__buf path = SLINKY__BUF_INIT;
    if (spec[0] != '/')
        slinky__buf_printf(&path, "%s/", c->dir);
    for (const char *p = spec; *p; p++) {
        if (p[0] == '%' && p[1] == 'c') {
            slinky__buf_puts(&path, *cluster ? *cluster : "");
            p++;
        } else
            slinky__buf_putc(&path, *p);
    }
    if (path.failed)
        return slinky__error_oom();
    if (c->depth + 1 > MAX_INCLUDE_DEPTH) {
        slinky__buf_dispose(&path);
        return perr(c, l->lineno, l->pairs[0].vcolumn, "Include nesting too deep at \"%s\"", spec);
    }
    char *text = NULL;
    size_t tlen = 0;
    int rc = slinky__read_file(&text, &tlen, path.data);
    if (rc < 0) {
        slinky__error_set_pos(rc, l->lineno, l->pairs[0].vcolumn,
                              "\"Include\" failed in file %s line %d: cannot read %s",
                              c->filename, l->lineno, path.data);
        slinky__error_prefix("%s: ", c->filename);
        slinky__buf_dispose(&path);
        return rc;
    }
    slinky_conf *inc = NULL;
    if ((rc = conf_new(&inc, path.data, o, c->depth + 1)) == 0)
        rc = parse_text(inc, text, tlen, o, cluster);
    free(text);
    slinky__buf_dispose(&path);
    if (rc < 0) {
        slinky_conf_free(inc);
        return rc;
    }
    l->included = inc;
    return 0;
}

static int parse_text(slinky_conf *c, const char *data, size_t len,
                      const slinky_conf_parse_options *o, const char **cluster)
{
    /* a slurm.conf is text: Slurm would end the line at a NUL, and the pair storage keeps
     * C strings; refused up front with its position (found by fuzz_conf) */
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        int line = 1, col = 1;
        for (const char *q = data; q < nul; q++, col++)
            if (*q == '\n')
                line++, col = 0;
        return perr(c, line, col, "a NUL byte (slurm.conf must be text)");
    }
    slinky__buf lg = SLINKY__BUF_INIT, pb = SLINKY__BUF_INIT;
    size_t pos = 0;
    int lineno = 0, rc = 0;
    while (pos < len) {
        slinky_conf__line *l;
        if ((rc = conf_push_line(c, &l)) < 0)
            break;
        size_t start = pos;
        l->lineno = lineno + 1;
        slinky__buf_clear(&lg);
        int cont = 1;
        size_t last_start = pos, comment_at = 0;
        while (cont && pos < len) {
            const char *nl = memchr(data + pos, '\n', len - pos);
            size_t pl = nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
            last_start = pos;
            if ((rc = physical(&lg, data + pos, pl, &comment_at, &cont)) < 0)
                goto out;
            lineno++;
            pos += pl;
        }
        l->raw = slinky__strndup(data + start, pos - start);
        if (!l->raw) {
            rc = SLINKY_ENOMEM;
            goto out;
        }
        l->raw_len = pos - start;
        l->comment_off = (last_start - start) + comment_at;
        if (l->comment_off >= l->raw_len)
            l->comment_off = l->raw_len;
        else {
            /* include the blanks before the comment */
            while (l->comment_off > last_start - start &&
                   (l->raw[l->comment_off - 1] == ' ' || l->raw[l->comment_off - 1] == '\t'))
                l->comment_off--;
        }
        if ((rc = parse_pairs(c, l, lg.data ? lg.data : "", lg.len, &pb)) < 0)
            goto out;
        if (l->type == SLINKY_CONF_LINE_PAIR && slinky_conf__ieq(l->pairs[0].key, "ClusterName"))
            *cluster = l->pairs[0].value;
        if (l->type == SLINKY_CONF_LINE_INCLUDE && !o->no_includes &&
            (rc = load_include(c, l, o, cluster)) < 0)
            goto out;
    }
out:
    slinky__buf_dispose(&lg);
    slinky__buf_dispose(&pb);
    return rc;
}

/* Warn about repeated global keys ("last value used"), as slurmctld logs. */
struct dupscan {
    slinky_conf *top;
    const char **keys;
    size_t n, cap;
};

static int multi_valued(const char *key)
{
    static const char *const mv[] = {"SlurmctldHost", "Prolog", "Epilog", "PrologSlurmctld",
                                     "EpilogSlurmctld", "ControlMachine", "BackupController"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(mv); i++)
        if (slinky_conf__ieq(key, mv[i]))
            return 1;
    return 0;
}

static int dup_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    struct dupscan *d = payload;
    if (l->type != SLINKY_CONF_LINE_PAIR || multi_valued(l->pairs[0].key))
        return 0;
    for (size_t i = 0; i < d->n; i++)
        if (slinky_conf__ieq(d->keys[i], l->pairs[0].key)) {
            (void)f;
            return slinky_conf__warn(d->top, l->lineno, l->pairs[0].column,
                                     "%s specified more than once, latest value used",
                                     l->pairs[0].key);
        }
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 32;
        const char **k = slinky__realloc(d->keys, nc * sizeof(*k));
        if (!k)
            return SLINKY_ENOMEM;
        d->keys = k;
        d->cap = nc;
    }
    d->keys[d->n++] = l->pairs[0].key;
    return 0;
}

int slinky_conf__visit(const slinky_conf *conf, slinky_conf__visit_fn fn, void *payload)
{
    for (size_t i = 0; i < conf->nlines; i++) {
        const slinky_conf__line *l = &conf->lines[i];
        int rc = fn(conf, l, payload);
        if (rc)
            return rc;
        if (l->included && (rc = slinky_conf__visit(l->included, fn, payload)))
            return rc;
    }
    return 0;
}

slinky_status slinky_conf_parse(slinky_conf **out, const char *data, size_t len,
                                const char *filename, const slinky_conf_parse_options *opts)
{
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "conf: parse: NULL argument");
    if (opts) {
        if (opts->version != SLINKY_CONF_PARSE_OPTIONS_VERSION)
            return slinky__error_set(SLINKY_EINVALID, "conf: unknown parse options version %u",
                                     opts->version);
        o = *opts;
    }
    if ((unsigned)o.kind > SLINKY_CONF_KIND_PLUGSTACK)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown file kind %d", (int)o.kind);
    slinky_conf *c = NULL;
    int rc = conf_new(&c, filename, &o, 0);
    if (rc < 0)
        return slinky__error_oom();
    const char *cluster = NULL;
    rc = parse_text(c, data ? data : "", len, &o, &cluster);
    if (rc == 0 && o.kind != SLINKY_CONF_KIND_PLUGSTACK) {
        struct dupscan d = {c, NULL, 0, 0};
        rc = slinky_conf__visit(c, dup_visit, &d);
        free(d.keys);
        if (rc < 0)
            slinky__error_oom();
    }
    if (rc < 0) {
        slinky_conf_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

slinky_status slinky_conf_load(slinky_conf **out, const char *path,
                               const slinky_conf_parse_options *opts)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "conf: load: NULL argument");
    char *text = NULL;
    size_t len = 0;
    int rc = slinky__read_file(&text, &len, path);
    if (rc < 0)
        return rc;
    rc = slinky_conf_parse(out, text, len, path, opts);
    free(text);
    return rc;
}
