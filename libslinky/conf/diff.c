/* conf: semantic diff of two configs and the change class of each change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

struct slinky_conf_diff {
    slinky_conf_change *changes;
    size_t n, cap;
    slinky_conf_change_class klass;
    unsigned int version;
};

static void change_free(slinky_conf_change *c)
{
    free((char *)c->scope);
    free((char *)c->name);
    free((char *)c->key);
    free((char *)c->old_value);
    free((char *)c->new_value);
}

void slinky_conf_diff_free(slinky_conf_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        change_free(&d->changes[i]);
    free(d->changes);
    free(d);
}

static char *dupn(const char *s)
{
    return s ? slinky__strdup(s) : NULL;
}

static int add_change(slinky_conf_diff *d, const char *scope, const char *name, const char *key,
                      const char *ov, const char *nv, slinky_conf_change_class k,
                      const char *reason)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 16;
        slinky_conf_change *c = slinky__realloc(d->changes, nc * sizeof(*c));
        if (!c)
            return SLINKY_ENOMEM;
        d->changes = c;
        d->cap = nc;
    }
    slinky_conf_change *c = &d->changes[d->n];
    memset(c, 0, sizeof(*c));
    c->scope = dupn(scope);
    c->name = dupn(name);
    c->key = dupn(key);
    c->old_value = dupn(ov);
    c->new_value = dupn(nv);
    c->klass = k;
    c->reason = reason;
    if (!c->scope || !c->key || (name && !c->name) || (ov && !c->old_value) ||
        (nv && !c->new_value)) {
        change_free(c);
        return SLINKY_ENOMEM;
    }
    d->n++;
    if (k > d->klass)
        d->klass = k;
    return 0;
}

/* ---------------------------------------------------------------- globals */

typedef struct gval {
    const char *key; /* as written (last occurrence) */
    char *value;     /* last value; multi-valued keys: values joined by "," */
} gval;

typedef struct gmap {
    gval *v;
    size_t n, cap;
} gmap;

static int multi(const char *key)
{
    return slinky_conf__ieq(key, "SlurmctldHost") || slinky_conf__ieq(key, "Prolog") ||
           slinky_conf__ieq(key, "Epilog") || slinky_conf__ieq(key, "PrologSlurmctld") ||
           slinky_conf__ieq(key, "EpilogSlurmctld");
}

static int gmap_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    gmap *m = payload;
    (void)f;
    if (l->type != SLINKY_CONF_LINE_PAIR)
        return 0;
    const slinky_conf__pair *p = &l->pairs[0];
    for (size_t i = 0; i < m->n; i++) {
        if (!slinky_conf__ieq(m->v[i].key, p->key))
            continue;
        char *nv = multi(p->key) ? slinky__sprintf("%s,%s", m->v[i].value, p->value)
                                 : slinky__strdup(p->value);
        if (!nv)
            return SLINKY_ENOMEM;
        free(m->v[i].value);
        m->v[i].value = nv;
        m->v[i].key = p->key;
        return 0;
    }
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        gval *v = slinky__realloc(m->v, nc * sizeof(*v));
        if (!v)
            return SLINKY_ENOMEM;
        m->v = v;
        m->cap = nc;
    }
    m->v[m->n].key = p->key;
    m->v[m->n].value = slinky__strdup(p->value);
    if (!m->v[m->n].value)
        return SLINKY_ENOMEM;
    m->n++;
    return 0;
}

static void gmap_free(gmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].value);
    free(m->v);
}

static const char *gmap_get(const gmap *m, const char *key)
{
    for (size_t i = 0; i < m->n; i++)
        if (slinky_conf__ieq(m->v[i].key, key))
            return m->v[i].value;
    return NULL;
}

/* Keys whose value is an unordered comma list of options. */
static int option_list(const char *key)
{
    static const char *const k[] = {"SlurmctldParameters", "SchedulerParameters",
                                    "CommunicationParameters", "AuthAltParameters", "AuthInfo",
                                    "AuthAltTypes", "PrologFlags", "DebugFlags",
                                    "AccountingStorageEnforce", "SlurmdParameters",
                                    "LaunchParameters", "PriorityFlags", "TaskPluginParam",
                                    "GresTypes"}; /* not TaskPlugin: its order matters */
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(k); i++)
        if (slinky_conf__ieq(k[i], key))
            return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Split an option list into a sorted array of strings (owned copy in *buf). */
