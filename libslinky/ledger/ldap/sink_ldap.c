/*
 * LDAP sink: the ledger's users and groups as RFC 2307 entries (the schema
 * sssd and nslcd read) with OpenSSH keys (openssh-lpk), through libldap.
 *
 * libldap rather than the ldapmodify CLI: every operation's result code is
 * known (an entry that exists, a constraint the server refused), the bind
 * password never appears in an argv, one TLS connection serves the whole
 * replay, and the directory is read once (one subtree search) to plan.
 *
 * A replay has two phases. The plan: one search of BASE for posixAccount,
 * posixGroup and the two OUs; every ledger user/group is compared with its
 * entry, and any name or id that an entry the ledger does not know holds is a
 * conflict. Only when there is no conflict does the second phase write (adds,
 * modifies of the differing attributes, deletes of tombstoned entries), so a
 * conflict writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lber.h>
#include <ldap.h>

#include "ledger/sink.h"

#define NETWORK_TIMEOUT_S 5
#define OP_TIMEOUT_S 60

/* ------------------------------------------------------------------ */
/* Entries found in the directory                                     */
/* ------------------------------------------------------------------ */

enum { A_OC, A_UID, A_CN, A_UIDNUM, A_GIDNUM, A_HOME, A_SHELL, A_GECOS, A_KEY, A_EXPIRE,
       A_MEMBER, NATTR };
static const char *const attr_names[NATTR] = {
    "objectClass", "uid",     "cn",           "uidNumber",  "gidNumber", "homeDirectory",
    "loginShell",  "gecos",   "sshPublicKey", "shadowExpire", "memberUid"};

typedef struct vals {
    char **v;
    size_t n;
} vals;

typedef struct dentry {
    char *dn;
    vals a[NATTR];
    bool account, group, claimed; /* posixAccount, posixGroup; matched a ledger entry */
    long id;                      /* uidNumber of an account, gidNumber of a group */
} dentry;

/* The entries, and indexes: by DN, by (kind, id) and by (kind, name). */
typedef struct dir {
    dentry *e;
    size_t n;
    dentry **by_dn, **by_id, **by_name;
    bool have_people, have_groups;
} dir;

static void vals_free(vals *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

static void dir_dispose(dir *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->e[i].dn);
        for (int a = 0; a < NATTR; a++)
            vals_free(&d->e[i].a[a]);
    }
    free(d->e);
    free(d->by_dn);
    free(d->by_id);
    free(d->by_name);
    memset(d, 0, sizeof(*d));
}

static bool has_val(const vals *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (!strcasecmp(v->v[i], s))
            return true;
    return false;
}

static long num_of(const vals *v)
{
    return v->n ? strtol(v->v[0], NULL, 10) : -1;
}

static int vals_add(vals *v, const char *s, size_t len)
{
    char **nv = slinky__realloc(v->v, (v->n + 1) * sizeof(*nv));
    if (!nv)
        return SLINKY_ENOMEM;
    v->v = nv;
    if (!(v->v[v->n] = slinky__strndup(s, len)))
        return SLINKY_ENOMEM;
    v->n++;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Connection                                                         */
/* ------------------------------------------------------------------ */

static int ldap_fail(int lrc, const char *uri, const char *what, LDAP *ld)
{
    char *diag = NULL;
    if (ld)
        ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &diag);
    int code = lrc == LDAP_SERVER_DOWN || lrc == LDAP_CONNECT_ERROR || lrc == LDAP_TIMEOUT
                   ? SLINKY_EUNAVAILABLE
               : lrc == LDAP_ALREADY_EXISTS || lrc == LDAP_CONSTRAINT_VIOLATION ? SLINKY_ECONFLICT
                                                                                 : SLINKY_ERROR;
    int rc = slinky__error_set(code, "ldap %s: %s: %s%s%s", uri, what, ldap_err2string(lrc),
                               diag && *diag ? ": " : "", diag ? diag : "");
    ldap_memfree(diag);
    return rc;
}

