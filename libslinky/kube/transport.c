/*
 * kube: HTTP transport on libcurl. One client holds a pool of easy handles
 * (each keeps its live connection) and a CURLSH sharing DNS and TLS sessions;
 * requests from several threads take a handle each. TLS material is passed
 * as in-memory blobs. Idempotent requests are retried with exponential
 * backoff and jitter; 429/503 honour Retry-After for every verb. A server
 * certificate that does not verify is permanent (SLINKY_EAUTH, never retried).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "core/dynload.h"
#include "kube_internal.h"
#include "slinky/version.h"

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_client_options, SLINKY_KUBE_CLIENT_OPTIONS_VERSION)

/* libcurl is the kube module's own dependency: started with the first client, stopped by
 * the last slinky_global_shutdown() (see slinky__lazy). */
static int curl_start(void)
{
    SLINKY__DYNLIB_DECLARE(curl);
    if (SLINKY__DYNLIB_LOAD(curl) < 0) /* a missing libcurl is an error here, not an abort */
        return SLINKY_EUNAVAILABLE;
    CURLcode rc = curl_global_init(CURL_GLOBAL_ALL);
    if (rc != CURLE_OK)
        return slinky__error_set(SLINKY_ERROR, "curl_global_init failed: %s",
                                 curl_easy_strerror(rc));
    return 0;
}

static slinky__lazy g_curl = SLINKY__LAZY(curl_start, curl_global_cleanup);

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *p)
{
    (void)h;
    (void)access;
    slinky_kube_client *c = p;
    pthread_mutex_lock(&c->share_locks[(unsigned)data % 8]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *p)
{
    (void)h;
    slinky_kube_client *c = p;
    pthread_mutex_unlock(&c->share_locks[(unsigned)data % 8]);
}

/* Apply tls-server-name: URL host becomes the name, CONNECT_TO maps it back. */
static int build_base(slinky_kube_client *c)
{
    const slinky_kube_config *cfg = c->cfg;
    if (cfg->tls_server_name == NULL || *cfg->tls_server_name == '\0') {
        c->base_url = slinky__strdup(cfg->server);
        return c->base_url ? 0 : SLINKY_ENOMEM;
    }
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *url = NULL;
    int err = 0;
    if (u == NULL)
        return slinky__error_oom();
    if (curl_url_set(u, CURLUPART_URL, cfg->server, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
        err = slinky__error_set(SLINKY_EINVALID, "server \"%s\" / tls-server-name \"%s\": bad URL",
                                cfg->server, cfg->tls_server_name);
    } else {
        c->base_url = slinky__strdup(url);
        c->connect_to = slinky__sprintf("%s:%s:%s:%s", cfg->tls_server_name, port, host, port);
        if (!c->base_url || !c->connect_to)
            err = SLINKY_ENOMEM;
        else {
            size_t n = strlen(c->base_url);
            while (n && c->base_url[n - 1] == '/')
                c->base_url[--n] = '\0';
        }
    }
    curl_free(host);
    curl_free(port);
    curl_free(url);
    curl_url_cleanup(u);
    return err;
}

slinky_status slinky_kube_client_new(slinky_kube_client **out, slinky_kube_config *cfg,
                                     const slinky_kube_client_options *opts)
{
    if (out == NULL || cfg == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_client_new: NULL argument");
    if (opts && opts->version != SLINKY_KUBE_CLIENT_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "kube client options: unknown version %u", opts->version);
    int rc = slinky__lazy_start(&g_curl);
    if (rc < 0)
        return rc;
    slinky_kube_client *c = slinky__calloc(1, sizeof(*c));
    if (c == NULL)
        return SLINKY_ENOMEM;
    slinky_kube__config_ref(cfg);
    c->cfg = cfg;
    c->timeout_ms = (opts && opts->timeout_ms) ? opts->timeout_ms : 30000;
    c->connect_timeout_ms = (opts && opts->connect_timeout_ms > 0) ? opts->connect_timeout_ms : 10000;
    c->max_retries = opts ? (opts->max_retries < 0 ? 0 : (opts->max_retries ? opts->max_retries : 5)) : 5;
    c->backoff_base_ms = (opts && opts->backoff_base_ms > 0) ? opts->backoff_base_ms : 100;
    c->backoff_max_ms = (opts && opts->backoff_max_ms > 0) ? opts->backoff_max_ms : 5000;
    c->user_agent = (opts && opts->user_agent) ? slinky__strdup(opts->user_agent)
                                               : slinky__sprintf("libslinky/%s (linux) kube", SLINKY_VERSION);
    for (int i = 0; i < 8; i++)
        pthread_mutex_init(&c->share_locks[i], NULL);
    pthread_mutex_init(&c->pool_lock, NULL);
    int err = c->user_agent ? build_base(c) : SLINKY_ENOMEM;
    if (err == 0) {
        CURLSH *sh = curl_share_init();
        if (sh == NULL) {
            err = slinky__error_oom();
        } else {
            curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock);
            curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock);
            curl_share_setopt(sh, CURLSHOPT_USERDATA, c);
            curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
            curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
            c->share = sh;
        }
    }
    if (err) {
        slinky_kube_client_free(c);
        return err;
    }
    *out = c;
    return 0;
}

void slinky_kube_client_free(slinky_kube_client *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    free(c->pool);
    if (c->share)
        curl_share_cleanup(c->share);
    for (int i = 0; i < 8; i++)
        pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->pool_lock);
    free(c->user_agent);
    free(c->base_url);
    free(c->connect_to);
    slinky_kube_config_free(c->cfg);
    free(c);
}

