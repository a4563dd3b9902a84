/*
 * libslinky kube: a Kubernetes API client (config, REST, watch, informer,
 * work queue, controller, leader election).
 *
 * Objects are generic slinky_doc values (see doc.h): a Kubernetes object is
 * a JSON object with apiVersion, kind, metadata, spec, status...
 *
 * Threads:
 * - slinky_kube_config is immutable after loading, except for credentials it
 *   caches internally (token file contents, exec plugin output), which are
 *   guarded by a lock: one config may be shared by several clients and
 *   threads.
 * - slinky_kube_client may be used by several threads at once (requests run
 *   on a pool of connections). It must outlive every iterator, watch,
 *   informer and leader elector made from it.
 * - A list iterator or a watch is used by one thread at a time, except
 *   slinky_kube_watch_stop(), which any thread may call.
 * - Informer cache reads, work queue calls and controller/leader state
 *   queries are safe from any thread.
 * - Threads the library starts: one per informer, per leader elector and
 *   per controller worker (joined by their stop/free), and a helper thread
 *   for the transfer of each list page (joined before the call returns).
 *   Callbacks run on the thread documented with each.
 *
 * Errors: every call returns 0 or a negative SLINKY_E* code, with details in
 * slinky_error_last(). A failure caused by an HTTP reply sets http_status and
 * the message to the Kubernetes Status message; its reason and causes are in
 * slinky_kube_status_last() (per thread, like slinky_error_last()). The
 * reason picks the code: NotFound -> SLINKY_ENOTFOUND, AlreadyExists ->
 * SLINKY_EEXISTS, Conflict -> SLINKY_ECONFLICT, Invalid/BadRequest ->
 * SLINKY_EINVALID, Gone/Expired -> SLINKY_EGONE, Unauthorized ->
 * SLINKY_EAUTH, Forbidden -> SLINKY_EFORBIDDEN, TooManyRequests and
 * ServiceUnavailable -> SLINKY_EBUSY, Timeout -> SLINKY_ETIMEOUT,
 * UnsupportedMediaType/MethodNotAllowed -> SLINKY_EUNSUPPORTED, anything
 * else -> SLINKY_EHTTP. A server certificate that does not verify (unknown
 * CA, wrong host name) or an unusable client certificate is SLINKY_EAUTH
 * with the TLS library's reason in the message; it is never retried.
 *
 * Call slinky_global_init() once before creating a client.
 */
#ifndef SLINKY_KUBE_H
#define SLINKY_KUBE_H

#include "common.h"
#include "doc.h"

SLINKY_BEGIN_DECLS

typedef struct slinky_kube_config slinky_kube_config;
typedef struct slinky_kube_client slinky_kube_client;
typedef struct slinky_kube_list_iter slinky_kube_list_iter;
typedef struct slinky_kube_watch slinky_kube_watch;
typedef struct slinky_kube_watch_decoder slinky_kube_watch_decoder;
typedef struct slinky_kube_informer slinky_kube_informer;
typedef struct slinky_kube_workqueue slinky_kube_workqueue;
typedef struct slinky_kube_controller slinky_kube_controller;
typedef struct slinky_kube_leader slinky_kube_leader;

/* ================================================================== */
/* Status details of the last failed request                          */
/* ================================================================== */

/** One entry of Status.details.causes. Strings are never NULL (may be ""). */
typedef struct slinky_kube_status_cause {
    const char *reason; /**< e.g. "FieldValueInvalid" */
    const char *message;
    const char *field; /**< e.g. "spec.replicas" */
} slinky_kube_status_cause;

/** Details of the Kubernetes Status behind the last failure on this thread. */
typedef struct slinky_kube_status {
    int http_status; /**< 0 when the last failure had no HTTP reply */
    int code;        /**< Status.code (usually equal to http_status) */
    const char *reason;  /**< Status.reason ("NotFound", ...), "" when none */
    const char *message; /**< Status.message, "" when none */
    const char *name;    /**< Status.details.name, "" when none */
    const char *kind;    /**< Status.details.kind, "" when none */
    size_t ncauses;
    const slinky_kube_status_cause *causes;
    long retry_after_seconds; /**< Retry-After or details.retryAfterSeconds, else 0 */
} slinky_kube_status;

/**
 * The Status of the last failed HTTP request made on this thread. Never NULL;
 * all fields are zero/"" after a failure without an HTTP reply. Borrowed:
 * valid until the next failing kube call on this thread.
 */
SLINKY_API const slinky_kube_status *slinky_kube_status_last(void);

/* ================================================================== */
/* Configuration                                                      */
/* ================================================================== */

#define SLINKY_KUBE_CONFIG_OPTIONS_VERSION 1

