/* libFuzzer: the incremental watch decoder, fed in two pieces split where the first byte says. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
    return 0;
}
