/*
 * Layer 2: the server's data. Stored objects (as_obj, obj.c), resource types
 * and their versions (as_rtype, filled by registry.c), events of the watch
 * history and the server state (as_server) that the layers above share.
 *
 * Threads: every request runs on its own libmicrohttpd thread. All store and
 * registry state is guarded by one mutex (as_server.lock); watches wait on
 * as_server.cond. Stored objects are immutable and reference counted, so a
 * reader may keep one after dropping the lock.
 */
#ifndef SLINKY_APISERVER_TYPES_H
#define SLINKY_APISERVER_TYPES_H

#include <pthread.h>
#include <stdatomic.h>

#include "base.h"

typedef struct as_obj {
    atomic_int refs;
    char *ns; /* "" for cluster-scoped */
    char *name;
    char *uid;
    char *json; /* compact JSON of the whole object */
    size_t json_len;
    uint64_t rv;
    slinky_doc *labels; /* root: object of labels (may be empty) */
} as_obj;

as_obj *as_obj_ref(as_obj *o);
void as_obj_unref(as_obj *o);
/** Build a stored object from a document (serializes it). */
int as_obj_new(as_obj **out, const slinky_doc_value *doc, uint64_t rv);
/** Parse the stored JSON into a new document. */
int as_obj_doc(slinky_doc **out, const as_obj *o);

typedef struct as_version {
    char *name;
    bool served, storage;
    bool has_status, has_scale;
    char *scale_spec, *scale_status, *scale_selector; /* ".spec.replicas" */
    slinky_doc *schema;  /* openAPIV3Schema (root) or NULL */
    slinky_doc *columns; /* additionalPrinterColumns (root array) or NULL */
} as_version;

typedef struct as_rtype {
    char *group; /* "" for core */
    char *plural, *singular, *kind, *list_kind;
    char **short_names;
    size_t n_short;
    char **categories;
    size_t n_categories;
    bool namespaced;
    bool builtin;
    bool removed; /* CRD deleted: no longer served */
    bool crd_sets_generation;
    as_version *versions;
    size_t n_versions;
    /* storage: sorted by (ns, name) */
    as_obj **items;
    size_t n_items, cap_items;
    size_t bytes; /* JSON bytes of the items (the live data, for WAL compaction) */
    struct as_rtype *next;
} as_rtype;

enum as_event_type { AS_EV_ADDED = 1, AS_EV_MODIFIED, AS_EV_DELETED };

typedef struct as_event {
    uint64_t rv;
    int type;
    as_rtype *rt;
    as_obj *obj;  /* new state (for DELETED: last state, rv = deletion rv) */
    as_obj *prev; /* state before, or NULL */
} as_event;

typedef struct as_fault as_fault;

/* a token minted by serviceaccounts/NAME/token (tokens.c) */
typedef struct as_sa_token {
    char *token;
    char *ns, *name, *uid; /* the ServiceAccount it stands for */
    long long expires;     /* CLOCK_REALTIME seconds */
} as_sa_token;

typedef struct as_server {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint64_t rv;       /* last assigned resourceVersion */
    uint64_t start_rv; /* history holds events with rv > start_rv only */
    as_event *history;
    size_t history_cap;
    as_rtype *types;
    char **tokens;
    size_t n_tokens;
    char *admin_token;
    bool insecure;
    bool shutting_down;
    int port;
    unsigned bookmark_interval_ms;
    char *ca_pem;
    /* fault injection (fault.c) */
    pthread_mutex_t fault_lock;
    as_fault *faults;
    bool faults_enabled;
    bool log_requests; /* --log-requests: one stderr line per request */
    /* persistence (wal.c, server.c) */
    char *data_dir;
    int wal_fd;
    size_t wal_bytes;     /* bytes in the log since the last snapshot */
    size_t compact_bytes; /* compact once the log is this big and bigger than the live data */
    bool wal_broken;      /* a failed append could not be cut off: writes fail */
    unsigned long compactions;
    bool rbac; /* --authorization-mode=RBAC: ServiceAccount tokens get what their bindings allow */
    bool replaying;
    atomic_ulong requests;
    /* hostile clients (http.c): limits per request and per client */
    size_t max_body;          /* bytes of a request body (413 beyond), also the object limit */
    unsigned read_timeout_s;  /* a connection idle this long is dropped (watches: never) */
    unsigned max_per_client;  /* requests in flight per token (429 beyond) */
    unsigned *inflight;       /* per token index, guarded by client_lock */
    /* ServiceAccount tokens: client index n_tokens + i; guarded by client_lock */
    as_sa_token *sa_tokens;
    unsigned *sa_inflight;
    size_t n_sa_tokens, cap_sa_tokens;
    pthread_mutex_t client_lock;
    unsigned long reg_gen; /* bumped on every CRD change (OpenAPI hashes) */
} as_server;

#endif
