/* kube: the resumable envelope scanner of stream.h. */
#include <stdlib.h>
#include <string.h>

#include "stream.h"

enum {
    S_START,      /* before the envelope's '{' */
    S_KEY_OR_END, /* after '{' */
    S_KEY,        /* after ',' */
    S_COLON,
    S_VALUE,
    S_AFTER_VALUE,
    S_ITEM_OR_END, /* after "items": [ */
    S_ITEM,        /* after ',' in items */
    S_AFTER_ITEM,
    S_DONE
};

enum { R_SKIP, R_KEY, R_META, R_ITEM, R_OBJECT, R_TYPE };

#define DEFAULT_MAX_VALUE ((size_t)64 << 20)

static int fail(slinky_kube__stream *s, int err)
{
    if (s->err == 0)
        s->err = err ? err : SLINKY_ERROR;
    return s->err;
}

static int syntax(slinky_kube__stream *s, const char *what)
{
    return fail(s, slinky__error_set(SLINKY_EPARSE, "invalid JSON: %s", what));
}

void slinky_kube__stream_release(slinky_kube__stream *s)
{
    slinky_doc_free(s->object);
    slinky_doc_free(s->meta);
    s->object = s->meta = NULL;
    s->capturing = false;
    slinky__buf_clear(&s->cap);
}

void slinky_kube__stream_dispose(slinky_kube__stream *s)
{
    slinky_kube__stream_release(s);
    slinky__buf_dispose(&s->cap);
    slinky_doc__json_dispose(&s->json);
}

int slinky_kube__stream_begin(slinky_kube__stream *s, int mode, slinky_kube_item_cb item_cb,
                              void *payload)
{
    slinky_kube__stream_release(s);
    slinky__buf cap = s->cap;
    slinky_doc__json json = s->json;
    memset(s, 0, sizeof(*s));
    s->cap = cap;
    s->json = json;
    s->mode = mode;
    s->item_cb = item_cb;
    s->item_payload = payload;
    s->max_value = DEFAULT_MAX_VALUE;
    return 0;
}

/* Hand a parsed metadata/object/item document to its owner. */
static int deliver(slinky_kube__stream *s, slinky_doc *d)
{
    int err;
    if (s->route == R_META) {
        slinky_doc_free(s->meta);
        s->meta = d;
    } else if (s->route == R_OBJECT) {
        slinky_doc_free(s->object);
        s->object = d;
    } else {
        s->nitems++;
        err = s->item_cb ? s->item_cb(d, s->item_payload) : (slinky_doc_free(d), 0);
        if (err)
            return fail(s, err);
        s->state = S_AFTER_ITEM;
        return 0;
    }
    s->state = S_AFTER_VALUE;
    return 0;
}

/* A complete member value (or key) of the envelope. */
static int finish_value(slinky_kube__stream *s, const char *p, size_t n)
{
    int err = 0;
    slinky_doc *d = NULL;
    switch (s->route) {
    case R_KEY: {
        const char *k;
        size_t kn;
        if ((err = slinky_doc__json_string(&s->json, &k, &kn, p, n)) != 0)
            return fail(s, err);
        s->key_ok = kn < sizeof(s->key);
        if (s->key_ok) {
            memcpy(s->key, k, kn);
            s->key[kn] = '\0';
        }
        s->state = S_COLON;
        return 0;
    }
    case R_TYPE: {
        const char *t;
        size_t tn;
        if ((err = slinky_doc__json_string(&s->json, &t, &tn, p, n)) != 0) {
            slinky__error_set(SLINKY_EPARSE, "watch event type is not a string");
            return fail(s, SLINKY_EPARSE);
        }
        if (tn >= sizeof(s->type) || memchr(t, '\0', tn))
            return syntax(s, "watch event type is not a known string");
        memcpy(s->type, t, tn);
        s->type[tn] = '\0';
        s->has_type = true;
        break;
    }
    case R_SKIP:
        if ((err = slinky_doc__json_parse(&s->json, NULL, p, n)) != 0)
            return fail(s, err);
        break;
    default:
        if ((err = slinky_doc_new(&d)) != 0)
            return fail(s, err);
        if ((err = slinky_doc__json_parse(&s->json, slinky_doc_root(d), p, n)) != 0) {
            slinky_doc_free(d);
            return fail(s, err);
        }
        return deliver(s, d);
    }
    s->state = S_AFTER_VALUE;
    return 0;
}

