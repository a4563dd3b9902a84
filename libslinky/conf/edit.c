/* conf: reading values from the tree, editing lines, rendering. */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

slinky_status slinky_conf_render(char **out, size_t *len_out, const slinky_conf *conf)
{
    if (!out || !conf)
        return slinky__error_set(SLINKY_EINVALID, "conf: render: NULL argument");
    size_t total = 0;
    for (size_t i = 0; i < conf->nlines; i++)
        total += conf->lines[i].raw_len;
    char *s = slinky__malloc(total + 1);
    if (!s)
        return SLINKY_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < conf->nlines; i++) {
        memcpy(s + o, conf->lines[i].raw, conf->lines[i].raw_len);
        o += conf->lines[i].raw_len;
    }
    s[o] = '\0';
    *out = s;
    if (len_out)
        *len_out = o;
    return 0;
}

slinky_status slinky_conf_save(const slinky_conf *conf, const char *path)
{
    if (!conf || !path)
        return slinky__error_set(SLINKY_EINVALID, "conf: save: NULL argument");
    char *s = NULL;
    size_t n = 0;
    int rc = slinky_conf_render(&s, &n, conf);
    if (rc < 0)
        return rc;
    rc = slinky__write_file_atomic(path, s, n, 0644);
    free(s);
    return rc;
}

const char *slinky_conf_filename(const slinky_conf *conf)
{
    return conf ? conf->filename : NULL;
}

size_t slinky_conf_line_count(const slinky_conf *conf)
{
    return conf ? conf->nlines : 0;
}

slinky_conf_line_type slinky_conf_line_type_at(const slinky_conf *conf, size_t i)
{
    return conf && i < conf->nlines ? conf->lines[i].type : SLINKY_CONF_LINE_BLANK;
}

const char *slinky_conf_line_text_at(const slinky_conf *conf, size_t i)
{
    return conf && i < conf->nlines ? conf->lines[i].raw : NULL;
}

size_t slinky_conf_warning_count(const slinky_conf *conf)
{
    return conf ? conf->nwarnings : 0;
}

const char *slinky_conf_warning_at(const slinky_conf *conf, size_t i)
{
    return conf && i < conf->nwarnings ? conf->warnings[i] : NULL;
}

const char *slinky_conf__pair_get(const slinky_conf__line *l, const char *key)
{
    for (size_t i = 0; i < l->npairs; i++)
        if (slinky_conf__ieq(l->pairs[i].key, key))
            return l->pairs[i].value;
    return NULL;
}

/* ---------------------------------------------------------------- globals */

struct getscan {
    const char *key;
    size_t want; /* index wanted, or SIZE_MAX for the last */
    size_t seen;
    const char *value;
};

/*
 * In gres.conf and job_container.conf several global pairs may share a line
 * ("AutoBasePath=true BasePath=/x"); lines that start with NodeName= (or
 * Name= in gres.conf) are per-node records, not globals.
 */
static int global_line(const slinky_conf *f, const slinky_conf__line *l)
{
    if (l->type == SLINKY_CONF_LINE_PAIR)
        return 1;
    if (l->type != SLINKY_CONF_LINE_RECORD || f->kind == SLINKY_CONF_KIND_SLURM)
        return 0;
    return !slinky_conf__ieq(l->pairs[0].key, "NodeName") &&
           !(f->kind == SLINKY_CONF_KIND_GRES && slinky_conf__ieq(l->pairs[0].key, "Name"));
}

static int get_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    struct getscan *g = payload;
    if (!global_line(f, l))
        return 0;
    for (size_t i = 0; i < l->npairs; i++) {
        if (!slinky_conf__ieq(l->pairs[i].key, g->key))
            continue;
        if (g->want == SIZE_MAX || g->seen == g->want)
            g->value = l->pairs[i].value;
        g->seen++;
        if (g->want != SIZE_MAX && g->seen > g->want)
            return 1;
    }
    return 0;
}

const char *slinky_conf_get(const slinky_conf *conf, const char *key)
{
    if (!conf || !key)
        return NULL;
    if (slinky_conf__ieq(key, "SlurmctldHost"))
        return slinky_conf_get_at(conf, key, 0);
    struct getscan g = {key, SIZE_MAX, 0, NULL};
    slinky_conf__visit(conf, get_visit, &g);
    return g.value;
}

size_t slinky_conf_get_count(const slinky_conf *conf, const char *key)
{
    if (!conf || !key)
        return 0;
    struct getscan g = {key, SIZE_MAX, 0, NULL};
    slinky_conf__visit(conf, get_visit, &g);
    return g.seen;
}

