/* Whole-file reads and atomic writes. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int slinky__read_file(char **out, size_t *len_out, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return slinky__error_set_errno(errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, errno,
                                       "%s", path);
    slinky__buf b = SLINKY__BUF_INIT;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        slinky__buf_grow(&b, (size_t)st.st_size);
    for (;;) {
        if (slinky__buf_grow(&b, 65536) < 0) {
            close(fd);
            slinky__buf_dispose(&b);
            return SLINKY_ENOMEM;
        }
        ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            slinky__buf_dispose(&b);
            return slinky__error_set_errno(SLINKY_EIO, e, "read %s", path);
        }
        if (n == 0)
            break;
        b.len += (size_t)n;
    }
    close(fd);
    b.data[b.len] = '\0';
    char *p = slinky__buf_detach(&b, len_out);
    if (!p)
        return SLINKY_ENOMEM;
    *out = p;
    return 0;
}

int slinky__write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
    char *tmp = slinky__sprintf("%s.tmp.XXXXXX", path);
    if (!tmp)
        return SLINKY_ENOMEM;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return slinky__error_set_errno(SLINKY_EIO, e, "create temporary file for %s", path);
    }
    const char *p = data;
    size_t left = len;
    int rc = 0;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = slinky__error_set_errno(SLINKY_EIO, errno, "write %s", path);
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    if (rc == 0 && fchmod(fd, mode) < 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "chmod %s", path);
    if (rc == 0 && fsync(fd) < 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "fsync %s", path);
    if (close(fd) < 0 && rc == 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "close %s", path);
    if (rc == 0 && rename(tmp, path) < 0)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "rename to %s", path);
    if (rc < 0) {
        unlink(tmp);
        free(tmp);
        return rc;
    }
    /* fsync the directory so the rename itself is durable */
    char *dir = slinky__strdup(path);
    if (dir) {
        int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    free(tmp);
    return 0;
}
