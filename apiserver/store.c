/* Stored objects, the cluster-wide resourceVersion and the event history. */
#include "store.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

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
        rt->bytes += obj->json_len - rt->items[i]->json_len;
        as_obj_unref(rt->items[i]);
        rt->items[i] = obj;
        return 0;
    }
    size_t pos = (size_t)(-i - 1);
    if (rt->n_items == rt->cap_items) {
        size_t cap = rt->cap_items ? rt->cap_items * 2 : 64;
        as_obj **n = realloc(rt->items, cap * sizeof(*n));
        if (!n)
            return as_err_oom();
        rt->items = n;
        rt->cap_items = cap;
    }
    memmove(rt->items + pos + 1, rt->items + pos, (rt->n_items - pos) * sizeof(*rt->items));
    rt->items[pos] = obj;
    rt->n_items++;
    rt->bytes += obj->json_len;
    return 0;
}

static void store_remove(as_rtype *rt, const char *ns, const char *name)
{
    long i = as_store_find(rt, ns, name);
    if (i < 0)
        return;
    rt->bytes -= rt->items[i]->json_len;
    as_obj_unref(rt->items[i]);
    memmove(rt->items + i, rt->items + i + 1, (rt->n_items - (size_t)i - 1) * sizeof(*rt->items));
    rt->n_items--;
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
        if (s->wal_broken)
            return slinky_error_set(SLINKY_EIO, "the write-ahead log failed; writes are refused");
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
    /* online compaction: the log may not grow past the live data (and a floor) */
    if (s->wal_fd >= 0 && !s->replaying && s->wal_bytes > s->compact_bytes) {
        size_t live = 0;
        for (const as_rtype *t = s->types; t; t = t->next)
            live += t->removed ? 0 : t->bytes;
        if (s->wal_bytes > live)
            as_wal_compact(s);
    }
    return 0;
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
