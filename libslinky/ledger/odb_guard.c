/*
 * A guarded reader of loose objects, put in front of libgit2's own.
 *
 * libgit2 1.5's loose-object reader loops forever (100% CPU) on a loose
 * object whose zlib stream was cut short: a ledger with one truncated file
 * hung every reader, including sshd's AuthorizedKeysCommand. This backend is
 * consulted before libgit2's loose and pack backends; it inflates the file
 * itself with every step bounded (the header's size is checked against the
 * file, the stream must end exactly after `size` bytes, an inflate call that
 * makes no progress is an error) and answers with the object or with an
 * error naming it. Objects that are not loose (packed) are passed on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <git2/sys/odb_backend.h>

#include "ledger_internal.h"

/* No ledger object comes near this; larger loose objects are refused. */
#define GUARD_MAX_OBJECT (256u << 20)

typedef struct guard {
    git_odb_backend parent;
    char *objects; /* .../objects */
} guard;

static int corrupt(const char *hex, const char *path, size_t flen, const char *why)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "object %s is corrupt (%s, %zu bytes): %s", hex, path, flen, why);
    git_error_set_str(GIT_ERROR_ODB, msg);
    return GIT_ERROR;
}

static int type_of(git_object_t *out, const char *s, size_t n)
{
    static const struct {
        const char *name;
        git_object_t t;
    } types[] = {{"commit", GIT_OBJECT_COMMIT},
                 {"tree", GIT_OBJECT_TREE},
                 {"blob", GIT_OBJECT_BLOB},
                 {"tag", GIT_OBJECT_TAG}};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(types); i++)
        if (strlen(types[i].name) == n && !memcmp(types[i].name, s, n)) {
            *out = types[i].t;
            return 0;
        }
    return -1;
}

/* Read the whole loose file; GIT_ENOTFOUND when there is none. */
static int slurp(unsigned char **out, size_t *len, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? GIT_ENOTFOUND : GIT_ERROR;
    struct stat st;
    unsigned char *d = NULL;
    size_t n = 0;
    int rc = GIT_ERROR;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size < GUARD_MAX_OBJECT &&
        (d = malloc((size_t)st.st_size + 1))) {
        while (n < (size_t)st.st_size) {
            ssize_t r = read(fd, d + n, (size_t)st.st_size - n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            n += (size_t)r;
        }
        rc = 0;
    }
    if (rc < 0)
        git_error_set_str(GIT_ERROR_OS, "cannot read a loose object");
    close(fd);
    if (rc < 0) {
        free(d);
        return rc;
    }
    *out = d;
    *len = n;
    return 0;
}