/** How to find the configuration (all fields optional). */
typedef struct slinky_kube_config_options {
    unsigned int version;
    /** Explicit kubeconfig path (like --kubeconfig): must exist; overrides KUBECONFIG. */
    const char *kubeconfig;
    /** Value used instead of getenv("KUBECONFIG") when non-NULL ("" = unset). */
    const char *kubeconfig_env;
    /** Context to use instead of current-context. */
    const char *context;
    /** Namespace to use instead of the context's. */
    const char *ns;
    /** Load in-cluster configuration only (service account). */
    bool in_cluster;
    /**
     * Folder holding token, ca.crt and namespace for in-cluster config
     * (default /var/run/secrets/kubernetes.io/serviceaccount).
     */
    const char *service_account_dir;
    /** Home folder for ~/.kube/config (default getenv("HOME")). */
    const char *home;
} slinky_kube_config_options;

#define SLINKY_KUBE_CONFIG_OPTIONS_INIT {SLINKY_KUBE_CONFIG_OPTIONS_VERSION}

/** Initialise options to defaults. SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_kube_config_options_init(slinky_kube_config_options *opts,
                                                         unsigned int version);

/**
 * Load a configuration as kubectl does: the explicit kubeconfig file, else
 * every file of the KUBECONFIG list (':' separated, missing files skipped,
 * the first file to set a value or a named entry wins), else ~/.kube/config,
 * else in-cluster (KUBERNETES_SERVICE_HOST/PORT). Relative paths inside a
 * file are resolved against that file's folder. Inline *-data is decoded
 * into memory and never written to disk.
 * Errors: SLINKY_ENOTFOUND (no config, missing context/cluster/user),
 * SLINKY_EPARSE (bad YAML, named file and line), SLINKY_EINVALID (bad field,
 * named), SLINKY_EIO.
 */
SLINKY_API slinky_status slinky_kube_config_load(slinky_kube_config **out,
                                                 const slinky_kube_config_options *opts);

/**
 * Parse one kubeconfig document held in memory. Relative paths resolve
 * against `base_dir` (NULL: the working directory). `context` may be NULL.
 */
SLINKY_API slinky_status slinky_kube_config_parse(slinky_kube_config **out, const char *data,
                                                  size_t len, const char *base_dir,
                                                  const char *context);

/** Free a config. NULL is ignored. Clients made from it keep their own reference. */
SLINKY_API void slinky_kube_config_free(slinky_kube_config *cfg);

/* Getters: borrowed strings, valid while cfg lives; "" when unset. */
/** Server URL, e.g. "https://127.0.0.1:6443". */
SLINKY_API const char *slinky_kube_config_get_server(const slinky_kube_config *cfg);
/** Namespace from the context (or options), "default" when none is set. */
SLINKY_API const char *slinky_kube_config_get_namespace(const slinky_kube_config *cfg);
/** Name of the context in use ("" for in-cluster). */
SLINKY_API const char *slinky_kube_config_get_context(const slinky_kube_config *cfg);
/** Name of the cluster entry in use. */
SLINKY_API const char *slinky_kube_config_get_cluster(const slinky_kube_config *cfg);
/** Name of the user entry in use. */
SLINKY_API const char *slinky_kube_config_get_user(const slinky_kube_config *cfg);
/** True when the config came from the in-cluster service account. */
SLINKY_API bool slinky_kube_config_is_in_cluster(const slinky_kube_config *cfg);

/**
 * The bearer token requests would carry now (from token, tokenFile re-read
 * when it changed, or an exec plugin, run or taken from its cache).
 * *out is NULL when the config authenticates otherwise. Release with
 * slinky_free(). Thread safe.
 */
SLINKY_API slinky_status slinky_kube_config_get_token(char **out, slinky_kube_config *cfg);

/* ================================================================== */
/* Client                                                             */
/* ================================================================== */

#define SLINKY_KUBE_CLIENT_OPTIONS_VERSION 1

typedef struct slinky_kube_client_options {
    unsigned int version;
    /** User-Agent header (default "libslinky/VERSION (linux) kube"). */
    const char *user_agent;
    /** Whole-request timeout for non-watch requests in ms (default 30000; < 0 none). */
    long timeout_ms;
    /** Connect timeout in ms (default 10000). */
    long connect_timeout_ms;
    /** Retries after the first attempt (default 5; < 0 means 0). */
    int max_retries;
    /** First backoff delay in ms (default 100), doubled per retry with jitter. */
    long backoff_base_ms;
    /** Backoff ceiling in ms (default 5000); also caps Retry-After waits at 10x. */
    long backoff_max_ms;
} slinky_kube_client_options;

#define SLINKY_KUBE_CLIENT_OPTIONS_INIT {SLINKY_KUBE_CLIENT_OPTIONS_VERSION}

SLINKY_API slinky_status slinky_kube_client_options_init(slinky_kube_client_options *opts,
                                                         unsigned int version);

/**
 * Create a client. cfg is referenced (kept alive by the client); the caller
 * may free its own reference right away. Thread safe once created.
 */
