/*
 * slinky-apiserver internals: one header for the tool's translation units.
 *
 * Layers (one file each): tls.c (certificates), http.c (libmicrohttpd glue,
 * auth, streaming), route.c (URL -> resource), registry.c (resource types,
 * CRDs, discovery, OpenAPI), store.c (objects, resourceVersion, history,
 * watch), handlers.c (the verbs), selector.c and schema.c (pure helpers,
 * unit tested), patch.c (strategic merge), fault.c (fault injection),
 * wal.c (persistence), table.c (Table output).
 *
 * Threads: every request runs on its own libmicrohttpd thread. All store and
 * registry state is guarded by one mutex (as_server.lock); watches wait on
 * as_server.cond. Stored objects (as_obj) are immutable and reference counted,
 * so a reader may keep one after dropping the lock.
 */
#ifndef SLINKY_APISERVER_H
#define SLINKY_APISERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>

#include <slinky/doc.h>

#include "core/internal.h"

/* ------------------------------------------------------------------ */
/* selector.c: label/field selectors, Go-style booleans (pure)         */
/* ------------------------------------------------------------------ */

typedef enum as_sel_op {
    AS_SEL_EQ,     /* key=v, key==v */
    AS_SEL_NE,     /* key!=v */
    AS_SEL_IN,     /* key in (a,b) */
    AS_SEL_NOTIN,  /* key notin (a,b) */
    AS_SEL_EXISTS, /* key */
    AS_SEL_NOT_EXISTS /* !key */
} as_sel_op;

typedef struct as_sel_req {
    char *key;
    as_sel_op op;
    char **values;
    size_t n_values;
} as_sel_req;

typedef struct as_selector {
    as_sel_req *reqs;
    size_t n;
} as_selector;

/** Parse a label selector ("a=b,c in (x,y),!d"). Empty/NULL matches all. */
int as_selector_parse_labels(as_selector *out, const char *text);
/** Parse a field selector (=, ==, != only). */
int as_selector_parse_fields(as_selector *out, const char *text);
void as_selector_dispose(as_selector *sel);
/** Lookup callback: the value for key, or NULL when absent. */
typedef const char *(*as_sel_lookup)(const char *key, void *payload);
bool as_selector_matches(const as_selector *sel, as_sel_lookup lookup, void *payload);
/** Match against an object of string values (metadata.labels); NULL = none. */
bool as_selector_matches_labels(const as_selector *sel, const slinky_doc_value *labels);
/** Go strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False. */
int as_parse_bool(bool *out, const char *text);
/** Label key/value syntax check (qualified name / label value); NULL when fine. */
const char *as_check_label_key(const char *key);
const char *as_check_label_value(const char *value);
/** DNS-1123 subdomain name check; NULL when valid, else the reason. */
const char *as_check_dns_subdomain(const char *name);
const char *as_check_dns_label(const char *name);

/* ------------------------------------------------------------------ */
/* schema.c: openAPIV3Schema prune / default / validate (pure)         */
/* ------------------------------------------------------------------ */

typedef struct as_cause {
    char *reason; /* FieldValueRequired, FieldValueNotSupported, ... */
    char *field;  /* spec.scalingMode */
    char *message;
} as_cause;

typedef struct as_causes {
    as_cause *items;
    size_t n, cap;
} as_causes;

int as_causes_add(as_causes *c, const char *reason, const char *field, const char *fmt, ...)
    SLINKY_PRINTF(4, 5);
void as_causes_dispose(as_causes *c);

/**
 * Remove fields the schema does not know (root apiVersion/kind/metadata kept)
 * and nulls of non-nullable fields. Each removed unknown field is recorded in
 * `unknown` (may be NULL) with its path (for fieldValidation=Strict/Warn).
 */
void as_schema_prune(slinky_doc_value *obj, const slinky_doc_value *schema, bool root,
                     as_causes *unknown, const char *path);
/** Fill in `default:` values (after pruning). */
int as_schema_default(slinky_doc_value *obj, const slinky_doc_value *schema);
/** Validate; appends one cause per bad field. Returns 0 (causes may be empty). */
int as_schema_validate(as_causes *causes, const slinky_doc_value *obj,
                       const slinky_doc_value *schema, const char *path);

/* ------------------------------------------------------------------ */
/* objects and resource types                                         */
/* ------------------------------------------------------------------ */

typedef struct as_obj {
    atomic_int refs;
    char *ns;   /* "" for cluster-scoped */
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
    struct as_rtype *next;
} as_rtype;

