/*
 * libslinky slurm: a typed client for Slurm's control plane over slurmrestd
 * (JWT): ping, diag, nodes (list, get, drain/resume/down, reason, comment,
 * features, delete), jobs, partitions, reservations.
 *
 * Connection: a base URL ("http://127.0.0.1:6820", https with a CA file or
 * insecure), a user name (X-SLURM-USER-NAME) and one JWT source
 * (X-SLURM-USER-TOKEN):
 * - a fixed token;
 * - a token file, re-read whenever its inode, size or mtime changes (a file
 *   holding `SLURM_JWT=...`, as `scontrol token` prints it, or the bare token);
 * - a signer callback that returns a token and its expiry; it is called again
 *   once 80% of the token's lifetime (from signing to expiry) has passed on the
 *   client's clock (a callback too, so tests can move time).
 *
 * Version: the first call reads the server's OpenAPI description (/openapi/v3)
 * and picks the newest data-parser version both sides know (v0.0.42, v0.0.41,
 * v0.0.40; v0.0.38 of Slurm 22.05 is read-only). A call the server's OpenAPI
 * does not offer (a node update on v0.0.38, a reservation create on 24.11)
 * returns SLINKY_EUNSUPPORTED naming the version; it is never a silent no-op.
 *
 * Errors: every call returns 0 or a negative SLINKY_E* code; details in
 * slinky_error_last() (message "slurmrestd VERB PATH: error N (text):
 * description [source]", http_status set). Slurm's errors[] map to codes:
 * authentication (1007) -> SLINKY_EAUTH; invalid user/access denied (2010,
 * 2002) -> SLINKY_EFORBIDDEN; invalid job/node/partition name (2017, 2018,
 * 2000) and an absent object -> SLINKY_ENOTFOUND; invalid state and data
 * parser errors (2028, 9000-9999) -> SLINKY_EINVALID; others -> SLINKY_ERROR.
 * HTTP 401/403 -> SLINKY_EAUTH. No connection, or no reply within the
 * timeout -> SLINKY_EUNAVAILABLE (callers fail closed). A reply that is not
 * the expected JSON -> SLINKY_EPARSE.
 *
 * Ownership: results are immutable objects owned by the caller (free with
 * their _free); the structs and strings they hand out are borrowed from them
 * and stay valid until that object is freed. Strings are never NULL ("" when
 * the server sent nothing). Times are Unix seconds, 0 when unset, INT64_MAX
 * when infinite.
 *
 * Threads: a client may be used by several threads at once (a pool of
 * connections; the token source and the negotiated version are guarded).
 * Result objects are immutable and may be read from several threads. The
 * signer and clock callbacks run on the calling thread, one at a time.
 */
#ifndef SLINKY_SLURM_H
#define SLINKY_SLURM_H

#include "common.h"

SLINKY_BEGIN_DECLS

/** A connection to one slurmrestd (opaque; thread-safe). */
typedef struct slinky_slurm_client slinky_slurm_client;

/* ================================================================== */
/* Client                                                             */
/* ================================================================== */

/**
 * Signer: store a new token (malloc'd or slinky-allocated, released by the
 * library with slinky_free()) in `*token_out` and its expiry (Unix seconds) in
 * `*expires_out`. `now` is the client's clock. Return 0 or a SLINKY_E* code.
 */
typedef slinky_status (*slinky_slurm_sign_fn)(char **token_out, int64_t *expires_out, int64_t now,
                                              void *payload);
/** Clock: the current Unix time in seconds. */
typedef int64_t (*slinky_slurm_clock_fn)(void *payload);

/** Current version of slinky_slurm_client_options. */
#define SLINKY_SLURM_CLIENT_OPTIONS_VERSION 1

