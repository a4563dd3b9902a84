/*
 * kube: informers. A thread lists, then watches from the list's
 * resourceVersion (with bookmarks), relists on 410 and backs off on errors.
 * The cache maps "ns/name" to an immutable document; a label index maps
 * "key=value", a namespace index each namespace, to the set of object keys. Readers take a read lock and get
 * copies.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

struct slinky_kube_informer {
    slinky_kube_client *c;
    slinky_kube_resource r;
    char *group, *version, *resource, *ns;
    char *label_selector, *field_selector;
    long watch_timeout, list_limit;
    slinky_kube_informer_handlers *handlers;
    size_t nhandlers;

    pthread_rwlock_t cache_lock;
    slinky_kube__map cache;  /* key -> slinky_doc * */
    slinky_kube__map labels; /* "k=v" -> slinky_kube__map * (set of keys) */
    slinky_kube__map namespaces; /* namespace -> slinky_kube__map * (set of keys) */
    char *rv;
    unsigned lists;

    pthread_mutex_t lock; /* synced, stop, watch */
    pthread_cond_t cond;
    bool synced;
    atomic_bool stop;
    atomic_bool kicked; /* reopen the watch (test hook), no relist */
    slinky_kube_watch *watch;
    pthread_t thread;
    bool running;
};

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

static void free_set(void *m)
{
    slinky_kube__map_dispose(m, NULL);
    free(m);
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

/* ---------------------------------------------------------------- cache */

/* Add key to (or remove it from) the set stored under name in index. */
static void index_set(slinky_kube__map *index, const char *name, const char *key, bool add)
{
    slinky_kube__map *set = slinky_kube__map_get(index, name);
    if (add) {
        if (set == NULL) {
            set = slinky__calloc(1, sizeof(*set));
            if (set && slinky_kube__map_put(index, name, set, NULL) != 0) {
                free(set);
                set = NULL;
            }
        }
        if (set)
            slinky_kube__map_put(set, key, (void *)1, NULL);
    } else if (set) {
        slinky_kube__map_remove(set, key);
        if (set->count == 0)
            free_set(slinky_kube__map_remove(index, name));
    }
}

/* Maintain the label and namespace indexes for one object. */
static void index_labels(slinky_kube_informer *inf, const char *key, const slinky_doc_value *obj,
                         bool add)
{
    const char *ns = slinky_doc_value_path_string(obj, "metadata.namespace", "");
    if (*ns)
        index_set(&inf->namespaces, ns, key, add);
    const slinky_doc_value *labels = slinky_doc_value_path(obj, "metadata.labels");
    size_t n = slinky_doc_value_size(labels);
    if (slinky_doc_value_type(labels) != SLINKY_DOC_OBJECT)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *v = slinky_doc_value_get_string(slinky_doc_value_member_at(labels, i));
        if (v == NULL)
            continue;
        char *kv = slinky__sprintf("%s=%s", slinky_doc_value_key_at(labels, i), v);
        if (kv == NULL)
            continue;
        index_set(&inf->labels, kv, key, add);
        free(kv);
    }
}

/* Store doc under its key (takes ownership). *old_out receives the replaced doc. */
static int cache_put(slinky_kube_informer *inf, slinky_doc *doc, slinky_doc **old_out)
{
    char *key = NULL;
    *old_out = NULL;
    int err = slinky_kube_object_key(&key, slinky_doc_root(doc));
    if (err) {
        slinky_doc_free(doc);
        return err;
    }
    pthread_rwlock_wrlock(&inf->cache_lock);
    void *old = NULL;
    err = slinky_kube__map_put(&inf->cache, key, doc, &old);
    if (err == 0) {
        if (old)
            index_labels(inf, key, slinky_doc_root(old), false);
        index_labels(inf, key, slinky_doc_root(doc), true);
    }
    pthread_rwlock_unlock(&inf->cache_lock);
    free(key);
    if (err)
        slinky_doc_free(doc);
    *old_out = old;
    return err;
}

static slinky_doc *cache_remove(slinky_kube_informer *inf, const char *key)
{
    pthread_rwlock_wrlock(&inf->cache_lock);
    slinky_doc *old = slinky_kube__map_remove(&inf->cache, key);
    if (old)
        index_labels(inf, key, slinky_doc_root(old), false);
    pthread_rwlock_unlock(&inf->cache_lock);
    return old;
}

static void set_rv(slinky_kube_informer *inf, const char *rv)
{
    if (rv == NULL || *rv == '\0')
        return;
    char *n = slinky__strdup(rv);
    if (n == NULL)
        return;
    pthread_rwlock_wrlock(&inf->cache_lock);
    free(inf->rv);
    inf->rv = n;
    pthread_rwlock_unlock(&inf->cache_lock);
}