/* ------------------------------------------------------------------ */
/* server state                                                       */
/* ------------------------------------------------------------------ */

enum as_event_type { AS_EV_ADDED = 1, AS_EV_MODIFIED, AS_EV_DELETED };

typedef struct as_event {
    uint64_t rv;
    int type;
    as_rtype *rt;
    as_obj *obj;  /* new state (for DELETED: last state, rv = deletion rv) */
    as_obj *prev; /* state before, or NULL */
} as_event;

typedef struct as_fault as_fault;

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
    /* persistence (wal.c) */
    char *data_dir;
    int wal_fd;
    bool replaying;
    atomic_ulong requests;
    unsigned long reg_gen; /* bumped on every CRD change (OpenAPI hashes) */
} as_server;

/* ------------------------------------------------------------------ */
/* requests and responses (independent of libmicrohttpd)              */
/* ------------------------------------------------------------------ */

typedef struct as_kv {
    char *key;
    char *value;
} as_kv;

typedef struct as_watch as_watch;

typedef struct as_req {
    const char *method;
    const char *path;
    as_kv *query;
    size_t n_query;
    const char *content_type;
    const char *accept;
    const char *user_agent;
    const char *body;
    size_t body_len;
} as_req;

typedef struct as_resp {
    int status;
    const char *content_type; /* static string */
    slinky__buf body;
    char *retry_after; /* Retry-After header value or NULL */
    char *warning;     /* Warning header value or NULL */
    as_watch *watch;   /* when set: stream this watch instead of body */
    /*
     * A JSON list streamed without building it: when `list` is set the body
     * is `body` (the envelope up to "items":[) + the stored JSON of items[]
     * joined by ',' + "]}". items hold references (as_resp_items_release).
     */
    bool list;
    as_obj **items;
    size_t n_items;
    const as_fault *fault; /* body-level fault (tiny chunks / drop) */
    unsigned fault_chunk;
    bool fault_drop;
    unsigned fault_close_after; /* watch: close after N events (0 = no) */
    bool fault_410;             /* watch: send a 410 ERROR event first */
} as_resp;

const char *as_req_query(const as_req *r, const char *key);

/* Status responses (handlers.c) */
int as_resp_status(as_resp *resp, int code, const char *reason, const char *message,
                   const char *details_json);
int as_resp_json(as_resp *resp, int code, const char *json, size_t len);
int as_resp_doc(as_resp *resp, int code, const slinky_doc_value *v);
/** Bytes of a streamed list body (envelope, items, separators, closing). */
size_t as_resp_list_size(const as_resp *resp);
/** Append a streamed list's items and closing to body (no longer streamed). */
int as_resp_list_flatten(as_resp *resp);
/** Drop a streamed list's item references (safe when there are none). */
void as_resp_items_release(as_resp *resp);
/** Base64 (standard with padding, or URL-safe without); malloc'd. */
char *as_base64(const void *data, size_t len, bool url);
/** Append a JSON string literal (quoted, escaped). */
void as_json_str(slinky__buf *b, const char *s);

/* ------------------------------------------------------------------ */
/* routing (route.c)                                                  */
/* ------------------------------------------------------------------ */

typedef struct as_route {
    const char *group; /* "" core */
    const char *version;
    const char *ns;   /* NULL when not in the path */
    const char *resource;
    const char *name; /* NULL for collections */
    const char *sub;  /* status / scale / NULL */
    char *storage;    /* owns the strings above */
} as_route;

enum as_route_kind {
    AS_ROUTE_NONE = 0,
    AS_ROUTE_RESOURCE,
    AS_ROUTE_API,        /* /api */
    AS_ROUTE_API_V1,     /* /api/v1 */
    AS_ROUTE_APIS,       /* /apis */
    AS_ROUTE_APIS_GROUP, /* /apis/g */
    AS_ROUTE_APIS_GV     /* /apis/g/v */
};

int as_route_parse(as_route *out, const char *path);
void as_route_dispose(as_route *r);

/* ------------------------------------------------------------------ */
/* registry.c                                                         */
/* ------------------------------------------------------------------ */

int as_registry_init(as_server *s);
/** Find a served resource type by group/version/plural (lock held). */
as_rtype *as_registry_find(as_server *s, const char *group, const char *version,
                           const char *plural, as_version **ver_out);