const char *slinky_conf_get_at(const slinky_conf *conf, const char *key, size_t i)
{
    if (!conf || !key)
        return NULL;
    struct getscan g = {key, i, 0, NULL};
    slinky_conf__visit(conf, get_visit, &g);
    return g.seen > i ? g.value : NULL;
}

/* ---------------------------------------------------------------- editing */

int slinky_conf__put_value(slinky__buf *b, const char *value)
{
    int quote = strpbrk(value, " \t") != NULL;
    if (quote)
        slinky__buf_putc(b, '"');
    for (const char *p = value; *p; p++) {
        if (*p == '#')
            slinky__buf_putc(b, '\\');
        slinky__buf_putc(b, *p);
    }
    if (quote)
        slinky__buf_putc(b, '"');
    return b->failed ? SLINKY_ENOMEM : 0;
}

static int check_key(const char *key)
{
    if (!key || !*key)
        return slinky__error_set(SLINKY_EINVALID, "conf: set: empty key");
    for (const char *p = key; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return slinky__error_set(SLINKY_EINVALID, "conf: set: invalid key \"%s\"", key);
    if (slinky_conf__is_record_key(key) || slinky_conf__ieq(key, "Include"))
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: set: \"%s\" is a record or directive, not a parameter",
                                 key);
    return 0;
}

static int line_set_pair(slinky_conf__line *l, const char *key, const char *value, size_t first);

static int line_has(const slinky_conf__line *l, const char *key)
{
    for (size_t i = 0; i < l->npairs; i++)
        if (slinky_conf__ieq(l->pairs[i].key, key))
            return 1;
    return 0;
}

static int set_line(slinky_conf *conf, const char *key, const char *value, int append);

slinky_status slinky_conf_set(slinky_conf *conf, const char *key, const char *value)
{
    int rc = set_line(conf, key, value, 0);
    if (rc < 0)
        return rc;
    /* an Include after the edited line (or a later line of another form) may set it
       again: then append, so the new value is the last one */
    size_t n = slinky_conf_get_count(conf, key);
    const char *last = n ? slinky_conf_get_at(conf, key, n - 1) : NULL;
    if (!last || strcmp(last, value) != 0)
        rc = set_line(conf, key, value, 1);
    return rc;
}

