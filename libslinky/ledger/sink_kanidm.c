/* Kanidm sink: the kanidm CLI through a configurable binary.
 * Looks first (`kanidm group get G`, `kanidm person get U`: exit 0 = exists;
 * a "gidnumber: N" line that differs from the ledger is a conflict), then
 * creates: group create + posix set --gidnumber, person create + posix set
 * --gidnumber --shell, group add-members, person ssh add-publickey. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/sink.h"

static int kanidm8(slinky_ledger__run *run, char **out, char *a1, char *a2, char *a3, char *a4,
                   char *a5, char *a6, char *a7, char *a8)
{
    char *argv[] = {(char *)(run->opts->kanidm ? run->opts->kanidm : "kanidm"), a1, a2, a3, a4,
                    a5, a6, a7, a8, NULL};
    return slinky_ledger__exec(out, argv);
}

static int kanidm(slinky_ledger__run *run, char **out, char *a1, char *a2, char *a3, char *a4,
                  char *a5, char *a6)
{
    return kanidm8(run, out, a1, a2, a3, a4, a5, a6, NULL, NULL);
}

static int must(int st, const char *what, const char *name)
{
    if (st < 0)
        return st;
    if (st != 0)
        return slinky__error_set(SLINKY_ERROR, "kanidm %s %s failed (exit %d)", what, name, st);
    return 0;
}

/* exit 0 and (when the output has one) the same gidnumber: exists; other gid: conflict. */
static int look(slinky_ledger__run *run, bool *exists, char *what, char *name, uint32_t id,
                char **out_keep)
{
    char *out = NULL;
    int st = kanidm(run, &out, what, "get", name, NULL, NULL, NULL);
    if (st < 0)
        return st;
    *exists = st == 0;
    int rc = 0;
    const char *g = out ? strstr(out, "gidnumber: ") : NULL;
    if (*exists && g && strtoul(g + 11, NULL, 10) != id)
        rc = slinky__error_set(SLINKY_ECONFLICT,
                               "kanidm: %s '%s' exists with gidnumber %lu but the ledger has %u "
                               "(not renumbering)",
                               what, name, strtoul(g + 11, NULL, 10), id);
    if (out_keep && rc == 0)
        *out_keep = out;
    else
        free(out);
    return rc;
}

int slinky_ledger__sink_kanidm(slinky_ledger__run *run)
{
    const slinky_ledger__state *st = run->st;
    int rc = 0;
    char idbuf[16];
    run->total = st->ngroups + 2 * st->nusers;
    for (size_t i = 0; rc == 0 && i < st->ngroups; i++) {
        const slinky_ledger__group *g = &st->groups[i];
        if (strcmp(g->state, "active") != 0)
            continue;
        bool exists = false;
        if ((rc = look(run, &exists, "group", g->name, g->gid, NULL)) < 0)
            break;
        slinky_ledger__run_step(run, !exists, "%s group %s gid %u", exists ? "have" : "create",
                                g->name, g->gid);
        if (exists || run->opts->dry_run)
            continue;
        snprintf(idbuf, sizeof(idbuf), "%u", g->gid);
        rc = must(kanidm(run, NULL, "group", "create", g->name, NULL, NULL, NULL), "group create",
                  g->name);
        if (rc == 0)
            rc = must(kanidm(run, NULL, "group", "posix", "set", g->name, "--gidnumber", idbuf),
                      "group posix set", g->name);
    }
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        if (!strcmp(u->state, "deleted"))
            continue;
        bool exists = false;
        if ((rc = look(run, &exists, "person", u->name, u->uid, NULL)) < 0)
            break;
        slinky_ledger__run_step(run, !exists, "%s person %s uid %u", exists ? "have" : "create",
                                u->name, u->uid);
        if (exists || run->opts->dry_run)
            continue;
        snprintf(idbuf, sizeof(idbuf), "%u", u->uid);
        rc = must(kanidm(run, NULL, "person", "create", u->name, *u->gecos ? u->gecos : u->name,
                         NULL, NULL),
                  "person create", u->name);
        if (rc == 0)
            rc = must(kanidm8(run, NULL, "person", "posix", "set", u->name, "--gidnumber", idbuf,
                              "--shell", u->shell),
                      "person posix set", u->name);
    }
    /* memberships (add-members is idempotent in Kanidm) */
    for (size_t i = 0; rc == 0 && i < st->ngroups; i++) {
        const slinky_ledger__group *g = &st->groups[i];
        if (strcmp(g->state, "active") != 0)
            continue;
        for (size_t m = 0; rc == 0 && m < g->nmembers; m++) {
            const slinky_ledger__user *u = slinky_ledger__state_user(st, g->members[m]);
            if (!u || !strcmp(u->state, "deleted"))
                continue;
            slinky_ledger__run_step(run, true, "add %s to group %s", u->name, g->name);
            if (!run->opts->dry_run)
                rc = must(kanidm(run, NULL, "group", "add-members", g->name, u->name, NULL, NULL),
                          "group add-members", g->name);
        }
    }
    /* keys: look at the listed keys first */
    for (size_t i = 0; rc == 0 && i < st->nusers; i++) {
        const slinky_ledger__user *u = &st->users[i];
        if (strcmp(u->state, "active") != 0 || !u->nkeys)
            continue;
        char *out = NULL;
        int s = kanidm(run, &out, "person", "ssh", "list-publickeys", u->name, NULL, NULL);
        if (s < 0) {
            rc = s;
            break;
        }
        for (size_t k = 0; rc == 0 && k < u->nkeys; k++) {
            bool have = s == 0 && out && strstr(out, u->keys[k].tag) != NULL;
            slinky_ledger__run_step(run, !have, "%s key %s of %s", have ? "have" : "add",
                                    u->keys[k].tag, u->name);
            if (!have && !run->opts->dry_run)
                rc = must(kanidm(run, NULL, "person", "ssh", "add-publickey", u->name,
                                 u->keys[k].tag, u->keys[k].key),
                          "person ssh add-publickey", u->name);
        }
        free(out);
    }
    return rc;
}