slinky_kube_config *slinky_kube_client_get_config(slinky_kube_client *c)
{
    return c ? c->cfg : NULL;
}

void *slinky_kube__handle_take(slinky_kube_client *c)
{
    void *h = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool > 0)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->pool_lock);
    if (h == NULL) {
        h = curl_easy_init();
        if (h == NULL)
            slinky__error_oom();
    } else {
        curl_easy_reset(h);
    }
    return h;
}

void slinky_kube__handle_give(slinky_kube_client *c, void *h)
{
    if (h == NULL)
        return;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool < 16) {
        if (c->npool == c->pool_cap) {
            size_t n = c->pool_cap ? c->pool_cap * 2 : 4;
            void **p = realloc(c->pool, n * sizeof(*p));
            if (p) {
                c->pool = p;
                c->pool_cap = n;
            }
        }
        if (c->npool < c->pool_cap) {
            c->pool[c->npool++] = h;
            h = NULL;
        }
    }
    pthread_mutex_unlock(&c->pool_lock);
    if (h)
        curl_easy_cleanup(h);
}

int slinky_kube__setup_handle(void *curl, slinky_kube_client *c, const slinky_kube__creds *cr,
                              void **headers_out, const char *content_type)
{
    CURL *h = curl;
    const slinky_kube_config *cfg = c->cfg;
    struct curl_slist *hl = NULL, *t;
    curl_easy_setopt(h, CURLOPT_SHARE, (CURLSH *)c->share);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 131072L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (cfg->proxy_url && *cfg->proxy_url)
        curl_easy_setopt(h, CURLOPT_PROXY, cfg->proxy_url);
    else
        curl_easy_setopt(h, CURLOPT_PROXY, "");
    if (c->connect_to) {
        t = curl_slist_append(NULL, c->connect_to);
        if (t == NULL)
            return slinky__error_oom();
        /* kept alive with the header list: caller frees both */
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, t);
        hl = t; /* first node is the connect-to entry; see below */
    }
    if (cfg->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (cfg->ca) {
        struct curl_blob b = {cfg->ca, cfg->ca_len, CURL_BLOB_COPY};
        curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b);
    }
    if (cr && cr->cert && cr->key) {
        struct curl_blob bc = {cr->cert, cr->cert_len, CURL_BLOB_COPY};
        struct curl_blob bk = {cr->key, cr->key_len, CURL_BLOB_COPY};
        curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &bc);
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &bk);
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    struct curl_slist *hdr = NULL;
    hdr = curl_slist_append(hdr, "Accept: application/json");
    if (hdr && content_type) {
        char line[128];
        snprintf(line, sizeof(line), "Content-Type: %s", content_type);
        t = curl_slist_append(hdr, line);
        hdr = t ? t : hdr;
    }
    if (hdr)
        hdr = curl_slist_append(hdr, "Expect:");
    if (hdr && cr && cr->token) {
        char *line = slinky__sprintf("Authorization: Bearer %s", cr->token);
        if (line) {
            t = curl_slist_append(hdr, line);
            explicit_bzero(line, strlen(line));
            free(line);
            hdr = t;
        } else {
            curl_slist_free_all(hdr);
            hdr = NULL;
        }
    }
    if (hdr == NULL) {
        curl_slist_free_all(hl);
        return slinky__error_oom();
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    headers_out[0] = hdr;
    headers_out[1] = hl;
    return 0;
}

