/*
 * slurm: the client and its HTTP transport on libcurl. Like the kube
 * transport (our own copy, kept here so the two modules can change apart):
 * a pool of easy handles, each keeping its live connection, and a CURLSH
 * sharing DNS and TLS sessions, so several threads can call at once. libcurl
 * is started lazily per client (curl_global_init is counted and thread safe
 * since 7.84) and stopped when the client is freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "slurm_internal.h"
#include "slinky/version.h"

slinky_status slinky_slurm_client_options_init(slinky_slurm_client_options *opts, unsigned int version)
{
    if (opts == NULL || version != SLINKY_SLURM_CLIENT_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_client_options: unknown version %u", version);
    memset(opts, 0, sizeof(*opts));
    opts->version = version;
    return 0;
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *p)
{
    (void)h;
    (void)access;
    slinky_slurm_client *c = p;
    pthread_mutex_lock(&c->share_locks[(unsigned)data % 8]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *p)
{
    (void)h;
    slinky_slurm_client *c = p;
    pthread_mutex_unlock(&c->share_locks[(unsigned)data % 8]);
}

slinky_status slinky_slurm_client_new(slinky_slurm_client **out, const char *url,
                                      const slinky_slurm_client_options *opts)
{
    if (out == NULL || url == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_client_new: NULL argument");
    if (opts && opts->version != SLINKY_SLURM_CLIENT_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slurm client options: unknown version %u", opts->version);
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return slinky__error_set(SLINKY_EINVALID, "slurm client: url \"%s\" is not http:// or https://", url);
    if (opts && opts->api_version &&
        strcmp(opts->api_version, "v0.0.38") && strcmp(opts->api_version, "v0.0.40") &&
        strcmp(opts->api_version, "v0.0.41") && strcmp(opts->api_version, "v0.0.42"))
        return slinky__error_set(SLINKY_EINVALID, "slurm client: api_version \"%s\" is not one of "
                                 "v0.0.38, v0.0.40, v0.0.41, v0.0.42", opts->api_version);
    slinky_slurm_client *c = slinky__calloc(1, sizeof(*c));
    if (c == NULL)
        return SLINKY_ENOMEM;
    for (int i = 0; i < 8; i++)
        pthread_mutex_init(&c->share_locks[i], NULL);
    pthread_mutex_init(&c->pool_lock, NULL);
    pthread_mutex_init(&c->neg_lock, NULL);
    int err = slinky_slurm__token_init(&c->token, opts);
    if (err) {
        slinky_slurm__token_dispose(&c->token);
        slinky_slurm_client_free(c);
        return err;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    c->share = curl_share_init();
    c->base = slinky__strdup(url);
    c->user = slinky__strdup(opts->user && *opts->user ? opts->user : "slurm");
    c->user_agent = slinky__sprintf("libslinky/%s (linux) slurm", SLINKY_VERSION);
    c->ca_file = opts->ca_file ? slinky__strdup(opts->ca_file) : NULL;
    c->forced_version = opts->api_version ? slinky__strdup(opts->api_version) : NULL;
    c->insecure = opts->insecure;
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 30000;
    c->connect_timeout_ms = opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 5000;
    if (!c->share || !c->base || !c->user || !c->user_agent || (opts->ca_file && !c->ca_file) ||
        (opts->api_version && !c->forced_version)) {
        slinky_slurm_client_free(c);
        return slinky__error_oom();
    }
    size_t n = strlen(c->base);
    while (n > 8 && c->base[n - 1] == '/')
        c->base[--n] = '\0';
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    *out = c;
    return 0;
}

void slinky_slurm_client_free(slinky_slurm_client *c)
{
    if (c == NULL)
        return;
    bool curl_started = c->share != NULL || c->base != NULL;
    for (size_t i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    free(c->pool);
    if (c->share)
        curl_share_cleanup(c->share);
    for (int i = 0; i < 8; i++)
        pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->pool_lock);
    pthread_mutex_destroy(&c->neg_lock);
    slinky_slurm__token_dispose(&c->token);
    for (size_t i = 0; i < c->nops; i++)
        free(c->ops[i]);
    free(c->ops);
    free(c->base);
    free(c->user);
    free(c->user_agent);
    free(c->ca_file);
    free(c->forced_version);
    free(c);
    if (curl_started)
        curl_global_cleanup();
}

static CURL *handle_take(slinky_slurm_client *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool > 0)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->pool_lock);
    if (h == NULL) {
        if ((h = curl_easy_init()) == NULL)
            slinky__error_oom();
    } else {
        curl_easy_reset(h);
    }
    return h;
}

static void handle_give(slinky_slurm_client *c, CURL *h)
{
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool < 16 && c->npool == c->pool_cap) {
        size_t n = c->pool_cap ? c->pool_cap * 2 : 4;
        void **p = realloc(c->pool, n * sizeof(*p));
        if (p) {
            c->pool = p;
            c->pool_cap = n;
        }
    }
    if (c->npool < c->pool_cap && c->npool < 16) {
        c->pool[c->npool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->pool_lock);
    if (h)
        curl_easy_cleanup(h);
}

typedef struct wctx {
    slinky__buf b;
    CURL *h;
    const slinky_slurm__sink *sink;
    long status;
} wctx;

static size_t on_write(char *data, size_t size, size_t n, void *p)
{
    wctx *w = p;
    if (w->sink) {
        if (w->status == 0)
            curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &w->status);
        if (w->status == 200)
            w->sink->feed(w->sink->payload, data, size * n);
    }
    return slinky__buf_put(&w->b, data, size * n) == 0 ? size * n : 0;
}

/* Slurm error numbers -> codes (slurm_errno.h). */
static int code_for_errno(long e)
{
    switch (e) {
    case 1007: /* SLURM_PROTOCOL_AUTHENTICATION_ERROR */
    case 1008:
        return SLINKY_EAUTH;
    case 2002: /* ESLURM_ACCESS_DENIED */
    case 2010: /* ESLURM_USER_ID_MISSING ("Invalid user id") */
        return SLINKY_EFORBIDDEN;
    case 2000: /* ESLURM_INVALID_PARTITION_NAME */
    case 2017: /* ESLURM_INVALID_JOB_ID */
    case 2018: /* ESLURM_INVALID_NODE_NAME */
        return SLINKY_ENOTFOUND;
    case 2028: /* ESLURM_INVALID_NODE_STATE */
        return SLINKY_EINVALID;
    case 2016: /* ESLURM_NODES_BUSY */
        return SLINKY_EBUSY;
    }
    if (e >= 9000 && e < 10000) /* data parser / OpenAPI input errors */
        return SLINKY_EINVALID;
    return 0;
}