static int set_line(slinky_conf *conf, const char *key, const char *value, int append)
{
    if (!conf)
        return slinky__error_set(SLINKY_EINVALID, "conf: set: NULL argument");
    int rc = check_key(key);
    if (rc < 0)
        return rc;
    if (!value || !*value)
        return slinky__error_set(SLINKY_EINVALID, "conf: set: %s: empty value (Slurm rejects \"%s=\")",
                                 key, key);
    if (strpbrk(value, "\"\n\r"))
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: set: %s: a value cannot hold a quote or a newline", key);
    if (conf->kind == SLINKY_CONF_KIND_PLUGSTACK)
        return slinky__error_set(SLINKY_EINVALID, "conf: set: plugstack.conf has no parameters");
    slinky_conf__line *target = NULL;
    for (size_t i = conf->nlines; !append && i-- > 0;)
        if (global_line(conf, &conf->lines[i]) && line_has(&conf->lines[i], key)) {
            target = &conf->lines[i];
            break;
        }
    if (target && target->npairs > 1) /* several global pairs on one line (gres.conf...) */
        return line_set_pair(target, key, value, 0);
    slinky__buf b = SLINKY__BUF_INIT;
    slinky_conf__pair np;
    const char *kname = target ? target->pairs[0].key : key; /* keep the key's spelling */
    /* the stored value is the plain value: build the block without unescaping */
    char *blk = slinky__malloc(strlen(kname) + strlen(value) + 2);
    if (!blk)
        return SLINKY_ENOMEM;
    strcpy(blk, kname);
    np.key = blk;
    np.value = blk + strlen(kname) + 1;
    strcpy(np.value, value);
    char *nv = blk;
    if (target) {
        const char *raw = target->raw;
        size_t end = target->raw_len;
        const char *eol = "";
        if (end >= 2 && raw[end - 2] == '\r' && raw[end - 1] == '\n')
            eol = "\r\n";
        else if (end >= 1 && raw[end - 1] == '\n')
            eol = "\n";
        size_t cend = target->raw_len - strlen(eol);
        slinky__buf_put(&b, raw, (size_t)target->indent);
        slinky__buf_puts(&b, target->pairs[0].key);
        slinky__buf_putc(&b, '=');
        slinky_conf__put_value(&b, value);
        size_t new_comment_off = b.len;
        if (target->comment_off < cend)
            slinky__buf_put(&b, raw + target->comment_off, cend - target->comment_off);
        slinky__buf_puts(&b, eol);
        if (b.failed) {
            free(nv);
            slinky__buf_dispose(&b);
            return slinky__error_oom();
        }
        int had_comment = target->comment_off < cend;
        free(target->raw);
        target->raw = slinky__buf_detach(&b, &target->raw_len);
        target->comment_off = had_comment ? new_comment_off : target->raw_len;
        slinky_conf__pair0_free(target->pairs, target->npairs);
        target->pairs[0].key = np.key;
        target->pairs[0].value = np.value;
        return 0;
    }
    /* append: the file must end with a newline, and not with a continuation
       (a trailing `\` would join the new line to the last one: end it with an
       empty line, which Slurm reads as the end of that logical line) */
    if (conf->nlines) {
        slinky_conf__line *last = &conf->lines[conf->nlines - 1];
        int nl = last->raw_len && last->raw[last->raw_len - 1] == '\n';
        int cont = last->raw_len && slinky_conf__continues(last->raw, last->raw_len);
        size_t add = (size_t)(!nl) + (size_t)cont;
        if (add) {
            char *r = slinky__realloc(last->raw, last->raw_len + add + 1);
            if (!r) {
                free(nv);
                return SLINKY_ENOMEM;
            }
            while (add--)
                r[last->raw_len++] = '\n';
            r[last->raw_len] = '\0';
            last->raw = r;
        }
    }
    slinky__buf_puts(&b, key);
    slinky__buf_putc(&b, '=');
    slinky_conf__put_value(&b, value);
    slinky__buf_putc(&b, '\n');
    slinky_conf__pair *p = slinky__calloc(1, sizeof(*p));
    if (!b.failed && p && conf->nlines == conf->cap) {
        size_t nc = conf->cap ? conf->cap * 2 : 16;
        slinky_conf__line *lines = slinky__realloc(conf->lines, nc * sizeof(*lines));
        if (lines) {
            conf->lines = lines;
            conf->cap = nc;
        }
    }
    if (b.failed || !p || conf->nlines == conf->cap) {
        free(p);
        free(nv);
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    slinky_conf__line *l = &conf->lines[conf->nlines];
    memset(l, 0, sizeof(*l));
    l->lineno = conf->nlines ? conf->lines[conf->nlines - 1].lineno + 1 : 1;
    l->type = SLINKY_CONF_LINE_PAIR;
    *p = np;
    p->column = 1;
    p->vcolumn = (int)strlen(key) + 2;
    l->pairs = p;
    l->npairs = 1;
    l->raw = slinky__buf_detach(&b, &l->raw_len);
    l->comment_off = l->raw_len;
    conf->nlines++;
    return 0;
}

slinky_status slinky_conf_unset(slinky_conf *conf, const char *key)
{
    if (!conf || !key)
        return slinky__error_set(SLINKY_EINVALID, "conf: unset: NULL argument");
    size_t o = 0, removed = 0;
    for (size_t i = 0; i < conf->nlines; i++) {
        slinky_conf__line *l = &conf->lines[i];
        if (l->type == SLINKY_CONF_LINE_PAIR && slinky_conf__ieq(l->pairs[0].key, key)) {
            free(l->raw);
            slinky_conf__pairs_free(l->pairs, l->npairs);
            removed++;
            continue;
        }
        conf->lines[o++] = *l;
    }
    conf->nlines = o;
    if (!removed)
        return slinky__error_set(SLINKY_ENOTFOUND, "conf: unset: %s is not set in %s", key,
                                 conf->filename);
    return 0;
}

/* ---------------------------------------------------------------- records */

struct recscan {
    const char *type;
    slinky_conf__record *recs;
    size_t n, cap;
    slinky_conf__pair *defaults;
    size_t ndef;
    int failed;
};

static int set_default(struct recscan *r, const slinky_conf__pair *p)
{
    for (size_t i = 0; i < r->ndef; i++)
        if (slinky_conf__ieq(r->defaults[i].key, p->key)) {
            r->defaults[i] = *p;
            return 0;
        }
    slinky_conf__pair *d = slinky__realloc(r->defaults, (r->ndef + 1) * sizeof(*d));
    if (!d)
        return SLINKY_ENOMEM;
    r->defaults = d;
    d[r->ndef++] = *p;
    return 0;
}

static int rec_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    struct recscan *r = payload;
    if (l->type != SLINKY_CONF_LINE_RECORD || l->rtype != r->type)
        return 0;
    if (slinky_conf__ieq(l->pairs[0].value, "DEFAULT")) {
        for (size_t i = 1; i < l->npairs; i++)
            if (set_default(r, &l->pairs[i]) < 0)
                return SLINKY_ENOMEM;
        return 0;
    }
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 16;
        slinky_conf__record *nr = slinky__realloc(r->recs, nc * sizeof(*nr));
        if (!nr)
            return SLINKY_ENOMEM;
        r->recs = nr;
        r->cap = nc;
    }
    slinky_conf__record *rec = &r->recs[r->n];
    rec->pairs = slinky__malloc((l->npairs + r->ndef) * sizeof(*rec->pairs));
    if (!rec->pairs)
        return SLINKY_ENOMEM;
    r->n++;
    rec->name = l->pairs[0].value;
    rec->file = f->filename;
    rec->lineno = l->lineno;
    rec->column = l->pairs[0].column;
    memcpy(rec->pairs, l->pairs, l->npairs * sizeof(*rec->pairs));
    rec->npairs = l->npairs;
    for (size_t i = 0; i < r->ndef; i++)
        if (!slinky_conf__pair_get(l, r->defaults[i].key))
            rec->pairs[rec->npairs++] = r->defaults[i];
    return 0;
}