/** Options for slinky_slurm_client_new() (borrowed for the call; strings are copied). */
typedef struct slinky_slurm_client_options {
    unsigned int version; /**< SLINKY_SLURM_CLIENT_OPTIONS_VERSION */
    /** X-SLURM-USER-NAME (default "slurm"). */
    const char *user;
    /** JWT sources: exactly one of token, token_file, sign must be set. */
    const char *token;
    const char *token_file;    /**< file holding the JWT (re-read when it changes; copied) */
    slinky_slurm_sign_fn sign; /**< signer callback that makes tokens on demand */
    void *sign_payload;        /**< passed to sign */
    /** Clock for the signer (default: time()). */
    slinky_slurm_clock_fn clock;
    void *clock_payload; /**< passed to clock */
    /** TLS: CA bundle file for https, or skip verification. */
    const char *ca_file;
    bool insecure; /**< https: do not verify the server's certificate */
    /** Whole-request timeout in ms (default 30000); connect timeout (default 5000). */
    long timeout_ms;
    long connect_timeout_ms; /**< ms to establish the connection (default 5000; <= 0: default) */
    /** Force a data-parser version ("v0.0.42"); NULL negotiates from /openapi/v3. */
    const char *api_version;
} slinky_slurm_client_options;

/** Static initialiser: version set, everything else zero (defaults). */
#define SLINKY_SLURM_CLIENT_OPTIONS_INIT {SLINKY_SLURM_CLIENT_OPTIONS_VERSION}

/** Initialise `opts` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_slurm_client_options_init(slinky_slurm_client_options *opts,
                                                          unsigned int version);

/**
 * Make a client for base `url` (http or https, no path or a path prefix).
 * Nothing is sent until the first call. Strings are copied.
 * Errors: SLINKY_EINVALID (bad URL, no or several JWT sources).
 */
SLINKY_API slinky_status slinky_slurm_client_new(slinky_slurm_client **out, const char *url,
                                                 const slinky_slurm_client_options *opts);
/** Free a client and its connections. NULL is ignored. No call may be in progress. */
SLINKY_API void slinky_slurm_client_free(slinky_slurm_client *c);

/**
 * Negotiate now (the first call does it anyway) and return the data-parser
 * version in use ("v0.0.42"), borrowed until the client is freed.
 * Errors: as for any call; SLINKY_EUNSUPPORTED when the server offers no
 * version this library knows.
 */
SLINKY_API slinky_status slinky_slurm_client_negotiate(const char **version_out,
                                                       slinky_slurm_client *c);
/** True when the negotiated version can change nodes (not v0.0.38). */
SLINKY_API bool slinky_slurm_client_can_update(slinky_slurm_client *c);

/* ================================================================== */
/* Node state                                                         */
/* ================================================================== */

/** Node state bits: one base state plus any flags, as Slurm reports them. */
enum slinky_slurm_node_state {
    SLINKY_SLURM_NODE_IDLE = 1u << 0,
    SLINKY_SLURM_NODE_ALLOCATED = 1u << 1,
    SLINKY_SLURM_NODE_MIXED = 1u << 2,
    SLINKY_SLURM_NODE_DOWN = 1u << 3,
    SLINKY_SLURM_NODE_ERROR = 1u << 4,
    SLINKY_SLURM_NODE_FUTURE = 1u << 5,
    SLINKY_SLURM_NODE_UNKNOWN = 1u << 6,
    SLINKY_SLURM_NODE_COMPLETING = 1u << 7,
    SLINKY_SLURM_NODE_DRAIN = 1u << 8,
    /** Derived: DRAIN and busy (ALLOCATED, MIXED or COMPLETING). */
    SLINKY_SLURM_NODE_DRAINING = 1u << 9,
    /** Derived: DRAIN, no UNDRAIN, and not busy. */
    SLINKY_SLURM_NODE_DRAINED = 1u << 10,
    SLINKY_SLURM_NODE_NOT_RESPONDING = 1u << 11,
    SLINKY_SLURM_NODE_FAIL = 1u << 12,
    SLINKY_SLURM_NODE_MAINTENANCE = 1u << 13,
    SLINKY_SLURM_NODE_RESERVED = 1u << 14,
    SLINKY_SLURM_NODE_REBOOT_REQUESTED = 1u << 15,
    SLINKY_SLURM_NODE_REBOOT_ISSUED = 1u << 16,
    SLINKY_SLURM_NODE_POWERED_DOWN = 1u << 17,
    SLINKY_SLURM_NODE_POWERING_DOWN = 1u << 18,
    SLINKY_SLURM_NODE_POWERING_UP = 1u << 19,
    SLINKY_SLURM_NODE_POWER_DOWN = 1u << 20,
    SLINKY_SLURM_NODE_CLOUD = 1u << 21,
    SLINKY_SLURM_NODE_DYNAMIC_FUTURE = 1u << 22,
    SLINKY_SLURM_NODE_DYNAMIC_NORM = 1u << 23,
    SLINKY_SLURM_NODE_PLANNED = 1u << 24,
    SLINKY_SLURM_NODE_INVALID_REG = 1u << 25,
    SLINKY_SLURM_NODE_BLOCKED = 1u << 26,
    /** An UNDRAIN is pending: the node is leaving DRAIN (never drained then). */
    SLINKY_SLURM_NODE_UNDRAIN = 1u << 27,
    /** Some state word this library does not know (it is in state_text). */
    SLINKY_SLURM_NODE_OTHER = 1u << 30
};

