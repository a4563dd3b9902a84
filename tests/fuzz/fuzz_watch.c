/*
 * libFuzzer: the incremental watch decoder, fed in two pieces split where
 * the first byte says; and, on the same bytes, the doc module's JSON reader
 * (json_read.c, which slinky_doc_parse_json and the watch decoder use)
 * checked against the yajl-based reference reader: whatever the reader
 * accepts, the reference accepts too, with an equal value.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc/json_read.h"
#include "slinky.h"

static slinky_status on_event(slinky_kube_event_type t, slinky_doc *obj, void *p)
{
    (void)p;
    /* touch what a consumer would read */
    (void)slinky_kube_event_type_name(t);
    (void)slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.resourceVersion", "");
    slinky_doc_free(obj);
    return 0;
}

static void differential(const char *p, size_t n)
{
    slinky_doc *mine = NULL, *ref = NULL;
    if (slinky_doc_new(&mine) != 0)
        return;
    slinky_doc__json j;
    slinky_doc__json_init(&j);
    int e1 = slinky_doc__json_parse(&j, slinky_doc_root(mine), p, n);
    int e2 = slinky_doc__parse_json_yajl(&ref, p, n);
    if (e1 == 0 && (e2 != 0 || !slinky_doc_value_equal(slinky_doc_root(mine), slinky_doc_root(ref))))
        abort();
    slinky_doc__json_dispose(&j);
    slinky_doc_free(mine);
    slinky_doc_free(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cut = data[0] % size;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    if (cut > n)
        cut = n;
    slinky_kube_watch_decoder *d = NULL;
    if (slinky_kube_watch_decoder_new(&d, 1 << 16) != 0)
        return 0;
    if (slinky_kube_watch_decoder_feed(d, p, cut, on_event, NULL) == 0 &&
        slinky_kube_watch_decoder_feed(d, p + cut, n - cut, on_event, NULL) == 0)
        slinky_kube_watch_decoder_finish(d, on_event, NULL);
    slinky_kube_watch_decoder_free(d);
    differential(p, n);
    return 0;
}