/*
 * Fast path for a value the caller keeps (metadata, object, item): parse it
 * straight from the chunk. Returns bytes consumed, 0 when the value runs
 * past the chunk (then it is captured and parsed once complete), or -1.
 */
static long direct(slinky_kube__stream *s, const char *data, size_t len, int route)
{
    slinky_doc *d = NULL;
    int err = slinky_doc_new(&d);
    if (err)
        return fail(s, err), -1;
    size_t used = 0;
    bool truncated = false;
    err = slinky_doc__json_parse_prefix(&s->json, slinky_doc_root(d), data, len, &used, &truncated);
    if (err) {
        slinky_doc_free(d);
        if (truncated) {
            slinky_error_clear();
            return 0;
        }
        return fail(s, err), -1;
    }
    s->route = route;
    if (deliver(s, d) != 0)
        return -1;
    return (long)used;
}

/* Begin capturing a value whose first byte is c. */
static void begin_capture(slinky_kube__stream *s, char c, int route)
{
    s->capturing = true;
    s->route = route;
    s->cap_depth = 0;
    s->cap_in_str = false;
    s->cap_esc = false;
    s->cap_kind = (c == '{' || c == '[') ? 0 : (c == '"' ? 1 : 2);
    slinky__buf_clear(&s->cap);
}

/*
 * Scan data[i..len) for the end of the captured value. Returns the index
 * just past it, or len when it continues in the next chunk.
 */
static size_t scan(slinky_kube__stream *s, const char *data, size_t i, size_t len, bool *ended)
{
    *ended = false;
    if (s->cap_kind == 2) {
        for (; i < len; i++) {
            char c = data[i];
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                *ended = true;
                return i;
            }
        }
        return len;
    }
    int depth = s->cap_depth;
    bool in_str = s->cap_in_str, esc = s->cap_esc;
    if (s->cap_kind == 1 && depth == 0 && !in_str && s->cap.len == 0) {
        /* the opening quote */
        in_str = true;
        i++;
    }
    while (i < len) {
        if (in_str) {
            if (esc) {
                esc = false;
                i++;
                continue;
            }
            /* skip plain bytes quickly */
            const char *q = data + i, *e = data + len;
            while (q < e && *q != '"' && *q != '\\')
                q++;
            i = (size_t)(q - data);
            if (i >= len)
                break;
            if (*q == '\\') {
                esc = true;
            } else {
                in_str = false;
                if (s->cap_kind == 1) {
                    *ended = true;
                    return i + 1;
                }
            }
            i++;
            continue;
        }
        char c = data[i++];
        if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                *ended = true;
                s->cap_depth = 0;
                return i;
            }
        }
    }
    s->cap_depth = depth;
    s->cap_in_str = in_str;
    s->cap_esc = esc;
    return len;
}

static int route_for(slinky_kube__stream *s)
{
    if (!s->key_ok)
        return R_SKIP;
    if (s->mode == SLINKY_KUBE__STREAM_EVENT) {
        if (strcmp(s->key, "object") == 0)
            return R_OBJECT;
        if (strcmp(s->key, "type") == 0)
            return R_TYPE;
        return R_SKIP;
    }
    if (strcmp(s->key, "metadata") == 0)
        return R_META;
    return R_SKIP;
}