/**
 * Parse Slurm state words ("MIXED+DRAIN", "idle", "IDLE,NOT_RESPONDING";
 * separators + , space; case-insensitive) into bits, adding DRAINING or
 * DRAINED. Unknown words set SLINKY_SLURM_NODE_OTHER.
 */
SLINKY_API uint32_t slinky_slurm_node_state_parse(const char *text);
/** Name of one bit ("DRAIN"), or NULL for a value that is not one known bit. */
SLINKY_API const char *slinky_slurm_node_state_name(uint32_t bit);

/* ================================================================== */
/* Results                                                            */
/* ================================================================== */

/** One node as slurmrestd reports it (borrowed from its slinky_slurm_nodes). */
typedef struct slinky_slurm_node {
    const char *name;       /**< Slurm NodeName */
    const char *address;    /**< NodeAddr Slurm connects to */
    const char *hostname;   /**< NodeHostname */
    uint32_t state;         /**< slinky_slurm_node_state bits */
    const char *state_text; /**< the words as sent, joined with '+' ("MIXED+DRAIN") */
    const char *reason;     /**< why the node is drained or down ("" when none) */
    const char *reason_set_by_user; /**< user who set reason */
    int64_t reason_changed_at;      /**< Unix seconds when reason was set */
    const char *comment;            /**< free-form node comment */
    const char *features;        /**< comma separated */
    const char *active_features; /**< comma separated */
    const char *partitions;      /**< comma separated */
    const char *slurmd_version;  /**< release of the slurmd that registered ("24.11.5") */
    int64_t cpus;                /**< configured CPUs */
    int64_t alloc_cpus;          /**< CPUs allocated to jobs */
    int64_t real_memory; /**< MB */
    int64_t alloc_memory; /**< MB allocated to jobs */
    int64_t boot_time;    /**< Unix seconds when the node booted */
    int64_t last_busy;    /**< Unix seconds when the node was last busy */
} slinky_slurm_node;

/** DRAIN set, no UNDRAIN pending, and not busy. NULL (a failed lookup) is never drained: false. */
SLINKY_API bool slinky_slurm_node_is_drained(const slinky_slurm_node *n);
/** DRAIN set (drained or still draining). False for NULL. */
SLINKY_API bool slinky_slurm_node_is_draining(const slinky_slurm_node *n);
/** ALLOCATED, MIXED or COMPLETING. True for NULL (unknown is treated as busy). */
SLINKY_API bool slinky_slurm_node_is_busy(const slinky_slurm_node *n);

/** A list of nodes (opaque, immutable; free with slinky_slurm_nodes_free()). */
typedef struct slinky_slurm_nodes slinky_slurm_nodes;
/** Number of nodes; 0 for NULL. */
SLINKY_API size_t slinky_slurm_nodes_count(const slinky_slurm_nodes *l);
/** i-th node, or NULL past the end. */
SLINKY_API const slinky_slurm_node *slinky_slurm_nodes_at(const slinky_slurm_nodes *l, size_t i);
/** The node named `name`, or NULL. */
SLINKY_API const slinky_slurm_node *slinky_slurm_nodes_find(const slinky_slurm_nodes *l,
                                                           const char *name);
/** The server's last_update of the node table (pass as update_time to poll cheaply). */
SLINKY_API int64_t slinky_slurm_nodes_update_time(const slinky_slurm_nodes *l);
/** False when a list with update_time came back unchanged (no nodes in it). */
SLINKY_API bool slinky_slurm_nodes_changed(const slinky_slurm_nodes *l);
/** Free the list and every node and string borrowed from it. NULL is ignored. */
SLINKY_API void slinky_slurm_nodes_free(slinky_slurm_nodes *l);

