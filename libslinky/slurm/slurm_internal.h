/* slurm module internals (never installed). */
#ifndef SLINKY_SLURM_INTERNAL_H
#define SLINKY_SLURM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"
#include "slinky/doc.h"
#include "slinky/slurm.h"

/* --- JWT source (token.c) --------------------------------------------- */

typedef struct slinky_slurm__token {
    pthread_mutex_t lock;
    char *fixed;      /* fixed token */
    char *file;       /* token file path */
    dev_t dev;        /* identity of the last read of `file` */
    ino_t ino;
    off_t size;
    int64_t mtime_ns;
    char *cached;     /* token from the file or the signer */
    slinky_slurm_sign_fn sign;
    void *sign_payload;
    slinky_slurm_clock_fn clock;
    void *clock_payload;
    int64_t signed_at; /* clock time of the last signing */
    int64_t expires;   /* expiry of `cached` from the signer */
} slinky_slurm__token;

SLINKY_HIDDEN int slinky_slurm__token_init(slinky_slurm__token *t, const slinky_slurm_client_options *o);
SLINKY_HIDDEN void slinky_slurm__token_dispose(slinky_slurm__token *t);
/** The current token (malloc'd copy, wipe and free it). Re-reads / re-signs when due. */
SLINKY_HIDDEN int slinky_slurm__token_get(char **out, slinky_slurm__token *t);

/* --- client (client.c) -------------------------------------------------- */

struct slinky_slurm_client {
    char *base;       /* URL without trailing '/' */
    char *user;
    char *user_agent;
    char *ca_file;
    bool insecure;
    long timeout_ms;
    long connect_timeout_ms;
    slinky_slurm__token token;

    void *share; /* CURLSH */
    pthread_mutex_t share_locks[8];
    pthread_mutex_t pool_lock;
    void **pool;
    size_t npool, pool_cap;

    pthread_mutex_t neg_lock;
    bool negotiated;
    char *forced_version;
    char version[16]; /* "v0.0.42" once negotiated */
    char **ops;       /* "METHOD template" offered for `version` (template relative, no '/' at either end) */
    size_t nops;
    char release[32]; /* "24.11.5" once a reply named it */
};

typedef struct slinky_slurm__reply {
    slinky_doc *doc; /* parsed body, never NULL on success */
    int status;      /* HTTP status */
} slinky_slurm__reply;

/**
 * Send METHOD to `path` (absolute, starting with '/') with an optional JSON
 * body; on success *out holds the parsed reply whose errors[] is empty.
 * Failures are mapped as slurm.h says.
 */
SLINKY_HIDDEN int slinky_slurm__send(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method,
                                     const char *path, const char *body);

/* A decoder fed with a 200 answer while it arrives; when done() says the answer is
   complete and error free, the reply has doc NULL and the caller takes the decoder's
   result; otherwise the buffered body goes the ordinary way. */
typedef struct slinky_slurm__sink {
    int (*feed)(void *payload, const char *data, size_t len);
    bool (*done)(void *payload);
    void *payload;
} slinky_slurm__sink;
SLINKY_HIDDEN int slinky_slurm__send_sink(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method,
                                          const char *path, const char *body, const slinky_slurm__sink *sink);
SLINKY_HIDDEN int slinky_slurm__call_sink(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method,
                                          const char *tmpl, const char *rel, const char *body,
                                          const slinky_slurm__sink *sink);

/* --- streamed node list (nodes_stream.c) ------------------------------- */

typedef struct slinky_slurm__nstream slinky_slurm__nstream;
SLINKY_HIDDEN int slinky_slurm__nstream_new(slinky_slurm__nstream **out);
SLINKY_HIDDEN void slinky_slurm__nstream_free(slinky_slurm__nstream *s);
SLINKY_HIDDEN int slinky_slurm__nstream_feed(void *s, const char *data, size_t len);
/** True when the whole answer was read, well formed, with an empty errors[]. */
SLINKY_HIDDEN bool slinky_slurm__nstream_usable(void *s);
/**
 * Negotiated call: checks that the server offers METHOD on `tmpl` (e.g.
 * "node/{node_name}"), then sends to /slurm/<version>/<rel>.
 */
SLINKY_HIDDEN int slinky_slurm__call(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method,
                                     const char *tmpl, const char *rel, const char *body);
SLINKY_HIDDEN int slinky_slurm__negotiate(slinky_slurm_client *c);
/** Map Slurm's errors[] (or an HTTP status) to a recorded error; 0 when there is none. */
SLINKY_HIDDEN int slinky_slurm__map_errors(const slinky_doc_value *root, int http_status, const char *method,
                                           const char *path);

/* --- decoding (decode.c) ------------------------------------------------ */

/* A result list: items of `isize` bytes, the reply kept alive for its strings,
   and extra strings made while decoding. */
typedef struct slinky_slurm__list {
    void *items;
    size_t count;
    slinky_doc *doc;
    char **strs;
    size_t nstrs, strs_cap;
    int64_t update_time;
    bool changed;
    char release[32];
} slinky_slurm__list;

SLINKY_HIDDEN void slinky_slurm__list_dispose(slinky_slurm__list *l);
/** A string member ("" when absent or not a string). */
SLINKY_HIDDEN const char *slinky_slurm__str(const slinky_doc_value *o, const char *key);
/** A number member: plain number, or {set, infinite, number}; 0 unset, INT64_MAX infinite. */
SLINKY_HIDDEN int64_t slinky_slurm__num(const slinky_doc_value *o, const char *key);
/** A string, or an array of strings joined with `sep` (kept in l); NULL on ENOMEM. */
SLINKY_HIDDEN const char *slinky_slurm__joined(slinky_slurm__list *l, const slinky_doc_value *o,
                                               const char *key, const char *sep);

/** Keep a malloc'd string in l (freed with it); NULL (s freed) on ENOMEM. */
SLINKY_HIDDEN char *slinky_slurm__keep(slinky_slurm__list *l, char *s);
/** o[key] = "a,b" split into ["a","b"]. */
SLINKY_HIDDEN int slinky_slurm__put_csv(slinky_doc_value *o, const char *key, const char *csv);
/** "prefix/<name URL-escaped>" (malloc'd), NULL (ENOMEM set) on failure. */
SLINKY_HIDDEN char *slinky_slurm__rel(const char *prefix, const char *name);

/** Move the decoded nodes into l (items, count, update_time, the string arena). */
SLINKY_HIDDEN int slinky_slurm__nstream_take(slinky_slurm__list *l, slinky_slurm__nstream *s);

/** Typed nodes from a parsed reply (takes r->doc) or from a finished stream (nodes.c). */
SLINKY_HIDDEN int slinky_slurm__nodes_from_reply(slinky_slurm_nodes **out, slinky_slurm__reply *r);
SLINKY_HIDDEN int slinky_slurm__nodes_from_stream(slinky_slurm_nodes **out, slinky_slurm__nstream *st);

/* --- state (state.c) ----------------------------------------------------- */

SLINKY_HIDDEN uint32_t slinky_slurm__state_word(const char *w, size_t n);
/** Recompute DRAINING / DRAINED from DRAIN and the busy bits. */
SLINKY_HIDDEN uint32_t slinky_slurm__state_derive(uint32_t s);

#endif
