/* doc: the JSON reader, building slinky_doc values (private; kube's list and watch
 * decoding call it directly to reuse its scratch space). */
#ifndef SLINKY_DOC_JSON_READ_H
#define SLINKY_DOC_JSON_READ_H

#include "doc/doc_internal.h"

/* A member (key in the document's arena) or an item of an open container. */
typedef struct slinky_doc__json_ent {
    const char *key;
    size_t keylen;
    slinky_doc_value *value;
    size_t pos; /* offset of the key (unique_keys only) */
} slinky_doc__json_ent;

/* Reusable scratch space for a sequence of parses. */
typedef struct slinky_doc__json {
    char *tmp;
    size_t tmp_cap;
    slinky_doc__json_ent *ents;
    size_t cap_ents;
    bool unique_keys; /* a key twice in one object is an error (else the last value wins) */
    /* the last SLINKY_EPARSE: where and why; for a repeated key also the first one */
    size_t err_off, dup_first;
    const char *err_what;
    const char *dup_key;
    size_t dup_keylen;
} slinky_doc__json;

SLINKY_HIDDEN void slinky_doc__json_init(slinky_doc__json *j);
SLINKY_HIDDEN void slinky_doc__json_dispose(slinky_doc__json *j);
/*
 * Parse exactly one JSON value (whitespace around it allowed) into target
 * (NULL: validate only). SLINKY_EPARSE names the offset.
 */
SLINKY_HIDDEN int slinky_doc__json_parse(slinky_doc__json *j, slinky_doc_value *target,
                                          const char *data, size_t len);
/*
 * Parse one value at the start of data (it may be followed by anything).
 * *consumed: bytes used. On SLINKY_EPARSE, *truncated tells that the input
 * may simply have stopped too early (retry with more bytes).
 */
SLINKY_HIDDEN int slinky_doc__json_parse_prefix(slinky_doc__json *j, slinky_doc_value *target,
                                                 const char *data, size_t len, size_t *consumed,
                                                 bool *truncated);
/* Parse one JSON string value; *s is valid until the next call on j or until data changes. */
SLINKY_HIDDEN int slinky_doc__json_string(slinky_doc__json *j, const char **s, size_t *n,
                                           const char *data, size_t len);

/* slinky_doc_parse_json's reference: the yajl-based reader it replaced, kept for the
 * differential fuzz test (tests/fuzz/fuzz_watch.c) only. */
SLINKY_HIDDEN int slinky_doc__parse_json_yajl(slinky_doc **out, const char *data, size_t len);
/* The SLINKY_EPARSE of a failed slinky_doc__json_parse of data[skip..len) as
 * slinky_doc_parse_json reports it (line and column in data). */
SLINKY_HIDDEN int slinky_doc__json_error(const char *data, size_t len, size_t skip,
                                         const slinky_doc__json *j);

#endif
