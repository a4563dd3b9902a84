/* GET and LIST (consistent pages from the event history, Table output). */
#include "verbs.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* GET                                                                */
/* ------------------------------------------------------------------ */

int as_do_get(hctx *h)
{
    as_obj *o = as_store_get(h->rt, h->ns, h->route->name);
    if (!o)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    if (h->route->sub && strcmp(h->route->sub, "scale") == 0) {
        slinky_doc *d = NULL, *sd = NULL;
        if (as_obj_doc(&d, o) || as_scale_doc(&sd, h->ver, slinky_doc_root(d))) {
            slinky_doc_free(d);
            return as_resp_status(h->resp, 500, "InternalError", "scale failed", NULL);
        }
        as_resp_doc(h->resp, 200, slinky_doc_root(sd));
        slinky_doc_free(sd);
        slinky_doc_free(d);
        return 0;
    }
    if (as_wants_table(h->req)) {
        as_buf_clear(&h->resp->body);
        h->resp->status = 200;
        h->resp->content_type = "application/json";
        char meta[64];
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\"}",
                 (unsigned long long)o->rv);
        return as_table_render(&h->resp->body, h->s, h->rt, h->ver->name, as_table_full(h->req), &o, 1, meta);
    }
    return as_resp_json(h->resp, 200, o->json, o->json_len);
}

/* ------------------------------------------------------------------ */
/* LIST                                                               */
/* ------------------------------------------------------------------ */

/* continue tokens are URL-alphabet base64 */
static char *b64_decode(const char *s)
{
    char *out = NULL;
    return slinky_base64_decode(&out, NULL, s, 0) == 0 ? out : NULL;
}

typedef struct view_item {
    as_obj *obj; /* NULL = absent at that rv */
} view_item;

static int obj_cmp(const void *a, const void *b)
{
    const as_obj *x = *(as_obj *const *)a, *y = *(as_obj *const *)b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

/*
 * The objects of rt as they were at resourceVersion `at` (from the current
 * state undone by history events newer than `at`). Returns a new array of
 * borrowed pointers sorted by key; *n_out its length.
 */
static as_obj **view_at(as_server *s, as_rtype *rt, uint64_t at, size_t *n_out)
{
    size_t cap = rt->n_items + 16, n = 0;
    as_obj **v = as_malloc(cap * sizeof(*v));
    if (!v)
        return NULL;
    for (size_t i = 0; i < rt->n_items; i++)
        v[n++] = rt->items[i];
    for (uint64_t r = s->rv; r > at; r--) {
        const as_event *e = as_store_event(s, r);
        if (!e || e->rt != rt)
            continue;
        const as_obj *key = e->type == AS_EV_DELETED ? e->prev : e->obj;
        size_t j;
        for (j = 0; j < n; j++)
            if (v[j] && strcmp(v[j]->ns, key->ns) == 0 && strcmp(v[j]->name, key->name) == 0)
                break;
        if (j == n) {
            if (n == cap) {
                cap *= 2;
                as_obj **nv = realloc(v, cap * sizeof(*nv));
                if (!nv) {
                    free(v);
                    return NULL;
                }
                v = nv;
            }
            v[n++] = NULL;
        }
        v[j] = e->type == AS_EV_ADDED ? NULL : e->prev;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i])
            v[m++] = v[i];
    qsort(v, m, sizeof(*v), obj_cmp);
    *n_out = m;
    return v;
}