static size_t split_opts(char ***out, char **buf, const char *v)
{
    *buf = slinky__strdup(v ? v : "");
    size_t n = 0, cap = 8;
    char **a = slinky__malloc(cap * sizeof(*a));
    if (!*buf || !a) {
        free(a);
        *out = NULL;
        return 0;
    }
    for (char *p = *buf, *s; (s = strsep(&p, ","));) {
        if (!*s)
            continue;
        if (n == cap) {
            char **na = slinky__realloc(a, (cap *= 2) * sizeof(*a));
            if (!na)
                break;
            a = na;
        }
        a[n++] = s;
    }
    qsort(a, n, sizeof(*a), cmp_str);
    *out = a;
    return n;
}

static int in_sorted(char **a, size_t n, const char *s)
{
    return bsearch(&s, a, n, sizeof(*a), cmp_str) != NULL;
}

static int opt_key_is(const char *opt, const char *name)
{
    size_t n = strlen(name);
    return !strncasecmp(opt, name, n) && (opt[n] == '\0' || opt[n] == '=');
}

/* Compare option lists; class from the key or from a restart-only option. */
static int diff_options(slinky_conf_diff *d, const char *key, const char *ov, const char *nv)
{
    char *ob = NULL, *nb = NULL;
    char **oa = NULL, **na = NULL;
    size_t on = split_opts(&oa, &ob, ov), nn = split_opts(&na, &nb, nv);
    int rc = 0;
    if (!ob || !nb || !oa || !na) {
        rc = SLINKY_ENOMEM;
        goto out;
    }
    int same = on == nn;
    for (size_t i = 0; same && i < on; i++)
        same = !strcmp(oa[i], na[i]);
    if (same)
        goto out;
    const char *reason = NULL;
    slinky_conf_change_class k = slinky_conf_key_change_class(&reason, key, NULL, d->version);
    /* a changed option that needs a restart by itself */
    for (int side = 0; side < 2; side++) {
        char **a = side ? na : oa, **b = side ? oa : na;
        size_t an = side ? nn : on, bn = side ? on : nn;
        for (size_t i = 0; i < an; i++) {
            if (in_sorted(b, bn, a[i]))
                continue;
            char opt[128];
            snprintf(opt, sizeof(opt), "%s", a[i]);
            char *eq = strchr(opt, '=');
            if (eq)
                *eq = '\0';
            const char *r2 = NULL;
            slinky_conf_change_class k2 = slinky_conf_key_change_class(&r2, key, opt, d->version);
            if (k2 > k && opt_key_is(a[i], opt)) {
                k = k2;
                reason = r2;
            }
        }
    }
    rc = add_change(d, "global", NULL, key, ov, nv, k, reason);
out:
    free(oa);
    free(na);
    free(ob);
    free(nb);
    return rc;
}

static int diff_globals(slinky_conf_diff *d, const slinky_conf *a, const slinky_conf *b)
{
    gmap ma = {NULL, 0, 0}, mb = {NULL, 0, 0};
    int rc = slinky_conf__visit(a, gmap_visit, &ma);
    if (rc == 0)
        rc = slinky_conf__visit(b, gmap_visit, &mb);
    for (size_t i = 0; rc == 0 && i < mb.n; i++) {
        const char *ov = gmap_get(&ma, mb.v[i].key), *nv = mb.v[i].value;
        if (ov && !strcmp(ov, nv))
            continue;
        if (ov && option_list(mb.v[i].key)) {
            rc = diff_options(d, mb.v[i].key, ov, nv);
            continue;
        }
        const char *reason = NULL;
        slinky_conf_change_class k =
            slinky_conf_key_change_class(&reason, mb.v[i].key, NULL, d->version);
        if (option_list(mb.v[i].key)) {
            rc = diff_options(d, mb.v[i].key, ov, nv);
            continue;
        }
        rc = add_change(d, "global", NULL, mb.v[i].key, ov, nv, k, reason);
    }
    for (size_t i = 0; rc == 0 && i < ma.n; i++) {
        if (gmap_get(&mb, ma.v[i].key))
            continue;
        const char *reason = NULL;
        slinky_conf_change_class k =
            slinky_conf_key_change_class(&reason, ma.v[i].key, NULL, d->version);
        if (option_list(ma.v[i].key))
            rc = diff_options(d, ma.v[i].key, ma.v[i].value, NULL);
        else
            rc = add_change(d, "global", NULL, ma.v[i].key, ma.v[i].value, NULL, k, reason);
    }
    gmap_free(&ma);
    gmap_free(&mb);
    return rc;
}