static int code_for_http(int st)
{
    if (st == 401 || st == 403 || st == 511)
        return SLINKY_EAUTH;
    if (st == 404)
        return SLINKY_ENOTFOUND;
    if (st == 400 || st == 422)
        return SLINKY_EINVALID;
    if (st == 429 || st == 503)
        return SLINKY_EBUSY;
    return SLINKY_EHTTP;
}

int slinky_slurm__map_errors(const slinky_doc_value *root, int http_status, const char *method, const char *path)
{
    slinky_doc_value *errs = slinky_doc_value_get(root, "errors");
    size_t n = slinky_doc_value_type(errs) == SLINKY_DOC_ARRAY ? slinky_doc_value_size(errs) : 0;
    if (n == 0) {
        if (http_status >= 400)
            return slinky__error_set_http(code_for_http(http_status), http_status, "slurmrestd %s %s: HTTP %d",
                                          method, path, http_status);
        return 0;
    }
    /* the first entry with a number names the cause; the last description is the summary */
    slinky_doc_value *pick = slinky_doc_value_at(errs, 0);
    for (size_t i = 0; i < n; i++) {
        slinky_doc_value *e = slinky_doc_value_at(errs, i);
        if (slinky_doc_value_path_int(e, "error_number", 0) != 0) {
            pick = e;
            break;
        }
    }
    long num = (long)slinky_doc_value_path_int(pick, "error_number", 0);
    int code = code_for_errno(num);
    /* a GET of one object that is not there: "Failure to query node x" (error 0), "Unable to
       query reservations" (0), "Unable to find reservation x" (9000) */
    if (strcmp(method, "GET") == 0 &&
        ((code == 0 && num == 0 && http_status < 300) ||
         strncmp(slinky_slurm__str(pick, "description"), "Unable to find ", 15) == 0))
        code = SLINKY_ENOTFOUND;
    if (code == 0)
        code = http_status >= 400 && http_status != 500 ? code_for_http(http_status) : SLINKY_ERROR;
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "slurmrestd %s %s: error %ld (%s): %s [%s]", method, path, num,
                       slinky_slurm__str(pick, "error"), slinky_slurm__str(pick, "description"),
                       slinky_slurm__str(pick, "source"));
    for (size_t i = 0; i < n; i++) {
        slinky_doc_value *e = slinky_doc_value_at(errs, i);
        if (e != pick)
            slinky__buf_printf(&b, "; %s", slinky_slurm__str(e, "description"));
    }
    slinky__error_set_http(code, http_status, "%s", b.data ? b.data : "slurmrestd error");
    slinky__buf_dispose(&b);
    return code;
}

