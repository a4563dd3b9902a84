/*
 * conf: slurm.conf (and friends) from the Slinky resources, in the layout of
 * upstream's generator (SlinkyProject/slurm-operator controllerbuilder):
 * "#" then "### SECTION ###" headers, one Key=Value per line, snippets joined
 * by "\n", a final newline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

#define SLURM_ETC "/etc/slurm"
#define SLURMCTLD_PORT 6817
#define SLURMD_PORT 6818
#define SLURMDBD_PORT 6819

/* A line builder like upstream's config.Builder: lines joined by "\n". */
typedef struct lb {
    slinky__buf b;
    int n;
} lb;

static void add(lb *l, const char *fmt, ...) SLINKY_PRINTF(2, 3);
static void add(lb *l, const char *fmt, ...)
{
    va_list ap;
    if (l->n++)
        slinky__buf_putc(&l->b, '\n');
    va_start(ap, fmt);
    slinky__buf_vprintf(&l->b, fmt, ap);
    va_end(ap);
}

static void section(lb *l, const char *name)
{
    add(l, "#");
    add(l, "### %s ###", name);
}

static int finish(char **out, lb *l, int final_newline)
{
    if (final_newline)
        slinky__buf_putc(&l->b, '\n');
    else
        slinky__buf_puts(&l->b, "");
    if (l->b.failed) {
        slinky__buf_dispose(&l->b);
        return slinky__error_oom();
    }
    *out = slinky__buf_detach(&l->b, NULL);
    return *out ? 0 : SLINKY_ENOMEM;
}

slinky_status slinky_conf_cluster_init(slinky_conf_cluster *c, unsigned int version)
{
    if (!c || version != SLINKY_CONF_CLUSTER_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown cluster struct version %u",
                                 version);
    slinky_conf_cluster d = SLINKY_CONF_CLUSTER_INIT;
    *c = d;
    return 0;
}

slinky_status slinky_conf_profile_init(slinky_conf_profile *p, unsigned int version)
{
    if (!p || version != SLINKY_CONF_PROFILE_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: unknown profile version %u", version);
    slinky_conf_profile d = SLINKY_CONF_PROFILE_INIT;
    *p = d;
    return 0;
}

/* ---------------------------------------------------------------- merge */

typedef struct optset {
    char **v;
    size_t n, cap;
} optset;

static int opt_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *opt_key(const char *s)
{
    const char *eq = strchr(s, '=');
    char *k = slinky__strndup(s, eq ? (size_t)(eq - s) : strlen(s));
    if (k)
        for (char *p = k; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
    return k;
}

static int optset_has(const optset *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], v))
            return 1;
    return 0;
}

