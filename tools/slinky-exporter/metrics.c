/* metrics: Prometheus text format into a buffer (see metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mbuf_dispose(mbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

static bool grow(mbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void mbuf_printf(mbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || !grow(b, (size_t)n))
        return;
    if ((size_t)n < sizeof(tmp)) {
        memcpy(b->data + b->len, tmp, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

static void put(mbuf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mbuf_family(mbuf *b, const char *name, const char *type, const char *help)
{
    mbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void escaped(mbuf *b, const char *v)
{
    for (const char *p = v; *p;) {
        size_t run = strcspn(p, "\\\"\n");
        put(b, p, run);
        p += run;
        if (*p == '\0')
            break;
        put(b, *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : "\\n", 2);
        p++;
    }
}

static void value(mbuf *b, double v)
{
    if (isnan(v))
        put(b, " NaN\n", 5);
    else if (isinf(v))
        put(b, v > 0 ? " +Inf\n" : " -Inf\n", 6);
    else if (v == (double)(long long)v && fabs(v) < 1e15)
        mbuf_printf(b, " %lld\n", (long long)v);
    else
        mbuf_printf(b, " %.9g\n", v);
}

void mbuf_sample(mbuf *b, const char *name, const char *const *labels, double v)
{
    put(b, name, strlen(name));
    if (labels && labels[0]) {
        put(b, "{", 1);
        for (size_t i = 0; labels[i]; i += 2) {
            if (i)
                put(b, ",", 1);
            put(b, labels[i], strlen(labels[i]));
            put(b, "=\"", 2);
            escaped(b, labels[i + 1] ? labels[i + 1] : "");
            put(b, "\"", 1);
        }
        put(b, "}", 1);
    }
    value(b, v);
}

void mbuf_sample1(mbuf *b, const char *name, const char *key, const char *val, double v)
{
    const char *l[] = {key, val, NULL};
    mbuf_sample(b, name, key ? l : NULL, v);
}