static void emit_add(slinky_kube_informer *inf, const slinky_doc_value *o)
{
    for (size_t i = 0; i < inf->nhandlers; i++)
        if (inf->handlers[i].on_add)
            inf->handlers[i].on_add(o, inf->handlers[i].payload);
}
static void emit_update(slinky_kube_informer *inf, const slinky_doc_value *a, const slinky_doc_value *b)
{
    for (size_t i = 0; i < inf->nhandlers; i++)
        if (inf->handlers[i].on_update)
            inf->handlers[i].on_update(a, b, inf->handlers[i].payload);
}
static void emit_delete(slinky_kube_informer *inf, const slinky_doc_value *o)
{
    for (size_t i = 0; i < inf->nhandlers; i++)
        if (inf->handlers[i].on_delete)
            inf->handlers[i].on_delete(o, inf->handlers[i].payload);
}

static void upsert(slinky_kube_informer *inf, slinky_doc *doc)
{
    slinky_doc *old = NULL;
    const slinky_doc_value *nv = slinky_doc_root(doc);
    if (cache_put(inf, doc, &old) != 0)
        return;
    if (old == NULL)
        emit_add(inf, nv);
    else if (strcmp(slinky_doc_value_path_string(slinky_doc_root(old), "metadata.resourceVersion", ""),
                    slinky_doc_value_path_string(nv, "metadata.resourceVersion", "")) != 0)
        emit_update(inf, slinky_doc_root(old), nv);
    slinky_doc_free(old);
}

