/*
 * kube: reading an informer's cache: sync state, size, get, and lists by namespace and
 * label/field selectors through the indexes. Readers take the read lock and get copies.
 */
#include <stdlib.h>
#include <string.h>

#include "informer_internal.h"

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