/* ---------------------------------------------------------------- records */

typedef struct rent {
    char *name;       /* record name (one host for NodeName) */
    const slinky_conf__record *rec;
} rent;

static int cmp_rent(const void *a, const void *b)
{
    return strcmp(((const rent *)a)->name, ((const rent *)b)->name);
}

static void rents_free(rent *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].name);
    free(r);
}

static int collect(rent **out, size_t *nout, const slinky_conf__record *recs, size_t n, int node)
{
    size_t cap = n + 16, cnt = 0;
    rent *r = slinky__malloc(cap * sizeof(*r));
    if (!r)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char **v = NULL;
        size_t hn = 0;
        if (node) {
            if (slinky_conf_hostlist_expand(&v, &hn, recs[i].name) < 0) {
                rents_free(r, cnt);
                return slinky_error_last()->code;
            }
        } else {
            v = slinky__malloc(sizeof(*v));
            if (v && (v[0] = slinky__strdup(recs[i].name)))
                hn = 1;
            else {
                free(v);
                rents_free(r, cnt);
                return SLINKY_ENOMEM;
            }
        }
        for (size_t j = 0; j < hn; j++) {
            if (cnt == cap) {
                rent *nr = slinky__realloc(r, (cap *= 2) * sizeof(*r));
                if (!nr) {
                    slinky_conf_strv_free(v, hn);
                    rents_free(r, cnt);
                    return SLINKY_ENOMEM;
                }
                r = nr;
            }
            r[cnt].name = v[j];
            v[j] = NULL;
            r[cnt].rec = &recs[i];
            cnt++;
        }
        slinky_conf_strv_free(v, hn);
    }
    /* a later record with the same name wins (stable: keep the last) */
    qsort(r, cnt, sizeof(*r), cmp_rent);
    *out = r;
    *nout = cnt;
    return 0;
}

static const char *rvalue(const slinky_conf__record *r, const char *key)
{
    return slinky_conf__record_value(r, key);
}

static slinky_conf_change_class record_class(const char *type, int added_or_removed,
                                             unsigned int v, const char **reason)
{
    if (slinky_conf__ieq(type, "NodeName")) {
        if (added_or_removed && v < 2311) {
            *reason = "measured on 22.05: a reconfigure with an added NodeName kills slurmctld "
                      "(\"node count has changed ... You have to restart slurmctld\")";
            return SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE;
        }
        if (added_or_removed) {
            *reason = "measured on 24.11: reconfigure re-execs slurmctld; an added NodeName "
                      "is applied (rc 0)";
            return SLINKY_CONF_CLASS_RECONFIGURE;
        }
        *reason = "slurm.conf(5): Changes in node configuration (e.g. adding nodes, changing "
                  "their processor count, etc.) require restarting both the slurmctld daemon "
                  "and the slurmd daemons.";
        return SLINKY_CONF_CLASS_RESTART_ALL;
    }
    if (slinky_conf__ieq(type, "FrontendName")) {
        *reason = "front end node changes need the daemons restarted";
        return SLINKY_CONF_CLASS_RESTART_ALL;
    }
    *reason = "measured: partitions (and node sets) are added and changed by reconfigure";
    return SLINKY_CONF_CLASS_RECONFIGURE;
}

static int diff_pairs(slinky_conf_diff *d, const char *type, const char *name,
                      const slinky_conf__record *a, const slinky_conf__record *b)
{
    int rc = 0;
    const char *reason;
    slinky_conf_change_class k = record_class(type, 0, d->version, &reason);
    for (size_t i = 1; rc == 0 && i < b->npairs; i++) {
        if (rvalue(b, b->pairs[i].key) != b->pairs[i].value)
            continue; /* a later pair of the same key counts */
        const char *ov = rvalue(a, b->pairs[i].key);
        if (ov && !strcmp(ov, b->pairs[i].value))
            continue;
        /* a NodeName hostlist attribute that names other hosts is still one value */
        rc = add_change(d, type, name, b->pairs[i].key, ov, b->pairs[i].value, k, reason);
    }
    for (size_t i = 1; rc == 0 && i < a->npairs; i++)
        if (rvalue(a, a->pairs[i].key) == a->pairs[i].value && !rvalue(b, a->pairs[i].key))
            rc = add_change(d, type, name, a->pairs[i].key, a->pairs[i].value, NULL, k, reason);
    return rc;
}

