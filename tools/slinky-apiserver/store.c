/* Stored objects, the cluster-wide resourceVersion and the event history. */
#include "apiserver.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

as_obj *as_obj_ref(as_obj *o)
{
    if (o)
        atomic_fetch_add(&o->refs, 1);
    return o;
}

void as_obj_unref(as_obj *o)
{
    if (!o || atomic_fetch_sub(&o->refs, 1) != 1)
        return;
    free(o->ns);
    free(o->name);
    free(o->uid);
    slinky_free(o->json);
    slinky_doc_free(o->labels);
    free(o);
}

int as_obj_new(as_obj **out, const slinky_doc_value *doc, uint64_t rv)
{
    as_obj *o = slinky__calloc(1, sizeof(*o));
    if (!o)
        return SLINKY_ENOMEM;
    atomic_init(&o->refs, 1);
    o->rv = rv;
    const slinky_doc_value *md = slinky_doc_value_get(doc, "metadata");
    o->ns = slinky__strdup(slinky_doc_value_path_string(md, "namespace", ""));
    o->name = slinky__strdup(slinky_doc_value_path_string(md, "name", ""));
    o->uid = slinky__strdup(slinky_doc_value_path_string(md, "uid", ""));
    int rc = slinky_doc_value_dump_json(&o->json, &o->json_len, doc, SLINKY_DOC_DUMP_COMPACT);
    if (!rc) {
        const slinky_doc_value *labels = slinky_doc_value_get(md, "labels");
        if (labels && slinky_doc_value_type(labels) == SLINKY_DOC_OBJECT)
            rc = slinky_doc_new_copy(&o->labels, labels);
    }
    if (!rc && (!o->ns || !o->name || !o->uid))
        rc = SLINKY_ENOMEM;
    if (rc) {
        as_obj_unref(o);
        return rc;
    }
    *out = o;
    return 0;
}

int as_obj_doc(slinky_doc **out, const as_obj *o)
{
    return slinky_doc_parse_json(out, o->json, o->json_len);
}

static int key_cmp(const char *ns1, const char *n1, const char *ns2, const char *n2)
{
    int c = strcmp(ns1, ns2);
    return c ? c : strcmp(n1, n2);
}

long as_store_find(const as_rtype *rt, const char *ns, const char *name)
{
    size_t lo = 0, hi = rt->n_items;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = key_cmp(rt->items[mid]->ns, rt->items[mid]->name, ns, name);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

as_obj *as_store_get(const as_rtype *rt, const char *ns, const char *name)
{
    long i = as_store_find(rt, ns ? ns : "", name);
    return i >= 0 ? rt->items[i] : NULL;
}

static int store_put(as_rtype *rt, as_obj *obj)
{
    long i = as_store_find(rt, obj->ns, obj->name);
    if (i >= 0) {
        as_obj_unref(rt->items[i]);
        rt->items[i] = obj;
        return 0;
    }
    size_t pos = (size_t)(-i - 1);
    if (rt->n_items == rt->cap_items) {
        size_t cap = rt->cap_items ? rt->cap_items * 2 : 64;
        as_obj **n = realloc(rt->items, cap * sizeof(*n));
        if (!n)
            return slinky__error_oom();
        rt->items = n;
        rt->cap_items = cap;
    }
    memmove(rt->items + pos + 1, rt->items + pos, (rt->n_items - pos) * sizeof(*rt->items));
    rt->items[pos] = obj;
    rt->n_items++;
    return 0;
}

static void store_remove(as_rtype *rt, const char *ns, const char *name)
{
    long i = as_store_find(rt, ns, name);
    if (i < 0)
        return;
    as_obj_unref(rt->items[i]);
    memmove(rt->items + i, rt->items + i + 1, (rt->n_items - (size_t)i - 1) * sizeof(*rt->items));
    rt->n_items--;
}

int as_server_init(as_server *s, size_t history_cap)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->fault_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    s->history_cap = history_cap ? history_cap : 10000;
    s->history = slinky__calloc(s->history_cap, sizeof(*s->history));
    s->wal_fd = -1;
    s->bookmark_interval_ms = 5000;
    if (!s->history)
        return SLINKY_ENOMEM;
    return as_registry_init(s);
}

void as_server_dispose(as_server *s)
{
    for (size_t i = 0; s->history && i < s->history_cap; i++) {
        as_obj_unref(s->history[i].obj);
        as_obj_unref(s->history[i].prev);
    }
    free(s->history);
    as_registry_free(s);
    as_fault_free_all(s);
    for (size_t i = 0; i < s->n_tokens; i++)
        free(s->tokens[i]);
    free(s->tokens);
    free(s->admin_token);
    free(s->ca_pem);
    free(s->data_dir);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->fault_lock);
    pthread_cond_destroy(&s->cond);
}

uint64_t as_store_oldest_rv(const as_server *s)
{
    uint64_t oldest = s->start_rv + 1;
    if (s->rv >= s->history_cap && s->rv - s->history_cap + 1 > oldest)
        oldest = s->rv - s->history_cap + 1;
    return oldest;
}

const as_event *as_store_event(const as_server *s, uint64_t rv)
{
    if (rv > s->rv || rv < as_store_oldest_rv(s))
        return NULL;
    const as_event *e = &s->history[rv % s->history_cap];
    return e->rv == rv ? e : NULL;
}

int as_store_commit(as_server *s, as_rtype *rt, int type, as_obj *obj, as_obj *prev)
{
    int rc;
    if (s->wal_fd >= 0 && !s->replaying) {
        rc = as_wal_append(s, type, rt, obj);
        if (rc)
            return rc;
    }
    if (type == AS_EV_DELETED) {
        as_obj_ref(prev);
        store_remove(rt, prev->ns, prev->name);
    } else {
        if (prev)
            as_obj_ref(prev);
        rc = store_put(rt, as_obj_ref(obj));
        if (rc) {
            as_obj_unref(obj);
            as_obj_unref(prev);
            return rc;
        }
    }
    if (obj->rv > s->rv)
        s->rv = obj->rv;
    as_event *e = &s->history[obj->rv % s->history_cap];
    as_obj_unref(e->obj);
    as_obj_unref(e->prev);
    e->rv = obj->rv;
    e->type = type;
    e->rt = rt;
    e->obj = obj;
    e->prev = prev;
    pthread_cond_broadcast(&s->cond);
    return 0;
}

void as_now_rfc3339(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void as_new_uid(char *buf)
{
    unsigned char b[16];
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (size_t i = 0; i < sizeof(b); i++)
            b[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ (i * 131) ^ rand());
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
             b[13], b[14], b[15]);
}

void as_store_load(as_rtype *rt, int type, as_obj *obj)
{
    if (type == AS_EV_DELETED) {
        store_remove(rt, obj->ns, obj->name);
        as_obj_unref(obj);
    } else if (store_put(rt, obj) != 0) {
        as_obj_unref(obj);
    }
}