/** One job (borrowed from its slinky_slurm_jobs). */
typedef struct slinky_slurm_job {
    int64_t job_id;         /**< Slurm job id */
    const char *name;       /**< job name */
    const char *user_name;  /**< owner of the job */
    const char *partition;  /**< partition(s) the job was submitted to */
    const char *state_text; /**< "RUNNING", "PENDING", "COMPLETING+..." */
    const char *nodes;      /**< hostlist expression ("node[1-2]"), "" when none */
    int64_t node_count;     /**< nodes allocated (or requested while pending) */
    int64_t submit_time;    /**< Unix seconds */
    int64_t start_time;     /**< Unix seconds (expected start while pending, 0 when unknown) */
    int64_t end_time;   /**< expected end for a running job (start + limit) */
    int64_t time_limit; /**< minutes; INT64_MAX when infinite */
} slinky_slurm_job;

/** A list of jobs (opaque, immutable; free with slinky_slurm_jobs_free()). */
typedef struct slinky_slurm_jobs slinky_slurm_jobs;
/** Number of jobs; 0 for NULL. */
SLINKY_API size_t slinky_slurm_jobs_count(const slinky_slurm_jobs *l);
/** i-th job, or NULL past the end. */
SLINKY_API const slinky_slurm_job *slinky_slurm_jobs_at(const slinky_slurm_jobs *l, size_t i);
/** Free the list and everything borrowed from it. NULL is ignored. */
SLINKY_API void slinky_slurm_jobs_free(slinky_slurm_jobs *l);

/** One partition (borrowed from its slinky_slurm_partitions). */
typedef struct slinky_slurm_partition {
    const char *name;       /**< PartitionName */
    const char *nodes;      /**< configured nodes, hostlist expression */
    const char *state_text; /**< state words joined with '+' ("UP") */
    int64_t total_nodes;    /**< number of nodes in the partition */
    int64_t total_cpus;     /**< CPUs of those nodes */
    int64_t max_time; /**< minutes; INT64_MAX when infinite */
} slinky_slurm_partition;

/** A list of partitions (opaque, immutable; free with slinky_slurm_partitions_free()). */
typedef struct slinky_slurm_partitions slinky_slurm_partitions;
/** Number of partitions; 0 for NULL. */
SLINKY_API size_t slinky_slurm_partitions_count(const slinky_slurm_partitions *l);
/** i-th partition, or NULL past the end. */
SLINKY_API const slinky_slurm_partition *slinky_slurm_partitions_at(const slinky_slurm_partitions *l,
                                                                    size_t i);
/** Free the list and everything borrowed from it. NULL is ignored. */
SLINKY_API void slinky_slurm_partitions_free(slinky_slurm_partitions *l);

/** One reservation (borrowed from its slinky_slurm_reservations). */
typedef struct slinky_slurm_reservation {
    const char *name;  /**< ReservationName */
    const char *nodes; /**< hostlist expression */
    int64_t node_count; /**< number of reserved nodes */
    int64_t start_time; /**< Unix seconds */
    int64_t end_time;   /**< Unix seconds */
    const char *flags; /**< comma separated ("MAINT,SPEC_NODES") */
    const char *users; /**< comma separated user names allowed in it */
    const char *partition; /**< partition it is tied to, "" when none */
} slinky_slurm_reservation;

/** A list of reservations (opaque, immutable; free with slinky_slurm_reservations_free()). */
typedef struct slinky_slurm_reservations slinky_slurm_reservations;
/** Number of reservations; 0 for NULL. */
SLINKY_API size_t slinky_slurm_reservations_count(const slinky_slurm_reservations *l);
/** i-th reservation, or NULL past the end. */
SLINKY_API const slinky_slurm_reservation *
slinky_slurm_reservations_at(const slinky_slurm_reservations *l, size_t i);
/** Free the list and everything borrowed from it. NULL is ignored. */
SLINKY_API void slinky_slurm_reservations_free(slinky_slurm_reservations *l);

/** One controller's answer to a ping (borrowed from its slinky_slurm_pings). */
typedef struct slinky_slurm_ping {
    const char *hostname; /**< controller host that was pinged */
    const char *mode;   /**< "primary", "backup1", ... */
    const char *pinged; /**< "UP" / "DOWN" */
    bool responding;    /**< the controller answered (pinged is "UP") */
    bool primary;       /**< this is the primary controller */
    int64_t latency_us; /**< round trip in microseconds (0 when the server does not report it) */
} slinky_slurm_ping;

