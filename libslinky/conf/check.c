/* conf: static checks (what slurmctld would refuse, found before Slurm sees the file). */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"

/* Integer parameters (Slurm's S_P_UINT16/32/64: digits, UNLIMITED or INFINITE). */
static const char *const numeric_global[] = {
    "AccountingStoragePort", "BatchStartTimeout", "CompleteWait", "DefMemPerCPU",
    "DefMemPerNode", "EpilogMsgTime", "FirstJobId", "GetEnvTimeout", "HealthCheckInterval",
    "InactiveLimit", "KillWait", "MaxArraySize", "MaxJobCount", "MaxJobId", "MaxMemPerCPU",
    "MaxMemPerNode", "MaxNodeCount", "MaxStepCount", "MaxTasksPerNode", "MessageTimeout",
    "MinJobAge", "OverTimeLimit", "PriorityWeightAge", "PriorityWeightAssoc",
    "PriorityWeightFairshare", "PriorityWeightJobSize", "PriorityWeightPartition",
    "PriorityWeightQOS", "PrologEpilogTimeout", "ResumeRate", "ResumeTimeout", "ReturnToService",
    "SlurmctldTimeout", "SlurmdTimeout", "SuspendRate", "SuspendTimeout", "TCPTimeout",
    "TreeWidth", "UnkillableStepTimeout", "VSizeFactor", "WaitTime"};
static const char *const numeric_node[] = {"Boards", "CoreSpecCount", "CoresPerSocket", "CPUs",
                                           "MemSpecLimit", "Port", "Procs", "RealMemory",
                                           "Sockets", "SocketsPerBoard", "ThreadsPerCore",
                                           "TmpDisk", "Weight"};
static const char *const numeric_part[] = {"DefMemPerCPU", "DefMemPerNode", "GraceTime",
                                           "MaxCPUsPerNode", "MaxMemPerCPU", "MaxMemPerNode",
                                           "MaxNodes", "MinNodes", "PriorityJobFactor",
                                           "PriorityTier"};

/* The lists are sorted case-insensitively: binary search. */
static int in_list(const char *const *l, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = slinky_conf__icmp(key, l[mid]);
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

static int is_numeric(const char *scope, const char *key)
{
    if (!strcmp(scope, "global"))
        return in_list(numeric_global, SLINKY__ARRAY_SIZE(numeric_global), key);
    if (!strcmp(scope, "NodeName"))
        return in_list(numeric_node, SLINKY__ARRAY_SIZE(numeric_node), key);
    if (!strcmp(scope, "PartitionName"))
        return in_list(numeric_part, SLINKY__ARRAY_SIZE(numeric_part), key);
    return 0;
}

/* ---------------------------------------------------------------- a small string set */

typedef struct sset {
    const char **slot;
    size_t cap, n;
} sset;

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* 1 if added, 0 if present, <0 on OOM. Strings are borrowed. */
static int sset_add(sset *s, const char *str)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        const char **ns = slinky__calloc(nc, sizeof(*ns));
        if (!ns)
            return SLINKY_ENOMEM;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                size_t j = hash(s->slot[i]) & (nc - 1);
                while (ns[j])
                    j = (j + 1) & (nc - 1);
                ns[j] = s->slot[i];
            }
        free(s->slot);
        s->slot = ns;
        s->cap = nc;
    }
    size_t j = hash(str) & (s->cap - 1);
    while (s->slot[j]) {
        if (!strcmp(s->slot[j], str))
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->slot[j] = str;
    s->n++;
    return 1;
}

static int sset_has(const sset *s, const char *str)
{
    if (!s->cap)
        return 0;
    size_t j = hash(str) & (s->cap - 1);
    while (s->slot[j]) {
        if (!strcmp(s->slot[j], str))
            return 1;
        j = (j + 1) & (s->cap - 1);
    }
    return 0;
}

/* ---------------------------------------------------------------- findings */

