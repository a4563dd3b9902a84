/*
 * kube: the informer's cache. It maps "ns/name" to an immutable document; a label index
 * maps "key=value", a namespace index each namespace, to the set of object keys. Writes
 * (from the informer thread) take the write lock, then call the handlers.
 */
#include <stdlib.h>
#include <string.h>

#include "informer_internal.h"

void slinky_kube__informer_free_set(void *m)
{
    slinky_kube__map_dispose(m, NULL);
    free(m);
}

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
            slinky_kube__informer_free_set(slinky_kube__map_remove(index, name));
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

slinky_doc *slinky_kube__informer_cache_remove(slinky_kube_informer *inf, const char *key)
{
    pthread_rwlock_wrlock(&inf->cache_lock);
    slinky_doc *old = slinky_kube__map_remove(&inf->cache, key);
    if (old)
        index_labels(inf, key, slinky_doc_root(old), false);
    pthread_rwlock_unlock(&inf->cache_lock);
    return old;
}

void slinky_kube__informer_set_rv(slinky_kube_informer *inf, const char *rv)
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
void slinky_kube__informer_emit_delete(slinky_kube_informer *inf, const slinky_doc_value *o)
{
    for (size_t i = 0; i < inf->nhandlers; i++)
        if (inf->handlers[i].on_delete)
            inf->handlers[i].on_delete(o, inf->handlers[i].payload);
}

void slinky_kube__informer_upsert(slinky_kube_informer *inf, slinky_doc *doc)
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

void slinky_kube__informer_remove(slinky_kube_informer *inf, slinky_doc *doc)
{
    char *key = NULL;
    if (slinky_kube_object_key(&key, slinky_doc_root(doc)) == 0) {
        slinky_doc *old = slinky_kube__informer_cache_remove(inf, key);
        if (old) {
            slinky_kube__informer_emit_delete(inf, slinky_doc_root(doc));
            slinky_doc_free(old);
        }
        free(key);
    }
    slinky_doc_free(doc);
}
