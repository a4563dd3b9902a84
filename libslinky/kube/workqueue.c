/*
 * kube: a rate-limited work queue of string keys (the client-go model):
 * queue + dirty set + processing set, delayed adds in a min-heap, per-item
 * exponential backoff and an overall token bucket.
 */
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

typedef struct qnode {
    char *key;
    struct qnode *next;
} qnode;

typedef struct delayed {
    int64_t when;
    char *key;
} delayed;

struct slinky_kube_workqueue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    qnode *head, *tail;
    size_t len;
    slinky_kube__map dirty, processing, waiting, failures;
    delayed *heap;
    size_t nheap, heap_cap;
    bool shutdown;
    long base_ms, max_ms;
    double qps, tokens;
    int burst;
    int64_t last_refill;
};

#define MARK ((void *)1)

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_workqueue_options, SLINKY_KUBE_WORKQUEUE_OPTIONS_VERSION)

slinky_status slinky_kube_workqueue_new(slinky_kube_workqueue **out,
                                        const slinky_kube_workqueue_options *o)
{
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "workqueue_new: NULL out");
    if (o && o->version != SLINKY_KUBE_WORKQUEUE_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "workqueue options: unknown version %u", o->version);
    slinky_kube_workqueue *q = slinky__calloc(1, sizeof(*q));
    if (q == NULL)
        return SLINKY_ENOMEM;
    pthread_mutex_init(&q->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cond, &ca);
    pthread_condattr_destroy(&ca);
    q->base_ms = (o && o->base_delay_ms > 0) ? o->base_delay_ms : 5;
    q->max_ms = (o && o->max_delay_ms > 0) ? o->max_delay_ms : 1000000;
    q->qps = (o && o->qps != 0) ? o->qps : 10;
    q->burst = (o && o->burst > 0) ? o->burst : 100;
    q->tokens = q->burst;
    q->last_refill = slinky_kube__now_ms();
    *out = q;
    return 0;
}

void slinky_kube_workqueue_free(slinky_kube_workqueue *q)
{
    if (q == NULL)
        return;
    while (q->head) {
        qnode *n = q->head;
        q->head = n->next;
        free(n->key);
        free(n);
    }
    for (size_t i = 0; i < q->nheap; i++)
        free(q->heap[i].key);
    free(q->heap);
    slinky_kube__map_dispose(&q->dirty, NULL);
    slinky_kube__map_dispose(&q->processing, NULL);
    slinky_kube__map_dispose(&q->waiting, free);
    slinky_kube__map_dispose(&q->failures, NULL);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    free(q);
}

static int push_queue(slinky_kube_workqueue *q, const char *key)
{
    qnode *n = slinky__malloc(sizeof(*n));
    if (n == NULL)
        return SLINKY_ENOMEM;
    n->key = slinky__strdup(key);
    if (n->key == NULL) {
        free(n);
        return SLINKY_ENOMEM;
    }
    n->next = NULL;
    if (q->tail)
        q->tail->next = n;
    else
        q->head = n;
    q->tail = n;
    q->len++;
    pthread_cond_signal(&q->cond);
    return 0;
}

static int add_locked(slinky_kube_workqueue *q, const char *key)
{
    if (q->shutdown || slinky_kube__map_get(&q->dirty, key))
        return 0;
    int err = slinky_kube__map_put(&q->dirty, key, MARK, NULL);
    if (err)
        return err;
    if (slinky_kube__map_get(&q->processing, key))
        return 0;
    err = push_queue(q, key);
    if (err)
        slinky_kube__map_remove(&q->dirty, key);
    return err;
}

slinky_status slinky_kube_workqueue_add(slinky_kube_workqueue *q, const char *key)
{
    if (q == NULL || key == NULL)
        return slinky__error_set(SLINKY_EINVALID, "workqueue_add: NULL argument");
    pthread_mutex_lock(&q->lock);
    int err = add_locked(q, key);
    pthread_mutex_unlock(&q->lock);
    return err;
}

