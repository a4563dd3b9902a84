/*
 * libslinky ledger: an identity ledger kept in a bare git repository.
 *
 * The ledger records who may use a cluster (users, groups, SSH keys, Slurm
 * accounts and associations) as a linear history of events, one commit per
 * event, on refs/heads/main. The tree of every commit is the readable state:
 *
 *   ledger.json                   format, cluster id, id range, next free id
 *   users/<xx>/<name>.json        one file per user (xx: 2 hex digits of
 *                                 the SHA-1 of the name, a fan-out shard)
 *   groups/<xx>/<name>.json       one file per group (with its members)
 *   accounts/<xx>/<name>.json     one file per Slurm account (with its users)
 *   ids/<a>/<b>/<id>              index of used uids/gids ("user alice")
 *   requests/<xx>/<38 hex>        results of request ids, for idempotency
 *
 * Each commit message holds the event as one JSON line followed by typed
 * trailers: Slinky-Event (kind), Slinky-Subject, Slinky-Actor,
 * Slinky-Request-Id and Slinky-Schema. Writes are compare-and-swap updates
 * of refs/heads/main retried with backoff and jitter, so any number of
 * processes may append to one ledger at once. Every event is validated
 * against the tip it is applied to. Objects are fsync'ed
 * (GIT_OPT_ENABLE_FSYNC_GITDIR). A writer killed while it held
 * refs/heads/main.lock leaves the lock behind; appends remove a lock older
 * than 3 seconds (a live writer holds it for milliseconds). Failed attempts
 * leave unreferenced objects: run `git gc` on the repository now and then.
 *
 * Ids: uids and gids share one space allocated from a configured range
 * (default 65536-524287, Kanidm's manual range); an id given below that range
 * is SLINKY_EINVALID (it belongs to the base system). A user's primary gid is its
 * uid (a user private group). Ids are never reused: deleting a user or
 * group leaves a tombstone.
 *
 * Threads: a slinky_ledger may be used by one thread at a time. Several
 * slinky_ledger objects (in any threads or processes) may work on the same
 * repository at once. slinky_global_init() must have been called.
 *
 * A ledger whose history fails slinky_ledger_verify() (a rewritten or forged
 * commit, a corrupt object) is read-only: appends and replays return the
 * verify error (prefixed "the ledger is read-only until repaired") and write
 * nothing. They verify only the commits after the last verified tip (kept in
 * refs/slinky/verified), the whole history when that ref is missing or not an
 * ancestor of the tip. A corrupt or truncated object is SLINKY_EGIT naming it
 * (never an endless read).
 *
 * Errors: invalid events are SLINKY_EINVALID (bad name, bad key, bad field;
 * the message names the field), SLINKY_EEXISTS (name or id taken),
 * SLINKY_ENOTFOUND (missing user/group/account/key), SLINKY_EGIT for
 * repository failures, SLINKY_ECONFLICT when a compare-and-swap kept
 * failing or a sink holds a conflicting entry.
 */
#ifndef SLINKY_LEDGER_H
#define SLINKY_LEDGER_H

#include "common.h"
#include "doc.h"

SLINKY_BEGIN_DECLS

/** An open ledger repository (opaque). */
typedef struct slinky_ledger slinky_ledger;

/** Current format version of ledger.json and schema of events. */
#define SLINKY_LEDGER_FORMAT 1
/** Default id range (Kanidm's recommended manual range). */
#define SLINKY_LEDGER_ID_MIN 65536
#define SLINKY_LEDGER_ID_MAX 524287

/* ------------------------------------------------------------------ */
/* Opening                                                            */
/* ------------------------------------------------------------------ */

#define SLINKY_LEDGER_INIT_OPTIONS_VERSION 1
/** Options of slinky_ledger_init(). */
typedef struct slinky_ledger_init_options {
    unsigned int version;
    const char *cluster_id; /**< recorded in ledger.json; NULL: "slinky" */
    uint32_t id_min;        /**< 0: SLINKY_LEDGER_ID_MIN */
    uint32_t id_max;        /**< 0: SLINKY_LEDGER_ID_MAX */
    const char *actor;      /**< author of the init commit; NULL: $USER or "slinky" */
} slinky_ledger_init_options;
#define SLINKY_LEDGER_INIT_OPTIONS_INIT {SLINKY_LEDGER_INIT_OPTIONS_VERSION, NULL, 0, 0, NULL}
/** Fill opts with defaults. SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_ledger_init_options_init(slinky_ledger_init_options *opts,
                                                         unsigned int version);

/**
 * Create a new bare ledger repository at `path` (created with parents) whose
 * first commit holds ledger.json, and open it. SLINKY_EEXISTS when a ledger
 * already exists there; SLINKY_EINVALID for a bad id range or cluster id.
 * *out is released with slinky_ledger_free().
 */