long slinky_kube__backoff_ms(slinky_kube_client *c, int attempt)
{
    double d = (double)c->backoff_base_ms;
    for (int i = 0; i < attempt && d < (double)c->backoff_max_ms; i++)
        d *= 2;
    if (d > (double)c->backoff_max_ms)
        d = (double)c->backoff_max_ms;
    return (long)(d * (0.5 + 0.5 * slinky_kube__rand01()));
}

void slinky_kube__resp_dispose(slinky_kube__resp *r)
{
    free(r->body);
    memset(r, 0, sizeof(*r));
}

typedef struct xfer {
    CURL *h;
    const slinky_kube__req *req;
    slinky__buf body;
    long status;
    long retry_after;
    size_t delivered;
    int sink_err;
} xfer;

static size_t on_write(char *data, size_t size, size_t n, void *p)
{
    xfer *x = p;
    size_t len = size * n;
    if (x->status == 0)
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->req->sink && x->status >= 200 && x->status < 300) {
        int err = x->req->sink(data, len, x->req->sink_payload);
        x->delivered += len;
        if (err) {
            x->sink_err = err;
            return 0;
        }
        return len;
    }
    if (slinky__buf_put(&x->body, data, len) != 0)
        return 0;
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *p)
{
    xfer *x = p;
    size_t len = size * n;
    if (len > 12 && strncasecmp(data, "Retry-After:", 12) == 0) {
        long v = strtol(data + 12, NULL, 10);
        if (v > 0)
            x->retry_after = v;
    }
    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
        x->retry_after = 0; /* new response (e.g. after 100-continue) */
        x->status = 0;
    }
    return len;
}

/* TLS failures that another attempt cannot cure: the server's certificate
 * (or our own, or the CA file) is wrong. */
static bool tls_permanent(CURLcode rc)
{
    switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CRL_BADFILE:
        return true;
    default:
        return false;
    }
}

static bool method_idempotent(const char *m)
{
    return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
}