static int optset_add(optset *s, const char *v, size_t n)
{
    char *d = slinky__strndup(v, n);
    if (!d)
        return SLINKY_ENOMEM;
    if (optset_has(s, d)) {
        free(d);
        return 0;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        char **nv = slinky__realloc(s->v, nc * sizeof(*nv));
        if (!nv) {
            free(d);
            return SLINKY_ENOMEM;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = d;
    return 0;
}

static void optset_free(optset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/*
 * Upstream's parseSlurmConfKV: per line, drop from the first '#', trim,
 * join "\"-continued lines, keep "key=value" when the value has no blank;
 * the last line of a key wins. Returns the value for `key` (lower-case match).
 */
/* upstream's setKV on one logical line: keep "key=value" when the value has no blank. */
static void set_kv(char **result, const char *s, const char *key)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    const char *eq = strchr(s, '=');
    if (!eq)
        return;
    const char *ke = eq;
    while (ke > s && (ke[-1] == ' ' || ke[-1] == '\t'))
        ke--;
    const char *vs = eq + 1;
    while (*vs == ' ' || *vs == '\t')
        vs++;
    size_t vl = strlen(vs);
    while (vl && (vs[vl - 1] == ' ' || vs[vl - 1] == '\t' || vs[vl - 1] == '\r' ||
                  vs[vl - 1] == '\n'))
        vl--;
    int blank = 0;
    for (size_t i = 0; i < vl; i++)
        blank |= vs[i] == ' ' || vs[i] == '\n';
    if (ke > s && vl && !blank && (size_t)(ke - s) == strlen(key) &&
        !strncasecmp(s, key, (size_t)(ke - s))) {
        char *v = slinky__strndup(vs, vl);
        if (v) {
            free(*result);
            *result = v;
        }
    }
}

/*
 * Upstream's parseSlurmConfKV: per line, drop from the first '#', trim the
 * right, skip empty lines, join "\"-continued lines; the last line of a key
 * wins. Returns the user's value for `key` (case-insensitive), or NULL.
 */
static char *user_value(const char *raw, const char *key)
{
    char *result = NULL;
    slinky__buf cur = SLINKY__BUF_INIT;
    for (const char *p = raw; *p || p == raw;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *line = p;
        p = e ? e + 1 : p + n;
        if (n && line[n - 1] == '\r')
            n--;
        const char *hash = memchr(line, '#', n);
        if (hash)
            n = (size_t)(hash - line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        if (n && line[n - 1] == '\\') {
            slinky__buf_put(&cur, line, n - 1);
        } else if (n) {
            slinky__buf_put(&cur, line, n);
            slinky__buf_puts(&cur, "");
            if (!cur.failed)
                set_kv(&result, cur.data, key);
            slinky__buf_clear(&cur);
        }
        if (!e)
            break;
    }
    if (cur.len && !cur.failed) {
        slinky__buf_puts(&cur, "");
        set_kv(&result, cur.data, key);
    }
    slinky__buf_dispose(&cur);
    return result;
}

static int merge_one(lb *l, const char *raw, const char *key, const char *const *ops)
{
    char *val = user_value(raw, key);
    if (!val)
        return 0;
    optset set = {NULL, 0, 0}, seen = {NULL, 0, 0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && ops && ops[i]; i++) {
        rc = optset_add(&set, ops[i], strlen(ops[i]));
        char *k = opt_key(ops[i]);
        if (rc == 0)
            rc = k ? optset_add(&seen, k, strlen(k)) : SLINKY_ENOMEM;
        free(k);
    }
    for (char *p = val; rc == 0 && p;) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (*p) {
            char *k = opt_key(p);
            if (!k)
                rc = SLINKY_ENOMEM;
            else if (!optset_has(&seen, k)) {
                for (char *q = p; *q; q++)
                    if (*q >= 'A' && *q <= 'Z')
                        *q = (char)(*q - 'A' + 'a');
                rc = optset_add(&set, p, strlen(p));
                if (rc == 0)
                    rc = optset_add(&seen, k, strlen(k));
            }
            free(k);
        }
        p = c ? c + 1 : NULL;
    }
    if (rc == 0) {
        qsort(set.v, set.n, sizeof(*set.v), opt_cmp);
        add(l, "%s=", key);
        for (size_t i = 0; i < set.n; i++)
            slinky__buf_printf(&l->b, "%s%s", i ? "," : "", set.v[i]);
    }
    optset_free(&set);
    optset_free(&seen);
    free(val);
    return rc;
}

static int key_cmp_idx(const void *a, const void *b, void *keys)
{
    const char *const *k = keys;
    return strcmp(k[*(const size_t *)a], k[*(const size_t *)b]);
}

static int merged(lb *l, const char *raw, const char *const *keys,
                  const char *const *const *values, size_t n)
{
    size_t *idx = slinky__malloc((n ? n : 1) * sizeof(*idx));
    if (!idx)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    qsort_r(idx, n, sizeof(*idx), key_cmp_idx, (void *)keys);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = merge_one(l, raw ? raw : "", keys[idx[i]], values[idx[i]]);
    free(idx);
    return rc;
}

slinky_status slinky_conf_merge_parameters(char **out, const char *conf_raw,
                                           const char *const *keys,
                                           const char *const *const *values, size_t key_count)
{
    if (!out || (key_count && (!keys || !values)))
        return slinky__error_set(SLINKY_EINVALID, "conf: merge: NULL argument");
    lb l = {SLINKY__BUF_INIT, 0};
    int rc = merged(&l, conf_raw, keys, values, key_count);
    if (rc < 0) {
        slinky__buf_dispose(&l.b);
        return slinky__error_oom();
    }
    return finish(out, &l, 0);
}

/* ---------------------------------------------------------------- slurm.conf */

typedef struct ctx {
    const slinky_conf_cluster *c;
    unsigned int v; /* 0 = upstream */
    int local;
    const char *dir;
    char cluster[256];
    const slinky_conf_profile *p;
} ctx;

static int is_old(const ctx *x) /* no auth/slurm, use_client_ids, reconfig_on_restart */
{
    return x->v && x->v < 2311;
}

static const char *etc_dir(const ctx *x, char *buf, size_t n)
{
    if (!x->local)
        return SLURM_ETC;
    snprintf(buf, n, "%s/etc", x->dir);
    return buf;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int sorted_names(const char ***out, const char *const *v, size_t n)
{
    const char **s = slinky__malloc((n ? n : 1) * sizeof(*s));
    if (!s)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++)
        s[i] = v[i] ? v[i] : "";
    qsort(s, n, sizeof(*s), str_cmp);
    *out = s;
    return 0;
}

static int prolog_lines(lb *l, const char *key, const char *prefix, const char *const *v,
                        size_t n)
{
    const char **s = NULL;
    if (sorted_names(&s, v, n) < 0)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (prefix)
            add(l, "%s=%s/%s", key, prefix, s[i]);
        else
            add(l, "%s=%s", key, s[i]);
    }
    free(s);
    return 0;
}

/* NodeSet name as upstream's GetSlurmNodeSetName: the hostname's first word trimmed of '-'. */
static void nodeset_name(char *buf, size_t n, const slinky_conf_nodeset *ns)
{
    const char *h = ns->hostname;
    if (h && *h) {
        while (*h == ' ' || *h == '\t')
            h++;
        size_t len = strcspn(h, " \t\n");
        while (len && *h == '-') {
            h++;
            len--;
        }
        while (len && h[len - 1] == '-')
            len--;
        snprintf(buf, n, "%.*s", (int)len, h);
    } else
        snprintf(buf, n, "%s", ns->name ? ns->name : "");
}

typedef struct nsref {
    const slinky_conf_nodeset *ns;
} nsref;

static int nsref_cmp(const void *a, const void *b)
{
    const char *x = ((const nsref *)a)->ns->name, *y = ((const nsref *)b)->ns->name;
    return strcmp(x ? x : "", y ? y : "");
}

static int nodeset_lines(lb *l, const slinky_conf_cluster *c)
{
    nsref *r = slinky__malloc((c->nodeset_count ? c->nodeset_count : 1) * sizeof(*r));
    if (!r)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < c->nodeset_count; i++)
        r[i].ns = &c->nodesets[i];
    qsort(r, c->nodeset_count, sizeof(*r), nsref_cmp);
    for (size_t i = 0; i < c->nodeset_count; i++) {
        char name[256];
        nodeset_name(name, sizeof(name), r[i].ns);
        add(l, "NodeSet=%s Feature=%s", name, name);
        if (!r[i].ns->partition_enabled)
            continue;
        add(l, "PartitionName=%s Nodes=%s %s", name, name,
            r[i].ns->partition_config ? r[i].ns->partition_config : "");
    }
    free(r);
    return 0;
}

