/*
 * kube: watch streams. Each watch drives its own curl multi handle from
 * slinky_kube_watch_next (no extra thread); the curl write callback feeds
 * the incremental decoder, which queues complete events. Streams that end
 * or break are reopened from the last resourceVersion with backoff;
 * slinky_kube_watch_stop wakes a waiting next from any thread.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "kube_internal.h"

typedef struct wevent {
    slinky_kube_event_type type;
    slinky_doc *obj;
    struct wevent *next;
} wevent;

struct slinky_kube_watch {
    slinky_kube_client *c;
    char *path; /* collection path */
    char *label_selector, *field_selector;
    long timeout_seconds;
    bool bookmarks, resume, hide_bookmarks;
    char *rv;
    slinky_kube_watch_decoder *dec;
    wevent *head, *tail;
    CURLM *multi;
    CURL *easy;
    void *lists[2];
    long status;
    slinky__buf errbody;
    long retry_after;
    int decode_err;
    bool ended;         /* stream ended (and no_resume) */
    int attempt;        /* consecutive failures */
    int64_t connect_at; /* monotonic ms: do not connect before */
    atomic_bool stopped;
};

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_watch_options, SLINKY_KUBE_WATCH_OPTIONS_VERSION)

static void drop_events(slinky_kube_watch *w)
{
    while (w->head) {
        wevent *e = w->head;
        w->head = e->next;
        slinky_doc_free(e->obj);
        free(e);
    }
    w->tail = NULL;
}

static void disconnect(slinky_kube_watch *w)
{
    if (w->easy) {
        curl_multi_remove_handle(w->multi, w->easy);
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
    }
    curl_slist_free_all(w->lists[0]);
    curl_slist_free_all(w->lists[1]);
    w->lists[0] = w->lists[1] = NULL;
    slinky__buf_dispose(&w->errbody);
    slinky_kube_watch_decoder_free(w->dec);
    w->dec = NULL;
}

void slinky_kube_watch_free(slinky_kube_watch *w)
{
    if (w == NULL)
        return;
    disconnect(w);
    drop_events(w);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    free(w->path);
    free(w->label_selector);
    free(w->field_selector);
    free(w->rv);
    free(w);
}

slinky_status slinky_kube_watch_new(slinky_kube_watch **out, slinky_kube_client *c,
                                    const slinky_kube_resource *r, const char *ns,
                                    const slinky_kube_watch_options *o)
{
    if (out == NULL || c == NULL || r == NULL)
        return slinky__error_set(SLINKY_EINVALID, "watch_new: NULL argument");
    if (o && o->version != SLINKY_KUBE_WATCH_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "watch options: unknown version %u", o->version);
    slinky_kube_watch *w = slinky__calloc(1, sizeof(*w));
    if (w == NULL)
        return SLINKY_ENOMEM;
    w->c = c;
    atomic_init(&w->stopped, false);
    w->bookmarks = !(o && o->no_bookmarks);
    w->resume = !(o && o->no_resume);
    w->hide_bookmarks = o && o->hide_bookmarks;
    w->timeout_seconds = o ? o->timeout_seconds : 0;
    int err = slinky_kube_path(&w->path, r, ns, NULL, NULL);
    if (err == 0 && o && o->label_selector && !(w->label_selector = slinky__strdup(o->label_selector)))
        err = SLINKY_ENOMEM;
    if (err == 0 && o && o->field_selector && !(w->field_selector = slinky__strdup(o->field_selector)))
        err = SLINKY_ENOMEM;
    if (err == 0 && !(w->rv = slinky__strdup(o && o->resource_version ? o->resource_version : "")))
        err = SLINKY_ENOMEM;
    if (err == 0 && (w->multi = curl_multi_init()) == NULL)
        err = slinky__error_oom();
    if (err) {
        slinky_kube_watch_free(w);
        return err;
    }
    *out = w;
    return 0;
}

void slinky_kube_watch_stop(slinky_kube_watch *w)
{
    if (w == NULL)
        return;
    atomic_store(&w->stopped, true);
    curl_multi_wakeup(w->multi);
}

const char *slinky_kube_watch_resource_version(const slinky_kube_watch *w)
{
    return (w && w->rv) ? w->rv : "";
}