SLINKY_API slinky_status slinky_ledger_init(slinky_ledger **out, const char *path,
                                            const slinky_ledger_init_options *opts);

/**
 * Open an existing ledger repository. SLINKY_ENOTFOUND when `path` is not a
 * repository or has no refs/heads/main; SLINKY_EUNSUPPORTED for a newer format.
 */
SLINKY_API slinky_status slinky_ledger_open(slinky_ledger **out, const char *path);

/** Close a ledger. NULL is ignored. */
SLINKY_API void slinky_ledger_free(slinky_ledger *ledger);

/** The repository path given at open/init (borrowed, valid until free). */
SLINKY_API const char *slinky_ledger_path(const slinky_ledger *ledger);

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

/** Kinds of events (values are stable). */
typedef enum slinky_ledger_event_kind {
    SLINKY_LEDGER_USER_ADD = 1,      /**< name [uid] [gecos] [home] [shell] */
    SLINKY_LEDGER_USER_UPDATE = 2,   /**< name; gecos/home/shell that are set */
    SLINKY_LEDGER_USER_DISABLE = 3,  /**< name */
    SLINKY_LEDGER_USER_ENABLE = 4,   /**< name */
    SLINKY_LEDGER_USER_DELETE = 5,   /**< name: leaves a tombstone, id kept */
    SLINKY_LEDGER_KEY_ADD = 6,       /**< name (user), tag, key */
    SLINKY_LEDGER_KEY_REMOVE = 7,    /**< name (user), tag */
    SLINKY_LEDGER_GROUP_ADD = 8,     /**< name [gid] */
    SLINKY_LEDGER_GROUP_REMOVE = 9,  /**< name: leaves a tombstone, gid kept */
    SLINKY_LEDGER_MEMBER_ADD = 10,   /**< name (user), target (group) */
    SLINKY_LEDGER_MEMBER_REMOVE = 11, /**< name (user), target (group) */
    SLINKY_LEDGER_ACCOUNT_ADD = 12,  /**< name (account) [description] [organization] */
    SLINKY_LEDGER_ASSOC_ADD = 13,    /**< name (user), target (account) */
    SLINKY_LEDGER_ASSOC_REMOVE = 14  /**< name (user), target (account) */
} slinky_ledger_event_kind;

/** Static name of a kind ("user-add", ...), or NULL for an unknown value. */
SLINKY_API const char *slinky_ledger_event_kind_name(slinky_ledger_event_kind kind);
/** Kind from its name; SLINKY_EINVALID when unknown. */
SLINKY_API slinky_status slinky_ledger_event_kind_parse(slinky_ledger_event_kind *out,
                                                        const char *name);

#define SLINKY_LEDGER_EVENT_VERSION 1
/**
 * One event to append. Strings are borrowed for the duration of the call.
 * Fields that a kind does not use must be NULL/0.
 */
typedef struct slinky_ledger_event {
    unsigned int version;
    slinky_ledger_event_kind kind;
    const char *name;         /**< subject: user, group or account name */
    const char *target;       /**< group (member-*) or account (assoc-*) */
    uint32_t id;              /**< uid/gid for user-add/group-add; 0 allocates */
    const char *tag;          /**< key tag for key-add/key-remove */
    const char *key;          /**< OpenSSH public key line for key-add */
    const char *gecos;        /**< user-add/update */
    const char *home;         /**< user-add/update; default /home/<name> */
    const char *shell;        /**< user-add/update; default /bin/bash */
    const char *description;  /**< account-add */
    const char *organization; /**< account-add */
    const char *actor;        /**< who; NULL: $USER or "slinky" */
    const char *request_id;   /**< idempotency key; NULL: a random one */
} slinky_ledger_event;
#define SLINKY_LEDGER_EVENT_INIT                                                               \
    {SLINKY_LEDGER_EVENT_VERSION, (slinky_ledger_event_kind)0, NULL, NULL, 0, NULL, NULL, NULL, \
     NULL, NULL, NULL, NULL, NULL, NULL}