/*
 * Known-key and numeric answers per (file kind, scope, key): big files repeat the same few
 * keys on every NodeName line, and the catalogue's binary search cost ~600 instructions
 * a key (callgrind, 10,000 nodes: 23M of 127M). Direct-mapped; keys are borrowed from the
 * tree being checked, scopes are the canonical record-type pointers or "global".
 */
#define KEYMEMO 64
typedef struct keymemo {
    const char *key, *scope;
    int kind;
    signed char known, numeric;
} keymemo;



typedef struct checker {
    const slinky_conf *top;
    unsigned int version;
    slinky__buf report;
    int errors;
    int first_line, first_col;
    char first[512];
    char **owned; /* strings kept alive for the sets */
    size_t nowned;
    keymemo memo[KEYMEMO];
} checker;

static void finding(checker *c, int error, const char *file, int line, int col, const char *fmt,
                    ...) SLINKY_PRINTF(6, 7);
static void finding(checker *c, int error, const char *file, int line, int col, const char *fmt,
                    ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    slinky__buf_printf(&c->report, "%s:%d:%d: %s: %s\n", file, line, col,
                       error ? "error" : "warning", msg);
    if (error && c->errors++ == 0) {
        snprintf(c->first, sizeof(c->first), "%s: %s", file, msg);
        c->first_line = line;
        c->first_col = col;
    }
}

static void check_number(checker *c, const char *file, int line, const slinky_conf__pair *p)
{
    const char *v = p->value;
    const char *d = v;
    while (*d >= '0' && *d <= '9')
        d++;
    if (d > v && !*d && d - v < 19) /* plain digits that fit: valid, the common case */
        return;
    if (!slinky__strcasecmp(v, "UNLIMITED") || !slinky__strcasecmp(v, "INFINITE"))
        return;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end != '\0')
        finding(c, 1, file, line, p->vcolumn, "%s value \"%s\" is not a valid number", p->key, v);
    else if (n < 0)
        finding(c, 1, file, line, p->vcolumn, "%s value (%s) is less than zero", p->key, v);
}

static int scope_of(const slinky_conf__line *l, const char **scope)
{
    if (l->type == SLINKY_CONF_LINE_RECORD && l->npairs)
        *scope = l->rtype;
    else
        *scope = "global";
    return *scope != NULL;
}

/* Case-blind and cheap: the length and the first and last two letters pick the slot
 * (NodeName/NodeAddr differ only at the end). */
static size_t ihash(const char *s)
{
    size_t n = strlen(s), h = n;
    if (n >= 2)
        h = h * 131 + (size_t)(s[0] | 0x20) * 31 + (size_t)(s[1] | 0x20) +
            (size_t)(s[n - 1] | 0x20) * 7 + (size_t)(s[n - 2] | 0x20) * 3;
    return (h * 0x9e3779b97f4a7c15ull) >> 40;
}

static const keymemo *key_facts(keymemo *memo, int kind, const char *scope, const char *key,
                                unsigned int version)
{
    keymemo *m = &memo[(ihash(key) ^ (size_t)(uintptr_t)scope) & (KEYMEMO - 1)];
    if (m->key && m->kind == kind && m->scope == scope &&
        (!strcmp(m->key, key) || slinky_conf__ieq(m->key, key))) /* same spelling: one strcmp */
        return m;
    m->key = key;
    m->scope = scope;
    m->kind = kind;
    m->known = slinky_conf_key_is_known((slinky_conf_kind)kind, scope, key, version);
    m->numeric = (signed char)(kind == SLINKY_CONF_KIND_SLURM && is_numeric(scope, key));
    return m;
}

