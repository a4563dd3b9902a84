/* Per-thread last error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SLINKY__ERRMSG_MAX 4096

static _Thread_local char tl_message[SLINKY__ERRMSG_MAX];
static _Thread_local slinky_error tl_error = {0, 0, NULL, 0, 0};

static void error_store(int code, int http_status, int line, int column, const char *fmt,
                        va_list ap)
{
    vsnprintf(tl_message, sizeof(tl_message), fmt, ap);
    tl_error.code = code;
    tl_error.http_status = http_status;
    tl_error.line = line;
    tl_error.column = column;
    tl_error.message = tl_message;
}

const slinky_error *slinky_error_last(void)
{
    if (tl_error.message == NULL)
        tl_error.message = tl_message; /* "" */
    return &tl_error;
}

void slinky_error_clear(void)
{
    tl_message[0] = '\0';
    tl_error.code = 0;
    tl_error.http_status = 0;
    tl_error.line = 0;
    tl_error.column = 0;
    tl_error.message = tl_message;
}

int slinky__error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_store(code, 0, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int slinky__error_set_http(int code, int http_status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_store(code, http_status, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int slinky__error_set_pos(int code, int line, int column, const char *fmt, ...)
{
    char tmp[SLINKY__ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    snprintf(tl_message, sizeof(tl_message), "line %d, column %d: %s", line, column, tmp);
    tl_error.code = code;
    tl_error.http_status = 0;
    tl_error.line = line;
    tl_error.column = column;
    tl_error.message = tl_message;
    return code;
}

int slinky__error_set_errno(int code, int errnum, const char *fmt, ...)
{
    char tmp[SLINKY__ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    size_t n = strlen(tmp);
    if (n > sizeof(tl_message) - 256)
        n = sizeof(tl_message) - 256;
    memcpy(tl_message, tmp, n);
    snprintf(tl_message + n, sizeof(tl_message) - n, ": %s", strerror(errnum));
    tl_error.code = code;
    tl_error.http_status = 0;
    tl_error.line = 0;
    tl_error.column = 0;
    tl_error.message = tl_message;
    return code;
}

void slinky__error_prefix(const char *fmt, ...)
{
    char prefix[1024];
    char old[SLINKY__ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    size_t plen = strlen(prefix);
    memcpy(old, tl_message, sizeof(old));
    old[sizeof(old) - 1] = '\0';
    memcpy(tl_message, prefix, plen);
    size_t olen = strlen(old);
    if (olen > sizeof(tl_message) - plen - 1)
        olen = sizeof(tl_message) - plen - 1;
    memcpy(tl_message + plen, old, olen);
    tl_message[plen + olen] = '\0';
    tl_error.message = tl_message;
}

int slinky__error_oom(void)
{
    return slinky__error_set(SLINKY_ENOMEM, "out of memory");
}

const char *slinky_error_name(int code)
{
    switch (code) {
    case SLINKY_OK: return "SLINKY_OK";
    case SLINKY_ERROR: return "SLINKY_ERROR";
    case SLINKY_ENOMEM: return "SLINKY_ENOMEM";
    case SLINKY_EINVALID: return "SLINKY_EINVALID";
    case SLINKY_ENOTFOUND: return "SLINKY_ENOTFOUND";
    case SLINKY_EEXISTS: return "SLINKY_EEXISTS";
    case SLINKY_ECONFLICT: return "SLINKY_ECONFLICT";
    case SLINKY_EAUTH: return "SLINKY_EAUTH";
    case SLINKY_ETIMEOUT: return "SLINKY_ETIMEOUT";
    case SLINKY_EHTTP: return "SLINKY_EHTTP";
    case SLINKY_EPARSE: return "SLINKY_EPARSE";
    case SLINKY_EGIT: return "SLINKY_EGIT";
    case SLINKY_ITEROVER: return "SLINKY_ITEROVER";
    case SLINKY_EIO: return "SLINKY_EIO";
    case SLINKY_EGONE: return "SLINKY_EGONE";
    case SLINKY_EUNSUPPORTED: return "SLINKY_EUNSUPPORTED";
    case SLINKY_EBUSY: return "SLINKY_EBUSY";
    case SLINKY_EFORBIDDEN: return "SLINKY_EFORBIDDEN";
    case SLINKY_ECANCELED: return "SLINKY_ECANCELED";
    case SLINKY_EUNAVAILABLE: return "SLINKY_EUNAVAILABLE";
    default: return "SLINKY_UNKNOWN";
    }
}