/** The answers of every controller (opaque, immutable; free with slinky_slurm_pings_free()). */
typedef struct slinky_slurm_pings slinky_slurm_pings;
/** Number of controllers; 0 for NULL. */
SLINKY_API size_t slinky_slurm_pings_count(const slinky_slurm_pings *l);
/** i-th controller (in the server's order), or NULL past the end. */
SLINKY_API const slinky_slurm_ping *slinky_slurm_pings_at(const slinky_slurm_pings *l, size_t i);
/** The Slurm release that answered ("24.11.5"). */
SLINKY_API const char *slinky_slurm_pings_release(const slinky_slurm_pings *l);
/** Free the list and everything borrowed from it. NULL is ignored. */
SLINKY_API void slinky_slurm_pings_free(slinky_slurm_pings *l);

/** Scheduler statistics (sdiag), filled in by value; missing numbers are 0. */
typedef struct slinky_slurm_diag {
    int64_t server_thread_count; /**< slurmctld threads serving RPCs now */
    int64_t agent_queue_size;    /**< outgoing RPCs queued for the agent */
    int64_t jobs_submitted;      /**< jobs submitted since the reset (midnight UTC, sdiag -r) */
    int64_t jobs_started;        /**< jobs started since the reset */
    int64_t jobs_completed;      /**< jobs completed since the reset */
    int64_t jobs_canceled;       /**< jobs canceled since the reset */
    int64_t jobs_failed;         /**< jobs failed since the reset */
    int64_t jobs_pending;        /**< jobs pending at req_time */
    int64_t jobs_running;        /**< jobs running at req_time */
    int64_t schedule_cycle_last; /**< microseconds */
    int64_t schedule_cycle_max;  /**< microseconds, longest main scheduling cycle */
    int64_t bf_cycle_last;       /**< microseconds, last backfill cycle */
    int64_t req_time; /**< server time of the answer */
} slinky_slurm_diag;

/* ================================================================== */
/* Calls                                                              */
/* ================================================================== */

/** Ping the controllers (primary and backups). */
SLINKY_API slinky_status slinky_slurm_pings_get(slinky_slurm_pings **out, slinky_slurm_client *c);
/** Scheduler statistics. */
SLINKY_API slinky_status slinky_slurm_diag_get(slinky_slurm_diag *out, slinky_slurm_client *c);

/**
 * List nodes. With update_time > 0 the server answers only when the node
 * table changed since then; an unchanged table gives a list with no nodes and
 * slinky_slurm_nodes_changed() false.
 */
SLINKY_API slinky_status slinky_slurm_nodes_list(slinky_slurm_nodes **out, slinky_slurm_client *c,
                                                 int64_t update_time);
/** One node in a list of one. SLINKY_ENOTFOUND when Slurm has no such node. */
SLINKY_API slinky_status slinky_slurm_node_get(slinky_slurm_nodes **out, slinky_slurm_client *c,
                                               const char *name);

/** The state change of a slinky_slurm_node_change (Slurm's `scontrol update State=`). */
typedef enum slinky_slurm_node_action {
    SLINKY_SLURM_NODE_KEEP = 0,    /**< leave the state alone */
    SLINKY_SLURM_NODE_SET_DRAIN,   /**< DRAIN: no new jobs; needs a reason */
    SLINKY_SLURM_NODE_SET_RESUME,  /**< RESUME: back to service from DRAIN or DOWN */
    SLINKY_SLURM_NODE_SET_UNDRAIN, /**< UNDRAIN: clear DRAIN only */
    SLINKY_SLURM_NODE_SET_DOWN /**< DOWN: out of service, running jobs are killed; needs a reason */
} slinky_slurm_node_action;