static int line_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    checker *c = payload;
    const char *scope = "global";
    if (l->type != SLINKY_CONF_LINE_PAIR && l->type != SLINKY_CONF_LINE_RECORD)
        return 0;
    if (f->kind == SLINKY_CONF_KIND_PLUGSTACK)
        return 0;
    if (f->kind == SLINKY_CONF_KIND_SLURM)
        scope_of(l, &scope);
    for (size_t i = 0; i < l->npairs; i++) {
        const slinky_conf__pair *p = &l->pairs[i];
        const char *ks = scope;
        if (f->kind != SLINKY_CONF_KIND_SLURM)
            ks = "global";
        const keymemo *kf = key_facts(c->memo, (int)f->kind, ks, p->key, c->version);
        if (!kf->known) {
            finding(c, 1, f->filename, l->lineno, p->column,
                    "_parse_next_key: Parsing error at unrecognized key: %s", p->key);
            continue;
        }
        if (!p->value[0]) {
            finding(c, 1, f->filename, l->lineno, p->column,
                    "Parse error in file %s line %d: \"%s=\"", f->filename, l->lineno, p->key);
            continue;
        }
        if (f->kind == SLINKY_CONF_KIND_SLURM && i > 0 && kf->numeric)
            check_number(c, f->filename, l->lineno, p);
        if (f->kind == SLINKY_CONF_KIND_SLURM && i == 0 && l->type == SLINKY_CONF_LINE_PAIR &&
            is_numeric("global", p->key))
            check_number(c, f->filename, l->lineno, p);
    }
    return 0;
}

/* The effective global keys (last occurrence wins) with their positions. */
typedef struct gent {
    const char *key, *value, *file;
    int line, col;
} gent;

typedef struct gindex {
    gent *v;
    size_t n, cap;
    int failed;
} gindex;

static int gindex_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    gindex *g = payload;
    if (l->type != SLINKY_CONF_LINE_PAIR)
        return 0;
    const slinky_conf__pair *p = &l->pairs[0];
    gent e = {p->key, p->value, f->filename, l->lineno, p->vcolumn};
    for (size_t i = 0; i < g->n; i++)
        if (slinky_conf__ieq(g->v[i].key, p->key)) {
            if (!slinky_conf__ieq(p->key, "SlurmctldHost"))
                g->v[i] = e;
            return 0;
        }
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 64;
        gent *nv = slinky__realloc(g->v, nc * sizeof(*nv));
        if (!nv)
            return SLINKY_ENOMEM;
        g->v = nv;
        g->cap = nc;
    }
    g->v[g->n++] = e;
    return 0;
}

static const gent *gfind(const gindex *g, const char *key)
{
    for (size_t i = 0; i < g->n; i++)
        if (slinky_conf__ieq(g->v[i].key, key))
            return &g->v[i];
    return NULL;
}

static const char *gget(const gindex *g, const char *key)
{
    const gent *e = gfind(g, key);
    return e ? e->value : NULL;
}