static int snippet(lb *l, const char *title, int (*fn)(lb *, const ctx *), const ctx *x)
{
    lb s = {SLINKY__BUF_INIT, 0};
    int rc = fn(&s, x);
    if (rc == 0 && s.b.failed)
        rc = SLINKY_ENOMEM;
    if (rc == 0 && s.b.len) {
        section(l, title);
        add(l, "%s", s.b.data);
    }
    slinky__buf_dispose(&s.b);
    return rc;
}

static int sn_ctld_prolog(lb *l, const ctx *x)
{
    char eb[1024];
    const char *etc = etc_dir(x, eb, sizeof(eb));
    int rc = prolog_lines(l, "PrologSlurmctld", etc, x->c->prolog_slurmctld,
                          x->c->prolog_slurmctld_count);
    if (rc == 0)
        rc = prolog_lines(l, "EpilogSlurmctld", etc, x->c->epilog_slurmctld,
                          x->c->epilog_slurmctld_count);
    return rc;
}

static int sn_prolog(lb *l, const ctx *x)
{
    int rc = prolog_lines(l, "Prolog", NULL, x->c->prolog, x->c->prolog_count);
    if (rc == 0)
        rc = prolog_lines(l, "Epilog", NULL, x->c->epilog, x->c->epilog_count);
    return rc;
}

static int sn_nodesets(lb *l, const ctx *x)
{
    int rc = nodeset_lines(l, x->c);
    /* measured: slurmctld 22.05 refuses to start without any partition ("fatal: No
       PartitionName information available!"); 24.11 starts. Give 22.05 one. */
    int parts = 0;
    for (size_t i = 0; i < x->c->nodeset_count; i++)
        parts += x->c->nodesets[i].partition_enabled;
    if (rc == 0 && !parts && x->v && x->v < 2302)
        add(l, "PartitionName=all Nodes=ALL Default=YES State=UP");
    return rc;
}