SLINKY_API slinky_status slinky_kube_client_new(slinky_kube_client **out,
                                                slinky_kube_config *cfg,
                                                const slinky_kube_client_options *opts);

/** Free a client (NULL ignored). Nothing made from it may be in use. */
SLINKY_API void slinky_kube_client_free(slinky_kube_client *c);

/** The client's config (borrowed). */
SLINKY_API slinky_kube_config *slinky_kube_client_get_config(slinky_kube_client *c);

/** A resource: group ("" for the core group), version, plural name. */
typedef struct slinky_kube_resource {
    const char *group;    /**< "" or NULL for core ("v1") */
    const char *version;  /**< "v1", "v1beta1" */
    const char *resource; /**< plural, lower case: "nodesets", "configmaps" */
    bool namespaced;
} slinky_kube_resource;

/**
 * Fill *out for a well-known resource, named by plural ("configmaps"),
 * kind ("ConfigMap", any case) or plural.group ("nodesets.slinky.slurm.net"):
 * core ConfigMap, Secret, Namespace, Pod, Service, ServiceAccount, Event,
 * Node; Lease; apps StatefulSet, Deployment; CustomResourceDefinition; the
 * Slinky kinds (NodeSet, Controller, LoginSet, Accounting, RestApi, Token).
 * The strings are static. SLINKY_ENOTFOUND for other names.
 */
SLINKY_API slinky_status slinky_kube_resource_lookup(slinky_kube_resource *out, const char *name);

/** The same, from an object's apiVersion and kind ("slinky.slurm.net/v1beta1", "NodeSet"). */
SLINKY_API slinky_status slinky_kube_resource_for_kind(slinky_kube_resource *out,
                                                       const char *api_version, const char *kind);

/**
 * A raw request. `path` starts with '/' and may carry a query string.
 * body may be NULL. The reply body is returned for any HTTP status (no
 * Status mapping); *status_out receives the HTTP status. Retries as the
 * typed verbs do. *body_out is released with slinky_free().
 */
SLINKY_API slinky_status slinky_kube_request(char **body_out, size_t *len_out, int *status_out,
                                             slinky_kube_client *c, const char *method,
                                             const char *path, const char *content_type,
                                             const char *body, size_t body_len);

/* ================================================================== */
/* Query building                                                     */
/* ================================================================== */

/**
 * Percent-encode a query value (RFC 3986 unreserved bytes kept, everything
 * else as %XX). *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_kube_query_escape(char **out, const char *value);

/**
 * Build the path of a resource collection or object:
 * /api/v1/namespaces/NS/configmaps/NAME[/SUB] or /apis/G/V/...; each segment
 * is percent-encoded. ns is ignored for cluster-scoped resources; name and
 * subresource may be NULL.
 */
SLINKY_API slinky_status slinky_kube_path(char **out, const slinky_kube_resource *r,
                                          const char *ns, const char *name,
                                          const char *subresource);

/**
 * Validate a label selector ("app=x,tier!=db,env in (a,b),!legacy,k") and
 * report whether the labels object `labels` (may be NULL) matches it.
 * SLINKY_EINVALID names the offending term.
 */
SLINKY_API slinky_status slinky_kube_selector_matches(bool *out, const char *selector,
                                                      const slinky_doc_value *labels);

/* ================================================================== */
/* REST verbs                                                         */
/* ================================================================== */

#define SLINKY_KUBE_GET_OPTIONS_VERSION 1
typedef struct slinky_kube_get_options {
    unsigned int version;
    const char *resource_version; /**< "0" serves from the cache */
    const char *subresource;      /**< e.g. "status", "scale" */
} slinky_kube_get_options;
#define SLINKY_KUBE_GET_OPTIONS_INIT {SLINKY_KUBE_GET_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_get_options_init(slinky_kube_get_options *opts,
                                                      unsigned int version);

/** Get one object. *out owned by the caller. */
SLINKY_API slinky_status slinky_kube_get(slinky_doc **out, slinky_kube_client *c,
                                         const slinky_kube_resource *r, const char *ns,
                                         const char *name, const slinky_kube_get_options *opts);

#define SLINKY_KUBE_LIST_OPTIONS_VERSION 1
typedef struct slinky_kube_list_options {
    unsigned int version;
    const char *label_selector;
    const char *field_selector;
    /** Page size (default 500; 0 keeps the default; < 0 asks for everything at once). */
    long limit;
    const char *resource_version;
    const char *resource_version_match; /**< "Exact", "NotOlderThan" */
    long timeout_seconds;               /**< server-side timeout, 0 none */
} slinky_kube_list_options;
#define SLINKY_KUBE_LIST_OPTIONS_INIT {SLINKY_KUBE_LIST_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_list_options_init(slinky_kube_list_options *opts,
                                                       unsigned int version);