static void remove_obj(slinky_kube_informer *inf, slinky_doc *doc)
{
    char *key = NULL;
    if (slinky_kube_object_key(&key, slinky_doc_root(doc)) == 0) {
        slinky_doc *old = cache_remove(inf, key);
        if (old) {
            emit_delete(inf, slinky_doc_root(doc));
            slinky_doc_free(old);
        }
        free(key);
    }
    slinky_doc_free(doc);
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
    upsert(rl->inf, item);
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
            slinky_doc *old = cache_remove(inf, kl.keys[i]);
            if (old) {
                emit_delete(inf, slinky_doc_root(old));
                slinky_doc_free(old);
            }
            free(kl.keys[i]);
        }
        free(kl.keys);
        set_rv(inf, rv);
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
                set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
                upsert(inf, obj);
                break;
            case SLINKY_KUBE_EVENT_DELETED:
                set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
                remove_obj(inf, obj);
                break;
            case SLINKY_KUBE_EVENT_BOOKMARK:
                set_rv(inf, slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", ""));
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
    slinky_kube__map_dispose(&inf->labels, free_set);
    slinky_kube__map_dispose(&inf->namespaces, free_set);
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

bool slinky_kube_informer_has_synced(slinky_kube_informer *inf)
{
    if (inf == NULL)
        return false;
    pthread_mutex_lock(&inf->lock);
    bool s = inf->synced;
    pthread_mutex_unlock(&inf->lock);
    return s;
}

slinky_status slinky_kube_informer_wait_synced(slinky_kube_informer *inf, long timeout_ms)
{
    if (inf == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_wait_synced: NULL");
    struct timespec ts;
    slinky_kube__abstime(&ts, timeout_ms < 0 ? 365L * 86400 * 1000 : timeout_ms);
    pthread_mutex_lock(&inf->lock);
    while (!inf->synced) {
        if (pthread_cond_timedwait(&inf->cond, &inf->lock, &ts) != 0)
            break;
    }
    bool s = inf->synced;
    pthread_mutex_unlock(&inf->lock);
    return s ? 0 : slinky__error_set(SLINKY_ETIMEOUT, "informer %s: not synced within %ld ms",
                                     inf->resource, timeout_ms);
}

unsigned slinky_kube_informer_list_count(slinky_kube_informer *inf)
{
    if (inf == NULL)
        return 0;
    pthread_mutex_lock(&inf->lock);
    unsigned n = inf->lists;
    pthread_mutex_unlock(&inf->lock);
    return n;
}

size_t slinky_kube_informer_size(slinky_kube_informer *inf)
{
    if (inf == NULL)
        return 0;
    pthread_rwlock_rdlock(&inf->cache_lock);
    size_t n = inf->cache.count;
    pthread_rwlock_unlock(&inf->cache_lock);
    return n;
}

slinky_status slinky_kube_informer_resource_version(char **out, slinky_kube_informer *inf)
{
    if (out == NULL || inf == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_resource_version: NULL argument");
    pthread_rwlock_rdlock(&inf->cache_lock);
    char *s = slinky__strdup(inf->rv);
    pthread_rwlock_unlock(&inf->cache_lock);
    if (s == NULL)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

slinky_status slinky_kube_informer_get(slinky_doc **out, slinky_kube_informer *inf, const char *ns,
                                       const char *name)
{
    if (out == NULL || inf == NULL || name == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_get: NULL argument");
    char *key = (ns && *ns) ? slinky__sprintf("%s/%s", ns, name) : slinky__strdup(name);
    if (key == NULL)
        return SLINKY_ENOMEM;
    int err;
    pthread_rwlock_rdlock(&inf->cache_lock);
    slinky_doc *d = slinky_kube__map_get(&inf->cache, key);
    if (d)
        err = slinky_doc_new_copy(out, slinky_doc_root(d));
    else
        err = slinky__error_set(SLINKY_ENOTFOUND, "%s %s not in the cache", inf->resource, key);
    pthread_rwlock_unlock(&inf->cache_lock);
    free(key);
    return err;
}

typedef struct gather {
    const char **keys;
    size_t n, cap;
    const char *ns;
    int err;
} gather;

static void gather_key(const char *key, void *value, void *p)
{
    (void)value;
    gather *g = p;
    if (g->err)
        return;
    if (g->ns && *g->ns) {
        size_t l = strlen(g->ns);
        if (strncmp(key, g->ns, l) != 0 || key[l] != '/')
            return;
    }
    if (slinky__array_room(&g->keys, &g->cap, g->n, sizeof(*g->keys), 64)) {
        g->err = SLINKY_ENOMEM;
        return;
    }
    g->keys[g->n++] = key;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first plain equality term of a selector as "k=v", or NULL. */
static char *equality_term(const char *sel)
{
    if (sel == NULL)
        return NULL;
    const char *p = sel;
    while (*p) {
        size_t n = strcspn(p, ",");
        char term[512];
        if (n < sizeof(term)) {
            memcpy(term, p, n);
            term[n] = '\0';
            if (strchr(term, '(') == NULL && strchr(term, '!') == NULL) {
                char *eq = strchr(term, '=');
                if (eq) {
                    char *k = term, *v = eq + (eq[1] == '=' ? 2 : 1);
                    *eq = '\0';
                    while (*k == ' ')
                        k++;
                    size_t kl = strlen(k);
                    while (kl && k[kl - 1] == ' ')
                        k[--kl] = '\0';
                    while (*v == ' ')
                        v++;
                    size_t vl = strlen(v);
                    while (vl && v[vl - 1] == ' ')
                        v[--vl] = '\0';
                    return slinky__sprintf("%s=%s", k, v);
                }
            }
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return NULL;
}

slinky_status slinky_kube_informer_list(slinky_doc **out, slinky_kube_informer *inf, const char *ns,
                                        const char *label_selector)
{
    if (out == NULL || inf == NULL)
        return slinky__error_set(SLINKY_EINVALID, "informer_list: NULL argument");
    bool dummy;
    int err;
    if (label_selector && (err = slinky_kube_selector_matches(&dummy, label_selector, NULL)) != 0)
        return err;
    slinky_doc *d = NULL;
    if ((err = slinky_doc_new(&d)) != 0)
        return err;
    slinky_doc_value *root = slinky_doc_root(d);
    if ((err = slinky_doc_value_set_array(root)) != 0) {
        slinky_doc_free(d);
        return err;
    }
    char *eq = equality_term(label_selector);
    gather g = {NULL, 0, 0, ns, 0};
    pthread_rwlock_rdlock(&inf->cache_lock);
    if (eq) {
        slinky_kube__map *set = slinky_kube__map_get(&inf->labels, eq);
        if (set)
            slinky_kube__map_foreach(set, gather_key, &g);
    } else if (ns && *ns) {
        slinky_kube__map *set = slinky_kube__map_get(&inf->namespaces, ns);
        if (set)
            slinky_kube__map_foreach(set, gather_key, &g);
    } else {
        slinky_kube__map_foreach(&inf->cache, gather_key, &g);
    }
    err = g.err;
    if (err == 0 && g.n > 1)
        qsort(g.keys, g.n, sizeof(*g.keys), cmp_str);
    for (size_t i = 0; err == 0 && i < g.n; i++) {
        slinky_doc *obj = slinky_kube__map_get(&inf->cache, g.keys[i]);
        if (obj == NULL)
            continue;
        bool match = true;
        if (label_selector)
            slinky_kube_selector_matches(&match, label_selector,
                                         slinky_doc_value_path(slinky_doc_root(obj), "metadata.labels"));
        if (!match)
            continue;
        slinky_doc_value *e;
        err = slinky_doc_value_array_append(&e, root);
        if (err == 0)
            err = slinky_doc_value_set_copy(e, slinky_doc_root(obj));
    }
    pthread_rwlock_unlock(&inf->cache_lock);
    free(g.keys);
    free(eq);
    if (err) {
        slinky_doc_free(d);
        return err;
    }
    *out = d;
    return 0;
}