static int port_or(int p, int d)
{
    return p > 0 ? p : d;
}

static void accounting_lines(lb *l, const ctx *x)
{
    section(l, "ACCOUNTING");
    if (x->c->accounting_name && *x->c->accounting_name) {
        add(l, "AccountingStorageType=accounting_storage/slurmdbd");
        if (x->local) {
            add(l, "AccountingStorageHost=localhost");
            add(l, "AccountingStoragePort=%d", port_or(x->p->slurmdbd_port, SLURMDBD_PORT));
            if (x->p->munge_socket && is_old(x))
                add(l, "AccountingStoragePass=%s", x->p->munge_socket);
        } else {
            add(l, "AccountingStorageHost=%s-accounting", x->c->accounting_name);
            add(l, "AccountingStoragePort=%d", SLURMDBD_PORT);
        }
    } else
        add(l, "AccountingStorageType=accounting_storage/none");
}

static int ctx_init(ctx *x, const slinky_conf_cluster *c, const slinky_conf_profile *p)
{
    static const slinky_conf_profile upstream = SLINKY_CONF_PROFILE_INIT;
    if (!c || c->version != SLINKY_CONF_CLUSTER_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: render: bad cluster struct");
    if (p && p->version != SLINKY_CONF_PROFILE_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "conf: render: unknown profile version %u",
                                 p->version);
    if (!c->name || !*c->name)
        return slinky__error_set(SLINKY_EINVALID, "conf: render: the Controller has no name");
    memset(x, 0, sizeof(*x));
    x->c = c;
    x->p = p ? p : &upstream;
    x->v = x->p->slurm_version;
    x->local = x->p->local;
    x->dir = x->p->local_dir ? x->p->local_dir : "/tmp/slinky";
    if (c->cluster_name && *c->cluster_name)
        snprintf(x->cluster, sizeof(x->cluster), "%s", c->cluster_name);
    else
        snprintf(x->cluster, sizeof(x->cluster), "%s_%s", c->namespace_ ? c->namespace_ : "",
                 c->name);
    return 0;
}

/* The operator's options for the merged keys, per profile. */
typedef struct mergecfg {
    const char *keys[3];
    const char *ctld[4];
    const char *authinfo[2];
    const char *alt[3];
    const char *const *values[3];
    char jwt[1100], jwks[1100], sock[1100];
} mergecfg;

static void mergecfg_init(mergecfg *m, const ctx *x)
{
    char eb[1024];
    const char *etc = etc_dir(x, eb, sizeof(eb));
    memset(m, 0, sizeof(*m));
    snprintf(m->jwt, sizeof(m->jwt), "jwt_key=%s/jwt.key", etc);
    snprintf(m->jwks, sizeof(m->jwks), "jwks=%s/jwks.json", etc);
    m->keys[0] = "SlurmctldParameters";
    m->keys[1] = "AuthInfo";
    m->keys[2] = "AuthAltParameters";
    size_t i = 0;
    m->ctld[i++] = "enable_configless";
    if (!is_old(x))
        m->ctld[i++] = "reconfig_on_restart";
    if (is_old(x)) {
        if (x->p->munge_socket) {
            snprintf(m->sock, sizeof(m->sock), "socket=%s", x->p->munge_socket);
            m->authinfo[0] = m->sock;
        }
    } else
        m->authinfo[0] = "use_client_ids";
    m->alt[0] = m->jwt;
    if (x->c->jwks)
        m->alt[1] = m->jwks;
    m->values[0] = m->ctld;
    m->values[1] = m->authinfo;
    m->values[2] = m->alt;
}

static void joined(lb *l, const char *key, const char *const *v)
{
    if (!v[0])
        return; /* Slurm rejects "Key=" */
    add(l, "%s=", key);
    for (size_t i = 0; v[i]; i++)
        slinky__buf_printf(&l->b, "%s%s", i ? "," : "", v[i]);
}

static int render_minimal(char **out, const ctx *x)
{
    lb l = {SLINKY__BUF_INIT, 0};
    const slinky_conf_cluster *c = x->c;
    if (!c->external_host || !*c->external_host)
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: render: spec.externalConfig.host is required when "
                                 "spec.external is true");
    section(&l, "GENERAL");
    add(&l, "ClusterName=%s", x->cluster);
    add(&l, "SlurmUser=%s", x->local ? (x->p->slurm_user ? x->p->slurm_user : "root") : "slurm");
    add(&l, "SlurmctldHost=%s", x->local ? "localhost" : c->external_host);
    add(&l, "SlurmctldPort=%d",
        x->local ? port_or(x->p->slurmctld_port, SLURMCTLD_PORT) : c->external_port);
    section(&l, "PLUGINS & PARAMETERS");
    add(&l, "AuthType=%s", is_old(x) ? "auth/munge" : "auth/slurm");
    add(&l, "CredType=%s", is_old(x) ? "cred/munge" : "cred/slurm");
    add(&l, "AuthAltTypes=auth/jwt");
    accounting_lines(&l, x);
    return finish(out, &l, 1);
}