static int has_option(const char *list, const char *opt)
{
    if (!list)
        return 0;
    size_t n = strlen(opt);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncasecmp(p, opt, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int check_pairs(checker *c)
{
    const slinky_conf *conf = c->top;
    const char *v;
    gindex g = {NULL, 0, 0, 0};
    if (slinky_conf__visit(conf, gindex_visit, &g) < 0) {
        free(g.v);
        return SLINKY_ENOMEM;
    }
    /* PreemptType without PreemptMode */
    v = gget(&g, "PreemptType");
    if (v && strcmp(v, "preempt/none") != 0) {
        const char *mode = gget(&g, "PreemptMode");
        if (!mode || !slinky__strcasecmp(mode, "OFF")) {
            const gent *w = gfind(&g, "PreemptType");
            finding(c, 1, w->file, w->line, w->col, "PreemptType and PreemptMode values incompatible");
        }
    }
    v = gget(&g, "JobContainerType");
    if (v && !strcmp(v, "job_container/tmpfs") &&
        !has_option(gget(&g, "PrologFlags"), "Contain")) {
        const gent *w = gfind(&g, "JobContainerType");
        finding(c, 1, w->file, w->line, w->col,
                "PrologFlags=Contain is required for use with job_container/tmpfs");
    }
    v = gget(&g, "MaxNodeCount");
    if (v) {
        /* the default select plugin is select/linear before 23.02, cons_tres after */
        const char *sel = gget(&g, "SelectType");
        if (!sel)
            sel = c->version < 2302 ? "select/linear" : "select/cons_tres";
        if (strcmp(sel, "select/cons_tres") != 0) {
            const gent *w = gfind(&g, "MaxNodeCount");
            finding(c, 1, w->file, w->line, w->col, "MaxNodeCount only compatible with cons_tres");
        }
    }
    /* measured on 24.11: "fatal: STEP_MGR not supported without PrologFlags=contain" */
    v = gget(&g, "SlurmctldParameters");
    if (c->version >= 2405 && has_option(v, "enable_stepmgr") && /* stepmgr is 24.05+ */
        !has_option(gget(&g, "PrologFlags"), "Contain")) {
        const gent *w = gfind(&g, "SlurmctldParameters");
        finding(c, 1, w->file, w->line, w->col, "STEP_MGR not supported without PrologFlags=contain");
    }
    /* plugins the version does not have; plugin names are case-sensitive */
    static const char *const plugin_keys[] = {"AuthType", "CredType", "SelectType",
                                              "SchedulerType", "ProctrackType", "TaskPlugin",
                                              "AccountingStorageType", "JobAcctGatherType",
                                              "JobCompType", "SwitchType", "MpiDefault",
                                              "AuthAltTypes", "JobContainerType"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(plugin_keys); i++) {
        v = gget(&g, plugin_keys[i]);
        if (!v)
            continue;
        const gent *w = gfind(&g, plugin_keys[i]);
        int upper = 0;
        for (const char *p = v; *p; p++)
            upper |= isupper((unsigned char)*p);
        if (upper)
            finding(c, 1, w->file, w->line, w->col, "Can't find plugin for %s", v);
        else if (c->version < 2311 && (!strcmp(v, "auth/slurm") || !strcmp(v, "cred/slurm")))
            finding(c, 1, w->file, w->line, w->col,
                    "Couldn't find the specified plugin name for %s looking at all files "
                    "(Slurm %u.%02u has no %s)",
                    v, c->version / 100, c->version % 100, v);
    }
    v = gget(&g, "AccountingStorageEnforce");
    const char *ast = gget(&g, "AccountingStorageType");
    if (v && (!ast || !strcmp(ast, "accounting_storage/none"))) {
        const gent *w = gfind(&g, "AccountingStorageEnforce");
        finding(c, 0, w->file, w->line, w->col,
                "You can not have AccountingStorageEnforce set for "
                "AccountingStorageType='accounting_storage/none'");
    }
    if (conf->kind == SLINKY_CONF_KIND_SLURM && !gget(&g, "SlurmctldHost") &&
        !gget(&g, "ControlMachine"))
        finding(c, 0, conf->filename, 1, 1, "no SlurmctldHost: daemons cannot find slurmctld");
    free(g.v);
    return 0;
}

static int keep(checker *c, char *s)
{
    if ((c->nowned & (c->nowned - 1)) == 0) { /* grow at 0, 1, 2, 4, 8... */
        char **o = slinky__realloc(c->owned, (c->nowned ? c->nowned * 2 : 1) * sizeof(*o));
        if (!o) {
            free(s);
            return SLINKY_ENOMEM;
        }
        c->owned = o;
    }
    c->owned[c->nowned++] = s;
    return 0;
}

/* NodeName and NodeSet lines are checked by name only: walked in the tree, with no
 * effective-record copies (those cost 18 MB of peak RSS at 50,000 nodes). */
typedef struct namescan {
    checker *c;
    const char *type; /* canonical record type */
    sset *hosts, *snames;
    int rc;
} namescan;

static int node_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    namescan *ns = payload;
    checker *c = ns->c;
    if (l->type != SLINKY_CONF_LINE_RECORD || l->rtype != ns->type ||
        slinky_conf__ieq(l->pairs[0].value, "DEFAULT"))
        return 0;
    const char *name = l->pairs[0].value;
    int col = l->pairs[0].column;
    if (!strpbrk(name, "[], \t")) { /* one plain host: no expansion needed */
        int added = sset_add(ns->hosts, name);
        if (added < 0)
            return added;
        if (!added)
            finding(c, 1, f->filename, l->lineno, col, "Duplicated NodeHostName %s in config file",
                    name);
        return 0;
    }
    char **v = NULL;
    size_t n = 0;
    if (slinky_conf_hostlist_expand(&v, &n, name) < 0) {
        finding(c, 1, f->filename, l->lineno, col, "%s", slinky_error_last()->message);
        slinky_error_clear();
        return 0;
    }
    int rc = 0;
    for (size_t j = 0; rc == 0 && j < n; j++) {
        int added = sset_add(ns->hosts, v[j]);
        if (added < 0)
            rc = added;
        else if (!added)
            finding(c, 1, f->filename, l->lineno, col, "Duplicated NodeHostName %s in config file",
                    v[j]);
        if (added > 0) {
            rc = keep(c, v[j]);
            v[j] = NULL;
        }
    }
    slinky_conf_strv_free(v, n);
    return rc;
}

static int set_visit(const slinky_conf *f, const slinky_conf__line *l, void *payload)
{
    namescan *ns = payload;
    if (l->type != SLINKY_CONF_LINE_RECORD || l->rtype != ns->type ||
        slinky_conf__ieq(l->pairs[0].value, "DEFAULT"))
        return 0;
    const char *name = l->pairs[0].value;
    int added = sset_add(ns->snames, name);
    if (added < 0)
        return added;
    if (!added)
        finding(ns->c, 1, f->filename, l->lineno, l->pairs[0].column,
                "duplicate entry for NodeSet %s", name);
    if (sset_has(ns->hosts, name))
        finding(ns->c, 1, f->filename, l->lineno, l->pairs[0].column,
                "NodeSet %s collides with a NodeName of the same name", name);
    return 0;
}

/*
 * A partition's Nodes= of the common form PREFIX[LO-HI]: are all its hosts known? 1 yes;
 * 0 when one is not, or -1 when the list has another form: the caller then expands it in
 * full (which also names the missing host). Saves the allocation of every expanded name.
 */
static int range_all_known(const sset *hosts, const char *list)
{
    const char *lb = strchr(list, '[');
    size_t plen = lb ? (size_t)(lb - list) : 0;
    char buf[256];
    if (!plen || plen > 200 || strpbrk(list, ", \t") || memchr(list, ']', plen))
        return -1;
    const char *p = lb + 1;
    unsigned long lo = 0, hi = 0;
    int width = 0, hw = 0;
    for (; *p >= '0' && *p <= '9' && width < 18; p++, width++)
        lo = lo * 10 + (unsigned long)(*p - '0');
    if (!width || *p++ != '-')
        return -1;
    for (; *p >= '0' && *p <= '9' && hw < 18; p++, hw++)
        hi = hi * 10 + (unsigned long)(*p - '0');
    if (!hw || p[0] != ']' || p[1] || hi < lo || hi - lo >= 65536)
        return -1;
    memcpy(buf, list, plen);
    for (unsigned long v = lo; v <= hi; v++) { /* "%0*lu", width */
        char d[24];
        int n = 0;
        for (unsigned long x = v; n == 0 || x; x /= 10)
            d[n++] = (char)('0' + x % 10);
        size_t o = plen;
        for (int k = n; k < width; k++)
            buf[o++] = '0';
        while (n)
            buf[o++] = d[--n];
        buf[o] = '\0';
        if (!sset_has(hosts, buf))
            return 0;
    }
    return 1;
}

static int check_records(checker *c)
{
    slinky_conf__record *parts = NULL;
    size_t np = 0;
    sset hosts = {NULL, 0, 0}, pnames = {NULL, 0, 0}, snames = {NULL, 0, 0};
    namescan ns = {c, slinky_conf__record_type("NodeName"), &hosts, &snames, 0};
    int rc = slinky_conf__visit(c->top, node_visit, &ns);
    if (rc == 0) {
        ns.type = slinky_conf__record_type("NodeSet");
        rc = slinky_conf__visit(c->top, set_visit, &ns);
    }
    if (rc == 0)
        rc = slinky_conf__records(&parts, &np, c->top, "PartitionName");
    if (rc == 0 && np == 0 && c->version < 2302)
        finding(c, 1, c->top->filename, 1, 1,
                "No PartitionName information available! (slurmctld %u.%02u needs a partition)",
                c->version / 100, c->version % 100);
    for (size_t i = 0; rc == 0 && i < np; i++) {
        int added = sset_add(&pnames, parts[i].name);
        if (added < 0)
            rc = added;
        else if (!added)
            finding(c, 1, parts[i].file, parts[i].lineno, parts[i].column,
                    "_build_single_partitionline_info: duplicate entry for partition %s",
                    parts[i].name);
        const char *nodelist = slinky_conf__record_value(&parts[i], "Nodes");
        if (!nodelist || !slinky__strcasecmp(nodelist, "ALL") ||
            range_all_known(&hosts, nodelist) == 1)
            continue;
        char **v = NULL;
        size_t n = 0;
        if (slinky_conf_hostlist_expand(&v, &n, nodelist) < 0) {
            finding(c, 1, parts[i].file, parts[i].lineno, parts[i].column, "%s",
                    slinky_error_last()->message);
            slinky_error_clear();
            continue;
        }
        for (size_t j = 0; j < n; j++)
            if (!sset_has(&hosts, v[j]) && !sset_has(&snames, v[j]) &&
                slinky__strcasecmp(v[j], "ALL")) {
                finding(c, 1, parts[i].file, parts[i].lineno, parts[i].column,
                        "_find_node_record: lookup failure for node \"%s\"; Invalid node names "
                        "in partition %s",
                        v[j], parts[i].name);
                break;
            }
        slinky_conf_strv_free(v, n);
    }
    free(hosts.slot);
    free(pnames.slot);
    free(snames.slot);
    slinky_conf__records_free(parts, np);
    return rc;
}

slinky_status slinky_conf_check(char **report_out, const slinky_conf *conf,
                                 unsigned int slurm_version)
{
    if (!conf)
        return slinky__error_set(SLINKY_EINVALID, "conf: check: NULL argument");
    checker c;
    memset(&c, 0, sizeof(c));
    c.top = conf;
    c.version = slinky_conf__version(slurm_version);
    slinky__buf_puts(&c.report, "");
    for (size_t i = 0; i < conf->nwarnings; i++)
        slinky__buf_printf(&c.report, "%s\n", conf->warnings[i]);
    int rc = slinky_conf__visit(conf, line_visit, &c);
    if (rc == 0 && conf->kind == SLINKY_CONF_KIND_SLURM) {
        rc = check_pairs(&c);
        if (rc == 0)
            rc = check_records(&c);
    }
    for (size_t i = 0; i < c.nowned; i++)
        free(c.owned[i]);
    free(c.owned);
    if (rc == 0 && c.report.failed)
        rc = SLINKY_ENOMEM;
    if (rc < 0) {
        slinky__buf_dispose(&c.report);
        return slinky__error_oom();
    }
    if (report_out)
        *report_out = slinky__buf_detach(&c.report, NULL);
    else
        slinky__buf_dispose(&c.report);
    if (c.errors) {
        slinky__error_set_pos(SLINKY_EINVALID, c.first_line, c.first_col, "%s%s", c.first,
                              c.errors > 1 ? " (and more errors)" : "");
        return SLINKY_EINVALID;
    }
    return 0;
}