static void heap_up(slinky_kube_workqueue *q, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (q->heap[p].when <= q->heap[i].when)
            break;
        delayed t = q->heap[p];
        q->heap[p] = q->heap[i];
        q->heap[i] = t;
        i = p;
    }
}

static void heap_down(slinky_kube_workqueue *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->nheap && q->heap[l].when < q->heap[m].when)
            m = l;
        if (r < q->nheap && q->heap[r].when < q->heap[m].when)
            m = r;
        if (m == i)
            return;
        delayed t = q->heap[m];
        q->heap[m] = q->heap[i];
        q->heap[i] = t;
        i = m;
    }
}

static int add_after_locked(slinky_kube_workqueue *q, const char *key, long delay_ms)
{
    if (q->shutdown)
        return 0;
    if (delay_ms <= 0)
        return add_locked(q, key);
    int64_t when = slinky_kube__now_ms() + delay_ms;
    int64_t *cur = slinky_kube__map_get(&q->waiting, key);
    if (cur && *cur <= when)
        return 0; /* a sooner add is pending */
    if (slinky__array_room(&q->heap, &q->heap_cap, q->nheap, sizeof(*q->heap), 16))
        return SLINKY_ENOMEM;
    char *k = slinky__strdup(key);
    if (k == NULL)
        return SLINKY_ENOMEM;
    if (cur) {
        *cur = when;
    } else {
        int64_t *w = slinky__malloc(sizeof(*w));
        if (w == NULL || slinky_kube__map_put(&q->waiting, key, w, NULL) != 0) {
            free(w);
            free(k);
            return SLINKY_ENOMEM;
        }
        *w = when;
    }
    q->heap[q->nheap].when = when;
    q->heap[q->nheap].key = k;
    heap_up(q, q->nheap++);
    pthread_cond_broadcast(&q->cond);
    return 0;
}

/* Move due delayed keys into the queue; returns ms until the next one (-1 none). */
static int64_t promote(slinky_kube_workqueue *q)
{
    int64_t now = slinky_kube__now_ms();
    while (q->nheap > 0) {
        delayed top = q->heap[0];
        int64_t *cur = slinky_kube__map_get(&q->waiting, top.key);
        if (cur == NULL || *cur != top.when) {
            /* stale entry (superseded by a sooner add) */
        } else if (top.when > now) {
            return top.when - now;
        } else {
            free(slinky_kube__map_remove(&q->waiting, top.key));
            add_locked(q, top.key);
        }
        q->heap[0] = q->heap[--q->nheap];
        heap_down(q, 0);
        free(top.key);
    }
    return -1;
}

slinky_status slinky_kube_workqueue_add_after(slinky_kube_workqueue *q, const char *key, long delay_ms)
{
    if (q == NULL || key == NULL)
        return slinky__error_set(SLINKY_EINVALID, "workqueue_add_after: NULL argument");
    pthread_mutex_lock(&q->lock);
    int err = add_after_locked(q, key, delay_ms);
    pthread_mutex_unlock(&q->lock);
    return err;
}

static long when_locked(slinky_kube_workqueue *q, const char *key)
{
    intptr_t fails = (intptr_t)slinky_kube__map_get(&q->failures, key);
    slinky_kube__map_put(&q->failures, key, (void *)(fails + 1), NULL);
    double d = (double)q->base_ms;
    for (intptr_t i = 0; i < fails && d < (double)q->max_ms; i++)
        d *= 2;
    if (d > (double)q->max_ms)
        d = (double)q->max_ms;
    long bucket = 0;
    if (q->qps > 0) {
        int64_t now = slinky_kube__now_ms();
        q->tokens += (double)(now - q->last_refill) * q->qps / 1000.0;
        if (q->tokens > q->burst)
            q->tokens = q->burst;
        q->last_refill = now;
        if (q->tokens < 1)
            bucket = (long)((1 - q->tokens) * 1000.0 / q->qps + 0.999);
        q->tokens -= 1;
    }
    long exp = (long)d;
    return exp > bucket ? exp : bucket;
}