static int enqueue(slinky_kube_event_type type, slinky_doc *obj, void *p)
{
    slinky_kube_watch *w = p;
    wevent *e = slinky__malloc(sizeof(*e));
    if (e == NULL) {
        slinky_doc_free(obj);
        return SLINKY_ENOMEM;
    }
    if (type != SLINKY_KUBE_EVENT_ERROR) {
        const char *rv = slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", "");
        if (*rv) {
            char *n = slinky__strdup(rv);
            if (n) {
                free(w->rv);
                w->rv = n;
            }
        }
    }
    e->type = type;
    e->obj = obj;
    e->next = NULL;
    if (w->tail)
        w->tail->next = e;
    else
        w->head = e;
    w->tail = e;
    return 0;
}

static size_t w_write(char *data, size_t size, size_t n, void *p)
{
    slinky_kube_watch *w = p;
    size_t len = size * n;
    if (w->status == 0)
        curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &w->status);
    if (w->status >= 200 && w->status < 300) {
        int err = slinky_kube_watch_decoder_feed(w->dec, data, len, enqueue, w);
        if (err) {
            w->decode_err = err;
            return 0;
        }
        return len;
    }
    if (w->errbody.len < 65536)
        slinky__buf_put(&w->errbody, data, len);
    return len;
}

static size_t w_header(char *data, size_t size, size_t n, void *p)
{
    slinky_kube_watch *w = p;
    size_t len = size * n;
    if (len > 12 && strncasecmp(data, "Retry-After:", 12) == 0)
        w->retry_after = strtol(data + 12, NULL, 10);
    if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
        w->status = 0;
        w->retry_after = 0;
    }
    return len;
}

static int connect_stream(slinky_kube_watch *w)
{
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, w->c->base_url);
    slinky__buf_puts(&b, w->path);
    slinky_kube__query_add(&b, &first, "watch", "1");
    if (w->rv && *w->rv)
        slinky_kube__query_add(&b, &first, "resourceVersion", w->rv);
    slinky_kube__query_add(&b, &first, "labelSelector", w->label_selector);
    slinky_kube__query_add(&b, &first, "fieldSelector", w->field_selector);
    if (w->bookmarks)
        slinky_kube__query_add(&b, &first, "allowWatchBookmarks", "true");
    if (w->timeout_seconds > 0)
        slinky_kube__query_add_long(&b, &first, "timeoutSeconds", w->timeout_seconds);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    slinky_kube__creds cr;
    int err = slinky_kube__config_creds(&cr, w->c->cfg, false);
    if (err) {
        slinky__buf_dispose(&b);
        return err;
    }
    w->easy = curl_easy_init();
    if (w->easy == NULL) {
        slinky_kube__creds_dispose(&cr);
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    err = slinky_kube__setup_handle(w->easy, w->c, &cr, w->lists, NULL);
    slinky_kube__creds_dispose(&cr);
    if (err == 0)
        err = slinky_kube_watch_decoder_new(&w->dec, 0);
    if (err) {
        slinky__buf_dispose(&b);
        disconnect(w);
        return err;
    }
    curl_easy_setopt(w->easy, CURLOPT_URL, b.data);
    slinky__buf_dispose(&b);
    curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, w_write);
    curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
    curl_easy_setopt(w->easy, CURLOPT_HEADERFUNCTION, w_header);
    curl_easy_setopt(w->easy, CURLOPT_HEADERDATA, w);
    long idle = (w->timeout_seconds > 0 ? w->timeout_seconds : 1800) + 60;
    curl_easy_setopt(w->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(w->easy, CURLOPT_LOW_SPEED_TIME, idle);
    w->status = 0;
    w->retry_after = 0;
    w->decode_err = 0;
    if (curl_multi_add_handle(w->multi, w->easy) != CURLM_OK) {
        disconnect(w);
        return slinky__error_set(SLINKY_EHTTP, "watch: cannot start the transfer");
    }
    return 0;
}

