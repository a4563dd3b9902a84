/*
 * The server's lifecycle (server.h): state set up and torn down, and
 * persistence opened. Above store, registry and WAL: it is the one place
 * that turns log records back into objects and kinds.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    s->history = as_calloc(s->history_cap, sizeof(*s->history));
    s->wal_fd = -1;
    s->bookmark_interval_ms = 5000;
    s->max_body = 3u * 1024u * 1024u;
    s->read_timeout_s = 20;
    s->max_per_client = 1000;
    s->compact_bytes = 64u * 1024u;
    pthread_mutex_init(&s->client_lock, NULL);
    if (!s->history)
        return SLINKY_ENOMEM;
    return as_registry_init(s);
}

void as_server_dispose(as_server *s)
{
    as_wal_close(s);
    for (size_t i = 0; s->history && i < s->history_cap; i++) {
        as_obj_unref(s->history[i].obj);
        as_obj_unref(s->history[i].prev);
    }
    free(s->history);
    as_registry_free(s);
    for (size_t i = 0; i < s->n_tokens; i++)
        free(s->tokens[i]);
    free(s->tokens);
    free(s->inflight);
    for (size_t i = 0; i < s->n_sa_tokens; i++) {
        free(s->sa_tokens[i].token);
        free(s->sa_tokens[i].ns);
        free(s->sa_tokens[i].name);
        free(s->sa_tokens[i].uid);
    }
    free(s->sa_tokens);
    free(s->sa_inflight);
    pthread_mutex_destroy(&s->client_lock);
    free(s->admin_token);
    free(s->ca_pem);
    free(s->data_dir);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->fault_lock);
    pthread_cond_destroy(&s->cond);
}

/* one record of the snapshot or the log: put or remove, no event, no log */
typedef struct loader {
    as_server *s;
    bool log; /* replaying the log: skip what the snapshot holds */
} loader;

static int load_record(int type, uint64_t rv, const char *group, const char *plural,
                       const slinky_doc_value *o, void *payload)
{
    loader *l = payload;
    as_server *s = l->s;
    if (l->log && rv <= s->rv)
        return 1;
    as_rtype *rt = as_registry_find_gr(s, group, plural);
    if (!rt)
        return slinky_error_set(SLINKY_EPARSE, "record for unknown resource %s.%s", plural,
                                group);
    as_obj *obj = NULL;
    int rc = as_obj_new(&obj, o, rv);
    if (rc)
        return rc;
    as_store_load(rt, type, obj);
    if (rt->builtin && !strcmp(rt->plural, "customresourcedefinitions")) {
        if (type == AS_EV_DELETED)
            as_registry_drop_crd(s, o);
        else
            as_registry_apply_crd(s, o);
    }
    if (rv > s->rv)
        s->rv = rv;
    return 0;
}

int as_server_open_data(as_server *s, const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return as_err_errno(SLINKY_EIO, errno, "mkdir %s", dir);
    s->data_dir = as_strdup(dir);
    char *snap = as_sprintf("%s/snapshot.json", dir);
    char *log = as_sprintf("%s/wal.log", dir);
    int rc = 0;
    if (!snap || !log) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    pthread_mutex_lock(&s->lock);
    s->replaying = true;
    loader l = {s, false};
    uint64_t snap_rv = 0;
    rc = as_wal_snapshot_read(snap, load_record, &l, &snap_rv);
    if (snap_rv > s->rv)
        s->rv = snap_rv;
    char *data = NULL;
    size_t len = 0, good = 0, records = 0;
    if (!rc) {
        int r = as_read_file(&data, &len, log);
        if (r == SLINKY_ENOTFOUND)
            slinky_error_clear();
        else if (r)
            rc = r;
    }
    l.log = true;
    if (!rc && data) {
        rc = as_wal_scan(data, len, load_record, &l, &good, &records);
        if (rc)
            rc = slinky_error_set(rc, "%s: %s", log, slinky_error_last()->message);
    }
    free(data);
    s->replaying = false;
    s->start_rv = s->rv;
    if (!rc)
        rc = as_wal_snapshot_write(snap, s->rv, s->types);
    pthread_mutex_unlock(&s->lock);
    if (rc)
        goto done;
    s->wal_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (s->wal_fd < 0) {
        rc = as_err_errno(SLINKY_EIO, errno, "open %s", log);
        goto done;
    }
    /* the snapshot holds everything now: start an empty log */
    if (ftruncate(s->wal_fd, 0) != 0 || fsync(s->wal_fd) != 0)
        rc = as_err_errno(SLINKY_EIO, errno, "truncate %s", log);
    s->wal_bytes = 0;
    /* temporary snapshots a kill left behind (ours is renamed already) */
    int stale = as_wal_remove_stale(dir);
    if (stale)
        fprintf(stderr, "slinky-apiserver: %s: removed %d stale snapshot.json.tmp.* file%s\n",
                dir, stale, stale == 1 ? "" : "s");
    if (len != good)
        fprintf(stderr, "slinky-apiserver: %s: dropped %zu bytes of an incomplete record\n", log,
                len - good);
    fprintf(stderr, "slinky-apiserver: %s: resourceVersion %llu, %zu log records replayed\n", dir,
            (unsigned long long)s->rv, records);
done:
    free(snap);
    free(log);
    return rc;
}