int slinky_kube__stream_feed(slinky_kube__stream *s, const char *data, size_t len)
{
    if (s->err)
        return s->err;
    size_t i = 0;
    while (i < len) {
        if (s->capturing) {
            size_t start = i;
            bool ended;
            size_t e = scan(s, data, i, len, &ended);
            if (!ended) {
                if (s->cap.len + (len - start) > s->max_value)
                    return syntax(s, "value too large");
                if (slinky__buf_put(&s->cap, data + start, len - start) != 0)
                    return fail(s, SLINKY_ENOMEM);
                return 0;
            }
            s->capturing = false;
            int err;
            if (s->cap.len == 0) {
                err = finish_value(s, data + start, e - start);
            } else {
                if (slinky__buf_put(&s->cap, data + start, e - start) != 0)
                    return fail(s, SLINKY_ENOMEM);
                err = finish_value(s, s->cap.data, s->cap.len);
                slinky__buf_clear(&s->cap);
            }
            if (err)
                return err;
            i = e;
            continue;
        }
        char c = data[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            i++;
            continue;
        }
        switch (s->state) {
        case S_START:
            if (c != '{')
                return syntax(s, "expected a JSON object");
            s->state = S_KEY_OR_END;
            i++;
            break;
        case S_KEY_OR_END:
        case S_KEY:
            if (c == '}' && s->state == S_KEY_OR_END) {
                s->state = S_DONE;
                i++;
                break;
            }
            if (c != '"')
                return syntax(s, "object key expected");
            begin_capture(s, c, R_KEY);
            break;
        case S_COLON:
            if (c != ':')
                return syntax(s, "':' expected");
            s->state = S_VALUE;
            i++;
            break;
        case S_VALUE:
            if (s->mode == SLINKY_KUBE__STREAM_LIST && s->key_ok && strcmp(s->key, "items") == 0) {
                if (c == '[') {
                    s->state = S_ITEM_OR_END;
                    i++;
                    break;
                }
                if (c != 'n')
                    return syntax(s, "list items is not an array");
            }
            if (c == ',' || c == '}' || c == ']' || c == ':')
                return syntax(s, "value expected");
            {
                int r = route_for(s);
                if (r == R_META || r == R_OBJECT) {
                    long used = direct(s, data + i, len - i, r);
                    if (used < 0)
                        return s->err;
                    if (used > 0) {
                        i += (size_t)used;
                        break;
                    }
                }
                begin_capture(s, c, r);
            }
            break;
        case S_AFTER_VALUE:
            if (c == ',') {
                s->state = S_KEY;
            } else if (c == '}') {
                s->state = S_DONE;
            } else {
                return syntax(s, "',' or '}' expected");
            }
            i++;
            break;
        case S_ITEM_OR_END:
        case S_ITEM:
            if (c == ']' && s->state == S_ITEM_OR_END) {
                s->state = S_AFTER_VALUE;
                i++;
                break;
            }
            if (c == ',' || c == '}' || c == ']' || c == ':')
                return syntax(s, "list item expected");
            {
                long used = direct(s, data + i, len - i, R_ITEM);
                if (used < 0)
                    return s->err;
                if (used > 0) {
                    i += (size_t)used;
                    break;
                }
            }
            begin_capture(s, c, R_ITEM);
            break;
        case S_AFTER_ITEM:
            if (c == ',') {
                s->state = S_ITEM;
            } else if (c == ']') {
                s->state = S_AFTER_VALUE;
            } else {
                return syntax(s, "',' or ']' expected in items");
            }
            i++;
            break;
        default:
            return syntax(s, "trailing characters after the object");
        }
    }
    return 0;
}

int slinky_kube__stream_end(slinky_kube__stream *s)
{
    if (s->err)
        return s->err;
    if (s->capturing && s->cap_kind == 2) {
        /* a scalar ending the input */
        s->capturing = false;
        int err = finish_value(s, s->cap.data ? s->cap.data : "", s->cap.len);
        slinky__buf_clear(&s->cap);
        if (err)
            return err;
    }
    if (s->capturing || s->state != S_DONE)
        return syntax(s, "truncated JSON");
    return 0;
}
