/* kube: the informer's state, shared by its loop (informer.c), its cache (informer_cache.c)
 * and its readers (informer_read.c). Private. */
#ifndef SLINKY_KUBE_INFORMER_INTERNAL_H
#define SLINKY_KUBE_INFORMER_INTERNAL_H

#include <stdatomic.h>

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

/* informer_cache.c: an index's key set (a map of keys), for slinky_kube__map_dispose */
SLINKY_HIDDEN void slinky_kube__informer_free_set(void *m);
/* informer_cache.c: writes under the cache lock, then the handlers (informer thread only) */
SLINKY_HIDDEN void slinky_kube__informer_upsert(slinky_kube_informer *inf, slinky_doc *doc);
SLINKY_HIDDEN void slinky_kube__informer_remove(slinky_kube_informer *inf, slinky_doc *doc);
SLINKY_HIDDEN slinky_doc *slinky_kube__informer_cache_remove(slinky_kube_informer *inf,
                                                             const char *key);
SLINKY_HIDDEN void slinky_kube__informer_set_rv(slinky_kube_informer *inf, const char *rv);
SLINKY_HIDDEN void slinky_kube__informer_emit_delete(slinky_kube_informer *inf,
                                                     const slinky_doc_value *o);

#endif