int slinky_conf__records(slinky_conf__record **out, size_t *count_out, const slinky_conf *conf,
                         const char *type)
{
    struct recscan r = {slinky_conf__record_type(type), NULL, 0, 0, NULL, 0, 0};
    int rc = r.type ? slinky_conf__visit(conf, rec_visit, &r) : 0;
    free(r.defaults);
    if (rc < 0) {
        slinky_conf__records_free(r.recs, r.n);
        return slinky__error_oom();
    }
    *out = r.recs;
    *count_out = r.n;
    return 0;
}

void slinky_conf__records_free(slinky_conf__record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].pairs);
    free(r);
}

/* A key given twice on one record line: the last one counts. */
const char *slinky_conf__record_value(const slinky_conf__record *r, const char *key)
{
    for (size_t i = r->npairs; i-- > 0;)
        if (slinky_conf__ieq(r->pairs[i].key, key))
            return r->pairs[i].value;
    return NULL;
}

struct reccount {
    const char *type;
    size_t n, want;
    const char *name;
};

static int count_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    struct reccount *c = payload;
    (void)f;
    if (l->type != SLINKY_CONF_LINE_RECORD || l->rtype != c->type ||
        slinky_conf__ieq(l->pairs[0].value, "DEFAULT"))
        return 0;
    if (c->n == c->want) {
        c->name = l->pairs[0].value;
        return 1;
    }
    c->n++;
    return 0;
}

size_t slinky_conf_record_count(const slinky_conf *conf, const char *type)
{
    if (!conf || !type)
        return 0;
    struct reccount c = {slinky_conf__record_type(type), 0, SIZE_MAX, NULL};
    if (c.type)
        slinky_conf__visit(conf, count_visit, &c);
    return c.n;
}

const char *slinky_conf_record_name_at(const slinky_conf *conf, const char *type, size_t i)
{
    if (!conf || !type)
        return NULL;
    struct reccount c = {slinky_conf__record_type(type), 0, i, NULL};
    if (c.type)
        slinky_conf__visit(conf, count_visit, &c);
    return c.name;
}

static int host_in(const char *hostlist, const char *host)
{
    if (!strchr(hostlist, '[') && !strchr(hostlist, ','))
        return strcmp(hostlist, host) == 0;
    char **v = NULL;
    size_t n = 0;
    int found = 0;
    if (slinky_conf_hostlist_expand(&v, &n, hostlist) < 0) {
        slinky_error_clear();
        return 0;
    }
    for (size_t i = 0; i < n && !found; i++)
        found = strcmp(v[i], host) == 0;
    slinky_conf_strv_free(v, n);
    return found;
}

const char *slinky_conf_record_get(const slinky_conf *conf, const char *type, const char *name,
                                   const char *key)
{
    if (!conf || !type || !name || !key)
        return NULL;
    slinky_conf__record *r = NULL;
    size_t n = 0;
    const char *v = NULL;
    if (slinky_conf__records(&r, &n, conf, type) < 0)
        return NULL;
    int node = slinky_conf__ieq(type, "NodeName");
    for (size_t i = n; i-- > 0;) {
        if (strcmp(r[i].name, name) == 0 || (node && host_in(r[i].name, name))) {
            v = slinky_conf__record_value(&r[i], key);
            break;
        }
    }
    slinky_conf__records_free(r, n);
    return v;
}

/* ---------------------------------------------------------------- record edits */

