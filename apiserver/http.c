/* libmicrohttpd glue: request bodies, bearer tokens, responses, watch streams. */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* bytes of a streamed LIST body produced per call (libmicrohttpd's buffer) */
#define LIST_BLOCK (256u * 1024u)

typedef struct conn_state {
    struct timespec start; /* headers in */
    as_buf body;
    bool too_large;
    bool answered; /* a response is queued already (refused early) */
    long client; /* token index counted in s->inflight, or -1 */
} conn_state;

typedef struct kv_vec {
    as_kv *items;
    size_t n, cap;
} kv_vec;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    kv_vec *v = cls;
    (void)kind;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        as_kv *n = realloc(v->items, cap * sizeof(*n));
        if (!n)
            return MHD_NO;
        v->items = n;
        v->cap = cap;
    }
    v->items[v->n].key = as_strdup(key ? key : "");
    v->items[v->n].value = as_strdup(value ? value : "");
    v->n++;
    return MHD_YES;
}

static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '+') {
            *w++ = ' ';
        } else if (*r == '%' && r[1] && r[2]) {
            char hex[3] = {r[1], r[2], 0};
            char *end = NULL;
            long v = strtol(hex, &end, 16);
            if (end == hex + 2 && v != 0) { /* %00 stays as it is: no NUL in a name */
                *w++ = (char)v;
                r += 2;
            } else {
                *w++ = *r;
            }
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

/* The index of the request's bearer token (admin: 0 for the admin token), or -1. */
static long token_index(as_server *s, struct MHD_Connection *c, bool admin)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return -1;
    const char *t = h + 7;
    while (*t == ' ')
        t++;
    if (admin)
        return s->admin_token && strcmp(t, s->admin_token) == 0 ? 0 : -1;
    for (size_t i = 0; i < s->n_tokens; i++)
        if (strcmp(t, s->tokens[i]) == 0)
            return (long)i;
    long sa = as_sa_token_lookup(s, t);
    return sa >= 0 ? (long)s->n_tokens + sa : -1;
}

static bool token_ok(as_server *s, struct MHD_Connection *c, bool admin)
{
    return token_index(s, c, admin) >= 0;
}

/* Count a request of client i in flight; false when it has max_per_client already. */
/* the in-flight counter of client i (client_lock held) */
static unsigned *inflight_of(as_server *s, long i)
{
    if ((size_t)i < s->n_tokens)
        return s->inflight ? &s->inflight[i] : NULL;
    size_t j = (size_t)i - s->n_tokens;
    return j < s->n_sa_tokens && s->sa_inflight ? &s->sa_inflight[j] : NULL;
}

static bool client_enter(as_server *s, long i)
{
    if (i < 0 || !s->max_per_client)
        return true;
    pthread_mutex_lock(&s->client_lock);
    unsigned *n = inflight_of(s, i);
    bool ok = !n || *n < s->max_per_client;
    if (ok && n)
        (*n)++;
    pthread_mutex_unlock(&s->client_lock);
    return ok;
}

static void client_leave(as_server *s, long i)
{
    if (i < 0 || !s->max_per_client)
        return;
    pthread_mutex_lock(&s->client_lock);
    unsigned *n = inflight_of(s, i);
    if (n && *n)
        (*n)--;
    pthread_mutex_unlock(&s->client_lock);
}

static void add_headers(struct MHD_Response *r, const as_resp *resp)
{
    MHD_add_response_header(r, "Content-Type",
                            resp->content_type ? resp->content_type : "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    if (resp->retry_after)
        MHD_add_response_header(r, "Retry-After", resp->retry_after);
    if (resp->warning)
        MHD_add_response_header(r, "Warning", resp->warning);
}

typedef struct body_stream {
    char *data;
    size_t len;
    unsigned chunk;
    bool drop;
} body_stream;

static ssize_t body_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    body_stream *b = cls;
    if (pos >= b->len)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (b->drop && pos >= b->len / 2)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = b->len - pos;
    if (b->drop && pos + n > b->len / 2)
        n = b->len / 2 - pos;
    if (b->chunk && n > b->chunk)
        n = b->chunk;
    if (n > max)
        n = max;
    memcpy(buf, b->data + pos, n);
    if (b->chunk)
        usleep(2000);
    return (ssize_t)n;
}

static void body_free(void *cls)
{
    body_stream *b = cls;
    free(b->data);
    free(b);
}

