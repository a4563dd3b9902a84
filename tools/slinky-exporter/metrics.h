/*
 * metrics: the Prometheus text exposition format (version 0.0.4) written into
 * a growing buffer. A family is opened with its HELP and TYPE lines, then its
 * samples follow; label values are escaped (\\, \", \n) as the format asks.
 * Out of memory sets `failed` and every later call does nothing.
 */
#ifndef SLINKY_EXPORTER_METRICS_H
#define SLINKY_EXPORTER_METRICS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mbuf {
    char *data;
    size_t len, cap;
    bool failed;
} mbuf;

void mbuf_dispose(mbuf *b);
void mbuf_printf(mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "# HELP name help\n# TYPE name type\n" */
void mbuf_family(mbuf *b, const char *name, const char *type, const char *help);
/* name{k1="v1",k2="v2"} value\n. labels: NULL-terminated key, value, key, value... array (may be
 * NULL) */
void mbuf_sample(mbuf *b, const char *name, const char *const *labels, double value);
/* one label (NULL key: none) */
void mbuf_sample1(mbuf *b, const char *name, const char *key, const char *val, double value);

#endif