/**
 * List every object (following continue tokens; when a continue token
 * expires (410) the list restarts from the beginning). *out's root is a
 * List object {"apiVersion","kind","metadata":{"resourceVersion"},"items":[...]}.
 * ns NULL or "" lists across all namespaces.
 */
SLINKY_API slinky_status slinky_kube_list(slinky_doc **out, slinky_kube_client *c,
                                          const slinky_kube_resource *r, const char *ns,
                                          const slinky_kube_list_options *opts);

/**
 * Item callback for streamed lists: takes ownership of `item` (free it with
 * slinky_doc_free()). A non-zero return stops the list with that code.
 */
typedef slinky_status (*slinky_kube_item_cb)(slinky_doc *item, void *payload);

/**
 * List by streaming: the reply is decoded as it arrives and each item is
 * handed to cb as soon as it is complete; memory stays bounded by one item
 * plus at most 4 MiB of received bytes waiting to be decoded. The transfer
 * runs on a short-lived helper thread while the calling thread decodes; cb
 * always runs on the calling thread. Pages are followed. A transfer that
 * breaks after items were delivered is not retried (the call fails). When
 * a continue token expires mid-way the call fails with SLINKY_EGONE (the
 * items already delivered are from an older snapshot: list again).
 * *resource_version_out (may be NULL) receives the list's resourceVersion.
 */
SLINKY_API slinky_status slinky_kube_list_stream(char **resource_version_out,
                                                 slinky_kube_client *c,
                                                 const slinky_kube_resource *r, const char *ns,
                                                 const slinky_kube_list_options *opts,
                                                 slinky_kube_item_cb cb, void *payload);

/**
 * A paged iterator: one page is fetched (and decoded by streaming) at a
 * time. When a continue token expires (410) the iteration restarts from the
 * first page: items may then be seen again, and
 * slinky_kube_list_iter_restarts() grows by one.
 */
SLINKY_API slinky_status slinky_kube_list_iter_new(slinky_kube_list_iter **out,
                                                   slinky_kube_client *c,
                                                   const slinky_kube_resource *r, const char *ns,
                                                   const slinky_kube_list_options *opts);
/**
 * The next item (borrowed: valid until the next call or the free).
 * SLINKY_ITEROVER at the end.
 */
SLINKY_API slinky_status slinky_kube_list_iter_next(const slinky_doc_value **out,
                                                    slinky_kube_list_iter *it);
/** resourceVersion of the list (valid after the first page). Borrowed. */
SLINKY_API const char *slinky_kube_list_iter_resource_version(const slinky_kube_list_iter *it);
/** How often the iteration restarted after a 410. */
SLINKY_API unsigned slinky_kube_list_iter_restarts(const slinky_kube_list_iter *it);
SLINKY_API void slinky_kube_list_iter_free(slinky_kube_list_iter *it);

#define SLINKY_KUBE_WRITE_OPTIONS_VERSION 1
typedef struct slinky_kube_write_options {
    unsigned int version;
    const char *field_manager;
    bool dry_run;                 /**< dryRun=All */
    const char *field_validation; /**< "Strict", "Warn", "Ignore" */
} slinky_kube_write_options;
#define SLINKY_KUBE_WRITE_OPTIONS_INIT {SLINKY_KUBE_WRITE_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_write_options_init(slinky_kube_write_options *opts,
                                                        unsigned int version);

/** Create obj (POST). *out (may be NULL) receives the stored object. */
SLINKY_API slinky_status slinky_kube_create(slinky_doc **out, slinky_kube_client *c,
                                            const slinky_kube_resource *r, const char *ns,
                                            const slinky_doc_value *obj,
                                            const slinky_kube_write_options *opts);
/**
 * Replace obj (PUT to metadata.name). Carries metadata.resourceVersion when
 * present, so a stale object fails with SLINKY_ECONFLICT.
 */
SLINKY_API slinky_status slinky_kube_update(slinky_doc **out, slinky_kube_client *c,
                                            const slinky_kube_resource *r, const char *ns,
                                            const slinky_doc_value *obj,
                                            const slinky_kube_write_options *opts);
/** Replace the status subresource (PUT .../status). */
SLINKY_API slinky_status slinky_kube_update_status(slinky_doc **out, slinky_kube_client *c,
                                                   const slinky_kube_resource *r,
                                                   const char *ns, const slinky_doc_value *obj,
                                                   const slinky_kube_write_options *opts);

/** Patch types and their content types. */
typedef enum slinky_kube_patch_type {
    SLINKY_KUBE_PATCH_MERGE = 0,     /**< application/merge-patch+json */
    SLINKY_KUBE_PATCH_JSON = 1,      /**< application/json-patch+json */
    SLINKY_KUBE_PATCH_STRATEGIC = 2, /**< application/strategic-merge-patch+json */
    SLINKY_KUBE_PATCH_APPLY = 3      /**< application/apply-patch+yaml (server-side apply) */
} slinky_kube_patch_type;

