/* The watch stream (newline-delimited JSON events). */
#include "verbs.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>


/* ------------------------------------------------------------------ */
/* watch                                                              */
/* ------------------------------------------------------------------ */

struct as_watch {
    as_server *s;
    as_rtype *rt;
    char *gv;
    char *version;
    char *ns; /* the filter's namespace (the route's storage is gone later) */
    as_filter f;
    uint64_t next_rv;
    as_buf pending;
    size_t off;
    bool bookmarks;
    bool table;
    bool table_full; /* includeObject=Object */
    bool done;
    bool end_after_pending;
    struct timespec deadline;
    struct timespec last_send;
    unsigned events;
    unsigned close_after;
    int fd;
};

static void now_mono(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

static long ms_until(const struct timespec *t)
{
    struct timespec n;
    now_mono(&n);
    return (t->tv_sec - n.tv_sec) * 1000 + (t->tv_nsec - n.tv_nsec) / 1000000;
}

static void add_ms(struct timespec *t, long ms)
{
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000;
    if (t->tv_nsec >= 1000000000) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000;
    }
}

static void queue_event(as_watch *w, const char *type, const as_obj *o)
{
    as_buf_printf(&w->pending, "{\"type\":\"%s\",\"object\":", type);
    if (w->table) {
        as_obj *one = (as_obj *)o;
        as_table_render(&w->pending, w->s, w->rt, w->version, w->table_full, &one, 1, NULL);
    } else {
        as_buf_put(&w->pending, o->json, o->json_len);
    }
    as_buf_puts(&w->pending, "}\n");
    w->events++;
}

static void queue_bookmark(as_watch *w, uint64_t rv, bool initial_end)
{
    as_buf_printf(&w->pending,
                       "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\","
                       "\"metadata\":{\"resourceVersion\":\"%llu\"%s}}}\n",
                       w->rt->kind, w->gv, (unsigned long long)rv,
                       initial_end ? ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}"
                                   : "");
}

static void queue_gone(as_watch *w, uint64_t rv, uint64_t oldest)
{
    as_buf_printf(&w->pending,
                       "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                       "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource "
                       "version: %llu (%llu)\",\"reason\":\"Expired\",\"code\":410}}\n",
                       (unsigned long long)rv, (unsigned long long)(oldest ? oldest - 1 : 0));
    w->end_after_pending = true;
}

void as_watch_free(as_watch *w)
{
    if (!w)
        return;
    as_filter_dispose(&w->f);
    as_buf_dispose(&w->pending);
    free(w->gv);
    free(w->version);
    free(w->ns);
    free(w);
}

void as_watch_set_fd(as_watch *w, int fd)
{
    w->fd = fd;
}

void as_watch_fault(as_watch *w, unsigned close_after, bool send_410)
{
    w->close_after = close_after;
    if (close_after && !send_410) {
        /* initial events count too */
        size_t lines = 0;
        for (size_t i = w->off; i < w->pending.len; i++) {
            if (w->pending.data[i] == '\n' && ++lines == close_after) {
                w->pending.len = i + 1;
                w->pending.data[i + 1] = '\0';
                w->end_after_pending = true;
                break;
            }
        }
    }
    if (send_410) {
        as_buf_clear(&w->pending);
        w->off = 0;
        queue_gone(w, w->next_rv ? w->next_rv - 1 : 0, w->next_rv);
    }
}

