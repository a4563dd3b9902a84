/*
 * kube: a streaming JSON reader on yajl's callback parser. It builds only
 * the parts it needs (a watch event's object, a list's metadata and one item
 * at a time) and skips the rest, so big lists never exist as one tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "stream.h"

/* ---------------------------------------------------------------- builder */

void slinky_kube__builder_init(slinky_kube__builder *b)
{
    memset(b, 0, sizeof(*b));
}

void slinky_kube__builder_dispose(slinky_kube__builder *b)
{
    free(b->stack);
    free(b->key);
    memset(b, 0, sizeof(*b));
}

void slinky_kube__builder_reset(slinky_kube__builder *b, slinky_doc_value *root)
{
    b->depth = 0;
    b->has_key = false;
    if (b->cap == 0) {
        b->stack = malloc(16 * sizeof(*b->stack));
        b->cap = b->stack ? 16 : 0;
    }
    if (b->cap)
        b->stack[0] = root; /* slot for depth 0 */
}

int slinky_kube__builder_key(slinky_kube__builder *b, const unsigned char *k, size_t len)
{
    if (len + 1 > b->key_cap) {
        size_t n = len + 64;
        char *p = slinky__realloc(b->key, n);
        if (p == NULL)
            return SLINKY_ENOMEM;
        b->key = p;
        b->key_cap = n;
    }
    memcpy(b->key, k, len);
    b->key[len] = '\0';
    if (memchr(k, '\0', len) != NULL)
        return slinky__error_set(SLINKY_EPARSE, "object key contains a NUL byte");
    b->has_key = true;
    return 0;
}

int slinky_kube__builder_slot(slinky_doc_value **out, slinky_kube__builder *b)
{
    if (b->cap == 0)
        return slinky__error_oom();
    if (b->depth == 0) {
        *out = b->stack[0];
        return 0;
    }
    slinky_doc_value *top = b->stack[b->depth];
    if (slinky_doc_value_type(top) == SLINKY_DOC_ARRAY)
        return slinky_doc_value_array_append(out, top);
    if (!b->has_key)
        return slinky__error_set(SLINKY_EPARSE, "value without a key");
    b->has_key = false;
    return slinky_doc_value_object_put(out, top, b->key);
}

int slinky_kube__builder_push(slinky_kube__builder *b, slinky_doc_value *container)
{
    if (b->depth + 2 > b->cap) {
        size_t n = b->cap * 2;
        slinky_doc_value **p = slinky__realloc(b->stack, n * sizeof(*p));
        if (p == NULL)
            return SLINKY_ENOMEM;
        b->stack = p;
        b->cap = n;
    }
    b->stack[++b->depth] = container;
    return 0;
}

void slinky_kube__builder_pop(slinky_kube__builder *b)
{
    if (b->depth > 0)
        b->depth--;
}

int slinky_kube__set_number(slinky_doc_value *v, const char *s, size_t len)
{
    char tmp[64];
    bool integral = true;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            integral = false;
    if (len < sizeof(tmp)) {
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        if (integral) {
            errno = 0;
            char *end;
            long long ll = strtoll(tmp, &end, 10);
            if (errno == 0 && *end == '\0')
                return slinky_doc_value_set_int(v, (int64_t)ll);
        }
        return slinky_doc_value_set_double(v, strtod(tmp, NULL));
    }
    char *big = slinky__strndup(s, len);
    if (big == NULL)
        return SLINKY_ENOMEM;
    int err = slinky_doc_value_set_double(v, strtod(big, NULL));
    free(big);
    return err;
}

/* ---------------------------------------------------------------- stream */

#define CTX ((slinky_kube__stream *)ctx)

static int fail(slinky_kube__stream *s, int err)
{
    if (s->err == 0)
        s->err = err ? err : SLINKY_ERROR;
    return 0; /* stop yajl */
}

static void capture_done(slinky_kube__stream *s)
{
    slinky_doc *d = s->cap_doc;
    s->cap_doc = NULL;
    s->capturing = false;
    switch (s->cap_kind) {
    case 0:
        slinky_doc_free(s->object);
        s->object = d;
        break;
    case 1:
        slinky_doc_free(s->meta);
        s->meta = d;
        break;
    case 2: {
        s->nitems++;
        int err = s->item_cb ? s->item_cb(d, s->item_payload) : (slinky_doc_free(d), 0);
        if (err != 0)
            fail(s, err);
        break;
    }
    default:
        slinky_doc_free(d);
    }
}

