/* Slurm accounting sink: sacctmgr against the slurmdbd of $SLURM_CONF.
 * Looks first (show account / show assoc), then adds what is missing and
 * removes associations the ledger removed. Users are keyed by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/sink.h"

#define CHUNK 100

static const char *sacctmgr(slinky_ledger__run *run)
{
    return run->opts->sacctmgr ? run->opts->sacctmgr : "sacctmgr";
}

static int run_sacctmgr(slinky_ledger__run *run, char **out, char *const *args)
{
    char *argv[16];
    size_t n = 0;
    argv[n++] = (char *)sacctmgr(run);
    for (; *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *o = NULL;
    int st = slinky_ledger__exec(&o, argv);
    if (st < 0)
        return st;
    if (st != 0) {
        int rc = slinky__error_set(SLINKY_ERROR, "%s %s %s %s failed (exit %d): %.200s", argv[0],
                                   argv[1], argv[2] ? argv[2] : "", argv[3] ? argv[3] : "", st,
                                   o ? o : "");
        free(o);
        return rc;
    }
    if (out)
        *out = o;
    else
        free(o);
    return 0;
}

/* Is "needle\n" a line of hay? */
static bool has_line(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l == n && !memcmp(p, needle, n))
            return true;
        p = nl ? nl + 1 : NULL;
    }
    return false;
}

static bool user_has_assoc(const char *assocs, const char *user)
{
    size_t n = strlen(user);
    for (const char *p = assocs; p && *p;) {
        const char *bar = strchr(p, '|');
        const char *nl = strchr(p, '\n');
        if (bar && (!nl || bar < nl) && (size_t)((nl ? nl : p + strlen(p)) - bar - 1) == n &&
            !memcmp(bar + 1, user, n))
            return true;
        p = nl ? nl + 1 : NULL;
    }
    return false;
}

static int flush_users(slinky_ledger__run *run, const char *account, slinky__buf *names,
                       bool defaults)
{
    if (!names->len)
        return 0;
    char *n = slinky__sprintf("name=%s", names->data);
    char *a = slinky__sprintf("account=%s", account);
    char *d = slinky__sprintf("defaultaccount=%s", account);
    int rc = n && a && d ? 0 : SLINKY_ENOMEM;
    if (rc == 0 && !run->opts->dry_run) {
        char *args[] = {"-i", "add", "user", n, a, defaults ? d : NULL, NULL};
        rc = run_sacctmgr(run, NULL, args);
    }
    free(n);
    free(a);
    free(d);
    slinky__buf_clear(names);
    return rc;
}

int slinky_ledger__sink_slurm(slinky_ledger__run *run)
{
    const slinky_ledger__state *st = run->st;
    char *accounts = NULL, *assocs = NULL;
    char *a1[] = {"-nP", "show", "account", "format=account", NULL};
    char *a2[] = {"-nP", "show", "assoc", "format=account,user", NULL};
    int rc = run_sacctmgr(run, &accounts, a1);
    if (rc == 0)
        rc = run_sacctmgr(run, &assocs, a2);
    size_t nassoc = 0;
    for (size_t i = 0; i < st->naccounts; i++)
        nassoc += st->accounts[i].nmembers;
    run->total = st->naccounts + nassoc;
    /* accounts */
    for (size_t i = 0; rc == 0 && i < st->naccounts; i++) {
        const slinky_ledger__group *a = &st->accounts[i];
        if (has_line(accounts, a->name)) {
            slinky_ledger__run_step(run, false, "account %s", a->name);
            continue;
        }
        slinky_ledger__run_step(run, true, "add account %s", a->name);
        if (run->opts->dry_run)
            continue;
        char *n = slinky__sprintf("name=%s", a->name);
        char *d = slinky__sprintf("description=%s", *a->description ? a->description : a->name);
        char *o = slinky__sprintf("organization=%s",
                                  *a->organization ? a->organization : a->name);
        rc = n && d && o ? 0 : SLINKY_ENOMEM;
        if (rc == 0) {
            char *args[] = {"-i", "add", "account", n, d, o, NULL};
            rc = run_sacctmgr(run, NULL, args);
        }
        free(n);
        free(d);
        free(o);
    }
    /* associations: users of accounts, batched per account */
    slinky__buf fresh = SLINKY__BUF_INIT, known = SLINKY__BUF_INIT, defaulted = SLINKY__BUF_INIT;
    slinky__buf_puts(&defaulted, "");
    for (size_t i = 0; rc == 0 && i < st->naccounts; i++) {
        const slinky_ledger__group *a = &st->accounts[i];
        size_t nf = 0, nk = 0;
        for (size_t m = 0; rc == 0 && m < a->nmembers; m++) {
            const char *un = a->members[m];
            const slinky_ledger__user *u = slinky_ledger__state_user(st, un);
            if (!u || !strcmp(u->state, "deleted"))
                continue;
            char *pair = slinky__sprintf("%s|%s", a->name, un);
            if (!pair) {
                rc = SLINKY_ENOMEM;
                break;
            }
            bool have = has_line(assocs, pair);
            free(pair);
            if (have) {
                slinky_ledger__run_step(run, false, "association %s/%s", a->name, un);
                continue;
            }
            slinky_ledger__run_step(run, true, "add association user %s account %s", un,
                                    a->name);
            /* a user's first association (in Slurm or in this run) sets its default */
            bool first = !user_has_assoc(assocs, un) && !has_line(defaulted.data, un);
            if (first)
                slinky__buf_printf(&defaulted, "%s\n", un);
            slinky__buf *b = first ? &fresh : &known;
            size_t *cnt = first ? &nf : &nk;
            slinky__buf_printf(b, "%s%s", b->len ? "," : "", un);
            if (++*cnt == CHUNK) {
                rc = flush_users(run, a->name, b, first);
                *cnt = 0;
            }
        }
        if (rc == 0)
            rc = flush_users(run, a->name, &fresh, true);
        if (rc == 0)
            rc = flush_users(run, a->name, &known, false);
    }
    slinky__buf_dispose(&fresh);
    slinky__buf_dispose(&known);
    slinky__buf_dispose(&defaulted);
    /* associations the ledger removed (known users and accounts only) */
    for (const char *p = assocs; rc == 0 && p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        char *ln = slinky__strndup(p, l);
        p = nl ? nl + 1 : NULL;
        if (!ln) {
            rc = SLINKY_ENOMEM;
            break;
        }
        char *bar = strchr(ln, '|');
        if (bar && bar[1]) {
            *bar = '\0';
            const char *acct = ln, *un = bar + 1;
            const slinky_ledger__user *u = slinky_ledger__state_user(st, un);
            const slinky_ledger__group *a = NULL;
            for (size_t i = 0; i < st->naccounts && !a; i++)
                if (!strcmp(st->accounts[i].name, acct))
                    a = &st->accounts[i];
            bool listed = false;
            for (size_t m = 0; a && m < a->nmembers && !listed; m++)
                listed = !strcmp(a->members[m], un);
            if (u && a && (!listed || !strcmp(u->state, "deleted"))) {
                slinky_ledger__run_step(run, true, "remove association user %s account %s", un,
                                        acct);
                if (!run->opts->dry_run) {
                    char *n = slinky__sprintf("name=%s", un), *ac = slinky__sprintf("account=%s",
                                                                                    acct);
                    char *args[] = {"-i", "delete", "user", n, ac, NULL};
                    rc = n && ac ? run_sacctmgr(run, NULL, args) : SLINKY_ENOMEM;
                    free(n);
                    free(ac);
                }
            }
        }
        free(ln);
    }
    free(accounts);
    free(assocs);
    return rc;
}
