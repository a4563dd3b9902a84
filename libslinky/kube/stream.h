/* kube: streaming JSON parser for list replies and watch events (private). */
#ifndef SLINKY_KUBE_STREAM_H
#define SLINKY_KUBE_STREAM_H

#include "kube_internal.h"

enum { SLINKY_KUBE__STREAM_EVENT = 0, SLINKY_KUBE__STREAM_LIST = 1 };

typedef struct slinky_kube__stream {
    int mode;
    void *yajl; /* yajl_handle */
    int level;
    bool in_items;
    char key1[16];
    int skip_depth;
    bool capturing;
    int cap_kind; /* 0 object, 1 metadata, 2 item, 3 type */
    slinky_doc *cap_doc;
    slinky_kube__builder b;
    int err; /* first error set by a callback */
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
/* Free everything the parse still holds (object, meta, partial capture, yajl). */
SLINKY_HIDDEN void slinky_kube__stream_dispose(slinky_kube__stream *s);

#endif