/* A value starts outside a capture: decide what to do with it.
 * Returns 1 to capture, 0 to ignore (scalars)/skip (containers), -1 error. */
static int route(slinky_kube__stream *s, bool container, bool is_array)
{
    if (s->level == 0) {
        if (!container || is_array) {
            fail(s, slinky__error_set(SLINKY_EPARSE, "expected a JSON object"));
            return -1;
        }
        return 2; /* envelope */
    }
    if (s->mode == SLINKY_KUBE__STREAM_EVENT && s->level == 1) {
        if (strcmp(s->key1, "object") == 0) {
            s->cap_kind = 0;
            return 1;
        }
        if (strcmp(s->key1, "type") == 0) {
            s->cap_kind = 3;
            return 3;
        }
        return 0;
    }
    if (s->mode == SLINKY_KUBE__STREAM_LIST) {
        if (s->level == 1 && strcmp(s->key1, "metadata") == 0) {
            s->cap_kind = 1;
            return 1;
        }
        if (s->level == 1 && strcmp(s->key1, "items") == 0) {
            if (!container)
                return 0; /* "items": null */
            if (!is_array) {
                fail(s, slinky__error_set(SLINKY_EPARSE, "list items is not an array"));
                return -1;
            }
            return 2; /* descend */
        }
        if (s->level == 2 && s->in_items) {
            s->cap_kind = 2;
            return 1;
        }
    }
    return 0;
}

static int begin_capture(slinky_kube__stream *s)
{
    int err = slinky_doc_new(&s->cap_doc);
    if (err != 0)
        return fail(s, err);
    s->capturing = true;
    slinky_kube__builder_reset(&s->b, slinky_doc_root(s->cap_doc));
    return 1;
}

/* scalar value */
static int on_scalar(slinky_kube__stream *s, int kind, const char *str, size_t len, int b)
{
    if (s->err)
        return 0;
    if (s->skip_depth > 0)
        return 1;
    if (!s->capturing) {
        int r = route(s, false, false);
        if (r < 0)
            return 0;
        if (r == 3) {
            if (kind != 4 || len >= sizeof(s->type))
                return fail(s, slinky__error_set(SLINKY_EPARSE, "watch event type is not a known string"));
            memcpy(s->type, str, len);
            s->type[len] = '\0';
            s->has_type = true;
            return 1;
        }
        if (r != 1)
            return 1;
        if (!begin_capture(s))
            return 0;
    }
    slinky_doc_value *v;
    int err = slinky_kube__builder_slot(&v, &s->b);
    if (err == 0) {
        switch (kind) {
        case 0:
            err = slinky_doc_value_set_null(v);
            break;
        case 1:
            err = slinky_doc_value_set_bool(v, b != 0);
            break;
        case 2:
            err = slinky_kube__set_number(v, str, len);
            break;
        default:
            err = slinky_doc_value_set_string_len(v, str, len);
        }
    }
    if (err != 0)
        return fail(s, err);
    if (s->b.depth == 0)
        capture_done(s);
    return s->err ? 0 : 1;
}

static int y_null(void *ctx)
{
    return on_scalar(CTX, 0, NULL, 0, 0);
}
static int y_bool(void *ctx, int b)
{
    return on_scalar(CTX, 1, NULL, 0, b);
}
static int y_number(void *ctx, const char *s, size_t l)
{
    return on_scalar(CTX, 2, s, l, 0);
}
static int y_string(void *ctx, const unsigned char *s, size_t l)
{
    return on_scalar(CTX, 4, (const char *)s, l, 0);
}

static int on_start(slinky_kube__stream *s, bool is_array)
{
    if (s->err)
        return 0;
    if (s->skip_depth > 0) {
        s->skip_depth++;
        return 1;
    }
    if (!s->capturing) {
        int r = route(s, true, is_array);
        if (r < 0)
            return 0;
        if (r == 2) {
            s->level++;
            if (is_array)
                s->in_items = true;
            return 1;
        }
        if (r == 3)
            return fail(s, slinky__error_set(SLINKY_EPARSE, "watch event type is not a string"));
        if (r == 0) {
            s->skip_depth = 1;
            return 1;
        }
        if (!begin_capture(s))
            return 0;
    }
    slinky_doc_value *v;
    int err = slinky_kube__builder_slot(&v, &s->b);
    if (err == 0)
        err = is_array ? slinky_doc_value_set_array(v) : slinky_doc_value_set_object(v);
    if (err == 0)
        err = slinky_kube__builder_push(&s->b, v);
    if (err != 0)
        return fail(s, err);
    return 1;
}

