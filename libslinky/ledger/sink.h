/*
 * Ledger sinks: what a sink sees of a replay (never installed).
 *
 * replay.c loads the tip into a slinky_ledger__state and calls each chosen
 * sink with a slinky_ledger__run; the sinks use only this header and the
 * helpers of sink.c (plan lines, progress, running a program), never replay.c,
 * so replay depends on the sinks and the sinks on sink.c, not on each other.
 */
#ifndef SLINKY_LEDGER_SINK_H
#define SLINKY_LEDGER_SINK_H

#include "core/internal.h"
#include "slinky/ledger.h"

typedef struct slinky_ledger__key {
    char *tag, *key;
} slinky_ledger__key;

typedef struct slinky_ledger__user {
    char *name, *gecos, *home, *shell, *state;
    uint32_t uid, gid;
    slinky_ledger__key *keys;
    size_t nkeys;
} slinky_ledger__user;

typedef struct slinky_ledger__group {
    char *name, *state, *description, *organization;
    uint32_t gid;
    char **members; /* group members, or users of an account */
    size_t nmembers;
} slinky_ledger__group;

/* The tip in memory: every record, tombstones included (state "deleted"). */
typedef struct slinky_ledger__state {
    slinky_ledger__user *users; /* sorted by uid */
    size_t nusers;
    slinky_ledger__group *groups; /* sorted by gid */
    size_t ngroups;
    slinky_ledger__group *accounts; /* sorted by name */
    size_t naccounts;
    char *cluster;
} slinky_ledger__state;

/** The user called `name`, or NULL. */
SLINKY_HIDDEN const slinky_ledger__user *slinky_ledger__state_user(const slinky_ledger__state *st,
                                                                   const char *name);

/* A replay run shared by the sinks. */
typedef struct slinky_ledger__run {
    const slinky_ledger_replay_options *opts;
    const slinky_ledger__state *st;
    slinky__buf plan;
    const char *sink;
    size_t done, total;
} slinky_ledger__run;

/** Record one plan line ("sink: what") and report progress. */
SLINKY_HIDDEN void slinky_ledger__run_step(slinky_ledger__run *run, bool changes, const char *fmt,
                                           ...) SLINKY_PRINTF(3, 4);
/** Run argv (no shell); capture stdout (may be NULL). Returns exit status >= 0 or error. */
SLINKY_HIDDEN int slinky_ledger__exec(char **stdout_out, char *const argv[]);

SLINKY_HIDDEN int slinky_ledger__sink_posix(slinky_ledger__run *run);
SLINKY_HIDDEN int slinky_ledger__sink_slurm(slinky_ledger__run *run);
SLINKY_HIDDEN int slinky_ledger__sink_kanidm(slinky_ledger__run *run);
/* kube/sink_kube.c, built only with the kube module (weak in replay.c) */
SLINKY_HIDDEN int slinky_ledger__sink_kube(slinky_ledger__run *run);
/* kube/sink_kube.c: the value of KEY in the Secret "[NAMESPACE/]NAME/KEY"
 * (allocated; weak in the LDAP sink) */
SLINKY_HIDDEN int slinky_ledger__kube_secret_value(char **out,
                                                   const slinky_ledger_replay_options *o,
                                                   const char *ref);
/* ldap/sink_ldap.c, built only when libldap is found (weak in replay.c) */
SLINKY_HIDDEN int slinky_ledger__sink_ldap(slinky_ledger__run *run);

#endif