static int diff_type(slinky_conf_diff *d, const slinky_conf *a, const slinky_conf *b,
                     const char *type)
{
    slinky_conf__record *ra = NULL, *rb = NULL;
    size_t na = 0, nb = 0, ea = 0, eb = 0;
    rent *xa = NULL, *xb = NULL;
    int node = !strcmp(type, "NodeName");
    int rc = slinky_conf__records(&ra, &na, a, type);
    if (rc == 0)
        rc = slinky_conf__records(&rb, &nb, b, type);
    if (rc == 0)
        rc = collect(&xa, &ea, ra, na, node);
    if (rc == 0)
        rc = collect(&xb, &eb, rb, nb, node);
    size_t i = 0, j = 0;
    const char *reason;
    slinky_conf_change_class addk = record_class(type, 1, d->version, &reason);
    while (rc == 0 && (i < ea || j < eb)) {
        int c = i >= ea ? 1 : j >= eb ? -1 : strcmp(xa[i].name, xb[j].name);
        if (c < 0) {
            rc = add_change(d, type, xa[i].name, type, xa[i].name, NULL, addk, reason);
            i++;
        } else if (c > 0) {
            rc = add_change(d, type, xb[j].name, type, NULL, xb[j].name, addk, reason);
            j++;
        } else {
            rc = diff_pairs(d, type, xb[j].name, xa[i].rec, xb[j].rec);
            i++;
            j++;
        }
    }
    if (xa)
        rents_free(xa, ea);
    if (xb)
        rents_free(xb, eb);
    slinky_conf__records_free(ra, na);
    slinky_conf__records_free(rb, nb);
    return rc;
}

slinky_status slinky_conf_diff_new(slinky_conf_diff **out, const slinky_conf *old_conf,
                                   const slinky_conf *new_conf, unsigned int slurm_version)
{
    if (!out || !old_conf || !new_conf)
        return slinky__error_set(SLINKY_EINVALID, "conf: diff: NULL argument");
    slinky_conf_diff *d = slinky__calloc(1, sizeof(*d));
    if (!d)
        return SLINKY_ENOMEM;
    d->version = slinky_conf__version(slurm_version);
    int rc = diff_globals(d, old_conf, new_conf);
    static const char *const types[] = {"NodeName", "PartitionName", "NodeSet", "DownNodes",
                                        "FrontendName"};
    for (size_t t = 0; rc == 0 && t < SLINKY__ARRAY_SIZE(types); t++)
        rc = diff_type(d, old_conf, new_conf, types[t]);
    if (rc < 0) {
        if (rc == SLINKY_ENOMEM)
            slinky__error_oom();
        slinky_conf_diff_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

size_t slinky_conf_diff_count(const slinky_conf_diff *d)
{
    return d ? d->n : 0;
}

const slinky_conf_change *slinky_conf_diff_at(const slinky_conf_diff *d, size_t i)
{
    return d && i < d->n ? &d->changes[i] : NULL;
}

slinky_conf_change_class slinky_conf_diff_class(const slinky_conf_diff *d)
{
    return d ? d->klass : SLINKY_CONF_CLASS_NONE;
}

slinky_status slinky_conf_diff_render(char **out, const slinky_conf_diff *d)
{
    if (!out || !d)
        return slinky__error_set(SLINKY_EINVALID, "conf: diff render: NULL argument");
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    for (size_t i = 0; i < d->n; i++) {
        const slinky_conf_change *c = &d->changes[i];
        slinky__buf_printf(&b, "%-20s %s", slinky_conf_change_class_name(c->klass), c->scope);
        if (c->name)
            slinky__buf_printf(&b, "[%s]", c->name);
        slinky__buf_printf(&b, " %s: %s -> %s\n", c->key, c->old_value ? c->old_value : "(unset)",
                           c->new_value ? c->new_value : "(unset)");
    }
    slinky__buf_printf(&b, "overall: %s\n", slinky_conf_change_class_name(d->klass));
    return slinky__buf_finish(out, NULL, &b);
}
