/*
 * bench_kube_watch_decode [EVENTS]: decode a watch stream of NodeSet
 * MODIFIED events (about 1.4 kB each) held in memory, fed in 16 kB chunks
 * as curl would, on one core. Prints events/s and the ratio to the
 * 100,000 events/s target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "slinky.h"

static long seen;

static slinky_status on_event(slinky_kube_event_type t, slinky_doc *obj, void *p)
{
    (void)t;
    (void)p;
    seen++;
    slinky_doc_free(obj);
    return 0;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    const char *src = getenv("SLINKY_SHARED_DIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/upstream/slinky/examples/nodeset.yaml", src ? src : "../shared");
    slinky_doc *ex = NULL;
    if (slinky_doc_load_file(&ex, path) != 0) {
        fprintf(stderr, "%s\n", slinky_error_last()->message);
        return 1;
    }
    slinky_doc_value *meta = slinky_doc_value_path(slinky_doc_root(ex), "metadata");
    slinky_doc_value_object_set_string(meta, "uid", "7c1e0d8e-5d43-4c1b-9d36-2f7e8f1a9b10");
    slinky_doc_value_object_set_string(meta, "creationTimestamp", "2026-11-30T07:00:00Z");
    /* build the stream: distinct names and resourceVersions */
    size_t cap = (size_t)n * 1600 + 4096, len = 0;
    char *buf = malloc(cap);
    for (long i = 0; i < n; i++) {
        char name[32], rv[32];
        snprintf(name, sizeof(name), "nodeset-%06ld", i);
        snprintf(rv, sizeof(rv), "%ld", 1000 + i);
        slinky_doc_value_object_set_string(meta, "name", name);
        slinky_doc_value_object_set_string(meta, "resourceVersion", rv);
        char *json = NULL;
        size_t jl = 0;
        slinky_doc_value_dump_json(&json, &jl, slinky_doc_root(ex), SLINKY_DOC_DUMP_COMPACT);
        if (len + jl + 64 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        len += (size_t)sprintf(buf + len, "{\"type\":\"MODIFIED\",\"object\":%s}\n", json);
        slinky_free(json);
    }
    slinky_doc_free(ex);
    slinky_kube_watch_decoder *d = NULL;
    slinky_kube_watch_decoder_new(&d, 0);
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t off = 0; off < len; off += 16384) {
        size_t k = len - off < 16384 ? len - off : 16384;
        if (slinky_kube_watch_decoder_feed(d, buf + off, k, on_event, NULL) != 0) {
            fprintf(stderr, "decode: %s\n", slinky_error_last()->message);
            return 1;
        }
    }
    double dt = clock_s(CLOCK_MONOTONIC) - t0, ct = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    slinky_kube_watch_decoder_free(d);
    free(buf);
    if (seen != n) {
        fprintf(stderr, "decoded %ld of %ld events\n", seen, n);
        return 1;
    }
    /* CPU time is what one core spends (the machine may be shared); wall shown too */
    double eps = n / ct;
    printf("watch decode: %ld events, %.1f MB: %.3f s CPU (%.3f s wall) = %.0f events/s per core, %.0f MB/s; "
           "ratio to the 100000 events/s target: %.2fx\n",
           n, len / 1e6, ct, dt, eps, len / 1e6 / ct, eps / 100000.0);
    printf("BENCH measure=kube.watch-decode ours=%.0fev/s peer=- ratio=- target=ours>=300000\n",
           eps);
    return 0;
}
