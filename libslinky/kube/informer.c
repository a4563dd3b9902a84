/*
 * kube: informers. A thread lists, then watches from the list's
 * resourceVersion (with bookmarks), relists on 410 and backs off on errors.
 * The cache and its indexes: informer_cache.c; the readers: informer_read.c.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "informer_internal.h"


SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_informer_options, SLINKY_KUBE_INFORMER_OPTIONS_VERSION)

static int dup_opt(char **dst, const char *s)
{
    if (s == NULL)
        return 0;
    *dst = slinky__strdup(s);
    return *dst ? 0 : SLINKY_ENOMEM;
}

static void free_doc(void *d)
{
    slinky_doc_free(d);
}


slinky_status slinky_kube_informer_new(slinky_kube_informer **out, slinky_kube_client *c,
                                       const slinky_kube_resource *r, const char *ns,
                                       const slinky_kube_informer_options *o)
{
    if (out == NULL || c == NULL || r == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_new: NULL argument");
    if (o && o->version != SLINKY_KUBE_INFORMER_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "informer options: unknown version %u", o->version);
    slinky_kube_informer *inf = slinky__calloc(1, sizeof(*inf));
    if (inf == NULL)
        return SLINKY_ENOMEM;
    inf->c = c;
    pthread_rwlock_init(&inf->cache_lock, NULL);
    pthread_mutex_init(&inf->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&inf->cond, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&inf->stop, false);
    atomic_init(&inf->kicked, false);
    int err;
    if ((err = dup_opt(&inf->group, r->group ? r->group : "")) || (err = dup_opt(&inf->version, r->version)) ||
        (err = dup_opt(&inf->resource, r->resource)) || (err = dup_opt(&inf->ns, ns ? ns : "")) ||
        (err = dup_opt(&inf->label_selector, o ? o->label_selector : NULL)) ||
        (err = dup_opt(&inf->field_selector, o ? o->field_selector : NULL)) ||
        (err = dup_opt(&inf->rv, ""))) {
        slinky_kube_informer_free(inf);
        return err;
    }
    inf->r.group = inf->group;
    inf->r.version = inf->version;
    inf->r.resource = inf->resource;
    inf->r.namespaced = r->namespaced;
    inf->watch_timeout = (o && o->watch_timeout_seconds > 0) ? o->watch_timeout_seconds : 300;
    inf->list_limit = (o && o->list_limit) ? o->list_limit : 500;
    *out = inf;
    return 0;
}

slinky_status slinky_kube_informer_add_handlers(slinky_kube_informer *inf,
                                                const slinky_kube_informer_handlers *h)
{
    if (inf == NULL || h == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_add_handlers: NULL argument");
    if (h->version != SLINKY_KUBE_INFORMER_HANDLERS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "informer handlers: unknown version %u",
                                 h->version);
    if (inf->running)
        return slinky__error_set(SLINKY_EINVALID, "informer_add_handlers: informer already started");
    slinky_kube_informer_handlers *n =
        slinky__realloc(inf->handlers, (inf->nhandlers + 1) * sizeof(*n));
    if (n == NULL)
        return SLINKY_ENOMEM;
    inf->handlers = n;
    n[inf->nhandlers++] = *h;
    return 0;
}

/* ---------------------------------------------------------------- list + watch */

typedef struct relist {
    slinky_kube_informer *inf;
    slinky_kube__map seen;
} relist;

static int relist_item(slinky_doc *item, void *p)
{
    relist *rl = p;
    char *key = NULL;
    if (slinky_kube_object_key(&key, slinky_doc_root(item)) == 0) {
        slinky_kube__map_put(&rl->seen, key, (void *)1, NULL);
        free(key);
    }
    slinky_kube__informer_upsert(rl->inf, item);
    return 0;
}

typedef struct keylist {
    char **keys;
    size_t n, cap;
    const slinky_kube__map *seen;
} keylist;

