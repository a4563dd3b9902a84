/*
 * Layer 3: the write-ahead log and the snapshot file, as bytes on disk. It
 * knows record formats, checksums and files, not the store or the registry:
 * server.c decides what a record means when it loads one.
 *
 * Threads: as_wal_append is called with the server lock held (one writer).
 * Errors: negative slinky_status, message in slinky_error_last().
 */
#ifndef SLINKY_APISERVER_WAL_H
#define SLINKY_APISERVER_WAL_H

#include "types.h"

/** Append one record (type, object) to s->wal_fd and fdatasync it. */
int as_wal_append(as_server *s, int type, const as_rtype *rt, const as_obj *obj);

/**
 * One record of the log or snapshot: event type, resourceVersion, the
 * resource's group and plural, the object. Returns 0 (loaded), 1 (skipped,
 * e.g. already in the snapshot) or a negative status, which stops the scan.
 */
typedef int (*as_wal_record_cb)(int type, uint64_t rv, const char *group, const char *plural,
                                const slinky_doc_value *obj, void *payload);

/**
 * Scan a log held in memory: cb for each record in order. *good_out is the
 * offset after the last good record, *loaded the records cb loaded.
 */
int as_wal_scan(const char *data, size_t len, as_wal_record_cb cb, void *payload,
                size_t *good_out, size_t *loaded);

/**
 * Read a snapshot (a missing file is an empty one): CRD records first, so
 * their kinds exist before their objects. *rv_out gets the saved counter.
 */
int as_wal_snapshot_read(const char *path, as_wal_record_cb cb, void *payload,
                         uint64_t *rv_out);
/** Write every object of `types` and the counter `rv` atomically to path. */
int as_wal_snapshot_write(const char *path, uint64_t rv, const as_rtype *types);

/**
 * Online compaction: write s->data_dir/snapshot.json (everything up to s->rv)
 * and empty the log. On failure the log is kept as it is (still complete).
 */
int as_wal_compact(as_server *s);
/** Remove snapshot.json.tmp.* (a kill during a snapshot) from dir; how many. */
int as_wal_remove_stale(const char *dir);

/** fsync and close s->wal_fd (when open). */
void as_wal_close(as_server *s);

#endif
