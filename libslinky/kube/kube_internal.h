/* kube module internals (never installed). */
#ifndef SLINKY_KUBE_INTERNAL_H
#define SLINKY_KUBE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/internal.h"
#include "slinky/doc.h"
#include "slinky/kube.h"

/* --- options --------------------------------------------------------- */

/* Defines TYPE_init(opts, version): zero the struct and set the version. */
#define SLINKY_KUBE__OPTIONS_INIT_FN(TYPE, VERSION)                                            \
    slinky_status TYPE##_init(TYPE *opts, unsigned int version)                                \
    {                                                                                          \
        if (opts == NULL || version != (VERSION))                                              \
            return slinky__error_set(SLINKY_EINVALID, #TYPE ": unknown version %u", version);  \
        memset(opts, 0, sizeof(*opts));                                                        \
        opts->version = version;                                                               \
        return 0;                                                                              \
    }

/* --- small string map (chained hash) ---------------------------------- */

typedef struct slinky_kube__map_entry {
    char *key;
    void *value;
    struct slinky_kube__map_entry *next;
} slinky_kube__map_entry;

typedef struct slinky_kube__map {
    slinky_kube__map_entry **buckets;
    size_t nbuckets;
    size_t count;
} slinky_kube__map;

SLINKY_HIDDEN void *slinky_kube__map_get(const slinky_kube__map *m, const char *key);
/* Insert or replace; *old_out (may be NULL) receives the replaced value. */
SLINKY_HIDDEN int slinky_kube__map_put(slinky_kube__map *m, const char *key, void *value,
                                       void **old_out);
/* Remove; returns the value or NULL. */
SLINKY_HIDDEN void *slinky_kube__map_remove(slinky_kube__map *m, const char *key);
SLINKY_HIDDEN void slinky_kube__map_dispose(slinky_kube__map *m, void (*free_value)(void *));
/* Iterate: call cb for each entry (do not modify the map in cb). */
SLINKY_HIDDEN void slinky_kube__map_foreach(const slinky_kube__map *m,
                                            void (*cb)(const char *key, void *value, void *p),
                                            void *p);

/* --- time -------------------------------------------------------------- */

SLINKY_HIDDEN int64_t slinky_kube__now_ms(void);      /* CLOCK_MONOTONIC */
SLINKY_HIDDEN int64_t slinky_kube__wall_ms(void);     /* CLOCK_REALTIME */
SLINKY_HIDDEN void slinky_kube__sleep_ms(long ms);
/* RFC 3339 -> epoch seconds; -1 when malformed. */
SLINKY_HIDDEN int64_t slinky_kube__parse_rfc3339(const char *s);
/* epoch ms -> "2006-01-02T15:04:05.000000Z" (MicroTime). buf >= 32 bytes. */
SLINKY_HIDDEN void slinky_kube__format_microtime(char *buf, size_t n, int64_t wall_ms);
SLINKY_HIDDEN void slinky_kube__abstime(struct timespec *ts, long ms_from_now);
/* uniform random in [0, 1) */
SLINKY_HIDDEN double slinky_kube__rand01(void);

/* --- base64 ------------------------------------------------------------ */
SLINKY_HIDDEN int slinky_kube__base64_decode(char **out, size_t *len_out, const char *in,
                                             const char *what);

/* --- Status -> error --------------------------------------------------- */

/* Map an HTTP reply (body may be a Status) to a code and set both errors. */
SLINKY_HIDDEN int slinky_kube__status_error(int http_status, const char *body, size_t len,
                                            long retry_after);
/* Same, from an already parsed Status value (watch ERROR events). */
SLINKY_HIDDEN int slinky_kube__status_error_value(int http_status, const slinky_doc_value *st);
/* Code for a reason/HTTP status pair. */
SLINKY_HIDDEN int slinky_kube__code_for(const char *reason, int http_status);
/* Clear the kube status (for errors without an HTTP reply). */
SLINKY_HIDDEN void slinky_kube__status_clear(void);

/* --- config internals -------------------------------------------------- */

typedef struct slinky_kube__exec {
    char *command;
    char **args;    /* NULL terminated */
    char **env;     /* NULL terminated "NAME=value" */
    char *api_version;
    bool provide_cluster_info;
    char *install_hint;
} slinky_kube__exec;

typedef struct slinky_kube__creds {
    char *token;     /* bearer token or NULL */
    char *cert;      /* PEM (client certificate) or NULL */
    size_t cert_len;
    char *key;
    size_t key_len;
} slinky_kube__creds;

struct slinky_kube_config {
    int refs; /* guarded by lock */
    pthread_mutex_t lock;
    char *context, *cluster, *user, *ns;
    char *server;
    char *ca;            /* PEM bytes or NULL */
    size_t ca_len;
    bool insecure;
    char *tls_server_name;
    char *proxy_url;
    char *cert, *key;    /* static client cert/key PEM */
    size_t cert_len, key_len;
    char *token;
    char *token_file;
    bool in_cluster;
    slinky_kube__exec *exec;
    /* caches (lock) */
    char *file_token;
    struct timespec file_mtime;
    int64_t file_checked_ms;
    slinky_kube__creds exec_creds;
    int64_t exec_expiry; /* epoch seconds; 0 = none cached; INT64_MAX = no expiry */
};

SLINKY_HIDDEN void slinky_kube__config_ref(slinky_kube_config *cfg);
/* config.c: a new config (one reference); read a file, errors prefixed with `what` */
SLINKY_HIDDEN slinky_kube_config *slinky_kube__config_alloc(void);
SLINKY_HIDDEN int slinky_kube__read_file_or(char **out, size_t *len, const char *path,
                                            const char *what);
/* config_in_cluster.c: the pod's service account ($KUBERNETES_SERVICE_HOST/PORT) */
SLINKY_HIDDEN int slinky_kube__config_in_cluster(slinky_kube_config **out,
                                                 const slinky_kube_config_options *o);
/* Current credentials (copies). force_refresh drops the exec cache first. */
SLINKY_HIDDEN int slinky_kube__config_creds(slinky_kube__creds *out, slinky_kube_config *cfg,
                                            bool force_refresh);
SLINKY_HIDDEN void slinky_kube__creds_dispose(slinky_kube__creds *c);
/* Run an exec plugin and parse its ExecCredential. */
SLINKY_HIDDEN int slinky_kube__exec_run(slinky_kube__creds *out, int64_t *expiry_out,
                                        const slinky_kube__exec *ex, const char *server);
SLINKY_HIDDEN void slinky_kube__exec_free(slinky_kube__exec *ex);

/* --- transport --------------------------------------------------------- */

/* Body sink: called for a 2xx reply's body bytes (after headers). */
typedef int (*slinky_kube__sink_fn)(const char *data, size_t len, void *payload);

typedef struct slinky_kube__req {
    const char *method;
    const char *path;         /* with query */
    const char *content_type; /* request body type or NULL */
    const char *body;
    size_t body_len;
    slinky_kube__sink_fn sink; /* NULL: collect into resp_body */
    void *sink_payload;
    /* sink_reset: called before a retry that would re-deliver bytes; if
     * NULL or it fails, no retry after bytes were delivered */
    int (*sink_reset)(void *payload);
    bool idempotent;
    bool no_timeout;
} slinky_kube__req;

typedef struct slinky_kube__resp {
    int status;
    char *body; /* non-2xx always; 2xx when no sink */
    size_t body_len;
    long retry_after;
} slinky_kube__resp;

struct slinky_kube_client {
    slinky_kube_config *cfg;
    char *user_agent;
    long timeout_ms, connect_timeout_ms;
    int max_retries;
    long backoff_base_ms, backoff_max_ms;
    char *base_url;      /* scheme://host:port (tls-server-name applied) */
    char *connect_to;    /* for tls-server-name */
    void *share;         /* CURLSH */
    pthread_mutex_t share_locks[8];
    pthread_mutex_t pool_lock;
    void **pool;         /* idle CURL handles */
    size_t npool, pool_cap;
};

/* Perform a request with retries. On return resp is filled (caller disposes). */
SLINKY_HIDDEN int slinky_kube__do(slinky_kube__resp *resp, slinky_kube_client *c,
                                  const slinky_kube__req *req);
SLINKY_HIDDEN void slinky_kube__resp_dispose(slinky_kube__resp *r);
/* Configure a fresh/pooled handle with TLS, auth, UA. Returns the header list to free. */
SLINKY_HIDDEN int slinky_kube__setup_handle(void *curl, slinky_kube_client *c,
                                            const slinky_kube__creds *cr, void **headers_out,
                                            const char *content_type);
SLINKY_HIDDEN void *slinky_kube__handle_take(slinky_kube_client *c);
SLINKY_HIDDEN void slinky_kube__handle_give(slinky_kube_client *c, void *h);
SLINKY_HIDDEN long slinky_kube__backoff_ms(slinky_kube_client *c, int attempt);

/* Same as the public request but with a doc reply and Status mapping. */
SLINKY_HIDDEN int slinky_kube__call_doc(slinky_doc **out, slinky_kube_client *c,
                                        const char *method, const char *path,
                                        const char *content_type, const slinky_doc_value *body,
                                        bool idempotent);

/* --- query builder ----------------------------------------------------- */

SLINKY_HIDDEN int slinky_kube__buf_escape(slinky__buf *b, const char *s, bool path_segment);
/* Append "&name=escaped(value)" (or "?..." for the first). */
SLINKY_HIDDEN void slinky_kube__query_add(slinky__buf *b, bool *first, const char *name,
                                          const char *value);
SLINKY_HIDDEN void slinky_kube__query_add_long(slinky__buf *b, bool *first, const char *name,
                                               long value);

/* --- list ---------------------------------------------------------------- */

/* Stream one page: items to cb; fills rv/continue (malloc'd) */
SLINKY_HIDDEN int slinky_kube__list_page(char **rv_out, char **continue_out,
                                         slinky_kube_client *c, const slinky_kube_resource *r,
                                         const char *ns, const slinky_kube_list_options *o,
                                         const char *cont, slinky_kube_item_cb cb,
                                         void *payload, size_t *nitems_out);

/* --- informer test hook: close the current watch; it reopens from the
 * cache's resourceVersion without a relist. */
SLINKY_HIDDEN void slinky_kube__informer_kick(slinky_kube_informer *inf);

#endif