int slinky_ledger__kube_secret_value(char **out, const slinky_ledger_replay_options *o,
                                     const char *ref) __attribute__((weak));

static int read_password(char **out, const slinky_ledger_replay_options *o)
{
    size_t len = 0;
    int rc;
    if (o->ldap_password_secret) {
        if (!slinky_ledger__kube_secret_value)
            return slinky__error_set(SLINKY_EUNSUPPORTED, "ldap bind password from a Secret "
                                     "needs libslinky built with the kube module");
        if ((rc = slinky_ledger__kube_secret_value(out, o, o->ldap_password_secret)) < 0)
            return rc;
        len = strlen(*out);
    } else if ((rc = slinky__read_file(out, &len, o->ldap_password_file)) < 0) {
        slinky__error_prefix("ldap bind password file: ");
        return rc;
    }
    if (len && (*out)[len - 1] == '\n')
        (*out)[--len] = '\0';
    if (len && (*out)[len - 1] == '\r')
        (*out)[--len] = '\0';
    return 0;
}

static int connect_bind(LDAP **out, const slinky_ledger_replay_options *o)
{
    const char *uri = o->ldap_uri;
    bool ldaps = !strncasecmp(uri, "ldaps://", 8);
    if (!ldaps && strncasecmp(uri, "ldap://", 7) != 0)
        return slinky__error_set(SLINKY_EINVALID,
                                 "ldap sink: uri '%s' must be ldaps://HOST[:PORT] or "
                                 "ldap://HOST[:PORT] (with StartTLS)",
                                 uri);
    LDAP *ld = NULL;
    int lrc = ldap_initialize(&ld, uri);
    if (lrc != LDAP_SUCCESS)
        return ldap_fail(lrc, uri, "initialize", NULL);
    int v3 = LDAP_VERSION3, hard = LDAP_OPT_X_TLS_HARD, zero = 0;
    struct timeval net = {NETWORK_TIMEOUT_S, 0}, op = {OP_TIMEOUT_S, 0};
    ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v3);
    ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
    ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &net);
    ldap_set_option(ld, LDAP_OPT_TIMEOUT, &op);
    ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &hard);
    if (o->ldap_ca_file)
        ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTFILE, o->ldap_ca_file);
    /* the per-connection TLS settings above take effect in a new context */
    if ((lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &zero)) != LDAP_SUCCESS) {
        int rc = ldap_fail(lrc, uri, "TLS settings", ld);
        ldap_unbind_ext_s(ld, NULL, NULL);
        return rc;
    }
    if (!ldaps && (lrc = ldap_start_tls_s(ld, NULL, NULL)) != LDAP_SUCCESS) {
        int rc = ldap_fail(lrc, uri, "StartTLS", ld);
        ldap_unbind_ext_s(ld, NULL, NULL);
        return rc;
    }
    char *pw = NULL;
    int rc = 0;
    if (o->ldap_bind_dn)
        rc = read_password(&pw, o);
    if (rc == 0) {
        struct berval cred = {pw ? strlen(pw) : 0, pw};
        lrc = ldap_sasl_bind_s(ld, o->ldap_bind_dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
        if (lrc != LDAP_SUCCESS)
            rc = ldap_fail(lrc, uri, o->ldap_bind_dn ? o->ldap_bind_dn : "anonymous bind", ld);
    }
    if (pw) {
        memset(pw, 0, strlen(pw));
        free(pw);
    }
    if (rc < 0) {
        ldap_unbind_ext_s(ld, NULL, NULL);
        return rc;
    }
    *out = ld;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Reading the directory                                              */
/* ------------------------------------------------------------------ */

static int dn_is(const char *dn, const char *want)
{
    return !strcasecmp(dn, want);
}

static int load_dir(dir *d, LDAP *ld, const char *uri, const char *base, const char *people,
                    const char *groups)
{
    char *attrs[NATTR + 1];
    for (int a = 0; a < NATTR; a++)
        attrs[a] = (char *)attr_names[a];
    attrs[NATTR] = NULL;
    LDAPMessage *res = NULL;
    int lrc = ldap_search_ext_s(ld, base, LDAP_SCOPE_SUBTREE,
                                "(|(objectClass=posixAccount)(objectClass=posixGroup)"
                                "(objectClass=organizationalUnit))",
                                attrs, 0, NULL, NULL, NULL, LDAP_NO_LIMIT, &res);
    if (lrc == LDAP_SIZELIMIT_EXCEEDED || lrc == LDAP_ADMINLIMIT_EXCEEDED) {
        /* planning on part of the directory would miss conflicts: stop */
        ldap_msgfree(res);
        return slinky__error_set(SLINKY_ERROR,
                                 "ldap %s: search of %s: the server returned only part of the "
                                 "entries (%s): give the bind DN an unlimited size limit "
                                 "(slapd: olcLimits dn.exact=\"<bind dn>\" size=unlimited)",
                                 uri, base, ldap_err2string(lrc));
    }
    if (lrc != LDAP_SUCCESS) {
        ldap_msgfree(res);
        return ldap_fail(lrc, uri, "search", ld);
    }
    int n = ldap_count_entries(ld, res);
    int rc = 0;
    if (n > 0 && !(d->e = slinky__calloc((size_t)n, sizeof(*d->e))))
        rc = SLINKY_ENOMEM;
    for (LDAPMessage *m = ldap_first_entry(ld, res); rc == 0 && m; m = ldap_next_entry(ld, m)) {
        char *dn = ldap_get_dn(ld, m);
        if (!dn)
            continue;
        if (dn_is(dn, people))
            d->have_people = true;
        if (dn_is(dn, groups))
            d->have_groups = true;
        dentry *e = &d->e[d->n];
        for (int a = 0; rc == 0 && a < NATTR; a++) {
            struct berval **bv = ldap_get_values_len(ld, m, attr_names[a]);
            for (size_t i = 0; rc == 0 && bv && bv[i]; i++)
                rc = vals_add(&e->a[a], bv[i]->bv_val, bv[i]->bv_len);
            ldap_value_free_len(bv);
        }
        e->account = has_val(&e->a[A_OC], "posixAccount");
        e->group = has_val(&e->a[A_OC], "posixGroup");
        if (rc == 0 && (e->account || e->group) && !(e->dn = slinky__strdup(dn)))
            rc = SLINKY_ENOMEM;
        ldap_memfree(dn);
        if (e->dn)
            d->n++;
        else
            for (int a = 0; a < NATTR; a++)
                vals_free(&e->a[a]);
    }
    ldap_msgfree(res);
    return rc;
}

/* An entry's name: uid of an account, cn of a group (the first value). */
static const char *ename(const dentry *e)
{
    const vals *v = &e->a[e->account ? A_UID : A_CN];
    return v->n ? v->v[0] : "";
}

static int cmp_dn(const void *a, const void *b)
{
    return strcasecmp((*(dentry *const *)a)->dn, (*(dentry *const *)b)->dn);
}

static int cmp_id(const void *a, const void *b)
{
    const dentry *x = *(dentry *const *)a, *y = *(dentry *const *)b;
    if (x->account != y->account)
        return x->account ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_name(const void *a, const void *b)
{
    const dentry *x = *(dentry *const *)a, *y = *(dentry *const *)b;
    if (x->account != y->account)
        return x->account ? -1 : 1;
    return strcasecmp(ename(x), ename(y));
}

static int index_dir(dir *d)
{
    if (!d->n)
        return 0;
    d->by_dn = slinky__calloc(d->n, sizeof(dentry *));
    d->by_id = slinky__calloc(d->n, sizeof(dentry *));
    d->by_name = slinky__calloc(d->n, sizeof(dentry *));
    if (!d->by_dn || !d->by_id || !d->by_name)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        dentry *e = &d->e[i];
        e->id = num_of(&e->a[e->account ? A_UIDNUM : A_GIDNUM]);
        d->by_dn[i] = d->by_id[i] = d->by_name[i] = e;
    }
    qsort(d->by_dn, d->n, sizeof(dentry *), cmp_dn);
    qsort(d->by_id, d->n, sizeof(dentry *), cmp_id);
    qsort(d->by_name, d->n, sizeof(dentry *), cmp_name);
    return 0;
}

/* The first of the run of entries equal to key in idx (sorted by cmp), or n. */
static size_t lower(dentry **idx, size_t n, const dentry *key, int (*cmp)(const void *, const void *))
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(&idx[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static dentry *find_dn(dir *d, const char *dn)
{
    dentry key = {.dn = (char *)dn}, *kp = &key;
    dentry **r = d->n ? bsearch(&kp, d->by_dn, d->n, sizeof(dentry *), cmp_dn) : NULL;
    return r ? *r : NULL;
}

/* ------------------------------------------------------------------ */
/* Wanted entries                                                     */
/* ------------------------------------------------------------------ */

typedef struct want {
    char *dn;
    bool account;
    uint32_t id;
    const char *name;
    vals a[NATTR];
} want;

static void want_dispose(want *w)
{
    free(w->dn);
    for (int a = 0; a < NATTR; a++)
        vals_free(&w->a[a]);
}

static int put(want *w, int a, const char *s)
{
    return vals_add(&w->a[a], s, strlen(s));
}

static bool ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x7f)
            return false;
    return true;
}

static int want_user(want *w, const slinky_ledger__user *u, const char *people)
{
    char n[16], g[16];
    snprintf(n, sizeof(n), "%u", u->uid);
    snprintf(g, sizeof(g), "%u", u->gid);
    w->account = true;
    w->id = u->uid;
    w->name = u->name;
    int rc = (w->dn = slinky__sprintf("uid=%s,%s", u->name, people)) ? 0 : SLINKY_ENOMEM;
    static const char *const ocs[] = {"account", "posixAccount", "shadowAccount",
                                      "ldapPublicKey"};
    for (size_t i = 0; rc == 0 && i < SLINKY__ARRAY_SIZE(ocs); i++)
        rc = put(w, A_OC, ocs[i]);
    if (rc == 0)
        rc = put(w, A_UID, u->name);
    if (rc == 0)
        rc = put(w, A_CN, *u->gecos && ascii(u->gecos) ? u->gecos : u->name);
    if (rc == 0)
        rc = put(w, A_UIDNUM, n);
    if (rc == 0)
        rc = put(w, A_GIDNUM, g);
    if (rc == 0)
        rc = put(w, A_HOME, u->home);
    if (rc == 0)
        rc = put(w, A_SHELL, u->shell);
    if (rc == 0 && *u->gecos && ascii(u->gecos))
        rc = put(w, A_GECOS, u->gecos);
    bool active = !strcmp(u->state, "active");
    for (size_t k = 0; rc == 0 && active && k < u->nkeys; k++)
        rc = put(w, A_KEY, u->keys[k].key);
    if (rc == 0 && !active)
        rc = put(w, A_EXPIRE, "1"); /* sssd/nslcd: account expired */
    return rc;
}

static int want_group(want *w, const char *name, uint32_t gid, const slinky_ledger__group *g,
                      const slinky_ledger__state *st, const char *groups)
{
    char n[16];
    snprintf(n, sizeof(n), "%u", gid);
    w->id = gid;
    w->name = name;
    int rc = (w->dn = slinky__sprintf("cn=%s,%s", name, groups)) ? 0 : SLINKY_ENOMEM;
    if (rc == 0)
        rc = put(w, A_OC, "posixGroup");
    if (rc == 0)
        rc = put(w, A_CN, name);
    if (rc == 0)
        rc = put(w, A_GIDNUM, n);
    for (size_t m = 0; rc == 0 && g && m < g->nmembers; m++) {
        const slinky_ledger__user *u = slinky_ledger__state_user(st, g->members[m]);
        if (u && strcmp(u->state, "deleted") != 0)
            rc = put(w, A_MEMBER, u->name);
    }
    return rc;
}

/* Same values, any order (attribute values are sets). */
static bool same_set(const vals *x, const vals *y)
{
    if (x->n != y->n)
        return false;
    for (size_t i = 0; i < x->n; i++) {
        bool found = false;
        for (size_t j = 0; j < y->n && !found; j++)
            found = !strcmp(x->v[i], y->v[j]);
        if (!found)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Plan                                                               */
/* ------------------------------------------------------------------ */

typedef enum { OP_NONE, OP_ADD, OP_MODIFY } op_kind;

typedef struct op {
    op_kind kind;
    bool diff[NATTR]; /* modify: the attributes that differ */
} op;

/* A directory entry (not `self`) of the same kind holding `id` or `name`. */
static int conflict_check(dir *d, const want *w, const dentry *self, const char *uri)
{
    char *nv[] = {(char *)w->name};
    dentry key;
    memset(&key, 0, sizeof(key));
    key.account = w->account;
    key.group = !w->account;
    key.id = (long)w->id;
    key.a[w->account ? A_UID : A_CN] = (vals){nv, 1};
    for (size_t i = lower(d->by_id, d->n, &key, cmp_id);
         i < d->n && cmp_id(&d->by_id[i], &(dentry *){&key}) == 0; i++)
        if (d->by_id[i] != self)
            return slinky__error_set(SLINKY_ECONFLICT,
                                     "ldap %s: %s %u of ledger %s '%s' is already used by %s, "
                                     "which the ledger does not know (nothing written)",
                                     uri, w->account ? "uidNumber" : "gidNumber", w->id,
                                     w->account ? "user" : "group", w->name, d->by_id[i]->dn);
    for (size_t i = lower(d->by_name, d->n, &key, cmp_name);
         i < d->n && cmp_name(&d->by_name[i], &(dentry *){&key}) == 0; i++)
        if (d->by_name[i] != self)
            return slinky__error_set(SLINKY_ECONFLICT,
                                     "ldap %s: %s '%s' is already the name of %s (nothing "
                                     "written)",
                                     uri, w->account ? "user" : "group", w->name,
                                     d->by_name[i]->dn);
    return 0;
}

static int plan_want(op *o, dir *d, want *w, const char *uri)
{
    dentry *e = find_dn(d, w->dn);
    int numattr = w->account ? A_UIDNUM : A_GIDNUM;
    if (e) {
        long have = num_of(&e->a[numattr]);
        if (have != (long)w->id)
            return slinky__error_set(SLINKY_ECONFLICT,
                                     "ldap %s: %s has %s %ld but the ledger has %u (not "
                                     "renumbering; nothing written)",
                                     uri, w->dn, attr_names[numattr], have, w->id);
        e->claimed = true;
    }
    int rc = conflict_check(d, w, e, uri);
    if (rc < 0)
        return rc;
    if (!e) {
        o->kind = OP_ADD;
        return 0;
    }
    o->kind = OP_NONE;
    for (int a = 0; a < NATTR; a++) {
        if (a == A_OC) {
            for (size_t i = 0; i < w->a[a].n; i++)
                if (!has_val(&e->a[a], w->a[a].v[i]))
                    o->diff[a] = true;
        } else if (!same_set(&w->a[a], &e->a[a])) {
            o->diff[a] = true;
        }
        if (o->diff[a])
            o->kind = OP_MODIFY;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Writes                                                             */
/* ------------------------------------------------------------------ */

/* Send an add (every attribute of w) or a modify (the `diff` ones: objectClass
 * adds the missing classes, the others are replaced, none = deleted). */
static int write_entry(LDAP *ld, const char *uri, want *w, const bool *diff)
{
    LDAPMod mods[NATTR], *mp[NATTR + 1];
    char **arr[NATTR];
    int n = 0, rc = 0;
    for (int a = 0; a < NATTR; a++) {
        vals *v = &w->a[a];
        if (diff ? !diff[a] : !v->n)
            continue;
        mods[n].mod_op = !diff || a == A_OC ? LDAP_MOD_ADD : LDAP_MOD_REPLACE;
        mods[n].mod_type = (char *)attr_names[a];
        if (!(arr[n] = slinky__calloc(v->n + 1, sizeof(char *)))) {
            rc = SLINKY_ENOMEM;
            break;
        }
        if (v->n)
            memcpy(arr[n], v->v, v->n * sizeof(char *));
        mods[n].mod_values = arr[n];
        mp[n] = &mods[n];
        n++;
    }
    mp[n] = NULL;
    if (rc == 0) {
        int lrc = diff ? ldap_modify_ext_s(ld, w->dn, mp, NULL, NULL)
                       : ldap_add_ext_s(ld, w->dn, mp, NULL, NULL);
        if (lrc != LDAP_SUCCESS)
            rc = ldap_fail(lrc, uri, w->dn, ld);
    }
    for (int i = 0; i < n; i++)
        free(arr[i]);
    return rc;
}

static int ensure_ou(LDAP *ld, const char *uri, const char *dn, const char *ou)
{
    char *oc[] = {"organizationalUnit", NULL}, *ouv[] = {(char *)ou, NULL};
    LDAPMod m1 = {LDAP_MOD_ADD, "objectClass", {oc}}, m2 = {LDAP_MOD_ADD, "ou", {ouv}};
    LDAPMod *mp[] = {&m1, &m2, NULL};
    int lrc = ldap_add_ext_s(ld, dn, mp, NULL, NULL);
    if (lrc != LDAP_SUCCESS && lrc != LDAP_ALREADY_EXISTS)
        return ldap_fail(lrc, uri, dn, ld);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The sink                                                           */
/* ------------------------------------------------------------------ */

int slinky_ledger__sink_ldap(slinky_ledger__run *run)
{
    const slinky_ledger_replay_options *o = run->opts;
    const slinky_ledger__state *st = run->st;
    if (!o->ldap_uri || !*o->ldap_uri || !o->ldap_base || !*o->ldap_base)
        return slinky__error_set(SLINKY_EINVALID,
                                 "replay: the ldap sink needs ldap_uri and ldap_base");
    if (o->ldap_bind_dn && !o->ldap_password_file == !o->ldap_password_secret)
        return slinky__error_set(SLINKY_EINVALID,
                                 "replay: the ldap sink's bind dn needs a password file or a "
                                 "Secret (one of them)");
    const char *uri = o->ldap_uri;
    char *people = slinky__sprintf("ou=people,%s", o->ldap_base);
    char *groups = slinky__sprintf("ou=groups,%s", o->ldap_base);
    size_t nw = 2 * st->nusers + st->ngroups;
    want *w = slinky__calloc(nw + 1, sizeof(*w));
    op *ops = slinky__calloc(nw + 1, sizeof(*ops));
    char **dels = slinky__calloc(nw + 1, sizeof(*dels));
    size_t ndel = 0, n = 0;
    dir d;
    memset(&d, 0, sizeof(d));
    LDAP *ld = NULL;
    int rc = people && groups && w && ops && dels ? 0 : SLINKY_ENOMEM;
    if (rc == 0)
        rc = connect_bind(&ld, o);
    if (rc == 0)
        rc = load_dir(&d, ld, uri, o->ldap_base, people, groups);
    if (rc == 0)
        rc = index_dir(&d);
    /* wanted: groups (ledger groups and user private groups), then users */
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        if (!strcmp(u->state, "deleted"))
            continue;
        rc = want_group(&w[n++], u->name, u->gid, NULL, st, groups);
    }
    for (size_t i = 0; rc == 0 && i < st->ngroups; i++) {
        const slinky_ledger__group *g = &st->groups[i];
        if (strcmp(g->state, "active") != 0)
            continue;
        rc = want_group(&w[n++], g->name, g->gid, g, st, groups);
    }
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        if (!strcmp(u->state, "deleted"))
            continue;
        rc = want_user(&w[n++], u, people);
    }
    /* the plan: every conflict is found before anything is written */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = plan_want(&ops[i], &d, &w[i], uri);
        if (rc == 0 && ops[i].kind == OP_MODIFY && ops[i].diff[A_OC]) {
            /* keep only the classes the entry lacks */
            dentry *e = find_dn(&d, w[i].dn);
            vals keep = {NULL, 0};
            for (size_t k = 0; rc == 0 && k < w[i].a[A_OC].n; k++)
                if (!has_val(&e->a[A_OC], w[i].a[A_OC].v[k]))
                    rc = vals_add(&keep, w[i].a[A_OC].v[k], strlen(w[i].a[A_OC].v[k]));
            vals_free(&w[i].a[A_OC]);
            w[i].a[A_OC] = keep;
        }
    }
    /* tombstones: delete their entries when the id is still the ledger's */
    for (size_t i = 0; rc == 0 && i < st->nusers + st->ngroups; i++) {
        bool user = i < st->nusers;
        const char *name = user ? st->users[i].name : st->groups[i - st->nusers].name;
        const char *state = user ? st->users[i].state : st->groups[i - st->nusers].state;
        uint32_t id = user ? st->users[i].uid : st->groups[i - st->nusers].gid;
        if (strcmp(state, "deleted") != 0)
            continue;
        for (int pass = 0; pass < (user ? 2 : 1) && rc == 0; pass++) {
            bool acct = user && pass == 0;
            char *dn = acct ? slinky__sprintf("uid=%s,%s", name, people)
                            : slinky__sprintf("cn=%s,%s", name, groups);
            dentry *e = dn ? find_dn(&d, dn) : NULL;
            if (!dn)
                rc = SLINKY_ENOMEM;
            else if (e && num_of(&e->a[acct ? A_UIDNUM : A_GIDNUM]) == (long)id)
                dels[ndel++] = dn, dn = NULL;
            free(dn);
        }
    }
    run->total = n + ndel;
    /* writes */
    if (rc == 0 && !o->dry_run && !d.have_people && n)
        rc = ensure_ou(ld, uri, people, "people");
    if (rc == 0 && !o->dry_run && !d.have_groups && n)
        rc = ensure_ou(ld, uri, groups, "groups");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        op *p = &ops[i];
        slinky_ledger__run_step(run, p->kind != OP_NONE, "%s %s",
                                p->kind == OP_ADD      ? "add"
                                : p->kind == OP_MODIFY ? "modify"
                                                       : "have",
                                w[i].dn);
        if (o->dry_run)
            continue;
        if (p->kind != OP_NONE)
            rc = write_entry(ld, uri, &w[i], p->kind == OP_MODIFY ? p->diff : NULL);
    }
    for (size_t i = 0; rc == 0 && i < ndel; i++) {
        slinky_ledger__run_step(run, true, "delete %s", dels[i]);
        if (o->dry_run)
            continue;
        int lrc = ldap_delete_ext_s(ld, dels[i], NULL, NULL);
        if (lrc != LDAP_SUCCESS && lrc != LDAP_NO_SUCH_OBJECT)
            rc = ldap_fail(lrc, uri, dels[i], ld);
    }
    if (ld)
        ldap_unbind_ext_s(ld, NULL, NULL);
    dir_dispose(&d);
    for (size_t i = 0; i < n; i++)
        want_dispose(&w[i]);
    for (size_t i = 0; i < ndel; i++)
        free(dels[i]);
    free(dels);
    free(ops);
    free(w);
    free(people);
    free(groups);
    return rc;
}