/* A LIST body streamed from the stored objects' JSON (as_resp.list). */
typedef struct list_stream {
    char *head; /* envelope up to "items":[ */
    size_t head_len;
    as_obj **items; /* references */
    size_t n;
    size_t seg; /* 0 head, 2i+1 separator before item i, 2i+2 item i, 2n+1 closing */
    size_t off; /* offset in seg */
    uint64_t pos; /* bytes produced so far */
} list_stream;

static const char *list_seg(const list_stream *ls, size_t seg, size_t *len)
{
    if (seg == 0) {
        *len = ls->head_len;
        return ls->head;
    }
    if (seg == 2 * ls->n + 1) {
        *len = 2;
        return "]}";
    }
    if (seg % 2) {
        *len = seg > 1;
        return ",";
    }
    const as_obj *o = ls->items[seg / 2 - 1];
    *len = o->json_len;
    return o->json;
}

/* Copy up to max bytes from the cursor into buf (NULL: skip); returns the count. */
static size_t list_copy(list_stream *ls, char *buf, size_t max)
{
    size_t done = 0;
    while (done < max && ls->seg <= 2 * ls->n + 1) {
        size_t len;
        const char *p = list_seg(ls, ls->seg, &len);
        size_t k = len - ls->off;
        if (k > max - done)
            k = max - done;
        if (buf)
            memcpy(buf + done, p + ls->off, k);
        done += k;
        ls->off += k;
        if (ls->off == len) {
            ls->seg++;
            ls->off = 0;
        }
    }
    ls->pos += done;
    return done;
}

static ssize_t list_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    list_stream *ls = cls;
    if (pos != ls->pos) { /* libmicrohttpd reads sequentially; seek anyway */
        ls->seg = ls->off = 0;
        ls->pos = 0;
        while (ls->pos < pos)
            if (list_copy(ls, NULL, (size_t)(pos - ls->pos)) == 0)
                break;
    }
    size_t n = list_copy(ls, buf, max);
    return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void list_free(void *cls)
{
    list_stream *ls = cls;
    for (size_t i = 0; i < ls->n; i++)
        as_obj_unref(ls->items[i]);
    free(ls->items);
    free(ls->head);
    free(ls);
}

typedef struct watch_stream {
    as_watch *w;
    unsigned chunk;
    bool drop;
    bool sent;
} watch_stream;

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    watch_stream *ws = cls;
    (void)pos;
    if (ws->drop && ws->sent)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (ws->chunk && max > ws->chunk)
        max = ws->chunk;
    long n = as_watch_read(ws->w, buf, max);
    ws->sent = true;
    if (ws->chunk)
        usleep(2000);
    if (n < 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    return (ssize_t)n;
}

static void watch_free(void *cls)
{
    watch_stream *ws = cls;
    as_metrics_watch(-1);
    as_watch_free(ws->w);
    free(ws);
}

static enum MHD_Result send_resp(struct MHD_Connection *c, as_resp *resp)
{
    struct MHD_Response *r;
    if (resp->list && (resp->fault_chunk || resp->fault_drop) && as_resp_list_flatten(resp) != 0)
        return MHD_NO;
    if (resp->list) {
        list_stream *ls = as_calloc(1, sizeof(*ls));
        if (!ls)
            return MHD_NO;
        uint64_t total = as_resp_list_size(resp);
        ls->head = as_buf_detach(&resp->body, &ls->head_len);
        ls->items = resp->items;
        ls->n = resp->n_items;
        resp->items = NULL;
        resp->n_items = 0;
        resp->list = false;
        if (!ls->head) {
            list_free(ls);
            return MHD_NO;
        }
        r = MHD_create_response_from_callback(total, LIST_BLOCK, list_reader, ls, list_free);
        if (!r) {
            list_free(ls);
            return MHD_NO;
        }
        add_headers(r, resp);
    } else if (resp->watch) {
        watch_stream *ws = as_calloc(1, sizeof(*ws));
        if (!ws) {
            as_watch_free(resp->watch);
            resp->watch = NULL;
            return MHD_NO;
        }
        ws->w = resp->watch;
        as_metrics_watch(1);
        ws->chunk = resp->fault_chunk;
        ws->drop = resp->fault_drop;
        resp->watch = NULL;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci)
            as_watch_set_fd(ws->w, ci->connect_fd);
        as_watch_fault(ws->w, resp->fault_close_after, resp->fault_410);
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, watch_reader, ws,
                                              watch_free);
        if (!r) {
            watch_free(ws);
            return MHD_NO;
        }
        add_headers(r, resp);
        MHD_add_response_header(r, "Transfer-Encoding", "chunked");
        /* a watch may be quiet for long: no idle timeout for this connection */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    } else if (resp->fault_chunk || resp->fault_drop) {
        body_stream *b = as_calloc(1, sizeof(*b));
        if (!b)
            return MHD_NO;
        b->data = as_buf_detach(&resp->body, &b->len);
        b->chunk = resp->fault_chunk;
        b->drop = resp->fault_drop;
        r = MHD_create_response_from_callback(resp->fault_drop ? b->len : MHD_SIZE_UNKNOWN,
                                              4096, body_reader, b, body_free);
        if (!r) {
            body_free(b);
            return MHD_NO;
        }
        add_headers(r, resp);
    } else {
        size_t len = 0;
        char *data = as_buf_detach(&resp->body, &len);
        if (!data)
            return MHD_NO;
        r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
        if (!r) {
            free(data);
            return MHD_NO;
        }
        add_headers(r, resp);
    }
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)resp->status, r);
    MHD_destroy_response(r);
    return ret;
}