/*
 * Rewrite a multi-pair line with `key` set to `value` (every occurrence at
 * index >= first replaced, or the pair appended); indentation, the other
 * pairs and the trailing comment are kept.
 */
static int line_set_pair(slinky_conf__line *l, const char *key, const char *value, size_t first)
{
    int rc = 0;
    /* the new pairs: the old ones with `key` replaced (every occurrence), or one appended */
    size_t n = l->npairs, found = 0;
    slinky_conf__pair *np = slinky__calloc(n + 1, sizeof(*np));
    if (!np)
        return SLINKY_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const slinky_conf__pair *p = &l->pairs[i];
        int hit = i >= first && slinky_conf__ieq(p->key, key);
        found += hit;
        const char *v = hit ? value : p->value;
        char *blk = slinky__malloc(strlen(p->key) + strlen(v) + 2);
        if (!blk) {
            rc = SLINKY_ENOMEM;
            break;
        }
        strcpy(blk, p->key);
        np[i].key = blk;
        np[i].value = strcpy(blk + strlen(p->key) + 1, v);
    }
    size_t nn = n;
    if (rc == 0 && !found) {
        char *blk = slinky__malloc(strlen(key) + strlen(value) + 2);
        if (!blk)
            rc = SLINKY_ENOMEM;
        else {
            strcpy(blk, key);
            np[nn].key = blk;
            np[nn].value = strcpy(blk + strlen(key) + 1, value);
            nn++;
        }
    }
    /* render the line: indentation, pairs, the old trailing comment, the old line end */
    slinky__buf b = SLINKY__BUF_INIT;
    const char *raw = l->raw;
    size_t end = l->raw_len;
    const char *eol = end >= 2 && raw[end - 2] == '\r' && raw[end - 1] == '\n' ? "\r\n"
                      : end >= 1 && raw[end - 1] == '\n'                     ? "\n"
                                                                             : "";
    size_t cend = end - strlen(eol), comment_off = 0;
    slinky__buf_put(&b, raw, (size_t)l->indent);
    for (size_t i = 0; rc == 0 && i < nn; i++) {
        if (i)
            slinky__buf_putc(&b, ' ');
        np[i].column = (int)b.len + 1;
        slinky__buf_printf(&b, "%s=", np[i].key);
        np[i].vcolumn = (int)b.len + 1;
        slinky_conf__put_value(&b, np[i].value);
    }
    comment_off = b.len;
    int had_comment = l->comment_off < cend;
    if (had_comment)
        slinky__buf_put(&b, raw + l->comment_off, cend - l->comment_off);
    slinky__buf_puts(&b, eol);
    if (rc == 0 && b.failed)
        rc = SLINKY_ENOMEM;
    if (rc < 0) {
        for (size_t i = 0; i < nn; i++)
            free(np[i].key);
        free(np);
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    slinky_conf__pairs_free(l->pairs, l->npairs);
    free(l->raw);
    l->pairs = np;
    l->npairs = nn;
    l->raw = slinky__buf_detach(&b, &l->raw_len);
    l->comment_off = had_comment ? comment_off : l->raw_len;
    return 0;
}


slinky_status slinky_conf_record_set(slinky_conf *conf, const char *type, const char *name,
                                     const char *key, const char *value)
{
    if (!conf || !type || !name || !key)
        return slinky__error_set(SLINKY_EINVALID, "conf: record_set: NULL argument");
    const char *rt = slinky_conf__record_type(type);
    if (!rt || conf->kind != SLINKY_CONF_KIND_SLURM)
        return slinky__error_set(SLINKY_EINVALID, "conf: record_set: \"%s\" is not a record type",
                                 type);
    if (!*key || slinky_conf__ieq(key, rt) || strpbrk(key, "= \t\"#\n"))
        return slinky__error_set(SLINKY_EINVALID, "conf: record_set: invalid key \"%s\"", key);
    if (!value || !*value || strpbrk(value, "\"\n\r"))
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: record_set: %s: empty value or a quote/newline in it", key);
    slinky_conf__line *l = NULL;
    for (size_t i = conf->nlines; i-- > 0;)
        if (conf->lines[i].type == SLINKY_CONF_LINE_RECORD && conf->lines[i].rtype == rt &&
            !strcmp(conf->lines[i].pairs[0].value, name)) {
            l = &conf->lines[i];
            break;
        }
    if (!l)
        return slinky__error_set(SLINKY_ENOTFOUND, "conf: record_set: no %s=%s line in %s", rt,
                                 name, conf->filename);
    return line_set_pair(l, key, value, 1);
}