int slinky_kube__do(slinky_kube__resp *resp, slinky_kube_client *c, const slinky_kube__req *req)
{
    memset(resp, 0, sizeof(*resp));
    char *url = slinky__sprintf("%s%s", c->base_url, req->path);
    if (url == NULL)
        return SLINKY_ENOMEM;
    bool idem = req->idempotent || method_idempotent(req->method);
    bool refreshed = false;
    int err = 0;
    for (int attempt = 0;; attempt++) {
        slinky_kube__creds cr;
        err = slinky_kube__config_creds(&cr, c->cfg, false);
        if (err)
            break;
        CURL *h = slinky_kube__handle_take(c);
        if (h == NULL) {
            slinky_kube__creds_dispose(&cr);
            err = SLINKY_ENOMEM;
            break;
        }
        void *lists[2] = {NULL, NULL};
        err = slinky_kube__setup_handle(h, c, &cr, lists, req->content_type);
        bool has_exec = c->cfg->exec != NULL;
        slinky_kube__creds_dispose(&cr);
        if (err) {
            curl_easy_cleanup(h);
            break;
        }
        xfer x = {h, req, SLINKY__BUF_INIT, 0, 0, 0, 0};
        char detail[CURL_ERROR_SIZE];
        detail[0] = '\0';
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, detail);
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
        if (!req->no_timeout && c->timeout_ms > 0)
            curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
        if (strcmp(req->method, "GET") != 0) {
            if (strcmp(req->method, "HEAD") == 0)
                curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
            else
                curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
        }
        if (req->body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        } else if (strcmp(req->method, "POST") == 0 || strcmp(req->method, "PUT") == 0 ||
                   strcmp(req->method, "PATCH") == 0) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        }
        CURLcode rc = curl_easy_perform(h);
        if (rc == CURLE_OK || x.status == 0)
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x.status);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL); /* detail goes out of scope */
        curl_slist_free_all(lists[0]);
        curl_slist_free_all(lists[1]);
        if (rc == CURLE_OK || rc == CURLE_WRITE_ERROR)
            slinky_kube__handle_give(c, h);
        else
            curl_easy_cleanup(h); /* a broken connection: start afresh */

        long wait = -1;
        if (x.sink_err) {
            slinky__buf_dispose(&x.body);
            err = x.sink_err;
            break;
        }
        if (rc != CURLE_OK) {
            bool before_send = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                               rc == CURLE_COULDNT_RESOLVE_PROXY;
            if (rc == CURLE_WRITE_ERROR && x.body.failed)
                err = slinky__error_oom();
            else if (tls_permanent(rc))
                err = slinky__error_set(SLINKY_EAUTH, "%s %s: server certificate not accepted: %s",
                                        req->method, req->path,
                                        detail[0] ? detail : curl_easy_strerror(rc));
            else if (rc == CURLE_OPERATION_TIMEDOUT)
                err = slinky__error_set(SLINKY_ETIMEOUT, "%s %s: %s", req->method, req->path,
                                        curl_easy_strerror(rc));
            else
                err = slinky__error_set(SLINKY_EHTTP, "%s %s: %s", req->method, req->path,
                                        curl_easy_strerror(rc));
            slinky_kube__status_clear();
            if ((before_send || idem) && err != SLINKY_ENOMEM && err != SLINKY_EAUTH)
                wait = slinky_kube__backoff_ms(c, attempt);
        } else {
            err = 0;
            long st = x.status;
            if (st == 401 && has_exec && !refreshed) {
                refreshed = true;
                slinky_kube__creds tmp;
                if (slinky_kube__config_creds(&tmp, c->cfg, true) == 0) {
                    slinky_kube__creds_dispose(&tmp);
                    wait = 0;
                    attempt--;
                }
            } else if ((st == 429 || st == 503) || (st >= 500 && x.retry_after > 0)) {
                long ra = x.retry_after * 1000;
                long cap = c->backoff_max_ms * 10;
                wait = ra > 0 ? (ra > cap ? cap : ra) : slinky_kube__backoff_ms(c, attempt);
            } else if (idem && (st == 500 || st == 502 || st == 504)) {
                wait = slinky_kube__backoff_ms(c, attempt);
            }
        }
        /* bytes already handed to a sink can only be sent again after a reset */
        if (wait >= 0 && attempt < c->max_retries && x.delivered > 0 &&
            (req->sink_reset == NULL || req->sink_reset(req->sink_payload) != 0))
            wait = -1;
        if (wait >= 0 && attempt < c->max_retries) {
            slinky__log(SLINKY_LOG_DEBUG, "kube", "%s %s: %s; retry %d in %ld ms", req->method,
                        req->path, rc != CURLE_OK ? curl_easy_strerror(rc) : "HTTP error",
                        attempt + 1, wait);
            slinky__buf_dispose(&x.body);
            slinky_kube__sleep_ms(wait);
            continue;
        }
        if (err == 0) {
            if (x.body.failed) {
                slinky__buf_dispose(&x.body);
                err = slinky__error_oom();
                break;
            }
            resp->status = (int)x.status;
            resp->retry_after = x.retry_after;
            resp->body = x.body.data;
            resp->body_len = x.body.len;
        } else {
            slinky__buf_dispose(&x.body);
        }
        break;
    }
    free(url);
    return err;
}

slinky_status slinky_kube_request(char **body_out, size_t *len_out, int *status_out,
                                  slinky_kube_client *c, const char *method, const char *path,
                                  const char *content_type, const char *body, size_t body_len)
{
    if (body_out == NULL || c == NULL || method == NULL || path == NULL || path[0] != '/')
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_request: bad argument");
    slinky_kube__req req = {method, path, content_type, body, body_len};
    slinky_kube__resp resp;
    int err = slinky_kube__do(&resp, c, &req);
    if (err)
        return err;
    if (resp.body == NULL && (resp.body = slinky__strdup("")) == NULL)
        return SLINKY_ENOMEM;
    *body_out = resp.body;
    if (len_out)
        *len_out = resp.body_len;
    if (status_out)
        *status_out = resp.status;
    return 0;
}
