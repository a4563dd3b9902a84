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
#include "wal.h"

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
    as_buf_printf(&rec, "SLWAL1 %d %llu %zu %08x\n", type, (unsigned long long)obj->rv,
                       payload.len, crc32_of(payload.data, payload.len));
    as_buf_put(&rec, payload.data, payload.len);
    as_buf_putc(&rec, '\n');
    as_buf_dispose(&payload);
    int rc = rec.failed ? as_err_oom() : write_all(s->wal_fd, rec.data, rec.len);
    as_buf_dispose(&rec);
    if (!rc && fdatasync(s->wal_fd) != 0)
        rc = as_err_errno(SLINKY_EIO, errno, "fdatasync of the write-ahead log");
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

int as_wal_scan(const char *data, size_t len, as_wal_record_cb cb, void *payload,
                size_t *good_out, size_t *loaded)
{
    size_t off = 0;
    *loaded = 0;
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
        slinky_doc *d = NULL;
        if (slinky_doc_parse_json(&d, data + start, plen) != 0)
            break;
        const slinky_doc_value *r = slinky_doc_root(d);
        int rc = cb(type, rv, slinky_doc_value_path_string(r, "g", ""),
                    slinky_doc_value_path_string(r, "r", ""), slinky_doc_value_get(r, "o"),
                    payload);
        slinky_doc_free(d);
        if (rc < 0)
            return rc;
        if (rc == 0)
            (*loaded)++;
        off = start + plen + 1;
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