int as_watch_start(as_server *s, const as_req *req, as_resp *resp, as_rtype *rt,
                   const as_route *route)
{
    as_watch *w = as_calloc(1, sizeof(*w));
    if (!w)
        return as_resp_status(resp, 500, "InternalError", "out of memory", NULL);
    w->s = s;
    w->rt = rt;
    w->fd = -1;
    w->gv = *rt->group ? as_sprintf("%s/%s", rt->group, route->version)
                       : as_strdup(route->version);
    w->version = as_strdup(route->version);
    w->ns = rt->namespaced && route->ns ? as_strdup(route->ns) : NULL;
    if (as_filter_init(&w->f, req, w->ns, resp) != 0) {
        free(w->gv);
        free(w->version);
        free(w->ns);
        free(w);
        return 400;
    }
    bool b = false;
    const char *v = as_req_query(req, "allowWatchBookmarks");
    w->bookmarks = v && as_parse_bool(&b, v) == 0 && b;
    w->table = as_wants_table(req);
    w->table_full = as_table_full(req);
    /* timeoutSeconds: a non-negative int64 (400 otherwise), 0 = default, at most an hour */
    const char *ts = as_req_query(req, "timeoutSeconds");
    uint64_t timeout = 1800;
    if (ts && *ts && as_parse_uint(ts, INT64_MAX, &timeout) != 0) {
        as_watch_free(w);
        return as_resp_error(resp, NULL, 400, "BadRequest", NULL,
                             "invalid timeoutSeconds \"%.64s\": must be a non-negative integer",
                             ts);
    }
    if (timeout == 0)
        timeout = 1800;
    if (timeout > 3600)
        timeout = 3600;
    now_mono(&w->deadline);
    add_ms(&w->deadline, (long)timeout * 1000);
    now_mono(&w->last_send);
    const char *rvs = as_req_query(req, "resourceVersion");
    v = as_req_query(req, "sendInitialEvents");
    bool initial = v && as_parse_bool(&b, v) == 0 && b;
    if (!rvs || !*rvs || strcmp(rvs, "0") == 0 || initial) {
        for (size_t i = 0; i < rt->n_items; i++)
            if (as_filter_match(&w->f, rt->items[i]))
                queue_event(w, "ADDED", rt->items[i]);
        w->next_rv = s->rv + 1;
        if (initial && w->bookmarks)
            queue_bookmark(w, s->rv, true);
    } else {
        uint64_t rv = 0;
        if (as_parse_uint(rvs, UINT64_MAX - 1, &rv) != 0) {
            as_watch_free(w);
            return as_resp_status(resp, 400, "BadRequest", "invalid resource version", NULL);
        }
        uint64_t oldest = as_store_oldest_rv(s);
        if (rv + 1 < oldest) {
            queue_gone(w, rv, oldest);
            w->next_rv = s->rv + 1;
        } else {
            w->next_rv = rv < s->rv ? rv + 1 : s->rv + 1;
        }
    }
    resp->status = 200;
    resp->content_type = "application/json";
    resp->watch = w;
    return 0;
}

/* gather events (lock held); true when something was queued */
static bool gather(as_watch *w)
{
    as_server *s = w->s;
    bool any = w->pending.len > w->off;
    while (w->next_rv <= s->rv && !w->end_after_pending) {
        const as_event *e = as_store_event(s, w->next_rv);
        if (!e) {
            uint64_t oldest = as_store_oldest_rv(s);
            if (w->next_rv < oldest) {
                queue_gone(w, w->next_rv - 1, oldest);
                return true;
            }
            w->next_rv++;
            continue;
        }
        w->next_rv++;
        if (e->rt != w->rt)
            continue;
        bool now = e->type != AS_EV_DELETED && as_filter_match(&w->f, e->obj);
        bool before = e->prev && as_filter_match(&w->f, e->prev);
        const char *type = NULL;
        if (e->type == AS_EV_DELETED)
            type = before ? "DELETED" : NULL;
        else if (now && before)
            type = "MODIFIED";
        else if (now)
            type = "ADDED";
        else if (before)
            type = "DELETED";
        if (!type)
            continue;
        queue_event(w, type, e->obj);
        any = true;
        if (w->close_after && w->events >= w->close_after) {
            w->end_after_pending = true;
            break;
        }
    }
    return any;
}

static bool peer_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

long as_watch_read(as_watch *w, char *buf, size_t max)
{
    as_server *s = w->s;
    for (;;) {
        if (w->pending.len > w->off) {
            size_t n = w->pending.len - w->off;
            if (n > max)
                n = max;
            memcpy(buf, w->pending.data + w->off, n);
            w->off += n;
            if (w->off == w->pending.len) {
                as_buf_clear(&w->pending);
                w->off = 0;
            }
            now_mono(&w->last_send);
            return (long)n;
        }
        if (w->done || w->end_after_pending)
            return -1;
        pthread_mutex_lock(&s->lock);
        for (;;) {
            if (s->shutting_down) {
                w->done = true;
                break;
            }
            if (gather(w))
                break;
            long left = ms_until(&w->deadline);
            if (left <= 0) {
                w->done = true;
                break;
            }
            long wait = left;
            if (w->bookmarks) {
                struct timespec due = w->last_send;
                add_ms(&due, s->bookmark_interval_ms);
                long b = ms_until(&due);
                if (b <= 0) {
                    queue_bookmark(w, s->rv, false);
                    break;
                }
                if (b < wait)
                    wait = b;
            }
            if (wait > 1000)
                wait = 1000;
            struct timespec until;
            now_mono(&until);
            add_ms(&until, wait);
            pthread_cond_timedwait(&s->cond, &s->lock, &until);
            if (peer_gone(w->fd)) {
                w->done = true;
                break;
            }
        }
        pthread_mutex_unlock(&s->lock);
        if (w->done && w->pending.len <= w->off)
            return -1;
    }
}