/** Current version of slinky_slurm_node_change. */
#define SLINKY_SLURM_NODE_CHANGE_VERSION 1
/** What slinky_slurm_node_update() changes on a node (borrowed for the call). */
typedef struct slinky_slurm_node_change {
    unsigned int version;            /**< SLINKY_SLURM_NODE_CHANGE_VERSION */
    slinky_slurm_node_action action; /**< state change, SLINKY_SLURM_NODE_KEEP for none */
    /** NULL leaves a field alone. DRAIN and DOWN need a reason. */
    const char *reason;
    const char *comment;         /**< new comment ("" clears it) */
    const char *features;        /**< comma separated */
    const char *active_features; /**< comma separated */
} slinky_slurm_node_change;
/** Static initialiser: version set, action KEEP, every field NULL (left alone). */
#define SLINKY_SLURM_NODE_CHANGE_INIT {SLINKY_SLURM_NODE_CHANGE_VERSION}
/** Initialise `u` to change nothing. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_slurm_node_change_init(slinky_slurm_node_change *u,
                                                       unsigned int version);

/**
 * Update one node (or a hostlist expression). SLINKY_EUNSUPPORTED on a
 * read-only version (v0.0.38), SLINKY_EINVALID for DRAIN/DOWN without a
 * reason or nothing to change, SLINKY_ENOTFOUND for an unknown node.
 */
SLINKY_API slinky_status slinky_slurm_node_update(slinky_slurm_client *c, const char *name,
                                                  const slinky_slurm_node_change *u);
/** DRAIN with a reason (shorthand for node_update). */
SLINKY_API slinky_status slinky_slurm_node_drain(slinky_slurm_client *c, const char *name,
                                                 const char *reason);
/** RESUME (shorthand for node_update). */
SLINKY_API slinky_status slinky_slurm_node_resume(slinky_slurm_client *c, const char *name);
/** Delete a node record (dynamic nodes). */
SLINKY_API slinky_status slinky_slurm_node_delete(slinky_slurm_client *c, const char *name);

/** All jobs (pending, running, recently finished). */
SLINKY_API slinky_status slinky_slurm_jobs_list(slinky_slurm_jobs **out, slinky_slurm_client *c);
/** One job; SLINKY_ENOTFOUND when unknown. */
SLINKY_API slinky_status slinky_slurm_job_get(slinky_slurm_jobs **out, slinky_slurm_client *c,
                                              int64_t job_id);
/** All partitions; `*out` is the caller's (slinky_slurm_partitions_free()). */
SLINKY_API slinky_status slinky_slurm_partitions_list(slinky_slurm_partitions **out,
                                                      slinky_slurm_client *c);

/** All reservations; `*out` is the caller's (slinky_slurm_reservations_free()). */
SLINKY_API slinky_status slinky_slurm_reservations_list(slinky_slurm_reservations **out,
                                                        slinky_slurm_client *c);
/** One reservation; SLINKY_ENOTFOUND when unknown. */
SLINKY_API slinky_status slinky_slurm_reservation_get(slinky_slurm_reservations **out,
                                                      slinky_slurm_client *c, const char *name);

/** Current version of slinky_slurm_reservation_spec. */
#define SLINKY_SLURM_RESERVATION_SPEC_VERSION 1
/** A reservation for slinky_slurm_reservation_create() (borrowed for the call). */
typedef struct slinky_slurm_reservation_spec {
    unsigned int version; /**< SLINKY_SLURM_RESERVATION_SPEC_VERSION */
    const char *name;     /**< required */
    const char *nodes;    /**< one hostlist expression ("node[1-3,7]"); required */
    const char *users;    /**< comma separated; required */
    int64_t start_time;   /**< Unix seconds; required */
    int64_t duration_min; /**< required, > 0 */
    const char *flags;    /**< comma separated ("MAINT,IGNORE_JOBS"), may be NULL */
} slinky_slurm_reservation_spec;
/** Static initialiser: version set, everything else zero or NULL. */
#define SLINKY_SLURM_RESERVATION_SPEC_INIT {SLINKY_SLURM_RESERVATION_SPEC_VERSION}
/** Initialise `s` to zeros (every required field still to set). EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_slurm_reservation_spec_init(slinky_slurm_reservation_spec *s,
                                                            unsigned int version);

/**
 * Create a reservation (a maintenance window). Needs a slurmrestd that offers
 * POST .../reservation (Slurm 25.05 and later); SLINKY_EUNSUPPORTED naming
 * the version otherwise.
 */
SLINKY_API slinky_status slinky_slurm_reservation_create(slinky_slurm_client *c,
                                                         const slinky_slurm_reservation_spec *s);
/** Delete a reservation; SLINKY_EUNSUPPORTED where the server offers no DELETE. */
SLINKY_API slinky_status slinky_slurm_reservation_delete(slinky_slurm_client *c, const char *name);

SLINKY_END_DECLS

#endif