/** Reset an event to SLINKY_LEDGER_EVENT_INIT. SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_ledger_event_init(slinky_ledger_event *ev, unsigned int version);

/**
 * Validate `ev` against the current tip and commit it (compare-and-swap on
 * refs/heads/main, retried with backoff and jitter when another writer won).
 *
 * `result_out` (may be NULL) receives a JSON object released with
 * slinky_free(): {"kind":..,"subject":..,"id":N (user-add/group-add),
 * "request_id":..,"commit":"<hex>","duplicate":false}. When the request id
 * was already applied nothing is written and the earlier result (kept in the
 * tree under requests/) is returned with "duplicate":true and no "commit".
 */
SLINKY_API slinky_status slinky_ledger_append(char **result_out, slinky_ledger *ledger,
                                              const slinky_ledger_event *ev);

/**
 * Same as slinky_ledger_append() with the event given as one JSON object
 * (the format of an exported line: {"kind":"user-add","name":"alice",...};
 * extra members "commit", "time" and "schema" are accepted and ignored).
 */
SLINKY_API slinky_status slinky_ledger_append_json(char **result_out, slinky_ledger *ledger,
                                                   const char *json, size_t len);

/**
 * Check that `key` is an OpenSSH public key line ("TYPE BASE64 [comment]")
 * whose base64 blob decodes and names the same TYPE inside. Returns 0 or
 * SLINKY_EINVALID with the reason.
 */
SLINKY_API slinky_status slinky_ledger_ssh_key_check(const char *key);

/**
 * True when `name` is a portable POSIX user/group name as the ledger accepts
 * it: [a-z_][a-z0-9_.-]*, at most 32 characters.
 */
SLINKY_API bool slinky_ledger_name_is_valid(const char *name);

/**
 * True when `name` belongs to the base system (root, daemon, bin, nobody,
 * nogroup, sshd, slurm, munge and the other Debian base-passwd names): the
 * ledger refuses to record such a user or group (SLINKY_EINVALID) and serves
 * no keys for it.
 */
SLINKY_API bool slinky_ledger_name_is_reserved(const char *name);

/* ------------------------------------------------------------------ */
/* Reading                                                            */
/* ------------------------------------------------------------------ */

/**
 * The whole state at the tip as one JSON object
 * {"ledger":{...},"users":[...],"groups":[...],"accounts":[...],"commit":"hex"}.
 * *json_out is released with slinky_free().
 */
SLINKY_API slinky_status slinky_ledger_show(char **json_out, slinky_ledger *ledger);

/**
 * One record at the tip: kind is "user", "group" or "account". *json_out
 * (slinky_free) is the record file's JSON. SLINKY_ENOTFOUND when absent.
 */
SLINKY_API slinky_status slinky_ledger_get(char **json_out, slinky_ledger *ledger,
                                           const char *kind, const char *name);

/**
 * The authorized_keys lines of an active user at the tip (one key per line,
 * "" for a user without keys or a disabled/deleted user).
 * SLINKY_ENOTFOUND for an unknown user. *out is released with slinky_free().
 */
SLINKY_API slinky_status slinky_ledger_keys(char **out, slinky_ledger *ledger, const char *user);

/**
 * The events that concern `subject` ("alice", or "user/alice", or NULL for
 * all), oldest first, as JSON lines (format of slinky_ledger_export()).
 */
SLINKY_API slinky_status slinky_ledger_history(char **jsonl_out, slinky_ledger *ledger,
                                               const char *subject);

/**
 * Replay the whole history: every commit must have exactly one parent
 * (but the first), carry a well-formed event, and its tree must equal its
 * parent's tree with that event applied. `events_out` (may be NULL)
 * receives the number of events checked. On the first bad commit returns
 * SLINKY_ECONFLICT with a message naming the commit id and what differs,
 * and `bad_commit_out` (may be NULL) receives its hex id (slinky_free).
 */
SLINKY_API slinky_status slinky_ledger_verify(size_t *events_out, char **bad_commit_out,
                                              slinky_ledger *ledger);

/**
 * All events, oldest first, one JSON object per line, each with "commit",
 * "time" (unix seconds), "actor", "request_id" and the event fields.
 * The init commit is not included.
 */
SLINKY_API slinky_status slinky_ledger_export(char **jsonl_out, slinky_ledger *ledger);

/**
 * Append the events of JSON lines (as produced by slinky_ledger_export()),
 * keeping their request ids, so importing the same lines twice is a no-op.
 * `applied_out` (may be NULL) receives the number of new events. Stops at
 * the first line that fails, with the line number in the message (earlier
 * lines stay committed: each is its own event).
 */