/* The transfer finished: decide what comes next. Returns 0 to go on. */
static int finished(slinky_kube_watch *w, CURLcode rc)
{
    long status = w->status;
    if (status == 0)
        curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &status);
    int err = 0;
    if (rc == CURLE_OK && status >= 200 && status < 300) {
        err = slinky_kube_watch_decoder_finish(w->dec, enqueue, w);
        disconnect(w);
        if (err) {
            /* a torn last event: resume from the last good one */
            slinky_error_clear();
            w->connect_at = slinky_kube__now_ms() + slinky_kube__backoff_ms(w->c, w->attempt++);
            return 0;
        }
        w->attempt = 0;
        if (!w->resume)
            w->ended = true;
        return 0;
    }
    if (rc != CURLE_OK && (status < 300 || status == 0)) {
        /* dropped connection, decode error or connect failure: reconnect */
        slinky__log(SLINKY_LOG_DEBUG, "kube", "watch %s: %s; reconnecting", w->path,
                    w->decode_err ? slinky_error_last()->message : curl_easy_strerror(rc));
        disconnect(w);
        if (!w->resume) {
            w->ended = true;
            return 0;
        }
        w->connect_at = slinky_kube__now_ms() + slinky_kube__backoff_ms(w->c, w->attempt++);
        return 0;
    }
    /* HTTP error */
    err = slinky_kube__status_error((int)status, w->errbody.data, w->errbody.len, w->retry_after);
    long ra = w->retry_after;
    disconnect(w);
    if (status == 429 || status >= 500) {
        long wait = ra > 0 ? ra * 1000 : slinky_kube__backoff_ms(w->c, w->attempt);
        w->attempt++;
        w->connect_at = slinky_kube__now_ms() + wait;
        slinky_error_clear();
        return 0;
    }
    w->connect_at = slinky_kube__now_ms() + slinky_kube__backoff_ms(w->c, w->attempt++);
    return err;
}

slinky_status slinky_kube_watch_next(slinky_kube_event_type *type_out, slinky_doc **object_out,
                                     slinky_kube_watch *w, long timeout_ms)
{
    if (type_out == NULL || object_out == NULL || w == NULL)
        return slinky__error_set(SLINKY_EINVALID, "watch_next: NULL argument");
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : slinky_kube__now_ms() + timeout_ms;
    for (;;) {
        if (atomic_load(&w->stopped)) {
            disconnect(w);
            return slinky__error_set(SLINKY_ECANCELED, "watch stopped");
        }
        while (w->head) {
            wevent *e = w->head;
            w->head = e->next;
            if (w->head == NULL)
                w->tail = NULL;
            slinky_kube_event_type t = e->type;
            slinky_doc *obj = e->obj;
            free(e);
            if (t == SLINKY_KUBE_EVENT_ERROR) {
                int err = slinky_kube__status_error_value(0, slinky_doc_root(obj));
                slinky_doc_free(obj);
                if (err == SLINKY_EGONE) {
                    disconnect(w);
                    drop_events(w);
                    return err;
                }
                /* other errors: report once, reconnect later */
                disconnect(w);
                w->connect_at = slinky_kube__now_ms() + slinky_kube__backoff_ms(w->c, w->attempt++);
                return err;
            }
            if (t == SLINKY_KUBE_EVENT_BOOKMARK && w->hide_bookmarks) {
                slinky_doc_free(obj);
                continue;
            }
            *type_out = t;
            *object_out = obj;
            return 0;
        }
        if (w->ended && w->easy == NULL)
            return SLINKY_ITEROVER;
        int64_t now = slinky_kube__now_ms();
        if (now >= deadline)
            return slinky__error_set(SLINKY_ETIMEOUT, "watch: no event within %ld ms", timeout_ms);
        if (w->easy == NULL && now >= w->connect_at) {
            int err = connect_stream(w);
            if (err) {
                /* e.g. a failing credential plugin: report it, retry later */
                w->connect_at = now + slinky_kube__backoff_ms(w->c, w->attempt++);
                return err;
            }
        }
        int64_t wait = deadline - now;
        if (w->easy == NULL && w->connect_at - now < wait)
            wait = w->connect_at - now;
        if (wait > 1000)
            wait = 1000;
        if (wait < 0)
            wait = 0;
        curl_multi_poll(w->multi, NULL, 0, (int)wait, NULL);
        if (w->easy) {
            int running = 0;
            curl_multi_perform(w->multi, &running);
            CURLMsg *m;
            int left;
            while ((m = curl_multi_info_read(w->multi, &left)) != NULL) {
                if (m->msg == CURLMSG_DONE && m->easy_handle == w->easy) {
                    int err = finished(w, m->data.result);
                    if (err)
                        return err;
                    break;
                }
            }
        }
    }
}
