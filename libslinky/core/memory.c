/* Allocation wrappers, growable buffer, string helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

void slinky_free(void *ptr)
{
    free(ptr);
}

void *slinky__malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        slinky__error_oom();
    return p;
}

void *slinky__calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        slinky__error_oom();
    return p;
}

void *slinky__realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        slinky__error_oom();
    return q;
}

char *slinky__strdup(const char *s)
{
    return s ? slinky__strndup(s, strlen(s)) : NULL;
}

char *slinky__strndup(const char *s, size_t n)
{
    char *p = slinky__malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *slinky__sprintf(const char *fmt, ...)
{
    slinky__buf b = SLINKY__BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int rc = slinky__buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        slinky__buf_dispose(&b);
        return NULL;
    }
    return slinky__buf_detach(&b, NULL);
}

int slinky__strcasecmp(const char *a, const char *b)
{
    return strcasecmp(a, b);
}

/* --- buffer --- */

int slinky__buf_grow(slinky__buf *b, size_t extra)
{
    if (b->failed)
        return SLINKY_ENOMEM;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return slinky__error_oom();
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return slinky__error_oom();
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int slinky__buf_put(slinky__buf *b, const void *data, size_t len)
{
    if (slinky__buf_grow(b, len) < 0)
        return SLINKY_ENOMEM;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int slinky__buf_puts(slinky__buf *b, const char *s)
{
    return slinky__buf_put(b, s, strlen(s));
}

int slinky__buf_putc(slinky__buf *b, char c)
{
    if (b->len + 2 > b->cap && slinky__buf_grow(b, 1) < 0)
        return SLINKY_ENOMEM;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
    return 0;
}

int slinky__buf_vprintf(slinky__buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return slinky__error_set(SLINKY_ERROR, "bad format");
    if ((size_t)n < sizeof(small))
        return slinky__buf_put(b, small, (size_t)n);
    if (slinky__buf_grow(b, (size_t)n) < 0)
        return SLINKY_ENOMEM;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int slinky__buf_printf(slinky__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = slinky__buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *slinky__buf_detach(slinky__buf *b, size_t *len_out)
{
    if (b->failed) {
        slinky__buf_dispose(b);
        slinky__error_oom();
        return NULL;
    }
    if (!b->data && slinky__buf_grow(b, 0) < 0)
        return NULL;
    b->data[b->len] = '\0';
    char *p = b->data;
    if (len_out)
        *len_out = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

int slinky__array_room(void *items_ptr, size_t *cap, size_t n, size_t elem, size_t initial)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : initial;
    if (nc <= n)
        nc = n + 1;
    if (nc < *cap || nc > SIZE_MAX / elem)
        return slinky__error_oom();
    void *old;
    memcpy(&old, items_ptr, sizeof(old));
    void *p = realloc(old, nc * elem);
    if (p == NULL)
        return slinky__error_oom();
    memcpy(items_ptr, &p, sizeof(p));
    *cap = nc;
    return 0;
}

int slinky__buf_finish(char **out, size_t *len_out, slinky__buf *b)
{
    char *s = slinky__buf_detach(b, len_out);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

void slinky__buf_dispose(slinky__buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void slinky__buf_clear(slinky__buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}