SLINKY_API slinky_status slinky_ledger_import(size_t *applied_out, slinky_ledger *ledger,
                                              const char *data, size_t len);

/**
 * Push refs/heads/main to the repository at `remote` (a path or file:// URL),
 * creating a bare repository there when none exists. Fast-forward only:
 * SLINKY_ECONFLICT when the remote has diverged. The missing commits, trees
 * and blobs are copied object by object, oldest first, then the remote ref is
 * moved with compare-and-swap (libgit2 1.5.1's remote layer leaks memory per
 * remote, so it is not used); other transports are SLINKY_EUNSUPPORTED.
 */
SLINKY_API slinky_status slinky_ledger_push(slinky_ledger *ledger, const char *remote);

/**
 * Fetch refs/heads/main from `remote` and fast-forward the local ledger to
 * it (after verifying the fetched history). SLINKY_ECONFLICT when the two
 * histories have diverged; nothing changes when the remote is behind.
 */
SLINKY_API slinky_status slinky_ledger_pull(slinky_ledger *ledger, const char *remote);

/* ------------------------------------------------------------------ */
/* Replay into sinks                                                  */
/* ------------------------------------------------------------------ */

/*
 * Sinks. Kanidm cannot be installed on the development machines, so the
 * Kanidm sink is tested with a stand-in program that records its argv and
 * answers "not found" to every lookup; the commands follow the kanidm CLI
 * (person create, person/group posix set --gidnumber, group create,
 * group add-members, person ssh add-publickey). The POSIX sink also provides
 * the user entries (passwd/shadow with '*' passwords: no password matches,
 * key logins work; '!' and expired for disabled users) that sshd on the login
 * pod needs for seamless SSH (see slinky_ledger_sshd_render()).
 */

/** Sinks (bit flags). */
enum slinky_ledger_sink {
    SLINKY_LEDGER_SINK_POSIX = 1,  /**< passwd/group/shadow/authorized_keys under a root */
    SLINKY_LEDGER_SINK_SLURM = 2,  /**< Slurm accounting through sacctmgr */
    SLINKY_LEDGER_SINK_KANIDM = 4, /**< kanidm CLI commands */
    SLINKY_LEDGER_SINK_KUBE = 8,   /**< a Kubernetes Secret (needs the kube module) */
    SLINKY_LEDGER_SINK_LDAP = 16   /**< an LDAP directory (needs libldap; options version 2) */
};

/**
 * Progress callback: `sink` ("posix", "slurm", "kanidm"), `done` of `total`
 * steps, and `step` (what was just looked at, e.g. "user alice"). Called on
 * the replaying thread.
 */
typedef void (*slinky_ledger_progress_cb)(const char *sink, size_t done, size_t total,
                                          const char *step, void *payload);