#define SLINKY_KUBE_PATCH_OPTIONS_VERSION 1
typedef struct slinky_kube_patch_options {
    unsigned int version;
    const char *field_manager; /**< required for APPLY */
    bool force;                /**< APPLY only: take over conflicting fields */
    bool dry_run;
    const char *field_validation;
    const char *subresource; /**< e.g. "status" */
} slinky_kube_patch_options;
#define SLINKY_KUBE_PATCH_OPTIONS_INIT {SLINKY_KUBE_PATCH_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_patch_options_init(slinky_kube_patch_options *opts,
                                                        unsigned int version);

/** Patch an object; patch is sent as JSON. *out (may be NULL) receives the result. */
SLINKY_API slinky_status slinky_kube_patch(slinky_doc **out, slinky_kube_client *c,
                                           const slinky_kube_resource *r, const char *ns,
                                           const char *name, slinky_kube_patch_type type,
                                           const slinky_doc_value *patch,
                                           const slinky_kube_patch_options *opts);

#define SLINKY_KUBE_DELETE_OPTIONS_VERSION 1
typedef struct slinky_kube_delete_options {
    unsigned int version;
    const char *propagation_policy;    /**< "Foreground", "Background", "Orphan" */
    long grace_period_seconds;         /**< < 0: server default (the default) */
    const char *precondition_uid;
    const char *precondition_resource_version;
    bool dry_run;
} slinky_kube_delete_options;
#define SLINKY_KUBE_DELETE_OPTIONS_INIT {SLINKY_KUBE_DELETE_OPTIONS_VERSION, NULL, -1}
SLINKY_API slinky_status slinky_kube_delete_options_init(slinky_kube_delete_options *opts,
                                                         unsigned int version);

/**
 * Delete an object. *out (may be NULL) receives the reply (the object being
 * deleted, or a Status).
 */
SLINKY_API slinky_status slinky_kube_delete(slinky_doc **out, slinky_kube_client *c,
                                            const slinky_kube_resource *r, const char *ns,
                                            const char *name,
                                            const slinky_kube_delete_options *opts);

/** A mutate callback's result: the object needs no change (no update is sent). */
#define SLINKY_KUBE_MUTATE_NO_CHANGE 1

/**
 * Mutate callback for slinky_kube_retry_on_conflict: edit obj in place;
 * return 0 to update, SLINKY_KUBE_MUTATE_NO_CHANGE when obj is already as
 * wanted (nothing is written), a negative code to stop with it.
 */
typedef slinky_status (*slinky_kube_mutate_cb)(slinky_doc_value *obj, void *payload);

/**
 * Get, mutate, update; on SLINKY_ECONFLICT start again (at most `attempts`
 * times, 0 means 5). *out (may be NULL) receives the updated object, or the
 * object as read when the callback returned SLINKY_KUBE_MUTATE_NO_CHANGE
 * (the call then returns 0 without writing).
 */
SLINKY_API slinky_status slinky_kube_retry_on_conflict(slinky_doc **out, slinky_kube_client *c,
                                                       const slinky_kube_resource *r,
                                                       const char *ns, const char *name,
                                                       int attempts, slinky_kube_mutate_cb cb,
                                                       void *payload);

/* ================================================================== */
/* Watch                                                              */
/* ================================================================== */

typedef enum slinky_kube_event_type {
    SLINKY_KUBE_EVENT_ADDED = 0,
    SLINKY_KUBE_EVENT_MODIFIED = 1,
    SLINKY_KUBE_EVENT_DELETED = 2,
    SLINKY_KUBE_EVENT_BOOKMARK = 3,
    SLINKY_KUBE_EVENT_ERROR = 4 /**< object is a Status */
} slinky_kube_event_type;

/** Static name: "ADDED", "MODIFIED", ... */
SLINKY_API const char *slinky_kube_event_type_name(slinky_kube_event_type t);

/**
 * Event callback of the decoder; takes ownership of `object`. A non-zero
 * return stops decoding and is returned by the feed.
 */
typedef slinky_status (*slinky_kube_event_cb)(slinky_kube_event_type type, slinky_doc *object,
                                              void *payload);

/**
 * An incremental decoder for a newline-framed watch stream. Bytes can be
 * fed in chunks split anywhere; memory is bounded by one event
 * (max_event_bytes, 0 = 64 MiB: a longer line fails with SLINKY_EPARSE).
 */
SLINKY_API slinky_status slinky_kube_watch_decoder_new(slinky_kube_watch_decoder **out,
                                                       size_t max_event_bytes);
/**
 * Feed bytes; each complete event is passed to cb. Malformed events fail
 * with SLINKY_EPARSE; the decoder is then unusable.
 */
