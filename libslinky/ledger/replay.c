/* Replay: load the tip into memory, converge sinks, record progress refs. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"

/* ------------------------------------------------------------------ */
/* State                                                              */
/* ------------------------------------------------------------------ */

static void user_dispose(slinky_ledger__user *u)
{
    free(u->name);
    free(u->gecos);
    free(u->home);
    free(u->shell);
    free(u->state);
    for (size_t i = 0; i < u->nkeys; i++) {
        free(u->keys[i].tag);
        free(u->keys[i].key);
    }
    free(u->keys);
}

static void group_dispose(slinky_ledger__group *g)
{
    free(g->name);
    free(g->state);
    free(g->description);
    free(g->organization);
    for (size_t i = 0; i < g->nmembers; i++)
        free(g->members[i]);
    free(g->members);
}

void slinky_ledger__state_dispose(slinky_ledger__state *st)
{
    for (size_t i = 0; i < st->nusers; i++)
        user_dispose(&st->users[i]);
    for (size_t i = 0; i < st->ngroups; i++)
        group_dispose(&st->groups[i]);
    for (size_t i = 0; i < st->naccounts; i++)
        group_dispose(&st->accounts[i]);
    free(st->users);
    free(st->groups);
    free(st->accounts);
    free(st->cluster);
    memset(st, 0, sizeof(*st));
}

static char *sdup(const slinky_doc_value *v, const char *key, const char *fb)
{
    return slinky__strdup(slinky_doc_value_path_string(v, key, fb));
}

static int load_user(slinky_ledger__user *u, const slinky_doc_value *r)
{
    memset(u, 0, sizeof(*u));
    u->name = sdup(r, "name", "");
    u->gecos = sdup(r, "gecos", "");
    u->home = sdup(r, "home", "");
    u->shell = sdup(r, "shell", "");
    u->state = sdup(r, "state", "active");
    u->uid = (uint32_t)slinky_doc_value_path_int(r, "uid", 0);
    u->gid = (uint32_t)slinky_doc_value_path_int(r, "gid", u->uid);
    slinky_doc_value *keys = slinky_doc_value_get(r, "keys");
    size_t n = slinky_doc_value_size(keys);
    if (n && !(u->keys = slinky__calloc(n, sizeof(*u->keys))))
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        slinky_doc_value *k = slinky_doc_value_at(keys, i);
        u->keys[i].tag = sdup(k, "tag", "");
        u->keys[i].key = sdup(k, "key", "");
        u->nkeys++;
        if (!u->keys[i].tag || !u->keys[i].key)
            return SLINKY_ENOMEM;
    }
    if (!u->name || !u->gecos || !u->home || !u->shell || !u->state)
        return SLINKY_ENOMEM;
    return 0;
}

static int load_group(slinky_ledger__group *g, const slinky_doc_value *r, const char *list)
{
    memset(g, 0, sizeof(*g));
    g->name = sdup(r, "name", "");
    g->state = sdup(r, "state", "active");
    g->description = sdup(r, "description", "");
    g->organization = sdup(r, "organization", "");
    g->gid = (uint32_t)slinky_doc_value_path_int(r, "gid", 0);
    slinky_doc_value *m = slinky_doc_value_get(r, list);
    size_t n = slinky_doc_value_size(m);
    if (n && !(g->members = slinky__calloc(n, sizeof(char *))))
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *s = slinky_doc_value_get_string(slinky_doc_value_at(m, i));
        if (!(g->members[g->nmembers++] = slinky__strdup(s ? s : "")))
            return SLINKY_ENOMEM;
    }
    if (!g->name || !g->state || !g->description || !g->organization)
        return SLINKY_ENOMEM;
    return 0;
}

typedef int (*record_fn)(void *ctx, const slinky_doc_value *r);

typedef struct parse_ctx {
    record_fn fn;
    void *ctx;
} parse_ctx;

static int parse_one(void *c, const char *data, size_t len)
{
    parse_ctx *p = c;
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_json(&d, data, len);
    if (rc == 0)
        rc = p->fn(p->ctx, slinky_doc_root(d));
    slinky_doc_free(d);
    return rc;
}

static int each_record(git_repository *repo, git_tree *root, const char *dir, record_fn fn,
                       void *ctx)
{
    parse_ctx p = {fn, ctx};
    return slinky_ledger__each_blob(repo, root, dir, parse_one, &p);
}

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *p = slinky__realloc(*arr, nc * size);
    if (!p)
        return SLINKY_ENOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

typedef struct load_ctx {
    slinky_ledger__state *st;
    size_t ucap, gcap, acap;
} load_ctx;

