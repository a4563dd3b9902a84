/*
 * kube: streaming reader for list replies and watch events (private).
 * A resumable scanner walks the envelope object byte by byte (chunks may
 * split anywhere), finds the extent of each member value, and hands only
 * the values it needs (a list's metadata and each item, a watch event's
 * type and object) to the doc module's JSON reader (doc/json_read.h); other members are
 * validated and dropped. Memory: one value's bytes when it spans chunks.
 */
#ifndef SLINKY_KUBE_STREAM_H
#define SLINKY_KUBE_STREAM_H

#include "doc/json_read.h"
#include "kube_internal.h"

enum { SLINKY_KUBE__STREAM_EVENT = 0, SLINKY_KUBE__STREAM_LIST = 1 };

typedef struct slinky_kube__stream {
    int mode;
    int state;
    char key[16];
    bool key_ok;
    /* current value capture */
    bool capturing;
    int route;
    int cap_kind; /* 0 container, 1 string, 2 scalar */
    int cap_depth;
    bool cap_in_str, cap_esc;
    slinky__buf cap;
    size_t max_value;
    slinky_doc__json json;
    int err;
    /* results */
    char type[16];
    bool has_type;
    slinky_doc *object; /* event */
    slinky_doc *meta;   /* list metadata */
    slinky_kube_item_cb item_cb;
    void *item_payload;
    size_t nitems;
} slinky_kube__stream;

/* Start a parse (s zeroed or released before). For lists, item_cb receives each item. */
SLINKY_HIDDEN int slinky_kube__stream_begin(slinky_kube__stream *s, int mode,
                                            slinky_kube_item_cb item_cb, void *payload);
SLINKY_HIDDEN int slinky_kube__stream_feed(slinky_kube__stream *s, const char *data, size_t len);
SLINKY_HIDDEN int slinky_kube__stream_end(slinky_kube__stream *s);
/* Free the parse state but keep reusable buffers (begin may follow). */
SLINKY_HIDDEN void slinky_kube__stream_release(slinky_kube__stream *s);
/* Free everything the parse still holds. */
SLINKY_HIDDEN void slinky_kube__stream_dispose(slinky_kube__stream *s);

#endif
