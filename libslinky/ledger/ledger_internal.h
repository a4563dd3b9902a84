/* Ledger module internals (never installed). */
#ifndef SLINKY_LEDGER_INTERNAL_H
#define SLINKY_LEDGER_INTERNAL_H

#include <git2.h>

#include "core/internal.h"
#include "slinky/doc.h"
#include "slinky/ledger.h"
#include "ledger/sink.h"

/* The init event (first commit) is kind 0 internally; never appended by users. */
#define SLINKY_LEDGER__INIT 0

struct slinky_ledger {
    git_repository *repo;
    char *path;
};

/* An event with owned strings (resolved: ids filled in by apply). */
typedef struct slinky_ledger__event {
    int kind;
    char *name, *target, *tag, *key, *gecos, *home, *shell, *description, *organization;
    char *actor, *request_id;
    char *cluster; /* init only */
    uint32_t id, id_min, id_max; /* id_min/id_max: init only */
} slinky_ledger__event;

SLINKY_HIDDEN void slinky_ledger__event_dispose(slinky_ledger__event *ev);
/** Copy a public event (no defaults applied yet). */
SLINKY_HIDDEN int slinky_ledger__event_copy(slinky_ledger__event *out, const slinky_ledger_event *in);
/** Parse one event JSON object (record parsing; fuzzed). Unknown members are errors. */
SLINKY_HIDDEN int slinky_ledger__event_parse(slinky_ledger__event *out, const char *json, size_t len);
/** Fill defaults (home, shell, actor, request id) and check the fields of its kind. */
SLINKY_HIDDEN int slinky_ledger__event_check(slinky_ledger__event *ev);
/** Canonical one-line JSON of the event fields (no actor/request id). */
SLINKY_HIDDEN int slinky_ledger__event_json(char **out, const slinky_ledger__event *ev);
/** "user/alice", "group/dev", "account/research", "ledger". Allocated. */
SLINKY_HIDDEN char *slinky_ledger__event_subject(const slinky_ledger__event *ev);
/** Full commit message (summary, event line, trailers). Allocated. */
SLINKY_HIDDEN char *slinky_ledger__event_message(const slinky_ledger__event *ev);
/** Parse a commit message back into an event (event line + trailers). */
SLINKY_HIDDEN int slinky_ledger__event_from_message(slinky_ledger__event *out, const char *msg);

/* JSON string escaping into a buffer (with quotes). */
SLINKY_HIDDEN void slinky_ledger__json_str(slinky__buf *b, const char *s);

/* Paths inside the tree (allocated). */
SLINKY_HIDDEN char *slinky_ledger__record_path(const char *kind, const char *name);
SLINKY_HIDDEN char *slinky_ledger__id_path(uint32_t id);
SLINKY_HIDDEN char *slinky_ledger__request_path(const char *request_id);

/**
 * Apply a checked event to `base` (NULL only for init) and write the new
 * tree. Allocates ids (ev->id is set). result_out: result JSON (without commit).
 */
SLINKY_HIDDEN int slinky_ledger__apply(git_oid *tree_out, char **result_out, git_repository *repo,
                                       git_tree *base, slinky_ledger__event *ev);

/** Set the thread's error from libgit2's last error. Returns code. */
SLINKY_HIDDEN int slinky_ledger__git_error(int code, const char *what);

/** Read a blob at path in a tree. ENOTFOUND when absent. */
SLINKY_HIDDEN int slinky_ledger__tree_read(char **out, size_t *len_out, git_repository *repo,
                                           git_tree *tree, const char *path);

/** Call fn on every blob of dir/<shard>/ in tree (records of one kind). */
SLINKY_HIDDEN int slinky_ledger__each_blob(git_repository *repo, git_tree *root, const char *dir,
                                           int (*fn)(void *ctx, const char *data, size_t len),
                                           void *ctx);

/**
 * Put the guarded loose-object reader (odb_guard.c) in front of libgit2's on
 * `repo`: a truncated or corrupt loose object is an error naming it instead
 * of an endless inflate loop. Every repository the ledger opens gets it.
 */
SLINKY_HIDDEN int slinky_ledger__odb_guard(git_repository *repo);

/** Lookup tip commit of refs/heads/main. */
SLINKY_HIDDEN int slinky_ledger__tip(git_commit **out, git_repository *repo);

/** Check an OpenSSH key; on success *type_out/blob (borrowed from key) may be NULL. */
SLINKY_HIDDEN int slinky_ledger__ssh_key_check(const char *key);

/** Remove REF's lock file when it is older than a live writer would hold it. */
SLINKY_HIDDEN void slinky_ledger__clear_stale_lock(git_repository *repo, const char *ref);

/* The last tip that passed verify (kept by verify, appends and replays). */
#define SLINKY_LEDGER__VERIFIED_REF "refs/slinky/verified"
/**
 * Refuse a ledger whose history fails verify (appends and replays call it):
 * verifies the commits after SLINKY_LEDGER__VERIFIED_REF up to `tip` (the
 * whole history when that ref is missing or not an ancestor: a rewrite), or,
 * when the tip was verified before, that the tip and its parent still read.
 * Moves the ref to `tip` on success; the verify error, prefixed, otherwise.
 */
SLINKY_HIDDEN int slinky_ledger__check_history(slinky_ledger *l, const git_oid *tip);
/** verify, starting at `start` (NULL: the tip). */
SLINKY_HIDDEN int slinky_ledger__verify_from(size_t *events_out, char **bad_commit_out,
                                             slinky_ledger *ledger, const git_oid *start);

/* ------------------------------------------------------------------ */
/* Replay: the tip loaded into memory (the types are in sink.h)       */
/* ------------------------------------------------------------------ */

SLINKY_HIDDEN int slinky_ledger__state_load(slinky_ledger__state *out, slinky_ledger *l,
                                            const git_oid *commit);
SLINKY_HIDDEN void slinky_ledger__state_dispose(slinky_ledger__state *st);

#endif