SLINKY_API slinky_status slinky_kube_watch_decoder_feed(slinky_kube_watch_decoder *d,
                                                        const char *data, size_t len,
                                                        slinky_kube_event_cb cb, void *payload);
/**
 * End of stream: decode a last event without a newline, if any.
 */
SLINKY_API slinky_status slinky_kube_watch_decoder_finish(slinky_kube_watch_decoder *d,
                                                          slinky_kube_event_cb cb,
                                                          void *payload);
SLINKY_API void slinky_kube_watch_decoder_free(slinky_kube_watch_decoder *d);

#define SLINKY_KUBE_WATCH_OPTIONS_VERSION 1
typedef struct slinky_kube_watch_options {
    unsigned int version;
    const char *label_selector;
    const char *field_selector;
    /** Start after this resourceVersion (usually a list's); NULL: from "now". */
    const char *resource_version;
    /** Ask for BOOKMARK events (default true, set no_bookmarks to disable). */
    bool no_bookmarks;
    /** Server-side timeout of one watch connection in s (0: server default). */
    long timeout_seconds;
    /** Do not reconnect when the stream ends: slinky_kube_watch_next gives ITEROVER. */
    bool no_resume;
    /** Hide BOOKMARK events from slinky_kube_watch_next (they still move the resourceVersion). */
    bool hide_bookmarks;
} slinky_kube_watch_options;
#define SLINKY_KUBE_WATCH_OPTIONS_INIT {SLINKY_KUBE_WATCH_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_watch_options_init(slinky_kube_watch_options *opts,
                                                        unsigned int version);

/**
 * Open a watch (the connection is made by the first slinky_kube_watch_next).
 */
SLINKY_API slinky_status slinky_kube_watch_new(slinky_kube_watch **out, slinky_kube_client *c,
                                               const slinky_kube_resource *r, const char *ns,
                                               const slinky_kube_watch_options *opts);

/**
 * Wait for the next event, at most timeout_ms (< 0: forever). *object_out
 * is owned by the caller. A stream that ends or drops is reopened from the
 * last resourceVersion seen (with backoff), unless no_resume.
 * Returns 0, SLINKY_ETIMEOUT (no event in time; call again),
 * SLINKY_EGONE (the resourceVersion expired: list again and open a new
 * watch), SLINKY_ECANCELED (slinky_kube_watch_stop was called),
 * SLINKY_ITEROVER (stream ended with no_resume), or another error from the
 * server (e.g. SLINKY_EFORBIDDEN).
 */
SLINKY_API slinky_status slinky_kube_watch_next(slinky_kube_event_type *type_out,
                                                slinky_doc **object_out, slinky_kube_watch *w,
                                                long timeout_ms);

/** The last resourceVersion seen (borrowed; "" when none). Same thread as next. */
SLINKY_API const char *slinky_kube_watch_resource_version(const slinky_kube_watch *w);

/**
 * Stop the watch from any thread: a pending or later slinky_kube_watch_next
 * returns SLINKY_ECANCELED promptly.
 */
SLINKY_API void slinky_kube_watch_stop(slinky_kube_watch *w);

SLINKY_API void slinky_kube_watch_free(slinky_kube_watch *w);

/* ================================================================== */
/* Informer                                                           */
/* ================================================================== */

/** Current version of slinky_kube_informer_handlers. */
#define SLINKY_KUBE_INFORMER_HANDLERS_VERSION 1
/**
 * Handlers, called on the informer's thread, one at a time, after the cache
 * has been updated. Objects are borrowed for the duration of the call.
 * on_update gets old and new. Any may be NULL. Each gets `payload`. The
 * struct is versioned like an options struct (new members go at the end):
 * start from SLINKY_KUBE_INFORMER_HANDLERS_INIT and set members by name.
 */
typedef struct slinky_kube_informer_handlers {
    unsigned int version; /**< SLINKY_KUBE_INFORMER_HANDLERS_VERSION */
    void (*on_add)(const slinky_doc_value *obj, void *payload);
    void (*on_update)(const slinky_doc_value *old_obj, const slinky_doc_value *new_obj,
                      void *payload);
    void (*on_delete)(const slinky_doc_value *obj, void *payload);
    void *payload; /**< passed to every handler (borrowed; must outlive the informer) */
} slinky_kube_informer_handlers;
/** Static initialiser: version set, no handlers, payload NULL. */
#define SLINKY_KUBE_INFORMER_HANDLERS_INIT {SLINKY_KUBE_INFORMER_HANDLERS_VERSION}

#define SLINKY_KUBE_INFORMER_OPTIONS_VERSION 1
typedef struct slinky_kube_informer_options {
    unsigned int version;
    const char *label_selector;
    const char *field_selector;
    /** Server-side timeout per watch connection in s (default 300). */
    long watch_timeout_seconds;
    /** Page size for the lists (default 500). */
    long list_limit;
} slinky_kube_informer_options;
#define SLINKY_KUBE_INFORMER_OPTIONS_INIT {SLINKY_KUBE_INFORMER_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_informer_options_init(slinky_kube_informer_options *opts,
                                                           unsigned int version);