as_rtype *as_registry_find_gr(as_server *s, const char *group, const char *plural);
/** (Re)register the types a CRD object describes (lock held). */
int as_registry_apply_crd(as_server *s, const slinky_doc_value *crd);
/** Check a CRD object before it is stored (names, versions, schema). */
int as_registry_check_crd(as_causes *causes, const slinky_doc_value *crd);
void as_registry_remove_crd(as_server *s, const slinky_doc_value *crd);
/** <0 when version a is preferred to b (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others). */
int as_version_priority_cmp(const char *a, const char *b);
/** Discovery documents; aggregated (apidiscovery v2/v2beta1) when `accept` asks for it. */
int as_discovery(as_server *s, as_resp *resp, int kind, const char *group,
                 const char *version, const char *accept);
int as_openapi(as_server *s, as_resp *resp, const char *path);
void as_registry_free(as_server *s);

/* ------------------------------------------------------------------ */
/* store.c                                                            */
/* ------------------------------------------------------------------ */

int as_server_init(as_server *s, size_t history_cap);
void as_server_dispose(as_server *s);
/** Index of (ns,name) in rt->items, or -(insert position)-1. */
long as_store_find(const as_rtype *rt, const char *ns, const char *name);
as_obj *as_store_get(const as_rtype *rt, const char *ns, const char *name);
/** Put/replace/remove (obj NULL) and record an event (lock held). */
int as_store_commit(as_server *s, as_rtype *rt, int type, as_obj *obj, as_obj *prev);
/** Put (takes the reference) or remove an object without event or log (loading). */
void as_store_load(as_rtype *rt, int type, as_obj *obj);
/** Oldest resourceVersion a watch may resume from (lock held). */
uint64_t as_store_oldest_rv(const as_server *s);
/** Event with this rv, or NULL if out of the window (lock held). */
const as_event *as_store_event(const as_server *s, uint64_t rv);
void as_now_rfc3339(char *buf, size_t len);
void as_new_uid(char *buf /* 37 bytes */);

/* ------------------------------------------------------------------ */
/* handlers.c and watch.c                                             */
/* ------------------------------------------------------------------ */

int as_handle(as_server *s, const as_req *req, as_resp *resp);
/** Watch stream: fill buf with up to max bytes; 0 = keep waiting, -1 = end. */
long as_watch_read(as_watch *w, char *buf, size_t max);
void as_watch_free(as_watch *w);
/** The connection's socket, polled to notice a client that went away. */
void as_watch_set_fd(as_watch *w, int fd);
/** Fault injection: end after N events; start with a 410 ERROR event. */
void as_watch_fault(as_watch *w, unsigned close_after, bool send_410);
int as_watch_start(as_server *s, const as_req *req, as_resp *resp, as_rtype *rt,
                   const as_route *route);
/** Does an object pass the list/watch filters? */
typedef struct as_filter {
    const char *ns; /* NULL = all */
    as_selector labels;
    as_selector fields;
    bool has_fields;
} as_filter;
int as_filter_init(as_filter *f, const as_req *req, const char *ns, as_resp *resp);
void as_filter_dispose(as_filter *f);
bool as_filter_match(const as_filter *f, const as_obj *o);

/* table.c */
/** kube-apiserver's HumanDuration ("45s", "5m3s", "3h", "2d4h", "1y10d"). */
void as_human_duration(char *buf, size_t len, long long secs);
/** Minimal JSONPath (".a.b", "[0]", "[*]", "[?(@.k==\"v\")]"); NULL when missing. */
const slinky_doc_value *as_jsonpath(const slinky_doc_value *v, const char *path);
bool as_wants_table(const as_req *req);
int as_table_render(slinky__buf *out, as_server *s, as_rtype *rt, const char *version,
                    as_obj **items, size_t n, const char *list_meta_json);

/* patch.c: strategic merge patch for built-in kinds */
int as_strategic_merge(slinky_doc_value *target, const slinky_doc_value *patch);

/* fault.c */
int as_fault_admin(as_server *s, const as_req *req, as_resp *resp);
/** Apply a scheduled fault to this request; true when the response is final. */
bool as_fault_check(as_server *s, const as_req *req, as_resp *resp, unsigned *delay_ms);
void as_fault_free_all(as_server *s);

/* proto.c: protobuf bodies of Namespace/ConfigMap/Secret/ServiceAccount -> JSON doc */
int as_proto_decode(slinky_doc **out, const char *data, size_t len);

/* wal.c */
int as_wal_open(as_server *s, const char *dir);
int as_wal_append(as_server *s, int type, const as_rtype *rt, const as_obj *obj);
void as_wal_close(as_server *s);

#endif
