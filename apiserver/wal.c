/*
 * Persistence (--data-dir DIR): a snapshot plus a write-ahead log.
 *
 * DIR/snapshot.json  every object and the resourceVersion counter, written
 *                    atomically (temporary file, fsync, rename, fsync DIR)
 * DIR/wal.log        one record per write, appended and fdatasync'd before the
 *                    write is acknowledged:
 *                    "SLWAL2 <type> <rv> <len> <crc32>\n" <len bytes JSON> "\n"
 *                    JSON = {"g": group, "r": plural, "o": object}; the CRC-32
 *                    covers "<type> <rv> <len>\n" and the JSON, so a flipped
 *                    bit anywhere is seen (SLWAL1 records, whose CRC covers the
 *                    JSON only, are still read)
 *
 * Reading a log (as_wal_scan): a record that is bad (header, length, CRC,
 * JSON) with nothing valid after it is a torn tail, a write that was never
 * acknowledged: the scan ends there and the caller cuts it. A bad record
 * followed by a valid one is corruption of acknowledged data: the scan fails
 * naming both offsets, and nothing is loaded or written.
 */
#include "wal.h"

#include <dirent.h>
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

/* CRC-32 (IEEE) continued over p; start with 0 */
static uint32_t crc32_add(uint32_t crc, const char *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    uint32_t c = crc ^ 0xffffffffu;
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
            return as_err_errno(SLINKY_EIO, errno, "writing the write-ahead log");
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void record_payload(as_buf *b, const as_rtype *rt, const as_obj *obj)
{
    as_buf_puts(b, "{\"g\":");
    as_json_str(b, rt->group);
    as_buf_puts(b, ",\"r\":");
    as_json_str(b, rt->plural);
    as_buf_puts(b, ",\"o\":");
    as_buf_put(b, obj->json, obj->json_len);
    as_buf_puts(b, "}");
}

int as_wal_append(as_server *s, int type, const as_rtype *rt, const as_obj *obj)
{
    as_buf payload = AS_BUF_INIT, rec = AS_BUF_INIT;
    record_payload(&payload, rt, obj);
    if (payload.failed) {
        as_buf_dispose(&payload);
        return as_err_oom();
    }
    char fields[96];
    int fl = snprintf(fields, sizeof(fields), "%d %llu %zu\n", type, (unsigned long long)obj->rv,
                      payload.len);
    uint32_t crc = crc32_add(crc32_add(0, fields, (size_t)fl), payload.data, payload.len);
    as_buf_printf(&rec, "SLWAL2 %.*s %08x\n", fl - 1, fields, crc);
    as_buf_put(&rec, payload.data, payload.len);
    as_buf_putc(&rec, '\n');
    as_buf_dispose(&payload);
    int rc = rec.failed ? as_err_oom() : write_all(s->wal_fd, rec.data, rec.len);
    if (!rc && fdatasync(s->wal_fd) != 0)
        rc = as_err_errno(SLINKY_EIO, errno, "fdatasync of the write-ahead log");
    if (rc) {
        /* a half-written record must not stay in front of the next good one */
        if (ftruncate(s->wal_fd, (off_t)s->wal_bytes) != 0)
            s->wal_broken = true;
    } else {
        s->wal_bytes += rec.len;
    }
    as_buf_dispose(&rec);
    return rc;
}

int as_wal_snapshot_read(const char *path, as_wal_record_cb cb, void *payload,
                         uint64_t *rv_out)
{
    slinky_doc *d = NULL;
    char *data = NULL;
    size_t len = 0;
    *rv_out = 0;
    int rc = as_read_file(&data, &len, path);
    if (rc == SLINKY_ENOTFOUND) {
        slinky_error_clear();
        return 0;
    }
    if (rc)
        return rc;
    rc = slinky_doc_parse_json(&d, data, len);
    free(data);
    if (rc)
        return slinky_error_set(rc, "%s: %s", path, slinky_error_last()->message);
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
            const char *rvs = slinky_doc_value_path_string(o, "metadata.resourceVersion", "0");
            uint64_t rv = strtoull(rvs, NULL, 10);
            if (rv == 0)
                continue;
            rc = cb(AS_EV_ADDED, rv, slinky_doc_value_path_string(e, "g", ""),
                    slinky_doc_value_path_string(e, "r", ""), o, payload);
            if (rc > 0)
                rc = 0;
        }
    }
    *rv_out = (uint64_t)slinky_doc_value_path_int(r, "resourceVersion", 0);
    slinky_doc_free(d);
    return rc;
}

typedef struct wal_rec {
    int type;
    uint64_t rv;
    size_t start, len; /* the JSON */
    size_t next;       /* offset after the record */
} wal_rec;

