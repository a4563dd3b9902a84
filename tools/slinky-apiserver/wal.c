/*
 * Persistence (--data-dir DIR): a snapshot plus a write-ahead log.
 *
 * DIR/snapshot.json  every object and the resourceVersion counter, written
 *                    atomically (temporary file, fsync, rename, fsync DIR)
 * DIR/wal.log        one record per write, appended and fdatasync'd before the
 *                    write is acknowledged:
 *                    "SLWAL1 <type> <rv> <len> <crc32>\n" <len bytes JSON> "\n"
 *                    JSON = {"g": group, "r": plural, "o": object}
 *
 * At start the snapshot is loaded, then every complete record with a good
 * checksum and a newer resourceVersion is replayed; a torn or corrupt tail
 * (a write that was never acknowledged) is cut off. Then a fresh snapshot is
 * written and the log truncated. The event history starts empty after a
 * restart, so watches from an older resourceVersion get 410 Expired, as a
 * real apiserver's would after its history was compacted.
 */
#include "apiserver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_of(const char *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ (unsigned char)p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return slinky__error_set_errno(SLINKY_EIO, errno, "writing the write-ahead log");
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void record_payload(slinky__buf *b, const as_rtype *rt, const as_obj *obj)
{
    slinky__buf_puts(b, "{\"g\":");
    as_json_str(b, rt->group);
    slinky__buf_puts(b, ",\"r\":");
    as_json_str(b, rt->plural);
    slinky__buf_puts(b, ",\"o\":");
    slinky__buf_put(b, obj->json, obj->json_len);
    slinky__buf_puts(b, "}");
}

int as_wal_append(as_server *s, int type, const as_rtype *rt, const as_obj *obj)
{
    slinky__buf payload = SLINKY__BUF_INIT, rec = SLINKY__BUF_INIT;
    record_payload(&payload, rt, obj);
    if (payload.failed) {
        slinky__buf_dispose(&payload);
        return slinky__error_oom();
    }
    slinky__buf_printf(&rec, "SLWAL1 %d %llu %zu %08x\n", type, (unsigned long long)obj->rv,
                       payload.len, crc32_of(payload.data, payload.len));
    slinky__buf_put(&rec, payload.data, payload.len);
    slinky__buf_putc(&rec, '\n');
    slinky__buf_dispose(&payload);
    int rc = rec.failed ? slinky__error_oom() : write_all(s->wal_fd, rec.data, rec.len);
    slinky__buf_dispose(&rec);
    if (!rc && fdatasync(s->wal_fd) != 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "fdatasync of the write-ahead log");
    return rc;
}

/* put or remove without event or log (loading) */
static int load_one(as_server *s, int type, const char *group, const char *plural,
                    const slinky_doc_value *o, uint64_t rv)
{
    as_rtype *rt = as_registry_find_gr(s, group, plural);
    if (!rt)
        return slinky__error_set(SLINKY_EPARSE, "record for unknown resource %s.%s", plural,
                                 group);
    as_obj *obj = NULL;
    int rc = as_obj_new(&obj, o, rv);
    if (rc)
        return rc;
    as_store_load(rt, type, obj);
    if (rt->builtin && !strcmp(rt->plural, "customresourcedefinitions")) {
        if (type == AS_EV_DELETED) {
            as_rtype *crt = as_registry_find_gr(s, slinky_doc_value_path_string(o, "spec.group", ""),
                                                slinky_doc_value_path_string(o, "spec.names.plural",
                                                                             ""));
            if (crt && !crt->builtin) {
                for (size_t i = 0; i < crt->n_items; i++)
                    as_obj_unref(crt->items[i]);
                crt->n_items = 0;
                crt->removed = true;
            }
        } else {
            as_registry_apply_crd(s, o);
        }
    }
    if (rv > s->rv)
        s->rv = rv;
    return 0;
}