static int add_user(void *c, const slinky_doc_value *r)
{
    load_ctx *lc = c;
    if (grow((void **)&lc->st->users, lc->st->nusers, &lc->ucap, sizeof(slinky_ledger__user)) < 0)
        return SLINKY_ENOMEM;
    return load_user(&lc->st->users[lc->st->nusers++], r);
}

static int add_group(void *c, const slinky_doc_value *r)
{
    load_ctx *lc = c;
    if (grow((void **)&lc->st->groups, lc->st->ngroups, &lc->gcap, sizeof(slinky_ledger__group)) <
        0)
        return SLINKY_ENOMEM;
    return load_group(&lc->st->groups[lc->st->ngroups++], r, "members");
}

static int add_account(void *c, const slinky_doc_value *r)
{
    load_ctx *lc = c;
    if (grow((void **)&lc->st->accounts, lc->st->naccounts, &lc->acap,
             sizeof(slinky_ledger__group)) < 0)
        return SLINKY_ENOMEM;
    return load_group(&lc->st->accounts[lc->st->naccounts++], r, "users");
}

static int cmp_user(const void *a, const void *b)
{
    const slinky_ledger__user *x = a, *y = b;
    return x->uid < y->uid ? -1 : x->uid > y->uid;
}

static int cmp_group(const void *a, const void *b)
{
    const slinky_ledger__group *x = a, *y = b;
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static int cmp_account(const void *a, const void *b)
{
    const slinky_ledger__group *x = a, *y = b;
    return strcmp(x->name, y->name);
}

int slinky_ledger__state_load(slinky_ledger__state *out, slinky_ledger *l, const git_oid *commit)
{
    git_commit *c = NULL;
    git_tree *tree = NULL;
    if (git_commit_lookup(&c, l->repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
        git_commit_free(c);
        return slinky_ledger__git_error(SLINKY_EGIT, "read commit");
    }
    git_commit_free(c);
    slinky_ledger__state st;
    memset(&st, 0, sizeof(st));
    load_ctx lc = {&st, 0, 0, 0};
    int rc = each_record(l->repo, tree, "users", add_user, &lc);
    if (rc == 0)
        rc = each_record(l->repo, tree, "groups", add_group, &lc);
    if (rc == 0)
        rc = each_record(l->repo, tree, "accounts", add_account, &lc);
    char *lj = NULL;
    if (rc == 0 && (rc = slinky_ledger__tree_read(&lj, NULL, l->repo, tree, "ledger.json")) == 0) {
        slinky_doc *d = NULL;
        if ((rc = slinky_doc_parse_json(&d, lj, strlen(lj))) == 0)
            st.cluster = sdup(slinky_doc_root(d), "cluster", "");
        slinky_doc_free(d);
    }
    free(lj);
    git_tree_free(tree);
    if (rc < 0) {
        slinky_ledger__state_dispose(&st);
        return rc;
    }
    if (st.nusers)
        qsort(st.users, st.nusers, sizeof(*st.users), cmp_user);
    if (st.ngroups)
        qsort(st.groups, st.ngroups, sizeof(*st.groups), cmp_group);
    if (st.naccounts)
        qsort(st.accounts, st.naccounts, sizeof(*st.accounts), cmp_account);
    *out = st;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Replay                                                             */
/* ------------------------------------------------------------------ */

/* The size of the options of a version (1: without the ldap_* members), or 0. */
static size_t options_size(unsigned int version)
{
    if (version == 1)
        return offsetof(slinky_ledger_replay_options, ldap_uri);
    return version == SLINKY_LEDGER_REPLAY_OPTIONS_VERSION ? sizeof(slinky_ledger_replay_options)
                                                           : 0;
}

slinky_status slinky_ledger_replay_options_init(slinky_ledger_replay_options *opts,
                                                unsigned int version)
{
    if (!opts || !options_size(version))
        return slinky__error_set(SLINKY_EINVALID,
                                 "unknown slinky_ledger_replay_options version %u", version);
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    o.version = version;
    memcpy(opts, &o, options_size(version));
    return 0;
}

/* Optional sinks: kube/sink_kube.c is built only with the kube module and
 * ldap/sink_ldap.c only with libldap; a missing one is a NULL address. */
int slinky_ledger__sink_kube(slinky_ledger__run *run) __attribute__((weak));
int slinky_ledger__sink_ldap(slinky_ledger__run *run) __attribute__((weak));

static const struct {
    unsigned bit;
    const char *name;
    int (*fn)(slinky_ledger__run *);
    const char *needs; /* what the library is built without when fn is NULL */
} sinks[] = {
    {SLINKY_LEDGER_SINK_POSIX, "posix", slinky_ledger__sink_posix, NULL},
    {SLINKY_LEDGER_SINK_KANIDM, "kanidm", slinky_ledger__sink_kanidm, NULL},
    {SLINKY_LEDGER_SINK_LDAP, "ldap", slinky_ledger__sink_ldap, "libldap"},
    {SLINKY_LEDGER_SINK_KUBE, "kube", slinky_ledger__sink_kube, "the kube module"},
    {SLINKY_LEDGER_SINK_SLURM, "slurm", slinky_ledger__sink_slurm, NULL},
};

slinky_status slinky_ledger_replay(char **plan_out, slinky_ledger *ledger,
                                   const slinky_ledger_replay_options *given)
{
    if (!ledger || !given)
        return slinky__error_set(SLINKY_EINVALID, "slinky_ledger_replay: ledger and opts required");
    if (!options_size(given->version))
        return slinky__error_set(SLINKY_EINVALID,
                                 "unknown slinky_ledger_replay_options version %u",
                                 given->version);
    /* an older caller's options, with the later members at their defaults */
    slinky_ledger_replay_options all = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    memcpy(&all, given, options_size(given->version));
    const slinky_ledger_replay_options *opts = &all;
    if (!opts->sinks || (opts->sinks & ~31u))
        return slinky__error_set(SLINKY_EINVALID, "replay: no sink (or an unknown sink) chosen");
    if ((opts->sinks & SLINKY_LEDGER_SINK_POSIX) && (!opts->posix_root || !*opts->posix_root))
        return slinky__error_set(SLINKY_EINVALID, "replay: the POSIX sink needs a root folder");
    const char *inc = opts->incarnation ? opts->incarnation : "default";
    if (!*inc || strlen(inc) > 100 || strspn(inc, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                                  "WXYZ0123456789._-") != strlen(inc) ||
        inc[0] == '.')
        return slinky__error_set(SLINKY_EINVALID,
                                 "replay: incarnation '%s' must be 1-100 of [A-Za-z0-9._-]", inc);
    git_commit *tip = NULL;
    int rc = slinky_ledger__tip(&tip, ledger->repo);
    if (rc < 0)
        return rc;
    git_oid tip_id;
    git_oid_cpy(&tip_id, git_commit_id(tip));
    git_commit_free(tip);
    if ((rc = slinky_ledger__check_history(ledger, &tip_id)) < 0)
        return rc;
    slinky_ledger__state st;
    memset(&st, 0, sizeof(st));
    bool loaded = false;
    slinky_ledger__run run;
    memset(&run, 0, sizeof(run));
    run.opts = opts;
    run.st = &st;
    slinky__buf_puts(&run.plan, "");
    for (size_t i = 0; rc == 0 && i < SLINKY__ARRAY_SIZE(sinks); i++) {
        if (!(opts->sinks & sinks[i].bit))
            continue;
        if (!sinks[i].fn) {
            rc = slinky__error_set(SLINKY_EUNSUPPORTED, "the %s sink needs libslinky built with %s",
                                   sinks[i].name, sinks[i].needs);
            break;
        }
        char *refname = slinky__sprintf("refs/replay/%s/%s", inc, sinks[i].name);
        if (!refname) {
            rc = SLINKY_ENOMEM;
            break;
        }
        git_oid done;
        if (!opts->force && git_reference_name_to_id(&done, ledger->repo, refname) == 0 &&
            git_oid_equal(&done, &tip_id)) {
            if (opts->progress)
                opts->progress(sinks[i].name, 1, 1, "up to date", opts->payload);
            free(refname);
            continue;
        }
        git_error_clear();
        if (!loaded) {
            if ((rc = slinky_ledger__state_load(&st, ledger, &tip_id)) < 0) {
                free(refname);
                break;
            }
            loaded = true;
        }
        run.sink = sinks[i].name;
        run.done = run.total = 0;
        rc = sinks[i].fn(&run);
        if (rc == 0 && opts->progress)
            opts->progress(run.sink, run.total, run.total, "done", opts->payload);
        if (rc == 0 && !opts->dry_run) {
            git_reference *ref = NULL;
            if (git_reference_create(&ref, ledger->repo, refname, &tip_id, 1, "replay") < 0)
                rc = slinky_ledger__git_error(SLINKY_EGIT, refname);
            git_reference_free(ref);
        }
        free(refname);
    }
    slinky_ledger__state_dispose(&st);
    if (rc < 0 || !plan_out) {
        slinky__buf_dispose(&run.plan);
        return rc;
    }
    return slinky__buf_finish(plan_out, NULL, &run.plan);
}