static void collect_gone(const char *key, void *value, void *p)
{
    (void)value;
    keylist *kl = p;
    if (slinky_kube__map_get(kl->seen, key))
        return;
    if (kl->n == kl->cap) {
        size_t n = kl->cap ? kl->cap * 2 : 16;
        char **a = realloc(kl->keys, n * sizeof(*a));
        if (a == NULL)
            return;
        kl->keys = a;
        kl->cap = n;
    }
    kl->keys[kl->n] = strdup(key);
    if (kl->keys[kl->n])
        kl->n++;
}

static bool wait_stop(slinky_kube_informer *inf, long ms)
{
    struct timespec ts;
    slinky_kube__abstime(&ts, ms);
    pthread_mutex_lock(&inf->lock);
    while (!atomic_load(&inf->stop)) {
        if (pthread_cond_timedwait(&inf->cond, &inf->lock, &ts) != 0)
            break;
    }
    pthread_mutex_unlock(&inf->lock);
    return atomic_load(&inf->stop);
}

static int do_list(slinky_kube_informer *inf)
{
    slinky_kube_list_options lo = {SLINKY_KUBE_LIST_OPTIONS_VERSION};
    lo.label_selector = inf->label_selector;
    lo.field_selector = inf->field_selector;
    lo.limit = inf->list_limit;
    relist rl = {inf, {0}};
    char *rv = NULL;
    /* Items are applied as they arrive; a failure half way leaves a cache
     * that is still a set of real objects, and the next list fixes it. */
    int err = slinky_kube_list_stream(&rv, inf->c, &inf->r, inf->ns, &lo, relist_item, &rl);
    if (err == 0) {
        keylist kl = {NULL, 0, 0, &rl.seen};
        pthread_rwlock_rdlock(&inf->cache_lock);
        slinky_kube__map_foreach(&inf->cache, collect_gone, &kl);
        pthread_rwlock_unlock(&inf->cache_lock);
        for (size_t i = 0; i < kl.n; i++) {
            slinky_doc *old = slinky_kube__informer_cache_remove(inf, kl.keys[i]);
            if (old) {
                slinky_kube__informer_emit_delete(inf, slinky_doc_root(old));
                slinky_doc_free(old);
            }
            free(kl.keys[i]);
        }
        free(kl.keys);
        slinky_kube__informer_set_rv(inf, rv);
        pthread_mutex_lock(&inf->lock);
        inf->lists++;
        inf->synced = true;
        pthread_cond_broadcast(&inf->cond);
        pthread_mutex_unlock(&inf->lock);
    }
    free(rv);
    slinky_kube__map_dispose(&rl.seen, NULL);
    return err;
}