static int on_end(slinky_kube__stream *s, bool is_array)
{
    if (s->err)
        return 0;
    if (s->skip_depth > 0) {
        s->skip_depth--;
        return 1;
    }
    if (s->capturing) {
        slinky_kube__builder_pop(&s->b);
        if (s->b.depth == 0)
            capture_done(s);
        return s->err ? 0 : 1;
    }
    if (is_array)
        s->in_items = false;
    s->level--;
    return 1;
}

static int y_start_map(void *ctx)
{
    return on_start(CTX, false);
}
static int y_end_map(void *ctx)
{
    return on_end(CTX, false);
}
static int y_start_array(void *ctx)
{
    return on_start(CTX, true);
}
static int y_end_array(void *ctx)
{
    return on_end(CTX, true);
}

static int y_key(void *ctx, const unsigned char *k, size_t l)
{
    slinky_kube__stream *s = CTX;
    if (s->err)
        return 0;
    if (s->skip_depth > 0)
        return 1;
    if (s->capturing) {
        int err = slinky_kube__builder_key(&s->b, k, l);
        return err ? fail(s, err) : 1;
    }
    if (s->level == 1) {
        size_t n = l < sizeof(s->key1) - 1 ? l : sizeof(s->key1) - 1;
        memcpy(s->key1, k, n);
        s->key1[n] = '\0';
        if (l != n)
            s->key1[0] = '\0'; /* long keys never match */
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    y_null, y_bool, NULL, NULL, y_number, y_string,
    y_start_map, y_key, y_end_map, y_start_array, y_end_array,
};

int slinky_kube__stream_begin(slinky_kube__stream *s, int mode, slinky_kube_item_cb item_cb,
                              void *payload)
{
    slinky_kube__stream_release(s);
    slinky_kube__builder b = s->b; /* keep allocations across parses */
    memset(s, 0, sizeof(*s));
    s->b = b;
    s->mode = mode;
    s->item_cb = item_cb;
    s->item_payload = payload;
    yajl_handle h = yajl_alloc(&callbacks, NULL, s);
    if (h == NULL)
        return slinky__error_oom();
    s->yajl = h;
    return 0;
}

static int yajl_fail(slinky_kube__stream *s, yajl_status st, const char *data, size_t len)
{
    if (s->err)
        return s->err;
    if (st == yajl_status_client_canceled)
        return slinky__error_set(SLINKY_ERROR, "stream parse canceled");
    unsigned char *msg = yajl_get_error(s->yajl, 0, (const unsigned char *)data, len);
    int err = slinky__error_set(SLINKY_EPARSE, "invalid JSON: %s", msg ? (char *)msg : "?");
    if (msg)
        yajl_free_error(s->yajl, msg);
    s->err = err;
    return err;
}

int slinky_kube__stream_feed(slinky_kube__stream *s, const char *data, size_t len)
{
    if (s->err)
        return s->err;
    yajl_status st = yajl_parse(s->yajl, (const unsigned char *)data, len);
    if (st != yajl_status_ok)
        return yajl_fail(s, st, data, len);
    return 0;
}

int slinky_kube__stream_end(slinky_kube__stream *s)
{
    if (s->err)
        return s->err;
    yajl_status st = yajl_complete_parse(s->yajl);
    if (st != yajl_status_ok)
        return yajl_fail(s, st, NULL, 0);
    if (s->capturing || s->level != 0)
        return s->err = slinky__error_set(SLINKY_EPARSE, "truncated JSON");
    return 0;
}

void slinky_kube__stream_release(slinky_kube__stream *s)
{
    if (s->yajl)
        yajl_free(s->yajl);
    s->yajl = NULL;
    slinky_doc_free(s->cap_doc);
    slinky_doc_free(s->object);
    slinky_doc_free(s->meta);
    s->cap_doc = s->object = s->meta = NULL;
    s->capturing = false;
}

void slinky_kube__stream_dispose(slinky_kube__stream *s)
{
    slinky_kube__stream_release(s);
    slinky_kube__builder_dispose(&s->b);
}