int as_do_list(hctx *h)
{
    as_server *s = h->s;
    as_filter f;
    if (as_filter_init(&f, h->req, h->ns, h->resp) != 0)
        return 400;
    /* limit: an int64; <= 0 means no limit; clamped to what a list can hold */
    long limit = 0;
    const char *ls = as_req_query(h->req, "limit");
    if (ls && *ls) {
        uint64_t l = 0;
        bool negative = *ls == '-';
        if (as_parse_uint(ls + negative, INT64_MAX, &l) != 0) {
            as_filter_dispose(&f);
            return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                                 "invalid limit \"%.64s\": must be an integer", ls);
        }
        if (!negative)
            limit = l > 100000000 ? 100000000 : (long)l;
    }
    const char *cont = as_req_query(h->req, "continue");
    uint64_t at = s->rv;
    char *start_ns = NULL, *start_name = NULL;
    if (cont && *cont) {
        char *tok = b64_decode(cont);
        unsigned long long rv = 0;
        int used = 0;
        if (!tok || sscanf(tok, "%llu/%n", &rv, &used) != 1 || !used) {
            free(tok);
            as_filter_dispose(&f);
            return as_resp_status(h->resp, 400, "BadRequest",
                                  "continue key is not valid: illegal base64 data", NULL);
        }
        const char *rest = tok + used;
        const char *sep = strchr(rest, '/');
        start_ns = as_strndup(rest, sep ? (size_t)(sep - rest) : strlen(rest));
        start_name = as_strdup(sep ? sep + 1 : "");
        free(tok);
        if (rv < as_store_oldest_rv(s) - 1 && rv != s->rv) {
            free(start_ns);
            free(start_name);
            as_filter_dispose(&f);
            return as_resp_status(
                h->resp, 410, "Expired",
                "The provided continue parameter is too old to display a consistent list "
                "result. You can start a new list without the continue parameter, or use the "
                "continue token in this response to retrieve the remainder of the results. "
                "Continuing with the provided token results in an inconsistent list - objects "
                "that were created, modified, or deleted between the time the first chunk was "
                "returned and now may show up in the list.",
                NULL);
        }
        at = rv;
    }
    const char *rvm = as_req_query(h->req, "resourceVersionMatch");
    const char *rvq = as_req_query(h->req, "resourceVersion");
    if (!(cont && *cont) && rvm && !strcmp(rvm, "Exact") && rvq && *rvq) {
        /* the list exactly as it was at that resourceVersion */
        bool ok = false;
        uint64_t rv = as_parse_rv(rvq, &ok);
        char msg[160];
        if (!ok || rv > s->rv || rv + 1 < as_store_oldest_rv(s)) {
            as_filter_dispose(&f);
            if (ok && rv > s->rv) {
                snprintf(msg, sizeof(msg), "Too large resource version: %llu, current: %llu",
                         (unsigned long long)rv, (unsigned long long)s->rv);
                return as_resp_status(h->resp, 504, "Timeout", msg, NULL);
            }
            snprintf(msg, sizeof(msg), "too old resource version: %s (%llu)", rvq,
                     (unsigned long long)(as_store_oldest_rv(s) - 1));
            return as_resp_status(h->resp, 410, "Expired", msg, NULL);
        }
        at = rv;
    }
    size_t n = 0;
    as_obj **view = at == s->rv ? NULL : view_at(s, h->rt, at, &n);
    as_obj **items = view ? view : h->rt->items;
    if (!view)
        n = h->rt->n_items;
    as_obj **sel = as_malloc((n ? n : 1) * sizeof(*sel));
    size_t ns_count = 0;
    bool more = false;
    size_t first = 0;
    if (start_ns) {
        /* items are sorted by (namespace, name): skip to the first after the token's key */
        size_t hi = n;
        while (first < hi) {
            size_t mid = first + (hi - first) / 2;
            int c = strcmp(items[mid]->ns, start_ns);
            if (c < 0 || (c == 0 && strcmp(items[mid]->name, start_name) <= 0))
                first = mid + 1;
            else
                hi = mid;
        }
    }
    for (size_t i = first; sel && i < n; i++) {
        as_obj *o = items[i];
        if (!as_filter_match(&f, o))
            continue;
        if (limit > 0 && ns_count == (size_t)limit) {
            more = true;
            break;
        }
        sel[ns_count++] = o;
    }
    char meta[512];
    char *tok = NULL;
    if (more && ns_count) {
        as_obj *last = sel[ns_count - 1];
        char *raw = as_sprintf("%llu/%s/%s", (unsigned long long)at, last->ns, last->name);
        tok = raw ? as_base64(raw, strlen(raw), true) : NULL;
        free(raw);
    }
    if (tok)
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\",\"continue\":\"%s\"}",
                 (unsigned long long)at, tok);
    else
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\"}", (unsigned long long)at);
    free(tok);
    as_resp *resp = h->resp;
    as_buf_clear(&resp->body);
    resp->status = 200;
    resp->content_type = "application/json";
    if (as_wants_table(h->req)) {
        as_table_render(&resp->body, s, h->rt, h->ver->name, as_table_full(h->req), sel, ns_count,
                        meta);
    } else if (sel) {
        /*
         * The envelope now; the items are streamed from their stored JSON
         * when the response is sent (http.c), after the lock is dropped: no
         * copy of the whole list, and writers wait only for the references.
         */
        as_buf *b = &resp->body;
        as_buf_printf(b, "{\"kind\":\"%s\",\"apiVersion\":\"", h->rt->list_kind);
        if (*h->rt->group)
            as_buf_printf(b, "%s/", h->rt->group);
        as_buf_printf(b, "%s\",\"metadata\":%s,\"items\":[", h->ver->name, meta);
        as_resp_items_release(resp);
        for (size_t i = 0; i < ns_count; i++)
            as_obj_ref(sel[i]);
        resp->items = sel;
        resp->n_items = ns_count;
        resp->list = true;
        sel = NULL;
    } else {
        as_resp_status(resp, 500, "InternalError", "out of memory", NULL);
    }
    free(sel);
    free(view);
    free(start_ns);
    free(start_name);
    as_filter_dispose(&f);
    return 0;
}

