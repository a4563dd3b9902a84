/* kube: strict JSON reader building slinky_doc values (private). */
#ifndef SLINKY_KUBE_JSON_H
#define SLINKY_KUBE_JSON_H

#include "kube_internal.h"

/* A member (key in the document's arena) or an item of an open container. */
typedef struct slinky_kube__json_ent {
    const char *key;
    size_t keylen;
    slinky_doc_value *value;
} slinky_kube__json_ent;

/* Reusable scratch space for a sequence of parses. */
typedef struct slinky_kube__json {
    char *tmp;
    size_t tmp_cap;
    slinky_kube__json_ent *ents;
    size_t cap_ents;
} slinky_kube__json;

SLINKY_HIDDEN void slinky_kube__json_init(slinky_kube__json *j);
SLINKY_HIDDEN void slinky_kube__json_dispose(slinky_kube__json *j);
/*
 * Parse exactly one JSON value (whitespace around it allowed) into target
 * (NULL: validate only). SLINKY_EPARSE names the offset.
 */
SLINKY_HIDDEN int slinky_kube__json_parse(slinky_kube__json *j, slinky_doc_value *target,
                                          const char *data, size_t len);
/*
 * Parse one value at the start of data (it may be followed by anything).
 * *consumed: bytes used. On SLINKY_EPARSE, *truncated tells that the input
 * may simply have stopped too early (retry with more bytes).
 */
SLINKY_HIDDEN int slinky_kube__json_parse_prefix(slinky_kube__json *j, slinky_doc_value *target,
                                                 const char *data, size_t len, size_t *consumed,
                                                 bool *truncated);
/* Parse one JSON string value; *s is valid until the next call on j or until data changes. */
SLINKY_HIDDEN int slinky_kube__json_string(slinky_kube__json *j, const char **s, size_t *n,
                                           const char *data, size_t len);

#endif
