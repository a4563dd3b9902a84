/*
 * Layer 7: one request and its response, independent of libmicrohttpd.
 * Status objects (respond.c), request bodies and query parameters, metadata
 * helpers, list/watch filters (filter.c) and the context of a resource
 * request in flight (hctx) that the layers above pass along.
 *
 * Ownership: an as_resp owns its body, headers and item references until
 * http.c sends it. Threads: one request per thread; hctx is used with
 * as_server.lock held.
 */
#ifndef SLINKY_APISERVER_REQUEST_H
#define SLINKY_APISERVER_REQUEST_H

#include "registry.h"

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
    /* the ServiceAccount whose token authenticated the request, or NULL/NULL */
    const char *sa_ns, *sa_name;
} as_req;

typedef struct as_resp {
    int status;
    const char *content_type; /* static string */
    as_buf body;
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

/** One resource request in flight (lock held while it is used). */
typedef struct hctx {
    as_server *s;
    as_rtype *rt;
    as_version *ver;
    const as_route *route;
    const char *ns; /* "" for cluster-scoped kinds */
    const as_req *req;
    as_resp *resp;
    bool body_dry_run; /* DeleteOptions.dryRun */
    bool managed_done; /* server-side apply already wrote managedFields */
    bool mirroring;    /* events.c is writing the other group's copy of an Event */
} hctx;

/* ---- query and body --------------------------------------------------- */

const char *as_req_query(const as_req *r, const char *key);
/** A Go-style boolean query parameter ("" counts as true). */
bool as_query_bool(const as_req *req, const char *key);
/**
 * JSON, YAML or protobuf body into a document; 400/415 in resp when it
 * fails, 413 when YAML aliases would expand it beyond `max_body` bytes.
 */
int as_parse_body(slinky_doc **out, const as_req *req, as_resp *resp, size_t max_body);

/* ---- responses (respond.c) ------------------------------------------- */

int as_resp_status(as_resp *resp, int code, const char *reason, const char *message,
                   const char *details_json);
int as_resp_json(as_resp *resp, int code, const char *json, size_t len);
int as_resp_doc(as_resp *resp, int code, const slinky_doc_value *v);
int as_resp_error(as_resp *resp, const as_rtype *rt, int code, const char *reason,
                  const char *name, const char *fmt, ...) SLINKY_PRINTF(6, 7);
int as_resp_not_found(as_resp *resp, const as_rtype *rt, const char *name);
int as_resp_conflict(as_resp *resp, const as_rtype *rt, const char *name, const char *why);
int as_resp_invalid(as_resp *resp, const as_rtype *rt, const char *name, const as_causes *c);
/** Bytes of a streamed list body (envelope, items, separators, closing). */
size_t as_resp_list_size(const as_resp *resp);
/** Append a streamed list's items and closing to body (no longer streamed). */
int as_resp_list_flatten(as_resp *resp);
/** Drop a streamed list's item references (safe when there are none). */
void as_resp_items_release(as_resp *resp);
extern const char *const as_k_modified;
/** "plural.group" / "Kind.group" as error messages name a resource. */
void as_qualified(char *buf, size_t len, const as_rtype *rt);
void as_kind_qualified(char *buf, size_t len, const as_rtype *rt);

/* ---- metadata ----------------------------------------------------------- */

/** The object's metadata (created when missing); NULL when out of memory. */
slinky_doc_value *as_md_of(slinky_doc_value *root);
void as_set_rv(slinky_doc_value *root, uint64_t rv);
uint64_t as_parse_rv(const char *s, bool *ok);

/* ---- list/watch filters (filter.c) --------------------------------------- */

typedef struct as_filter {
    const char *ns; /* NULL = all */
    as_selector labels;
    as_selector fields;
    bool has_fields;
} as_filter;
int as_filter_init(as_filter *f, const as_req *req, const char *ns, as_resp *resp);
void as_filter_dispose(as_filter *f);
/** Does an object pass the list/watch filters? */
bool as_filter_match(const as_filter *f, const as_obj *o);

#endif
