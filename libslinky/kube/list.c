/*
 * kube: lists. Every page is decoded while it arrives (stream.c); items are
 * handed out one at a time. Paging follows continue tokens; a 410 on a
 * continue token restarts (iterator, full list) or is reported (stream).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define DEFAULT_LIMIT 500

/*
 * The transfer runs on a helper thread that queues the reply's chunks
 * (bounded by PIPE_MAX bytes); the calling thread parses them and runs the
 * item callbacks, so decoding overlaps with the transfer.
 */
#define PIPE_MAX (4u << 20)

typedef struct chunk {
    struct chunk *next;
    size_t len;
    char data[];
} chunk;

typedef struct pipe_ctx {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    chunk *head, *tail;
    size_t queued;
    bool done, abort;
    slinky_kube_client *c;
    slinky_kube__req req;
    slinky_kube__resp resp;
    int err, err_http;
    char err_msg[512];
} pipe_ctx;

static int pipe_sink(const char *data, size_t len, void *p)
{
    pipe_ctx *pc = p;
    chunk *ch = malloc(sizeof(*ch) + len);
    if (ch == NULL)
        return slinky__error_oom();
    ch->next = NULL;
    ch->len = len;
    memcpy(ch->data, data, len);
    pthread_mutex_lock(&pc->lock);
    while (pc->queued > PIPE_MAX && !pc->abort)
        pthread_cond_wait(&pc->cond, &pc->lock);
    if (pc->abort) {
        pthread_mutex_unlock(&pc->lock);
        free(ch);
        return slinky__error_set(SLINKY_ECANCELED, "list stopped");
    }
    if (pc->tail)
        pc->tail->next = ch;
    else
        pc->head = ch;
    pc->tail = ch;
    pc->queued += len;
    pthread_cond_broadcast(&pc->cond);
    pthread_mutex_unlock(&pc->lock);
    return 0;
}

static void *pipe_transfer(void *p)
{
    pipe_ctx *pc = p;
    int err = slinky_kube__do(&pc->resp, pc->c, &pc->req);
    pthread_mutex_lock(&pc->lock);
    pc->err = err;
    if (err) {
        pc->err_http = slinky_error_last()->http_status;
        snprintf(pc->err_msg, sizeof(pc->err_msg), "%s", slinky_error_last()->message);
    }
    pc->done = true;
    pthread_cond_broadcast(&pc->cond);
    pthread_mutex_unlock(&pc->lock);
    return NULL;
}

/* Run req on a helper thread, feeding 2xx body bytes to the stream parser here. */
static int pipe_run(slinky_kube__resp *resp, slinky_kube_client *c, slinky_kube__req *req,
                    slinky_kube__stream *s)
{
    pipe_ctx pc;
    memset(&pc, 0, sizeof(pc));
    pthread_mutex_init(&pc.lock, NULL);
    pthread_cond_init(&pc.cond, NULL);
    pc.c = c;
    pc.req = *req;
    pc.req.sink = pipe_sink;
    pc.req.sink_payload = &pc;
    pc.req.sink_reset = NULL; /* bytes already parsed cannot be replayed */
    pthread_t t;
    int perr = 0;
    if (pthread_create(&t, NULL, pipe_transfer, &pc) != 0) {
        pthread_mutex_destroy(&pc.lock);
        pthread_cond_destroy(&pc.cond);
        return slinky__error_set(SLINKY_ERROR, "list: cannot start the transfer thread");
    }
    for (;;) {
        pthread_mutex_lock(&pc.lock);
        while (pc.head == NULL && !pc.done)
            pthread_cond_wait(&pc.cond, &pc.lock);
        chunk *ch = pc.head;
        if (ch) {
            pc.head = ch->next;
            if (pc.head == NULL)
                pc.tail = NULL;
            pc.queued -= ch->len;
            pthread_cond_broadcast(&pc.cond);
        }
        pthread_mutex_unlock(&pc.lock);
        if (ch == NULL)
            break; /* done and drained */
        if (perr == 0) {
            perr = slinky_kube__stream_feed(s, ch->data, ch->len);
            if (perr) {
                pthread_mutex_lock(&pc.lock);
                pc.abort = true;
                pthread_cond_broadcast(&pc.cond);
                pthread_mutex_unlock(&pc.lock);
            }
        }
        free(ch);
    }
    pthread_join(t, NULL);
    pthread_mutex_destroy(&pc.lock);
    pthread_cond_destroy(&pc.cond);
    *resp = pc.resp;
    if (perr) {
        slinky_kube__resp_dispose(resp);
        return perr; /* error set on this thread by the parser or callback */
    }
    if (pc.err)
        return slinky__error_set_http(pc.err, pc.err_http, "%s", pc.err_msg);
    return 0;
}

