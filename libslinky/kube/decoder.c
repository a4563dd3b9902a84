/* kube: incremental newline-framed watch stream decoder. */
#include <stdlib.h>
#include <string.h>

#include "stream.h"

struct slinky_kube_watch_decoder {
    slinky__buf line; /* partial line (bounded by max) */
    size_t max;
    slinky_kube__stream s;
    int failed;
};

static const char *event_names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *slinky_kube_event_type_name(slinky_kube_event_type t)
{
    if ((unsigned)t < SLINKY__ARRAY_SIZE(event_names))
        return event_names[t];
    return "UNKNOWN";
}

slinky_status slinky_kube_watch_decoder_new(slinky_kube_watch_decoder **out,
                                            size_t max_event_bytes)
{
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_watch_decoder_new: NULL out");
    slinky_kube_watch_decoder *d = slinky__calloc(1, sizeof(*d));
    if (d == NULL)
        return SLINKY_ENOMEM;
    d->max = max_event_bytes ? max_event_bytes : (size_t)64 << 20;
    *out = d;
    return 0;
}

void slinky_kube_watch_decoder_free(slinky_kube_watch_decoder *d)
{
    if (d == NULL)
        return;
    slinky__buf_dispose(&d->line);
    slinky_kube__stream_dispose(&d->s);
    free(d);
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

static int decode_line(slinky_kube_watch_decoder *d, const char *p, size_t n,
                       slinky_kube_event_cb cb, void *payload)
{
    if (blank(p, n))
        return 0;
    slinky_kube__stream *s = &d->s;
    int err = slinky_kube__stream_begin(s, SLINKY_KUBE__STREAM_EVENT, NULL, NULL);
    if (err == 0)
        err = slinky_kube__stream_feed(s, p, n);
    if (err == 0)
        err = slinky_kube__stream_end(s);
    if (err != 0) {
        slinky__error_prefix("watch event: ");
        return err;
    }
    if (!s->has_type)
        return slinky__error_set(SLINKY_EPARSE, "watch event without a type");
    int type = -1;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(event_names); i++)
        if (strcmp(s->type, event_names[i]) == 0)
            type = (int)i;
    if (type < 0)
        return slinky__error_set(SLINKY_EPARSE, "watch event: unknown type \"%s\"", s->type);
    if (s->object == NULL ||
        slinky_doc_value_type(slinky_doc_root(s->object)) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EPARSE, "watch event %s: object is missing or not an object",
                                 s->type);
    slinky_doc *obj = s->object;
    s->object = NULL;
    return cb ? cb((slinky_kube_event_type)type, obj, payload) : (slinky_doc_free(obj), 0);
}

slinky_status slinky_kube_watch_decoder_feed(slinky_kube_watch_decoder *d, const char *data,
                                             size_t len, slinky_kube_event_cb cb, void *payload)
{
    if (d == NULL || (data == NULL && len))
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_watch_decoder_feed: NULL argument");
    if (d->failed)
        return slinky__error_set(SLINKY_EINVALID, "watch decoder: used after a failure");
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (d->line.len + n > d->max) {
            d->failed = 1;
            return slinky__error_set(SLINKY_EPARSE, "watch event longer than %zu bytes", d->max);
        }
        if (nl == NULL) {
            if (slinky__buf_put(&d->line, data, n) != 0) {
                d->failed = 1;
                return SLINKY_ENOMEM;
            }
            return 0;
        }
        int err;
        if (d->line.len == 0) {
            err = decode_line(d, data, n, cb, payload);
        } else {
            if (slinky__buf_put(&d->line, data, n) != 0) {
                d->failed = 1;
                return SLINKY_ENOMEM;
            }
            err = decode_line(d, d->line.data, d->line.len, cb, payload);
            slinky__buf_clear(&d->line);
        }
        if (err != 0) {
            d->failed = 1;
            return err;
        }
        data = nl + 1;
        len -= n + 1;
    }
    return 0;
}

slinky_status slinky_kube_watch_decoder_finish(slinky_kube_watch_decoder *d,
                                               slinky_kube_event_cb cb, void *payload)
{
    if (d == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_watch_decoder_finish: NULL");
    if (d->failed)
        return slinky__error_set(SLINKY_EINVALID, "watch decoder: used after a failure");
    if (d->line.len == 0)
        return 0;
    int err = decode_line(d, d->line.data, d->line.len, cb, payload);
    slinky__buf_clear(&d->line);
    if (err)
        d->failed = 1;
    return err;
}