static void resp_dispose(as_resp *resp)
{
    as_buf_dispose(&resp->body);
    as_resp_items_release(resp);
    free(resp->retry_after);
    free(resp->warning);
    as_watch_free(resp->watch);
}

static bool anonymous_path(const char *url)
{
    return !strcmp(url, "/healthz") || !strcmp(url, "/readyz") || !strcmp(url, "/livez") ||
           !strcmp(url, "/version");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    as_server *s = cls;
    (void)version;
    conn_state *st = *con_cls;
    if (!st) {
        st = as_calloc(1, sizeof(*st));
        if (!st)
            return MHD_NO;
        st->client = -1;
        clock_gettime(CLOCK_MONOTONIC, &st->start);
        *con_cls = st;
        /*
         * Headers are complete, no body byte is read yet: refuse here what
         * needs no body (a bad token, a declared body over the limit, a
         * client with too many requests), so nothing is buffered for it.
         */
        as_resp early = {0};
        bool admin = strncmp(url, "/admin/", 7) == 0;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (admin) {
            if (s->faults_enabled && !token_ok(s, c, true))
                as_resp_status(&early, 401, "Unauthorized", "Unauthorized", NULL);
        } else if (!s->insecure && !anonymous_path(url)) {
            long who = token_index(s, c, false);
            if (who < 0)
                as_resp_status(&early, 401, "Unauthorized", "Unauthorized", NULL);
            else if (!client_enter(s, who)) {
                as_resp_status(&early, 429, "TooManyRequests",
                               "too many requests in flight for this client, please try again "
                               "later",
                               NULL);
                early.retry_after = as_strdup("1");
            } else
                st->client = who;
        }
        if (!early.status && cl && s->max_body && strtoull(cl, NULL, 10) > s->max_body)
            as_resp_status(&early, 413, "RequestEntityTooLarge",
                           "the request body is too large", NULL);
        if (!early.status)
            return MHD_YES;
        st->answered = true;
        enum MHD_Result ret = send_resp(c, &early);
        resp_dispose(&early);
        return ret;
    }
    if (st->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        if (s->max_body && st->body.len + *upload_size > s->max_body) {
            /* a chunked body over the limit: answer now, read no more of it */
            if (!st->too_large) {
                st->too_large = true;
                as_buf_dispose(&st->body);
                as_resp big = {0};
                as_resp_status(&big, 413, "RequestEntityTooLarge",
                               "the request body is too large", NULL);
                enum MHD_Result ret = send_resp(c, &big);
                resp_dispose(&big);
                if (ret == MHD_YES) {
                    st->answered = true;
                    *upload_size = 0;
                    return MHD_YES;
                }
            }
        } else {
            as_buf_put(&st->body, upload_data, *upload_size);
        }
        *upload_size = 0;
        return MHD_YES;
    }

    atomic_fetch_add(&s->requests, 1);
    as_resp resp = {0};
    kv_vec q = {0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &q);
    as_req req = {0};
    req.method = method;
    req.path = url;
    req.query = q.items;
    req.n_query = q.n;
    req.content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    req.accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    req.user_agent = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent");
    char sa_ns[256] = "", sa_name[256] = "";
    if (st->client >= (long)s->n_tokens) {
        pthread_mutex_lock(&s->client_lock);
        size_t j = (size_t)st->client - s->n_tokens;
        if (j < s->n_sa_tokens) {
            snprintf(sa_ns, sizeof(sa_ns), "%s", s->sa_tokens[j].ns);
            snprintf(sa_name, sizeof(sa_name), "%s", s->sa_tokens[j].name);
            req.sa_ns = sa_ns;
            req.sa_name = sa_name;
        }
        pthread_mutex_unlock(&s->client_lock);
    }
    req.body = st->body.data ? st->body.data : "";
    req.body_len = st->body.len;
    bool admin = strncmp(url, "/admin/", 7) == 0;
    unsigned delay_ms = 0;
    if (admin) {
        if (!s->faults_enabled)
            as_resp_status(&resp, 404, "NotFound", "the server could not find the requested "
                                                   "resource",
                           NULL);
        else if (!token_ok(s, c, true))
            as_resp_status(&resp, 401, "Unauthorized", "Unauthorized", NULL);
        else
            as_fault_admin(s, &req, &resp);
    } else if (!s->insecure && !anonymous_path(url) && !token_ok(s, c, false)) {
        as_resp_status(&resp, 401, "Unauthorized", "Unauthorized", NULL);
    } else if (st->too_large) {
        as_resp_status(&resp, 413, "RequestEntityTooLarge", "the request body is too large",
                       NULL);
    } else if (!(s->faults_enabled && as_fault_check(s, &req, &resp, &delay_ms))) {
        if (delay_ms)
            usleep(delay_ms * 1000u);
        unsigned chunk = resp.fault_chunk, close_after = resp.fault_close_after;
        bool drop = resp.fault_drop, f410 = resp.fault_410;
        as_handle(s, &req, &resp);
        resp.fault_chunk = chunk;
        resp.fault_close_after = close_after;
        resp.fault_drop = drop;
        resp.fault_410 = f410;
    }
    if (!resp.status)
        as_resp_status(&resp, 500, "InternalError", "no response", NULL);
    if (s->log_requests) {
        as_buf line = AS_BUF_INIT;
        as_buf_printf(&line, "%s %s", method, url);
        for (size_t i = 0; i < q.n; i++)
            as_buf_printf(&line, "%c%s=%s", i ? '&' : '?', q.items[i].key, q.items[i].value);
        fprintf(stderr, "slinky-apiserver: %s -> %d%s\n", line.data ? line.data : "",
                resp.status, resp.watch ? " (watch)" : "");
        as_buf_dispose(&line);
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    as_metrics_record(method, url, resp.watch != NULL, resp.status,
                      (double)(now.tv_sec - st->start.tv_sec) +
                          (double)(now.tv_nsec - st->start.tv_nsec) / 1e9);
    enum MHD_Result ret = send_resp(c, &resp);
    resp_dispose(&resp);
    for (size_t i = 0; i < q.n; i++) {
        free(q.items[i].key);
        free(q.items[i].value);
    }
    free(q.items);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    (void)toe;
    conn_state *st = *con_cls;
    if (st) {
        client_leave(cls, st->client);
        as_buf_dispose(&st->body);
        free(st);
        *con_cls = NULL;
    }
}

struct as_http {
    struct MHD_Daemon *d;
};

int as_http_start(as_http **out, as_server *s, int port, const char *cert_pem,
                  const char *key_pem)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_ERROR_LOG;
    if (cert_pem)
        flags |= MHD_USE_TLS;
    struct MHD_Daemon *d;
    if (cert_pem)
        d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                             MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                             MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                             MHD_OPTION_CONNECTION_LIMIT, 2000u,
                             MHD_OPTION_CONNECTION_TIMEOUT, s->read_timeout_s,
                             MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
                             MHD_OPTION_HTTPS_MEM_KEY, key_pem, MHD_OPTION_HTTPS_MEM_CERT,
                             cert_pem, MHD_OPTION_END);
    else
        d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                             MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                             MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                             MHD_OPTION_CONNECTION_LIMIT, 2000u,
                             MHD_OPTION_CONNECTION_TIMEOUT, s->read_timeout_s,
                             MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024), MHD_OPTION_END);
    if (!d)
        return slinky_error_set(SLINKY_EIO, "cannot listen on 127.0.0.1:%d", port);
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : port;
    as_http *h = as_calloc(1, sizeof(*h));
    if (!h) {
        MHD_stop_daemon(d);
        return SLINKY_ENOMEM;
    }
    h->d = d;
    *out = h;
    return 0;
}

void as_http_stop(as_http *h, as_server *s)
{
    if (!h)
        return;
    pthread_mutex_lock(&s->lock);
    s->shutting_down = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    MHD_stop_daemon(h->d);
    free(h);
}