int slinky_kube__list_page(char **rv_out, char **continue_out, slinky_kube_client *c,
                           const slinky_kube_resource *r, const char *ns,
                           const slinky_kube_list_options *o, const char *cont,
                           slinky_kube_item_cb cb, void *payload, size_t *nitems_out)
{
    char *path = NULL;
    int err = slinky_kube_path(&path, r, ns, NULL, NULL);
    if (err)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    bool first = true;
    slinky__buf_puts(&b, path);
    slinky_free(path);
    long limit = (o && o->limit) ? o->limit : DEFAULT_LIMIT;
    if (o) {
        slinky_kube__query_add(&b, &first, "labelSelector", o->label_selector);
        slinky_kube__query_add(&b, &first, "fieldSelector", o->field_selector);
    }
    if (limit > 0)
        slinky_kube__query_add_long(&b, &first, "limit", limit);
    slinky_kube__query_add(&b, &first, "continue", cont);
    if (o && cont == NULL) {
        slinky_kube__query_add(&b, &first, "resourceVersion", o->resource_version);
        slinky_kube__query_add(&b, &first, "resourceVersionMatch", o->resource_version_match);
    }
    if (o && o->timeout_seconds > 0)
        slinky_kube__query_add_long(&b, &first, "timeoutSeconds", o->timeout_seconds);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    struct {
        slinky_kube__stream s;
    } pc;
    memset(&pc, 0, sizeof(pc));
    err = slinky_kube__stream_begin(&pc.s, SLINKY_KUBE__STREAM_LIST, cb, payload);
    if (err) {
        slinky__buf_dispose(&b);
        return err;
    }
    slinky_kube__req req = {"GET", b.data, NULL, NULL, 0, NULL, NULL, NULL, true, false};
    slinky_kube__resp resp;
    err = pipe_run(&resp, c, &req, &pc.s);
    if (err == 0 && (resp.status < 200 || resp.status >= 300))
        err = slinky_kube__status_error(resp.status, resp.body, resp.body_len, resp.retry_after);
    if (err == 0)
        err = slinky_kube__stream_end(&pc.s);
    if (err == 0) {
        const slinky_doc_value *meta = pc.s.meta ? slinky_doc_root(pc.s.meta) : NULL;
        const char *rv = slinky_doc_value_path_string(meta, "resourceVersion", "");
        const char *ct = slinky_doc_value_path_string(meta, "continue", "");
        char *rvc = slinky__strdup(rv);
        char *ctc = *ct ? slinky__strdup(ct) : NULL;
        if (rvc == NULL || (*ct && ctc == NULL)) {
            free(rvc);
            free(ctc);
            err = SLINKY_ENOMEM;
        } else {
            if (rv_out)
                *rv_out = rvc;
            else
                free(rvc);
            *continue_out = ctc;
        }
    } else if (err != SLINKY_EGONE && pc.s.err == 0 && resp.status == 0) {
        slinky__error_prefix("list %s: ", r->resource);
    }
    if (nitems_out)
        *nitems_out = pc.s.nitems;
    slinky_kube__resp_dispose(&resp);
    slinky_kube__stream_dispose(&pc.s);
    slinky__buf_dispose(&b);
    return err;
}

static int check_list_args(slinky_kube_client *c, const slinky_kube_resource *r,
                           const slinky_kube_list_options *o)
{
    if (c == NULL || r == NULL)
        return slinky__error_set(SLINKY_EINVALID, "list: NULL argument");
    if (o && o->version != SLINKY_KUBE_LIST_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "list options: unknown version %u", o->version);
    return 0;
}

slinky_status slinky_kube_list_stream(char **resource_version_out, slinky_kube_client *c,
                                      const slinky_kube_resource *r, const char *ns,
                                      const slinky_kube_list_options *o, slinky_kube_item_cb cb,
                                      void *payload)
{
    int err = check_list_args(c, r, o);
    if (err)
        return err;
    if (cb == NULL)
        return slinky__error_set(SLINKY_EINVALID, "list_stream: NULL callback");
    char *cont = NULL, *rv = NULL;
    for (;;) {
        char *next = NULL, *prv = NULL;
        err = slinky_kube__list_page(&prv, &next, c, r, ns, o, cont, cb, payload, NULL);
        free(cont);
        cont = NULL;
        if (err)
            break;
        if (rv == NULL)
            rv = prv;
        else
            free(prv);
        if (next == NULL)
            break;
        cont = next;
    }
    if (err) {
        free(rv);
        return err;
    }
    if (resource_version_out)
        *resource_version_out = rv;
    else
        free(rv);
    return 0;
}