slinky_status slinky_kube_workqueue_add_rate_limited(slinky_kube_workqueue *q, const char *key)
{
    if (q == NULL || key == NULL)
        return slinky__error_set(SLINKY_EINVALID, "workqueue_add_rate_limited: NULL argument");
    pthread_mutex_lock(&q->lock);
    int err = add_after_locked(q, key, when_locked(q, key));
    pthread_mutex_unlock(&q->lock);
    return err;
}

void slinky_kube_workqueue_forget(slinky_kube_workqueue *q, const char *key)
{
    if (q == NULL || key == NULL)
        return;
    pthread_mutex_lock(&q->lock);
    slinky_kube__map_remove(&q->failures, key);
    pthread_mutex_unlock(&q->lock);
}

int slinky_kube_workqueue_num_requeues(slinky_kube_workqueue *q, const char *key)
{
    if (q == NULL || key == NULL)
        return 0;
    pthread_mutex_lock(&q->lock);
    int n = (int)(intptr_t)slinky_kube__map_get(&q->failures, key);
    pthread_mutex_unlock(&q->lock);
    return n;
}

slinky_status slinky_kube_workqueue_get(char **key_out, slinky_kube_workqueue *q, long timeout_ms)
{
    if (key_out == NULL || q == NULL)
        return slinky__error_set(SLINKY_EINVALID, "workqueue_get: NULL argument");
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : slinky_kube__now_ms() + timeout_ms;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (q->shutdown) {
            pthread_mutex_unlock(&q->lock);
            return slinky__error_set(SLINKY_ECANCELED, "work queue shut down");
        }
        int64_t next = promote(q);
        if (q->head) {
            qnode *n = q->head;
            q->head = n->next;
            if (q->head == NULL)
                q->tail = NULL;
            q->len--;
            slinky_kube__map_remove(&q->dirty, n->key);
            int err = slinky_kube__map_put(&q->processing, n->key, MARK, NULL);
            if (err) {
                /* put it back */
                n->next = q->head;
                q->head = n;
                if (!q->tail)
                    q->tail = n;
                q->len++;
                slinky_kube__map_put(&q->dirty, n->key, MARK, NULL);
                pthread_mutex_unlock(&q->lock);
                return err;
            }
            *key_out = n->key;
            free(n);
            pthread_mutex_unlock(&q->lock);
            return 0;
        }
        int64_t now = slinky_kube__now_ms();
        if (now >= deadline) {
            pthread_mutex_unlock(&q->lock);
            return slinky__error_set(SLINKY_ETIMEOUT, "work queue: nothing within %ld ms", timeout_ms);
        }
        int64_t wait = deadline - now;
        if (next >= 0 && next < wait)
            wait = next;
        if (wait > 3600000)
            wait = 3600000;
        struct timespec ts;
        slinky_kube__abstime(&ts, (long)wait);
        pthread_cond_timedwait(&q->cond, &q->lock, &ts);
    }
}

void slinky_kube_workqueue_done(slinky_kube_workqueue *q, const char *key)
{
    if (q == NULL || key == NULL)
        return;
    pthread_mutex_lock(&q->lock);
    slinky_kube__map_remove(&q->processing, key);
    if (slinky_kube__map_get(&q->dirty, key) && !q->shutdown)
        push_queue(q, key);
    pthread_mutex_unlock(&q->lock);
}

size_t slinky_kube_workqueue_len(slinky_kube_workqueue *q)
{
    if (q == NULL)
        return 0;
    pthread_mutex_lock(&q->lock);
    promote(q);
    size_t n = q->len;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void slinky_kube_workqueue_shutdown(slinky_kube_workqueue *q)
{
    if (q == NULL)
        return;
    pthread_mutex_lock(&q->lock);
    q->shutdown = true;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

bool slinky_kube_workqueue_is_shutdown(slinky_kube_workqueue *q)
{
    if (q == NULL)
        return true;
    pthread_mutex_lock(&q->lock);
    bool s = q->shutdown;
    pthread_mutex_unlock(&q->lock);
    return s;
}
