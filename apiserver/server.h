/*
 * Layer 6: the server's lifecycle, above store, registry and WAL: state set
 * up and torn down, persistence opened (snapshot loaded, log replayed into
 * the store and the registry, new snapshot, empty log) and closed.
 *
 * Threads: init/dispose before and after serving; as_server_open_data takes
 * the lock itself.
 */
#ifndef SLINKY_APISERVER_SERVER_H
#define SLINKY_APISERVER_SERVER_H

#include "registry.h"

int as_server_init(as_server *s, size_t history_cap);
/** Release everything but the faults (handle.h: as_fault_free_all). */
void as_server_dispose(as_server *s);
/** --data-dir: load DIR/snapshot.json and DIR/wal.log, then log every write. */
int as_server_open_data(as_server *s, const char *dir);

#endif