/* ---------------------------------------------------------------- collected pages */

typedef struct collect {
    slinky_doc **items;
    size_t n, cap;
} collect;

static int collect_cb(slinky_doc *item, void *p)
{
    collect *cl = p;
    if (slinky__array_room(&cl->items, &cl->cap, cl->n, sizeof(*cl->items), 64)) {
        slinky_doc_free(item);
        return SLINKY_ENOMEM;
    }
    cl->items[cl->n++] = item;
    return 0;
}

static void collect_clear(collect *cl)
{
    for (size_t i = 0; i < cl->n; i++)
        slinky_doc_free(cl->items[i]);
    cl->n = 0;
}

/* One page into cl, retrying transport failures of the page as a whole. */
static int collect_page(collect *cl, char **rv, char **next, slinky_kube_client *c,
                        const slinky_kube_resource *r, const char *ns,
                        const slinky_kube_list_options *o, const char *cont)
{
    size_t start = cl->n;
    for (int attempt = 0;; attempt++) {
        int err = slinky_kube__list_page(rv, next, c, r, ns, o, cont, collect_cb, cl, NULL);
        if (err == 0)
            return 0;
        for (size_t i = start; i < cl->n; i++)
            slinky_doc_free(cl->items[i]);
        cl->n = start;
        if ((err != SLINKY_EHTTP && err != SLINKY_ETIMEOUT) || slinky_kube_status_last()->http_status ||
            attempt >= c->max_retries)
            return err;
        slinky_kube__sleep_ms(slinky_kube__backoff_ms(c, attempt));
    }
}

/* The continue-token walk shared by slinky_kube_list and the iterator. */
typedef struct pager {
    char *cont; /* token for the next page; NULL after the last one */
    char *rv;   /* resourceVersion of the list (its first page) */
    bool started;
    unsigned restarts;
} pager;

static void pager_dispose(pager *pg)
{
    free(pg->cont);
    free(pg->rv);
    memset(pg, 0, sizeof(*pg));
}

/*
 * Append the next page to cl: 0, SLINKY_ITEROVER once the last page has been fetched, or
 * an error. An expired continue token (410) starts the whole list again, at most 3 times,
 * with cl emptied first.
 */
static int pager_next(pager *pg, collect *cl, slinky_kube_client *c,
                      const slinky_kube_resource *r, const char *ns,
                      const slinky_kube_list_options *o)
{
    for (;;) {
        if (pg->started && pg->cont == NULL)
            return SLINKY_ITEROVER;
        char *next = NULL, *rv = NULL;
        int err = collect_page(cl, &rv, &next, c, r, ns, o, pg->cont);
        if (err == SLINKY_EGONE && pg->cont != NULL && pg->restarts < 3) {
            pg->restarts++;
            free(pg->cont);
            pg->cont = NULL;
            pg->started = false;
            free(pg->rv);
            pg->rv = NULL;
            collect_clear(cl);
            continue;
        }
        if (err)
            return err;
        free(pg->cont);
        pg->cont = next;
        if (!pg->started) {
            free(pg->rv);
            pg->rv = rv;
        } else {
            free(rv);
        }
        pg->started = true;
        return 0;
    }
}

slinky_status slinky_kube_list(slinky_doc **out, slinky_kube_client *c,
                               const slinky_kube_resource *r, const char *ns,
                               const slinky_kube_list_options *o)
{
    int err = check_list_args(c, r, o);
    if (err)
        return err;
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "list: NULL out");
    collect cl = {0};
    pager pg = {0};
    while ((err = pager_next(&pg, &cl, c, r, ns, o)) == 0)
        ;
    if (err == SLINKY_ITEROVER)
        err = 0;
    const char *rv = pg.rv;
    slinky_doc *d = NULL;
    if (err == 0)
        err = slinky_doc_new(&d);
    if (err == 0) {
        slinky_doc_value *root = slinky_doc_root(d), *meta = NULL, *items = NULL;
        err = slinky_doc_value_set_object(root);
        if (err == 0)
            err = slinky_doc_value_object_set_string(root, "apiVersion", "v1");
        if (err == 0)
            err = slinky_doc_value_object_set_string(root, "kind", "List");
        if (err == 0)
            err = slinky_doc_value_object_put(&meta, root, "metadata");
        if (err == 0)
            err = slinky_doc_value_set_object(meta);
        if (err == 0)
            err = slinky_doc_value_object_set_string(meta, "resourceVersion", rv ? rv : "");
        if (err == 0)
            err = slinky_doc_value_object_put(&items, root, "items");
        if (err == 0)
            err = slinky_doc_value_set_array(items);
        for (size_t i = 0; err == 0 && i < cl.n; i++) {
            slinky_doc_value *e;
            err = slinky_doc_value_array_append(&e, items);
            if (err == 0)
                err = slinky_doc_value_set_copy(e, slinky_doc_root(cl.items[i]));
        }
    }
    collect_clear(&cl);
    free(cl.items);
    pager_dispose(&pg);
    if (err) {
        slinky_doc_free(d);
        return err;
    }
    *out = d;
    return 0;
}

