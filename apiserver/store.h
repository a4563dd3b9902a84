/*
 * Layer 4: the object store. Objects of each resource type sorted by
 * (namespace, name), the cluster-wide resourceVersion and the event history
 * watches read; every commit is logged (wal.h) before it is visible.
 *
 * Threads: every function here needs as_server.lock held.
 */
#ifndef SLINKY_APISERVER_STORE_H
#define SLINKY_APISERVER_STORE_H

#include "wal.h"

/** Index of (ns,name) in rt->items, or -(insert position)-1. */
long as_store_find(const as_rtype *rt, const char *ns, const char *name);
as_obj *as_store_get(const as_rtype *rt, const char *ns, const char *name);
/**
 * Put/replace (ADDED, MODIFIED; takes the reference to obj) or remove
 * (DELETED; obj is the last state) and record an event. Logged first when
 * persistence is on; nothing changes when the log write fails.
 */
int as_store_commit(as_server *s, as_rtype *rt, int type, as_obj *obj, as_obj *prev);
/** Put (takes the reference) or remove an object without event or log (loading). */
void as_store_load(as_rtype *rt, int type, as_obj *obj);
/** Oldest resourceVersion a watch may resume from. */
uint64_t as_store_oldest_rv(const as_server *s);
/** Event with this rv, or NULL if out of the window. */
const as_event *as_store_event(const as_server *s, uint64_t rv);

#endif