/**
 * An informer keeps a cache of every object of a resource (in namespace ns,
 * or all when ns is NULL/""), by listing then watching (with bookmarks,
 * relisting on 410 and backing off on errors) on a thread of its own.
 */
SLINKY_API slinky_status slinky_kube_informer_new(slinky_kube_informer **out,
                                                  slinky_kube_client *c,
                                                  const slinky_kube_resource *r, const char *ns,
                                                  const slinky_kube_informer_options *opts);
/** Add handlers (before start only). handlers is copied; SLINKY_EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_kube_informer_add_handlers(
    slinky_kube_informer *inf, const slinky_kube_informer_handlers *handlers);
/** Start the informer thread. */
SLINKY_API slinky_status slinky_kube_informer_start(slinky_kube_informer *inf);
/** True once the first list has been stored in the cache. */
SLINKY_API bool slinky_kube_informer_has_synced(slinky_kube_informer *inf);
/** Wait until synced: 0, or SLINKY_ETIMEOUT after timeout_ms (< 0: forever). */
SLINKY_API slinky_status slinky_kube_informer_wait_synced(slinky_kube_informer *inf,
                                                          long timeout_ms);
/** Stop and join the thread (safe to call twice; free calls it). */
SLINKY_API void slinky_kube_informer_stop(slinky_kube_informer *inf);
SLINKY_API void slinky_kube_informer_free(slinky_kube_informer *inf);

/** A copy of the cached object ns/name (ns "" for cluster-scoped). ENOTFOUND if absent. */
SLINKY_API slinky_status slinky_kube_informer_get(slinky_doc **out, slinky_kube_informer *inf,
                                                  const char *ns, const char *name);
/**
 * A copy of the cached objects as one document whose root is an array sorted
 * by namespace/name. ns (NULL: all) and label_selector (NULL: all) filter;
 * an equality selector term uses the label index, else a namespace uses
 * the namespace index.
 */
SLINKY_API slinky_status slinky_kube_informer_list(slinky_doc **out, slinky_kube_informer *inf,
                                                   const char *ns, const char *label_selector);
/** Number of cached objects. */
SLINKY_API size_t slinky_kube_informer_size(slinky_kube_informer *inf);
/** resourceVersion the cache reflects (copy, release with slinky_free()). */
SLINKY_API slinky_status slinky_kube_informer_resource_version(char **out,
                                                               slinky_kube_informer *inf);
/** How many times the informer listed (1 after the first sync). */
SLINKY_API unsigned slinky_kube_informer_list_count(slinky_kube_informer *inf);

/**
 * The key of an object: "namespace/name", or "name" when it has no
 * namespace. *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_kube_object_key(char **out, const slinky_doc_value *obj);

/* ================================================================== */
/* Work queue                                                         */
/* ================================================================== */

#define SLINKY_KUBE_WORKQUEUE_OPTIONS_VERSION 1
typedef struct slinky_kube_workqueue_options {
    unsigned int version;
    long base_delay_ms; /**< per-item backoff start (default 5) */
    long max_delay_ms;  /**< per-item backoff ceiling (default 1000000) */
    double qps;         /**< overall token bucket rate (default 10; < 0 disables) */
    int burst;          /**< bucket size (default 100) */
} slinky_kube_workqueue_options;
#define SLINKY_KUBE_WORKQUEUE_OPTIONS_INIT {SLINKY_KUBE_WORKQUEUE_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_workqueue_options_init(slinky_kube_workqueue_options *opts,
                                                            unsigned int version);

/**
 * A work queue of string keys: a key waiting in the queue is held once
 * (dedupe); a key being processed (between get and done) is never handed to
 * a second worker: re-adding it marks it dirty and it is queued again at
 * done. Thread safe.
 */
SLINKY_API slinky_status slinky_kube_workqueue_new(slinky_kube_workqueue **out,
                                                   const slinky_kube_workqueue_options *opts);
/** Free (after shutdown and after every worker is gone). NULL ignored. */
SLINKY_API void slinky_kube_workqueue_free(slinky_kube_workqueue *q);
/** Add a key now. Ignored after shutdown. */
SLINKY_API slinky_status slinky_kube_workqueue_add(slinky_kube_workqueue *q, const char *key);
/** Add a key after delay_ms (<= 0: now). A sooner pending add wins. */
SLINKY_API slinky_status slinky_kube_workqueue_add_after(slinky_kube_workqueue *q,
                                                         const char *key, long delay_ms);
/**
 * Add after the rate limiters allow: the larger of the item's exponential
 * backoff (base * 2^failures, capped) and the token bucket's delay. Each
 * call counts as one more failure of the key.
 */