slinky_status slinky_conf_render_slurm(char **out, const slinky_conf_cluster *cluster,
                                       const slinky_conf_profile *profile)
{
    ctx x;
    int rc;
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "conf: render: NULL argument");
    if ((rc = ctx_init(&x, cluster, profile)) < 0)
        return rc;
    if (cluster->external)
        return render_minimal(out, &x);
    const slinky_conf_cluster *c = cluster;
    const slinky_conf_profile *p = x.p;
    mergecfg m;
    mergecfg_init(&m, &x);
    lb l = {SLINKY__BUF_INIT, 0};
    const char *ns = c->namespace_ ? c->namespace_ : "";

    section(&l, "GENERAL");
    add(&l, "ClusterName=%s", x.cluster);
    add(&l, "SlurmUser=%s", x.local ? (p->slurm_user ? p->slurm_user : "root") : "slurm");
    int replicas = 1 + (c->ha_enabled ? (c->ha_backups < 0 ? 1 : c->ha_backups) : 0);
    if (x.local)
        add(&l, "SlurmctldHost=localhost");
    else
        for (int i = 0; i < replicas; i++)
            add(&l, "SlurmctldHost=%s-controller-%d(%s-controller-%d.%s-controller-internal.%s)",
                c->name, i, c->name, i, c->name, ns);
    add(&l, "SlurmctldPort=%d", x.local ? port_or(p->slurmctld_port, SLURMCTLD_PORT)
                                        : SLURMCTLD_PORT);
    if (x.local)
        add(&l, "SlurmctldAddr=127.0.0.1");
    else
        add(&l, "SlurmctldAddr=%s-controller.%s", c->name, ns);
    if (x.local)
        add(&l, "StateSaveLocation=%s/state", x.dir);
    else
        add(&l, "StateSaveLocation=/var/spool/slurmctld/%s", x.cluster);
    add(&l, "SlurmdUser=root");
    add(&l, "SlurmdPort=%d", x.local ? port_or(p->slurmd_port, SLURMD_PORT) : SLURMD_PORT);
    if (x.local)
        add(&l, "SlurmdSpoolDir=%s/spool/%%n", x.dir);
    else
        add(&l, "SlurmdSpoolDir=/var/spool/slurmd");
    add(&l, "MaxNodeCount=1024");
    if (x.local) {
        add(&l, "SlurmctldPidFile=%s/run/slurmctld.pid", x.dir);
        add(&l, "SlurmdPidFile=%s/run/slurmd-%%n.pid", x.dir);
        add(&l, "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny");
    }

    section(&l, "LOGGING");
    if (x.local) {
        add(&l, "SlurmctldLogFile=%s/log/slurmctld.log", x.dir);
        add(&l, "SlurmSchedLogFile=%s/log/slurmctld.log", x.dir);
        add(&l, "SlurmdLogFile=%s/log/slurmd-%%n.log", x.dir);
    } else {
        add(&l, "SlurmctldLogFile=/var/log/slurm/slurmctld.log");
        add(&l, "SlurmSchedLogFile=/var/log/slurm/slurmctld.log");
        add(&l, "SlurmdLogFile=/var/log/slurm/slurmd.log");
    }

    section(&l, "PLUGINS & PARAMETERS");
    add(&l, "AuthType=%s", is_old(&x) ? "auth/munge" : "auth/slurm");
    add(&l, "CredType=%s", is_old(&x) ? "cred/munge" : "cred/slurm");
    add(&l, "AuthAltTypes=auth/jwt");
    joined(&l, "AuthAltParameters", m.alt);
    joined(&l, "AuthInfo", m.authinfo);
    joined(&l, "SlurmctldParameters", m.ctld);
    if (c->metrics_enabled && (!x.v || x.v >= 2505))
        add(&l, "MetricsType=metrics/openmetrics");
    if (x.v && x.v < 2302)
        add(&l, "SelectType=select/cons_tres"); /* MaxNodeCount needs it; 22.05's default is linear */
    if (x.local) {
        add(&l, "ProctrackType=proctrack/linuxproc");
        add(&l, "TaskPlugin=task/none");
        add(&l, "MailProg=/bin/true");
    }

    accounting_lines(&l, &x);
    rc = snippet(&l, "SLURMCTLD PROLOG & EPILOG", sn_ctld_prolog, &x);
    if (rc == 0)
        rc = snippet(&l, "PROLOG & EPILOG", sn_prolog, &x);
    if (rc == 0)
        rc = snippet(&l, "NODESET & PARTITION", sn_nodesets, &x);
    if (rc == 0 && c->extra_conf && *c->extra_conf) {
        section(&l, "EXTRA CONFIG");
        add(&l, "%s", c->extra_conf);
    }
    if (rc == 0) {
        lb s = {SLINKY__BUF_INIT, 0};
        rc = merged(&s, c->extra_conf, m.keys, m.values, 3);
        if (rc == 0 && s.b.failed)
            rc = SLINKY_ENOMEM;
        if (rc == 0 && s.b.len) {
            section(&l, "MERGED CONFIG");
            add(&l, "%s", s.b.data);
        }
        slinky__buf_dispose(&s.b);
    }
    if (rc < 0) {
        slinky__buf_dispose(&l.b);
        return rc == SLINKY_ENOMEM ? slinky__error_oom() : rc;
    }
    return finish(out, &l, 1);
}