/* ---------------------------------------------------------------- iterator */

struct slinky_kube_list_iter {
    slinky_kube_client *c;
    slinky_kube_resource r;
    char *group, *version, *resource, *ns;
    slinky_kube_list_options o;
    char *label_selector, *field_selector, *resource_version, *rv_match;
    collect page;
    size_t pos;
    pager pg;
    bool done;
};

void slinky_kube_list_iter_free(slinky_kube_list_iter *it)
{
    if (it == NULL)
        return;
    collect_clear(&it->page);
    free(it->page.items);
    free(it->group);
    free(it->version);
    free(it->resource);
    free(it->ns);
    free(it->label_selector);
    free(it->field_selector);
    free(it->resource_version);
    free(it->rv_match);
    pager_dispose(&it->pg);
    free(it);
}

static int dup_opt(char **dst, const char *s)
{
    if (s == NULL)
        return 0;
    *dst = slinky__strdup(s);
    return *dst ? 0 : SLINKY_ENOMEM;
}

slinky_status slinky_kube_list_iter_new(slinky_kube_list_iter **out, slinky_kube_client *c,
                                        const slinky_kube_resource *r, const char *ns,
                                        const slinky_kube_list_options *o)
{
    int err = check_list_args(c, r, o);
    if (err)
        return err;
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "list_iter_new: NULL out");
    slinky_kube_list_iter *it = slinky__calloc(1, sizeof(*it));
    if (it == NULL)
        return SLINKY_ENOMEM;
    it->c = c;
    it->o.version = SLINKY_KUBE_LIST_OPTIONS_VERSION;
    if ((err = dup_opt(&it->group, r->group ? r->group : "")) || (err = dup_opt(&it->version, r->version)) ||
        (err = dup_opt(&it->resource, r->resource)) || (err = dup_opt(&it->ns, ns))) {
        slinky_kube_list_iter_free(it);
        return err;
    }
    if (o) {
        it->o = *o;
        if ((err = dup_opt(&it->label_selector, o->label_selector)) ||
            (err = dup_opt(&it->field_selector, o->field_selector)) ||
            (err = dup_opt(&it->resource_version, o->resource_version)) ||
            (err = dup_opt(&it->rv_match, o->resource_version_match))) {
            slinky_kube_list_iter_free(it);
            return err;
        }
        it->o.label_selector = it->label_selector;
        it->o.field_selector = it->field_selector;
        it->o.resource_version = it->resource_version;
        it->o.resource_version_match = it->rv_match;
    }
    it->r.group = it->group;
    it->r.version = it->version;
    it->r.resource = it->resource;
    it->r.namespaced = r->namespaced;
    *out = it;
    return 0;
}

slinky_status slinky_kube_list_iter_next(const slinky_doc_value **out, slinky_kube_list_iter *it)
{
    if (out == NULL || it == NULL)
        return slinky__error_set(SLINKY_EINVALID, "list_iter_next: NULL argument");
    while (it->pos >= it->page.n) {
        if (it->done)
            return SLINKY_ITEROVER;
        collect_clear(&it->page);
        it->pos = 0;
        int err = pager_next(&it->pg, &it->page, it->c, &it->r, it->ns, &it->o);
        if (err == SLINKY_ITEROVER)
            it->done = true;
        if (err)
            return err;
    }
    *out = slinky_doc_root(it->page.items[it->pos++]);
    return 0;
}

const char *slinky_kube_list_iter_resource_version(const slinky_kube_list_iter *it)
{
    return (it && it->pg.rv) ? it->pg.rv : "";
}

unsigned slinky_kube_list_iter_restarts(const slinky_kube_list_iter *it)
{
    return it ? it->pg.restarts : 0;
}
