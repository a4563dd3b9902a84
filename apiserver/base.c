/* Layer 0: text buffer, allocation, errors, files, time and uids (base.h). */
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- text buffer ---------------------------------------------------- */

int as_buf_grow(as_buf *b, size_t extra)
{
    if (b->failed)
        return SLINKY_ENOMEM;
    if (extra >= SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return as_err_oom();
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap < 64 ? 64 : b->cap;
    while (cap < need)
        cap += cap / 2 + 64;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return as_err_oom();
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int as_buf_put(as_buf *b, const void *data, size_t len)
{
    int rc = as_buf_grow(b, len);
    if (rc)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int as_buf_puts(as_buf *b, const char *s)
{
    return as_buf_put(b, s, strlen(s));
}

int as_buf_putc(as_buf *b, char c)
{
    if (b->len + 2 > b->cap && as_buf_grow(b, 1) != 0)
        return SLINKY_ENOMEM;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
    return 0;
}

int as_buf_printf(as_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return slinky_error_set(SLINKY_EINVALID, "bad format string");
    if ((size_t)n < sizeof(small))
        return as_buf_put(b, small, (size_t)n);
    int rc = as_buf_grow(b, (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *as_buf_detach(as_buf *b, size_t *len_out)
{
    char *d = b->failed ? NULL : b->data;
    size_t len = b->len;
    if (b->failed)
        free(b->data);
    else if (!d)
        d = as_strdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
    if (len_out)
        *len_out = d ? len : 0;
    return d;
}

void as_buf_clear(as_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void as_buf_dispose(as_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void as_json_str(as_buf *b, const char *s)
{
    as_buf_putc(b, '"');
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\')
            p++;
        as_buf_put(b, run, (size_t)(p - run));
        if (!*p)
            break;
        static const char short_esc[] = "\"\"\\\\\nn\tt\rr";
        const char *e = NULL;
        for (size_t i = 0; i + 1 < sizeof(short_esc); i += 2)
            if (short_esc[i] == (char)*p)
                e = &short_esc[i + 1];
        if (e) {
            char two[2] = {'\\', *e};
            as_buf_put(b, two, 2);
        } else {
            as_buf_printf(b, "\\u%04x", *p);
        }
        p++;
    }
    as_buf_putc(b, '"');
}

/* ---- memory ------------------------------------------------------------ */

int as_err_oom(void)
{
    return slinky_error_set(SLINKY_ENOMEM, "out of memory");
}

void *as_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        as_err_oom();
    return p;
}

void *as_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        as_err_oom();
    return p;
}

char *as_strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *p = strndup(s, n);
    if (!p)
        as_err_oom();
    return p;
}

char *as_strdup(const char *s)
{
    return s ? as_strndup(s, strlen(s)) : NULL;
}

char *as_sprintf(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&out, fmt, ap);
    va_end(ap);
    if (n < 0) {
        as_err_oom();
        return NULL;
    }
    return out;
}

int as_err_errno(int code, int errnum, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return slinky_error_set(code, "%s: %s", msg, strerror(errnum));
}

/* ---- files --------------------------------------------------------------- */

int as_read_file(char **out, size_t *len_out, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return as_err_errno(errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, errno, "%s", path);
    as_buf b = AS_BUF_INIT;
    int rc = as_buf_grow(&b, 0);
    for (;;) {
        if (rc || (rc = as_buf_grow(&b, 65536)) != 0)
            break;
        ssize_t n = read(fd, b.data + b.len, b.cap - b.len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = as_err_errno(SLINKY_EIO, errno, "reading %s", path);
            break;
        }
        if (n == 0)
            break;
        b.len += (size_t)n;
        b.data[b.len] = '\0';
    }
    close(fd);
    if (rc) {
        as_buf_dispose(&b);
        return rc;
    }
    *out = as_buf_detach(&b, len_out);
    return *out ? 0 : as_err_oom();
}

static int write_fully(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int as_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
    char *tmp = as_sprintf("%s.tmp.%ld", path, (long)getpid());
    char *dir_copy = as_strdup(path);
    if (!tmp || !dir_copy) {
        free(tmp);
        free(dir_copy);
        return SLINKY_ENOMEM;
    }
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) {
        rc = as_err_errno(SLINKY_EIO, errno, "creating %s", tmp);
    } else {
        if (write_fully(fd, data, len) != 0 || fsync(fd) != 0)
            rc = as_err_errno(SLINKY_EIO, errno, "writing %s", tmp);
        if (close(fd) != 0 && !rc)
            rc = as_err_errno(SLINKY_EIO, errno, "closing %s", tmp);
        if (!rc && rename(tmp, path) != 0)
            rc = as_err_errno(SLINKY_EIO, errno, "renaming %s to %s", tmp, path);
        if (rc)
            unlink(tmp);
    }
    if (!rc) {
        int dfd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    free(tmp);
    free(dir_copy);
    return rc;
}

/* ---- numbers ---------------------------------------------------------------- */

int as_parse_uint(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* ---- time and identity ------------------------------------------------------ */

void as_now_rfc3339(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void as_new_uid(char *buf)
{
    unsigned char b[16];
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (size_t i = 0; i < sizeof(b); i++)
            b[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ (i * 131) ^ rand());
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
             b[13], b[14], b[15]);
}

char *as_base64(const void *data, size_t len, bool url)
{
    char *enc = NULL;
    if (slinky_base64_encode(&enc, data, len, url ? SLINKY_BASE64_URL : 0) != 0)
        return NULL;
    char *copy = as_strdup(enc);
    slinky_free(enc);
    return copy;
}