/* ---------------------------------------------------------------- other files */

slinky_status slinky_conf_render_cgroup(char **out, const slinky_conf_profile *profile)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "conf: render cgroup: NULL argument");
    lb l = {SLINKY__BUF_INIT, 0};
    if (profile && profile->local) {
        /* the local profile tracks processes without cgroups (see the notes) */
        add(&l, "CgroupPlugin=%s",
            profile->slurm_version && profile->slurm_version < 2302 ? "autodetect" : "disabled");
    } else {
        add(&l, "CgroupPlugin=cgroup/v2");
        add(&l, "IgnoreSystemd=yes");
    }
    return finish(out, &l, 1);
}

slinky_status slinky_conf_render_slurmdbd(char **out, const slinky_conf_accounting *a,
                                          const slinky_conf_profile *profile)
{
    if (!out || !a || !a->name || !*a->name)
        return slinky__error_set(SLINKY_EINVALID, "conf: render slurmdbd: the Accounting has no name");
    static const slinky_conf_profile upstream = SLINKY_CONF_PROFILE_INIT;
    const slinky_conf_profile *p = profile ? profile : &upstream;
    ctx x;
    memset(&x, 0, sizeof(x));
    x.p = p;
    x.v = p->slurm_version;
    x.local = p->local;
    x.dir = p->local_dir ? p->local_dir : "/tmp/slinky";
    char eb[1024], jwt[1100], jwks[1100], sock[1100];
    const char *etc = etc_dir(&x, eb, sizeof(eb));
    snprintf(jwt, sizeof(jwt), "jwt_key=%s/jwt.key", etc);
    snprintf(jwks, sizeof(jwks), "jwks=%s/jwks.json", etc);
    const char *authinfo[2] = {NULL, NULL}, *alt[3] = {jwt, a->jwks ? jwks : NULL, NULL};
    if (is_old(&x)) {
        if (p->munge_socket) {
            snprintf(sock, sizeof(sock), "socket=%s", p->munge_socket);
            authinfo[0] = sock;
        }
    } else
        authinfo[0] = "use_client_ids";
    lb l = {SLINKY__BUF_INIT, 0};
    section(&l, "GENERAL");
    if (x.local) {
        add(&l, "DbdHost=localhost");
        add(&l, "DbdAddr=127.0.0.1");
        add(&l, "DbdPort=%d", port_or(p->slurmdbd_port, SLURMDBD_PORT));
        add(&l, "SlurmUser=%s", p->slurm_user ? p->slurm_user : "root");
        add(&l, "PidFile=%s/run/slurmdbd.pid", x.dir);
    } else {
        add(&l, "DbdHost=%s-accounting-0", a->name);
        add(&l, "DbdPort=%d", SLURMDBD_PORT);
        add(&l, "SlurmUser=slurm");
    }
    section(&l, "PLUGINS & PARAMETERS");
    add(&l, "AuthType=%s", is_old(&x) ? "auth/munge" : "auth/slurm");
    add(&l, "AuthAltTypes=auth/jwt");
    joined(&l, "AuthAltParameters", alt);
    joined(&l, "AuthInfo", authinfo);
    section(&l, "STORAGE");
    add(&l, "StorageType=accounting_storage/mysql");
    add(&l, "StorageHost=%s", a->storage_host ? a->storage_host : "");
    add(&l, "StoragePort=%d", a->storage_port > 0 ? a->storage_port : 3306);
    add(&l, "StorageUser=%s", a->storage_user ? a->storage_user : "slurm");
    add(&l, "StorageLoc=%s", a->storage_loc ? a->storage_loc : "slurm_acct_db");
    add(&l, "StoragePass=%s", a->storage_pass ? a->storage_pass : "");
    section(&l, "LOGGING");
    if (x.local)
        add(&l, "LogFile=%s/log/slurmdbd.log", x.dir);
    else
        add(&l, "LogFile=/dev/null");
    if (a->extra_conf && *a->extra_conf) {
        section(&l, "EXTRA CONFIG");
        add(&l, "%s", a->extra_conf);
    }
    const char *keys[2] = {"AuthInfo", "AuthAltParameters"};
    const char *const *vals[2] = {authinfo, alt};
    lb s = {SLINKY__BUF_INIT, 0};
    int rc = merged(&s, a->extra_conf, keys, vals, 2);
    if (rc == 0 && s.b.len) {
        section(&l, "MERGED CONFIG");
        add(&l, "%s", s.b.data);
    }
    slinky__buf_dispose(&s.b);
    if (rc < 0) {
        slinky__buf_dispose(&l.b);
        return slinky__error_oom();
    }
    return finish(out, &l, 1);
}