static void note_release(slinky_slurm_client *c, const slinky_doc_value *root)
{
    if (c->release[0])
        return;
    const char *r = slinky_doc_value_path_string(root, "meta.slurm.release", NULL);
    if (r == NULL)
        r = slinky_doc_value_path_string(root, "meta.Slurm.release", NULL);
    if (r && strlen(r) < sizeof(c->release)) {
        pthread_mutex_lock(&c->neg_lock);
        snprintf(c->release, sizeof(c->release), "%s", r);
        pthread_mutex_unlock(&c->neg_lock);
    }
}

static void setup(CURL *h, slinky_slurm_client *c)
{
    curl_easy_setopt(h, CURLOPT_SHARE, (CURLSH *)c->share);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 131072L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL);
    if (c->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (c->ca_file) {
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    }
}

int slinky_slurm__send(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method, const char *path,
                       const char *body)
{
    return slinky_slurm__send_sink(out, c, method, path, body, NULL);
}

int slinky_slurm__send_sink(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method, const char *path,
                            const char *body, const slinky_slurm__sink *sink)
{
    char *tok = NULL;
    int err = slinky_slurm__token_get(&tok, &c->token);
    if (err)
        return err;
    char *url = slinky__sprintf("%s%s", c->base, path);
    char *h_user = slinky__sprintf("X-SLURM-USER-NAME: %s", c->user);
    char *h_tok = slinky__sprintf("X-SLURM-USER-TOKEN: %s", tok);
    explicit_bzero(tok, strlen(tok));
    free(tok);
    struct curl_slist *hl = NULL, *t;
    const char *lines[] = {"Accept: application/json", "Expect:", h_user, h_tok,
                           body ? "Content-Type: application/json" : NULL};
    bool ok = url && h_user && h_tok;
    for (size_t i = 0; ok && i < SLINKY__ARRAY_SIZE(lines); i++) {
        if (lines[i] == NULL)
            continue;
        if ((t = curl_slist_append(hl, lines[i])) == NULL)
            ok = false;
        else
            hl = t;
    }
    if (h_tok)
        explicit_bzero(h_tok, strlen(h_tok));
    free(h_tok);
    free(h_user);
    CURL *h = ok ? handle_take(c) : NULL;
    if (h == NULL) {
        curl_slist_free_all(hl);
        free(url);
        return slinky__error_oom();
    }
    wctx w = {SLINKY__BUF_INIT, h, sink, 0};
    slinky__buf b = SLINKY__BUF_INIT;
    long status = 0;
    CURLcode rc = CURLE_OK;
    bool get = strcmp(method, "GET") == 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        setup(h, c);
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
        w.h = h;
        w.status = 0;
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &w);
        if (!get)
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        if (body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
        }
        rc = curl_easy_perform(h);
        status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        /* a pooled connection the server closed meanwhile: once more on a new one (GET only,
           or nothing was answered at all) */
        long reused = 0;
        curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &reused);
        if (attempt == 0 && reused == 0 && status == 0 &&
            (rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR) &&
            (get || rc == CURLE_GOT_NOTHING)) {
            curl_easy_cleanup(h);
            slinky__buf_clear(&w.b);
            if ((h = curl_easy_init()) == NULL) {
                rc = CURLE_OUT_OF_MEMORY;
                break;
            }
            continue;
        }
        break;
    }
    curl_slist_free_all(hl);
    b = w.b;
    if (h) {
        if (rc == CURLE_OK)
            handle_give(c, h);
        else
            curl_easy_cleanup(h);
    }
    if (rc != CURLE_OK) {
        slinky__buf_dispose(&b);
        if (rc == CURLE_WRITE_ERROR || rc == CURLE_OUT_OF_MEMORY)
            err = slinky__error_oom();
        else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                 rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR ||
                 rc == CURLE_SEND_ERROR || rc == CURLE_SSL_CONNECT_ERROR)
            err = slinky__error_set(SLINKY_EUNAVAILABLE, "slurmrestd %s %s%s: %s (fail closed)", method,
                                    c->base, path, curl_easy_strerror(rc));
        else
            err = slinky__error_set(SLINKY_EHTTP, "slurmrestd %s %s%s: %s", method, c->base, path,
                                    curl_easy_strerror(rc));
        free(url);
        return err;
    }
    free(url);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    slinky_doc *doc = NULL;
    int st = (int)status;
    if (sink && st == 200 && sink->done(sink->payload)) { /* decoded on the way in */
        slinky__buf_dispose(&b);
        out->doc = NULL;
        out->status = st;
        return 0;
    }
    if (st == 304) { /* update_time given and nothing changed: no body */
        slinky__buf_dispose(&b);
        if ((err = slinky_doc_new(&doc)) != 0)
            return err;
        out->doc = doc;
        out->status = st;
        return 0;
    }
    if (slinky_doc_parse_json(&doc, b.data ? b.data : "", b.len) != 0) {
        /* 401 "Authentication failure", 404 "Unable find requested URL": plain text */
        if (st >= 400) {
            size_t n = b.len > 200 ? 200 : b.len;
            while (n && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r'))
                n--;
            err = slinky__error_set_http(code_for_http(st), st, "slurmrestd %s %s: HTTP %d: %.*s", method, path,
                                         st, (int)n, b.data ? b.data : "");
        } else {
            err = slinky__error_set_http(SLINKY_EPARSE, st, "slurmrestd %s %s: reply is not JSON: %s", method,
                                         path, slinky_error_last()->message);
        }
        slinky__buf_dispose(&b);
        return err;
    }
    slinky__buf_dispose(&b);
    slinky_doc_value *root = slinky_doc_root(doc);
    note_release(c, root);
    err = slinky_slurm__map_errors(root, st, method, path);
    if (err == 0 && slinky_doc_value_type(root) != SLINKY_DOC_OBJECT)
        err = slinky__error_set_http(SLINKY_EPARSE, st, "slurmrestd %s %s: reply is not a JSON object", method,
                                     path);
    if (err) {
        slinky_doc_free(doc);
        return err;
    }
    out->doc = doc;
    out->status = st;
    return 0;
}