SLINKY_API slinky_status slinky_kube_workqueue_add_rate_limited(slinky_kube_workqueue *q,
                                                                const char *key);
/** Reset the key's failure count. */
SLINKY_API void slinky_kube_workqueue_forget(slinky_kube_workqueue *q, const char *key);
/** The key's failure count. */
SLINKY_API int slinky_kube_workqueue_num_requeues(slinky_kube_workqueue *q, const char *key);
/**
 * Take the next key (waits up to timeout_ms; < 0 forever). *key_out is
 * released with slinky_free() and must be passed to _done.
 * SLINKY_ETIMEOUT, or SLINKY_ECANCELED after shutdown.
 */
SLINKY_API slinky_status slinky_kube_workqueue_get(char **key_out, slinky_kube_workqueue *q,
                                                   long timeout_ms);
/** Mark a key as processed. */
SLINKY_API void slinky_kube_workqueue_done(slinky_kube_workqueue *q, const char *key);
/** Keys ready to be taken now. */
SLINKY_API size_t slinky_kube_workqueue_len(slinky_kube_workqueue *q);
/** Stop: waiting and later gets return SLINKY_ECANCELED. */
SLINKY_API void slinky_kube_workqueue_shutdown(slinky_kube_workqueue *q);
SLINKY_API bool slinky_kube_workqueue_is_shutdown(slinky_kube_workqueue *q);

/* ================================================================== */
/* Controller                                                         */
/* ================================================================== */

typedef enum slinky_kube_result {
    SLINKY_KUBE_RESULT_DONE = 0,          /**< forget the key */
    SLINKY_KUBE_RESULT_REQUEUE = 1,       /**< add again, rate limited */
    SLINKY_KUBE_RESULT_REQUEUE_AFTER = 2, /**< add again after *requeue_after_ms */
    SLINKY_KUBE_RESULT_ERROR = 3          /**< failed: add again, rate limited (logged) */
} slinky_kube_result;

/** Reconcile one key; runs on a worker thread. */
typedef slinky_kube_result (*slinky_kube_reconcile_cb)(long *requeue_after_ms, const char *key,
                                                       void *payload);

/**
 * Run `workers` threads that take keys from q and call reconcile. q stays
 * owned by the caller (feed it from informer handlers).
 */
SLINKY_API slinky_status slinky_kube_controller_new(slinky_kube_controller **out,
                                                    slinky_kube_workqueue *q, int workers,
                                                    slinky_kube_reconcile_cb reconcile,
                                                    void *payload);
/** Start the worker threads. */
SLINKY_API slinky_status slinky_kube_controller_start(slinky_kube_controller *ctl);
/** Shut the queue down and join the workers (a running reconcile finishes). */
SLINKY_API void slinky_kube_controller_stop(slinky_kube_controller *ctl);
SLINKY_API void slinky_kube_controller_free(slinky_kube_controller *ctl);

/* ================================================================== */
/* Leader election (coordination.k8s.io/v1 Lease)                     */
/* ================================================================== */

#define SLINKY_KUBE_LEADER_OPTIONS_VERSION 1
typedef struct slinky_kube_leader_options {
    unsigned int version;
    const char *lease_namespace; /**< required */
    const char *lease_name;      /**< required */
    const char *identity;        /**< required, unique per candidate */
    long lease_duration_ms;      /**< default 15000 */
    long renew_deadline_ms;      /**< default 10000 */
    long retry_period_ms;        /**< default 2000 */
    /** Called on the elector's thread when leadership is gained / lost. */
    void (*on_started_leading)(void *payload);
    void (*on_stopped_leading)(void *payload);
    void *payload;
    /** Release the lease (empty holder) on stop (default false). */
    bool release_on_stop;
} slinky_kube_leader_options;
#define SLINKY_KUBE_LEADER_OPTIONS_INIT {SLINKY_KUBE_LEADER_OPTIONS_VERSION}
SLINKY_API slinky_status slinky_kube_leader_options_init(slinky_kube_leader_options *opts,
                                                         unsigned int version);

/** Create an elector (strings copied). Starts campaigning on start. */
SLINKY_API slinky_status slinky_kube_leader_new(slinky_kube_leader **out, slinky_kube_client *c,
                                                const slinky_kube_leader_options *opts);
SLINKY_API slinky_status slinky_kube_leader_start(slinky_kube_leader *le);
/** True while this candidate holds a renewed lease. Any thread. */
SLINKY_API bool slinky_kube_leader_is_leader(slinky_kube_leader *le);
/** Stop campaigning (releases the lease if asked) and join the thread. */
SLINKY_API void slinky_kube_leader_stop(slinky_kube_leader *le);
SLINKY_API void slinky_kube_leader_free(slinky_kube_leader *le);

SLINKY_END_DECLS

#endif