slinky_status slinky_conf_render_gres(char **out, const slinky_conf_cluster *c)
{
    if (!out || !c)
        return slinky__error_set(SLINKY_EINVALID, "conf: render gres: NULL argument");
    lb l = {SLINKY__BUF_INIT, 0};
    for (size_t i = 0; i < c->nodeset_count; i++) {
        const slinky_conf_nodeset *ns = &c->nodesets[i];
        if (!ns->gpus)
            continue;
        char name[256];
        nodeset_name(name, sizeof(name), ns);
        /* NodeSet pods are named <name>-<ordinal>; MaxNodeCount is 1024 */
        add(&l, "NodeName=%s-[0-1023] Name=gpu", name);
        if (ns->gpu_type && *ns->gpu_type)
            slinky__buf_printf(&l.b, " Type=%s", ns->gpu_type);
        if (ns->gpu_files && *ns->gpu_files)
            slinky__buf_printf(&l.b, " File=%s", ns->gpu_files);
        else
            slinky__buf_printf(&l.b, " Count=%u", ns->gpus);
    }
    return finish(out, &l, l.n > 0);
}

slinky_status slinky_conf_render_jail(char **job_container_out, char **plugstack_out,
                                      const char *base_path, const char *plugin_path)
{
    if (!job_container_out || !plugstack_out || !base_path || base_path[0] != '/')
        return slinky__error_set(SLINKY_EINVALID,
                                 "conf: render jail: base_path must be an absolute path");
    lb a = {SLINKY__BUF_INIT, 0}, b = {SLINKY__BUF_INIT, 0};
    add(&a, "AutoBasePath=true");
    add(&a, "BasePath=%s", base_path);
    if (plugin_path && *plugin_path)
        add(&b, "required %s", plugin_path);
    char *x = NULL, *y = NULL;
    int rc = finish(&x, &a, 1);
    if (rc == 0)
        rc = finish(&y, &b, b.n > 0);
    else
        slinky__buf_dispose(&b.b);
    if (rc < 0) {
        free(x);
        return rc;
    }
    *job_container_out = x;
    *plugstack_out = y;
    return 0;
}