/* Is there a whole, valid record at off? (JSON syntax is checked by the caller.) */
static bool record_at(const char *data, size_t len, size_t off, wal_rec *r)
{
    const char *nl = memchr(data + off, '\n', len - off);
    if (!nl)
        return false;
    size_t hl = (size_t)(nl - (data + off));
    char head[128];
    if (hl >= sizeof(head) || hl < 8)
        return false;
    memcpy(head, data + off, hl);
    head[hl] = '\0';
    int version = head[5] - '0';
    if (strncmp(head, "SLWAL", 5) || (version != 1 && version != 2) || head[6] != ' ')
        return false;
    int type = 0, used = 0;
    unsigned long long rv = 0;
    size_t plen = 0;
    unsigned crc = 0;
    if (sscanf(head + 7, "%d %llu %zu %n", &type, &rv, &plen, &used) != 3 || !used ||
        sscanf(head + 7 + used, "%8x", &crc) != 1 || strlen(head + 7 + used) != 8)
        return false;
    size_t start = off + hl + 1;
    if (type < AS_EV_ADDED || type > AS_EV_DELETED || rv == 0 || plen > len ||
        start + plen + 1 > len || data[start + plen] != '\n')
        return false;
    uint32_t c = 0;
    if (version == 2) {
        char fields[96];
        int fl = snprintf(fields, sizeof(fields), "%d %llu %zu\n", type, rv, plen);
        c = crc32_add(0, fields, (size_t)fl);
    }
    if (crc32_add(c, data + start, plen) != crc)
        return false;
    r->type = type;
    r->rv = rv;
    r->start = start;
    r->len = plen;
    r->next = start + plen + 1;
    return true;
}

/* the offset of a valid record after a bad one at off, or 0 */
static size_t valid_after(const char *data, size_t len, size_t off)
{
    wal_rec r;
    for (size_t p = off + 1; p + 6 < len; p++) {
        const char *hit = memmem(data + p, len - p, "\nSLWAL", 6);
        if (!hit)
            return 0;
        p = (size_t)(hit - data) + 1;
        if (record_at(data, len, p, &r))
            return p;
    }
    return 0;
}

int as_wal_scan(const char *data, size_t len, as_wal_record_cb cb, void *payload,
                size_t *good_out, size_t *loaded)
{
    size_t off = 0;
    *loaded = 0;
    *good_out = 0;
    while (off < len) {
        wal_rec r;
        slinky_doc *d = NULL;
        bool ok = record_at(data, len, off, &r) &&
                  slinky_doc_parse_json(&d, data + r.start, r.len) == 0;
        if (!ok) {
            size_t later = valid_after(data, len, off);
            if (later)
                return slinky_error_set(SLINKY_EPARSE,
                                        "corrupt record at offset %zu followed by a valid "
                                        "record at offset %zu (acknowledged writes would be "
                                        "lost): refusing to start, nothing was changed",
                                        off, later);
            break; /* a torn tail */
        }
        const slinky_doc_value *root = slinky_doc_root(d);
        int rc = cb(r.type, r.rv, slinky_doc_value_path_string(root, "g", ""),
                    slinky_doc_value_path_string(root, "r", ""), slinky_doc_value_get(root, "o"),
                    payload);
        slinky_doc_free(d);
        if (rc < 0)
            return slinky_error_set(rc, "record at offset %zu: %s", off,
                                    slinky_error_last()->message);
        if (rc == 0)
            (*loaded)++;
        off = r.next;
    }
    *good_out = off;
    return 0;
}

int as_wal_snapshot_write(const char *path, uint64_t rv, const as_rtype *types)
{
    as_buf b = AS_BUF_INIT;
    as_buf_printf(&b, "{\"resourceVersion\":%llu,\"objects\":[", (unsigned long long)rv);
    bool first = true;
    for (const as_rtype *rt = types; rt; rt = rt->next) {
        if (rt->removed)
            continue;
        for (size_t i = 0; i < rt->n_items; i++) {
            if (!first)
                as_buf_puts(&b, ",\n");
            first = false;
            record_payload(&b, rt, rt->items[i]);
        }
    }
    as_buf_puts(&b, "]}\n");
    int rc = b.failed ? as_err_oom() : as_write_file_atomic(path, b.data, b.len, 0600);
    as_buf_dispose(&b);
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

int as_wal_compact(as_server *s)
{
    char *snap = as_sprintf("%s/snapshot.json", s->data_dir);
    if (!snap)
        return SLINKY_ENOMEM;
    int rc = as_wal_snapshot_write(snap, s->rv, s->types);
    free(snap);
    if (rc) {
        fprintf(stderr, "slinky-apiserver: compaction skipped: %s\n",
                slinky_error_last()->message);
        return rc;
    }
    /* the snapshot holds every logged write now; a crash before this leaves
     * records the snapshot has already, which loading skips by resourceVersion */
    if (ftruncate(s->wal_fd, 0) != 0 || fdatasync(s->wal_fd) != 0)
        return as_err_errno(SLINKY_EIO, errno, "truncating the write-ahead log");
    s->wal_bytes = 0;
    s->compactions++;
    return 0;
}

int as_wal_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "snapshot.json.tmp.", 18) != 0)
            continue;
        char *p = as_sprintf("%s/%s", dir, e->d_name);
        if (p && unlink(p) == 0)
            n++;
        free(p);
    }
    closedir(d);
    return n;
}