static void *informer_main(void *p)
{
    slinky_kube_informer *inf = p;
    int attempt = 0;
    bool need_list = true;
    while (!atomic_load(&inf->stop)) {
        int err = 0;
        if (need_list && (err = do_list(inf)) != 0) {
            slinky__log(SLINKY_LOG_WARNING, "kube", "informer %s: list failed: %s", inf->resource,
                        slinky_error_last()->message);
            if (wait_stop(inf, slinky_kube__backoff_ms(inf->c, attempt++)))
                break;
            continue;
        }
        attempt = 0;
        need_list = true;
        char *rv = NULL;
        slinky_kube_informer_resource_version(&rv, inf);
        slinky_kube_watch_options wo = {SLINKY_KUBE_WATCH_OPTIONS_VERSION};
        wo.label_selector = inf->label_selector;
        wo.field_selector = inf->field_selector;
        wo.resource_version = rv;
        wo.timeout_seconds = inf->watch_timeout;
        slinky_kube_watch *w = NULL;
        err = slinky_kube_watch_new(&w, inf->c, &inf->r, inf->ns, &wo);
        free(rv);
        if (err) {
            if (wait_stop(inf, 1000))
                break;
            continue;
        }
        pthread_mutex_lock(&inf->lock);
        inf->watch = w;
        bool stopping = atomic_load(&inf->stop);
        pthread_mutex_unlock(&inf->lock);
        int errors = 0;
        while (!stopping) {
            slinky_kube_event_type t;
            slinky_doc *obj = NULL;
            err = slinky_kube_watch_next(&t, &obj, w, -1);
            if (err == SLINKY_ECANCELED && !atomic_load(&inf->stop) &&
                atomic_exchange(&inf->kicked, false)) {
                need_list = false; /* reopen from the current resourceVersion */
                break;
            }
            if (err == SLINKY_ECANCELED || atomic_load(&inf->stop)) {
                if (err == 0)
                    slinky_doc_free(obj);
                break;
            }
            if (err == SLINKY_EGONE)
                break; /* relist */
            if (err) {
                slinky__log(SLINKY_LOG_WARNING, "kube", "informer %s: watch: %s", inf->resource,
                            slinky_error_last()->message);
                if (++errors > 5)
                    break; /* relist after persistent failures */
                continue;
            }
            errors = 0;
            switch (t) {
            case SLINKY_KUBE_EVENT_ADDED:
            case SLINKY_KUBE_EVENT_MODIFIED:
                slinky_kube__informer_set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
                slinky_kube__informer_upsert(inf, obj);
                break;
            case SLINKY_KUBE_EVENT_DELETED:
                slinky_kube__informer_set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
                slinky_kube__informer_remove(inf, obj);
                break;
            case SLINKY_KUBE_EVENT_BOOKMARK:
                slinky_kube__informer_set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
                slinky_doc_free(obj);
                break;
            default:
                slinky_doc_free(obj);
            }
        }
        pthread_mutex_lock(&inf->lock);
        inf->watch = NULL;
        pthread_mutex_unlock(&inf->lock);
        slinky_kube_watch_free(w);
    }
    return NULL;
}

void slinky_kube__informer_kick(slinky_kube_informer *inf)
{
    pthread_mutex_lock(&inf->lock);
    if (inf->watch) {
        atomic_store(&inf->kicked, true);
        slinky_kube_watch_stop(inf->watch);
    }
    pthread_mutex_unlock(&inf->lock);
}

slinky_status slinky_kube_informer_start(slinky_kube_informer *inf)
{
    if (inf == NULL || inf->running)
        return slinky__error_set(SLINKY_EINVALID, "informer_start: NULL or already started");
    atomic_store(&inf->stop, false);
    if (pthread_create(&inf->thread, NULL, informer_main, inf) != 0)
        return slinky__error_set(SLINKY_ERROR, "informer: cannot start its thread");
    inf->running = true;
    return 0;
}

void slinky_kube_informer_stop(slinky_kube_informer *inf)
{
    if (inf == NULL || !inf->running)
        return;
    pthread_mutex_lock(&inf->lock);
    atomic_store(&inf->stop, true);
    if (inf->watch)
        slinky_kube_watch_stop(inf->watch);
    pthread_cond_broadcast(&inf->cond);
    pthread_mutex_unlock(&inf->lock);
    pthread_join(inf->thread, NULL);
    inf->running = false;
}

void slinky_kube_informer_free(slinky_kube_informer *inf)
{
    if (inf == NULL)
        return;
    slinky_kube_informer_stop(inf);
    slinky_kube__map_dispose(&inf->cache, free_doc);
    slinky_kube__map_dispose(&inf->labels, slinky_kube__informer_free_set);
    slinky_kube__map_dispose(&inf->namespaces, slinky_kube__informer_free_set);
    pthread_rwlock_destroy(&inf->cache_lock);
    pthread_mutex_destroy(&inf->lock);
    pthread_cond_destroy(&inf->cond);
    free(inf->handlers);
    free(inf->group);
    free(inf->version);
    free(inf->resource);
    free(inf->ns);
    free(inf->label_selector);
    free(inf->field_selector);
    free(inf->rv);
    free(inf);
}