static int load_snapshot(as_server *s, const char *path)
{
    slinky_doc *d = NULL;
    char *data = NULL;
    size_t len = 0;
    int rc = slinky__read_file(&data, &len, path);
    if (rc == SLINKY_ENOTFOUND) {
        slinky_error_clear();
        return 0;
    }
    if (rc)
        return rc;
    rc = slinky_doc_parse_json(&d, data, len);
    free(data);
    if (rc) {
        slinky__error_prefix("%s", path);
        return rc;
    }
    const slinky_doc_value *r = slinky_doc_root(d);
    const slinky_doc_value *objs = slinky_doc_value_get(r, "objects");
    /* CRDs first, so their kinds exist before their objects */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (size_t i = 0; i < slinky_doc_value_size(objs) && !rc; i++) {
            const slinky_doc_value *e = slinky_doc_value_at(objs, i);
            bool crd = !strcmp(slinky_doc_value_path_string(e, "r", ""),
                               "customresourcedefinitions");
            if (crd != (pass == 0))
                continue;
            const slinky_doc_value *o = slinky_doc_value_get(e, "o");
            bool ok = false;
            const char *rvs = slinky_doc_value_path_string(o, "metadata.resourceVersion", "0");
            uint64_t rv = strtoull(rvs, NULL, 10);
            ok = rv > 0;
            if (!ok)
                continue;
            rc = load_one(s, AS_EV_ADDED, slinky_doc_value_path_string(e, "g", ""),
                          slinky_doc_value_path_string(e, "r", ""), o, rv);
        }
    }
    uint64_t rv = (uint64_t)slinky_doc_value_path_int(r, "resourceVersion", 0);
    if (rv > s->rv)
        s->rv = rv;
    slinky_doc_free(d);
    return rc;
}

/* replay the log; *good_out = offset after the last good record */
static int replay(as_server *s, const char *data, size_t len, size_t *good_out, size_t *records)
{
    size_t off = 0;
    *records = 0;
    while (off < len) {
        const char *nl = memchr(data + off, '\n', len - off);
        if (!nl)
            break;
        int type = 0;
        unsigned long long rv = 0;
        size_t plen = 0;
        unsigned crc = 0;
        char head[128];
        size_t hl = (size_t)(nl - (data + off));
        if (hl >= sizeof(head))
            break;
        memcpy(head, data + off, hl);
        head[hl] = '\0';
        if (sscanf(head, "SLWAL1 %d %llu %zu %x", &type, &rv, &plen, &crc) != 4)
            break;
        size_t start = (size_t)(nl - data) + 1;
        if (start + plen + 1 > len || data[start + plen] != '\n')
            break;
        if (crc32_of(data + start, plen) != crc)
            break;
        if (rv > s->rv) {
            slinky_doc *d = NULL;
            if (slinky_doc_parse_json(&d, data + start, plen) != 0)
                break;
            const slinky_doc_value *r = slinky_doc_root(d);
            int rc = load_one(s, type, slinky_doc_value_path_string(r, "g", ""),
                              slinky_doc_value_path_string(r, "r", ""),
                              slinky_doc_value_get(r, "o"), rv);
            slinky_doc_free(d);
            if (rc)
                return rc;
            (*records)++;
        }
        off = start + plen + 1;
    }
    *good_out = off;
    return 0;
}

static int write_snapshot(as_server *s, const char *path)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "{\"resourceVersion\":%llu,\"objects\":[",
                       (unsigned long long)s->rv);
    bool first = true;
    for (as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed)
            continue;
        for (size_t i = 0; i < rt->n_items; i++) {
            if (!first)
                slinky__buf_puts(&b, ",\n");
            first = false;
            record_payload(&b, rt, rt->items[i]);
        }
    }
    slinky__buf_puts(&b, "]}\n");
    int rc = b.failed ? slinky__error_oom() : slinky__write_file_atomic(path, b.data, b.len, 0600);
    slinky__buf_dispose(&b);
    return rc;
}

int as_wal_open(as_server *s, const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return slinky__error_set_errno(SLINKY_EIO, errno, "mkdir %s", dir);
    s->data_dir = slinky__strdup(dir);
    char *snap = slinky__sprintf("%s/snapshot.json", dir);
    char *log = slinky__sprintf("%s/wal.log", dir);
    int rc = 0;
    if (!snap || !log) {
        rc = SLINKY_ENOMEM;
        goto done;
    }
    pthread_mutex_lock(&s->lock);
    s->replaying = true;
    rc = load_snapshot(s, snap);
    char *data = NULL;
    size_t len = 0, good = 0, records = 0;
    if (!rc) {
        int r = slinky__read_file(&data, &len, log);
        if (r == SLINKY_ENOTFOUND)
            slinky_error_clear();
        else if (r)
            rc = r;
    }
    if (!rc && data)
        rc = replay(s, data, len, &good, &records);
    free(data);
    s->replaying = false;
    s->start_rv = s->rv;
    if (!rc)
        rc = write_snapshot(s, snap);
    pthread_mutex_unlock(&s->lock);
    if (rc)
        goto done;
    s->wal_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (s->wal_fd < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "open %s", log);
        goto done;
    }
    /* the snapshot holds everything now: start an empty log */
    if (ftruncate(s->wal_fd, 0) != 0 || fsync(s->wal_fd) != 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "truncate %s", log);
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

void as_wal_close(as_server *s)
{
    if (s->wal_fd >= 0) {
        fsync(s->wal_fd);
        close(s->wal_fd);
        s->wal_fd = -1;
    }
}