/* Version 2 added the ldap_* members; version 1 callers are still accepted. */
#define SLINKY_LEDGER_REPLAY_OPTIONS_VERSION 2
/** Options of slinky_ledger_replay(). */
typedef struct slinky_ledger_replay_options {
    unsigned int version;
    unsigned int sinks;       /**< SLINKY_LEDGER_SINK_* bits */
    const char *incarnation;  /**< cluster incarnation; NULL: "default" */
    bool dry_run;             /**< only compute the plan */
    bool force;               /**< ignore recorded progress (look at every entry) */
    const char *posix_root;   /**< root folder of the POSIX sink (etc/passwd ...) */
    const char *sacctmgr;     /**< sacctmgr binary; NULL: "sacctmgr" from PATH */
    const char *kanidm;       /**< kanidm binary; NULL: "kanidm" from PATH */
    slinky_ledger_progress_cb progress;
    void *payload;
    /**
     * Kubernetes sink: kubeconfig (NULL: as kubectl finds it), namespace
     * (NULL: the context's) and Secret name (NULL: "slinky-identity"). The
     * Secret holds passwd, group and authorized_keys.<user> and is labelled
     * app.kubernetes.io/managed-by=slinky-ledger; an unlabelled Secret of
     * that name is a conflict.
     */
    const char *kubeconfig;
    const char *kube_namespace;
    const char *kube_secret;
    /**
     * LDAP sink (version 2). Users are uid=NAME,ou=people,BASE
     * (account + posixAccount + shadowAccount + ldapPublicKey: uid, cn,
     * uidNumber, gidNumber, homeDirectory, loginShell, gecos when ASCII,
     * sshPublicKey; a disabled user has no keys and shadowExpire 1), groups
     * and user private groups cn=NAME,ou=groups,BASE (posixGroup: gidNumber,
     * memberUid); both OUs are created when missing. The connection is
     * always TLS: ldaps://, or ldap:// with StartTLS required; the server
     * certificate is verified against ldap_ca_file (NULL: the system's CAs).
     * The bind password is the content of ldap_password_file (one final
     * newline is ignored), or the value of a key of a Kubernetes Secret,
     * ldap_password_secret "[NAMESPACE/]NAME/KEY", read with the kube sink's
     * kubeconfig and namespace (needs the kube module).
     * Entries of ledger tombstones are deleted when their uidNumber/gidNumber
     * is the ledger's. Before anything is written, a name or id that another
     * directory entry holds (one the ledger does not know) is
     * SLINKY_ECONFLICT naming both; an unreachable server is
     * SLINKY_EUNAVAILABLE naming it.
     */
    const char *ldap_uri;           /**< ldaps://host:port or ldap://host:port */
    const char *ldap_base;          /**< e.g. dc=example,dc=org */
    const char *ldap_bind_dn;       /**< NULL: anonymous (read-only servers only) */
    const char *ldap_password_file; /**< bind password */
    const char *ldap_ca_file;       /**< PEM CA certificate(s) */
    const char *ldap_password_secret; /**< bind password: "[NAMESPACE/]NAME/KEY" of a Secret */
} slinky_ledger_replay_options;
#define SLINKY_LEDGER_REPLAY_OPTIONS_INIT                                                 \
    {SLINKY_LEDGER_REPLAY_OPTIONS_VERSION, 0, NULL, false, false, NULL, NULL, NULL, NULL, \
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}
/** Fill opts with defaults. SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_ledger_replay_options_init(slinky_ledger_replay_options *opts,
                                                           unsigned int version);

/**
 * Converge the chosen sinks to the tip, in dependency order (groups, users,
 * memberships, keys, Slurm accounts, associations; sinks run in the order
 * posix, kanidm, ldap, kube, slurm). SLINKY_EUNSUPPORTED for the kube sink in a
 * library built without the kube module. Each step looks before
 * it writes; a name that exists in a sink with a different id is a conflict:
 * replay stops with SLINKY_ECONFLICT naming it (nothing is renumbered).
 * After a sink converged, refs/replay/<incarnation>/<sink> is set to the
 * tip, and a later replay of an unchanged tip into that sink does nothing.
 * Progress is kept per incarnation and sink, not per target: pointing a sink
 * at another root/database/Secret needs a new incarnation or `force`.
 *
 * `plan_out` (may be NULL) receives the steps taken (or, with dry_run, the
 * steps that would be taken), one per line, "" when nothing was to do.
 */
SLINKY_API slinky_status slinky_ledger_replay(char **plan_out, slinky_ledger *ledger,
                                              const slinky_ledger_replay_options *opts);

/* ------------------------------------------------------------------ */
/* Seamless SSH                                                       */
/* ------------------------------------------------------------------ */

#define SLINKY_LEDGER_SSHD_OPTIONS_VERSION 1
/** Options of slinky_ledger_sshd_render(). */
typedef struct slinky_ledger_sshd_options {
    unsigned int version;
    bool enable_seamless;     /**< false: the fragment turns key logins from the ledger off */
    unsigned int port;        /**< 0: 2222 (the login pod's port) */
    const char *keys_command; /**< default "/usr/bin/slinkyctl ledger keys --ledger /ledger %u" */
    const char *keys_command_user; /**< default "nobody" */
} slinky_ledger_sshd_options;
#define SLINKY_LEDGER_SSHD_OPTIONS_INIT {SLINKY_LEDGER_SSHD_OPTIONS_VERSION, false, 0, NULL, NULL}
/** Fill opts with defaults. SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_ledger_sshd_options_init(slinky_ledger_sshd_options *opts,
                                                         unsigned int version);

/**
 * Render the sshd_config fragment for the login pod: Port, public-key only
 * authentication, and (when enable_seamless) AuthorizedKeysCommand running
 * the keys tool for %u. With seamless off it sets AuthorizedKeysCommand none
 * and AuthorizedKeysFile none, so ledger keys give no login.
 * *out is released with slinky_free().
 */
SLINKY_API slinky_status slinky_ledger_sshd_render(char **out,
                                                   const slinky_ledger_sshd_options *opts);

SLINKY_END_DECLS

#endif