/* Inflate; data_out NULL: header only. */
static int guarded_read(void **data_out, size_t *len_out, git_object_t *type_out, guard *g,
                        const git_oid *id)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), id);
    char path[4096];
    if ((size_t)snprintf(path, sizeof(path), "%s/%.2s/%s", g->objects, hex, hex + 2) >=
        sizeof(path))
        return GIT_PASSTHROUGH;
    unsigned char *file = NULL;
    size_t flen = 0;
    int rc = slurp(&file, &flen, path);
    if (rc < 0)
        return rc;
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit(&z) != Z_OK) {
        free(file);
        git_error_set_str(GIT_ERROR_ZLIB, "inflateInit failed");
        return GIT_ERROR;
    }
    z.next_in = file;
    z.avail_in = (uInt)flen;
    /* the header: "<type> <size>\0" within the first 64 bytes */
    unsigned char head[64];
    z.next_out = head;
    z.avail_out = sizeof(head);
    int zr = inflate(&z, Z_SYNC_FLUSH);
    size_t got = sizeof(head) - z.avail_out;
    unsigned char *nul = memchr(head, '\0', got);
    unsigned char *sp = nul ? memchr(head, ' ', (size_t)(nul - head)) : NULL;
    git_object_t type = GIT_OBJECT_INVALID;
    unsigned long long size = 0;
    char *end = NULL;
    if ((zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) || !sp ||
        type_of(&type, (char *)head, (size_t)(sp - head)) < 0 || sp[1] < '0' || sp[1] > '9' ||
        (size = strtoull((char *)sp + 1, &end, 10), end != (char *)nul) ||
        size >= GUARD_MAX_OBJECT) {
        rc = corrupt(hex, path, flen, nul ? "bad header" : "the header is truncated");
        goto out;
    }
    size_t hlen = (size_t)(nul - head) + 1, have = got - hlen;
    if (have > size) {
        rc = corrupt(hex, path, flen, "more data than its header says");
        goto out;
    }
    *type_out = type;
    *len_out = (size_t)size;
    if (!data_out) {
        rc = 0;
        goto out;
    }
    unsigned char *data = git_odb_backend_data_alloc(&g->parent, (size_t)size + 1);
    if (!data) {
        rc = GIT_ERROR;
        goto out;
    }
    memcpy(data, nul + 1, have);
    z.next_out = data + have;
    z.avail_out = (uInt)(size - have);
    /* each call must end the stream or make progress: no progress is a truncated file */
    const char *why = NULL;
    bool ended = zr == Z_STREAM_END;
    while (!ended && z.avail_out > 0) {
        uInt in0 = z.avail_in, out0 = z.avail_out;
        zr = inflate(&z, Z_SYNC_FLUSH);
        ended = zr == Z_STREAM_END;
        if (!ended && zr != Z_OK && zr != Z_BUF_ERROR)
            why = "bad compressed data";
        else if (!ended && z.avail_in == in0 && z.avail_out == out0)
            why = "the compressed stream is truncated";
        if (why)
            break;
    }
    if (!why && z.avail_out != 0)
        why = "less data than its header says";
    if (!why && !ended) {
        /* all `size` bytes are out: the stream must end here */
        unsigned char extra;
        z.next_out = &extra;
        z.avail_out = 1;
        zr = inflate(&z, Z_FINISH);
        if (zr != Z_STREAM_END || z.avail_out != 1)
            why = z.avail_out == 0 ? "more data than its header says"
                                   : "the compressed stream is truncated";
    }
    if (why) {
        rc = corrupt(hex, path, flen, why);
        git_odb_backend_data_free(&g->parent, data);
        goto out;
    }
    data[size] = '\0';
    *data_out = data;
    rc = 0;
out:
    inflateEnd(&z);
    free(file);
    return rc;
}

static int guard_read(void **data, size_t *len, git_object_t *type, git_odb_backend *b,
                      const git_oid *id)
{
    return guarded_read(data, len, type, (guard *)b, id);
}

static int guard_read_header(size_t *len, git_object_t *type, git_odb_backend *b,
                             const git_oid *id)
{
    return guarded_read(NULL, len, type, (guard *)b, id);
}

static void guard_free(git_odb_backend *b)
{
    guard *g = (guard *)b;
    free(g->objects);
    free(g);
}

int slinky_ledger__odb_guard(git_repository *repo)
{
    git_odb *odb = NULL;
    guard *g = slinky__calloc(1, sizeof(*g));
    if (!g)
        return SLINKY_ENOMEM;
    if (!(g->objects = slinky__sprintf("%sobjects", git_repository_path(repo)))) {
        free(g);
        return SLINKY_ENOMEM;
    }
    git_odb_init_backend(&g->parent, GIT_ODB_BACKEND_VERSION);
    g->parent.read = guard_read;
    g->parent.read_header = guard_read_header;
    g->parent.free = guard_free;
    /* libgit2's loose backend has priority 1 and packs 2: this one goes first */
    if (git_repository_odb(&odb, repo) < 0 || git_odb_add_backend(odb, &g->parent, 50) < 0) {
        git_odb_free(odb);
        guard_free(&g->parent);
        return slinky_ledger__git_error(SLINKY_EGIT, "open the object database");
    }
    git_odb_free(odb);
    return 0;
}
