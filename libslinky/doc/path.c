/*
 * Dotted paths ("spec.template.spec.containers[0].name",
 * `metadata.annotations["example.com/x"]`) and RFC 6901 JSON pointers.
 */
#include <stdlib.h>

#include "doc/doc_internal.h"

/* ------------------------------------------------------------------ dotted paths */

typedef slinky_doc__seg seg;

int slinky_doc__path_next(const char **pp, slinky_doc__seg *s, char *buf, int first)
{
    const char *p = *pp;
    if (!*p)
        return 0;
    if (!first && *p != '[') {
        if (*p != '.')
            return -1;
        p++;
    }
    s->is_index = 0;
    if (*p == '[') {
        p++;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            size_t n = 0;
            while (*p && *p != q) {
                if (*p == '\\' && (p[1] == q || p[1] == '\\'))
                    p++;
                buf[n++] = *p++;
            }
            if (*p != q || p[1] != ']')
                return -1;
            buf[n] = '\0';
            s->key = buf;
            s->keylen = n;
            *pp = p + 2;
            return 1;
        }
        if (*p < '0' || *p > '9')
            return -1;
        size_t idx = 0;
        while (*p >= '0' && *p <= '9') {
            if (idx > (SIZE_MAX - 9) / 10)
                return -1;
            idx = idx * 10 + (size_t)(*p - '0');
            p++;
        }
        if (*p != ']')
            return -1;
        s->is_index = 1;
        s->index = idx;
        *pp = p + 1;
        return 1;
    }
    if (*p == '"') {
        p++;
        size_t n = 0;
        while (*p && *p != '"') {
            if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            buf[n++] = *p++;
        }
        if (*p != '"')
            return -1;
        buf[n] = '\0';
        s->key = buf;
        s->keylen = n;
        *pp = p + 1;
        return 1;
    }
    const char *start = p;
    while (*p && *p != '.' && *p != '[')
        p++;
    if (p == start)
        return -1;
    s->key = start;
    s->keylen = (size_t)(p - start);
    *pp = p;
    return 1;
}

char *slinky_doc__path_join(const char *path, const char *key, bool quote)
{
    bool plain = !quote && *key != '\0';
    for (const char *s = key; plain && *s; s++)
        plain = *s != '.' && *s != '[' && *s != ']' && *s != '"';
    if (plain)
        return *path ? slinky__sprintf("%s.%s", path, key) : slinky__strdup(key);
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "%s[\"", path);
    for (const char *s = key; *s; s++) {
        if (*s == '"' || *s == '\\')
            slinky__buf_putc(&b, '\\');
        slinky__buf_putc(&b, *s);
    }
    slinky__buf_puts(&b, "\"]");
    return slinky__buf_detach(&b, NULL); /* NULL (ENOMEM set) if any append failed */
}

static int all_digits(const char *s, size_t n, size_t *out)
{
    if (!n || n > 18)
        return 0;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

static slinky_doc_value *step(const slinky_doc_value *v, const seg *s)
{
    if (s->is_index)
        return slinky_doc_value_at(v, s->index);
    if (v->type == SLINKY_DOC_OBJECT) {
        long i = slinky_doc__find(v, s->key, s->keylen);
        return i < 0 ? NULL : v->u.obj.m[i].value;
    }
    size_t idx;
    if (v->type == SLINKY_DOC_ARRAY && all_digits(s->key, s->keylen, &idx))
        return slinky_doc_value_at(v, idx);
    return NULL;
}

slinky_doc_value *slinky_doc_value_path(const slinky_doc_value *v, const char *path)
{
    if (!v || !path)
        return NULL;
    char stack[256];
    size_t plen = strlen(path);
    char *buf = plen < sizeof(stack) ? stack : malloc(plen + 1);
    if (!buf)
        return NULL;
    const char *p = path;
    slinky_doc_value *cur = (slinky_doc_value *)v;
    seg s;
    int r, first = 1;
    while (cur && (r = slinky_doc__path_next(&p, &s, buf, first)) != 0) {
        if (r < 0) {
            cur = NULL;
            break;
        }
        first = 0;
        cur = step(cur, &s);
    }
    if (buf != stack)
        free(buf);
    return cur;
}

/*
 * Walk the path; with `create` missing members are added, without it the
 * walk only checks that creating would succeed (so a failure changes nothing).
 */
static int path_walk(slinky_doc_value **out, slinky_doc_value *v, const char *path, char *buf,
                     int create)
{
    const char *p = path;
    slinky_doc_value *cur = v;
    int is_virtual = 0; /* cur does not exist yet (dry run): an empty object */
    seg s;
    int r, first = 1;
    while ((r = slinky_doc__path_next(&p, &s, buf, first)) != 0) {
        if (r < 0)
            return slinky__error_set(SLINKY_EINVALID, "malformed path \"%s\"", path);
        first = 0;
        if (is_virtual) {
            if (s.is_index)
                return slinky__error_set(SLINKY_EINVALID,
                                         "path \"%s\": no such array element", path);
            continue;
        }
        if (s.is_index || cur->type == SLINKY_DOC_ARRAY) {
            slinky_doc_value *next = step(cur, &s);
            if (!next)
                return slinky__error_set(cur->type == SLINKY_DOC_ARRAY ? SLINKY_ENOTFOUND
                                                                        : SLINKY_EINVALID,
                                         "path \"%s\": no such array element", path);
            cur = next;
            continue;
        }
        if (cur->type != SLINKY_DOC_OBJECT && cur->type != SLINKY_DOC_NULL)
            return slinky__error_set(SLINKY_EINVALID, "path \"%s\": cannot step into a %s", path,
                                     slinky_doc_type_name((slinky_doc_type)cur->type));
        if (cur->type == SLINKY_DOC_NULL) {
            if (!create) {
                is_virtual = 1;
                continue;
            }
            slinky_doc_value_set_object(cur);
        }
        long i = slinky_doc__find(cur, s.key, s.keylen);
        if (i >= 0) {
            cur = cur->u.obj.m[i].value;
        } else if (!create) {
            is_virtual = 1;
        } else {
            cur = slinky_doc__object_append(cur, s.key, s.keylen);
            if (!cur)
                return SLINKY_ENOMEM;
        }
    }
    *out = cur;
    return 0;
}

slinky_status slinky_doc_value_path_put(slinky_doc_value **out, slinky_doc_value *v,
                                        const char *path)
{
    if (!out || !v || !path)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_path_put: NULL argument");
    char *buf = malloc(strlen(path) + 1);
    if (!buf)
        return slinky__error_oom();
    slinky_doc_value *res;
    int rc = path_walk(&res, v, path, buf, 0);
    if (rc == 0)
        rc = path_walk(&res, v, path, buf, 1);
    free(buf);
    if (rc < 0)
        return rc;
    *out = res;
    return 0;
}

const char *slinky_doc_value_path_string(const slinky_doc_value *v, const char *path,
                                         const char *fallback)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    return x && x->type == SLINKY_DOC_STRING ? x->u.str.s : fallback;
}

int64_t slinky_doc_value_path_int(const slinky_doc_value *v, const char *path, int64_t fallback)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    return slinky_doc_value_is_number(x) ? slinky_doc_value_get_int(x) : fallback;
}

bool slinky_doc_value_path_bool(const slinky_doc_value *v, const char *path, bool fallback)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    return x && x->type == SLINKY_DOC_BOOL ? x->u.b : fallback;
}

/* ------------------------------------------------------------------ JSON pointers */

long slinky_doc__pointer_index(const char *t)
{
    size_t n = strlen(t);
    if (!n || n > 18 || (t[0] == '0' && n > 1))
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return -1;
        v = v * 10 + (t[i] - '0');
    }
    return v;
}

/* Unescape the token starting at p (up to '/' or end) into buf; -1 on a bad ~ escape. */
static long read_token(const char *p, char *buf, size_t *consumed)
{
    size_t n = 0;
    const char *s = p;
    while (*s && *s != '/') {
        if (*s == '~') {
            if (s[1] == '0')
                buf[n++] = '~';
            else if (s[1] == '1')
                buf[n++] = '/';
            else
                return -1;
            s += 2;
        } else {
            buf[n++] = *s++;
        }
    }
    buf[n] = '\0';
    *consumed = (size_t)(s - p);
    return (long)n;
}

static slinky_doc_value *token_step(slinky_doc_value *v, const char *tok, size_t len)
{
    if (v->type == SLINKY_DOC_OBJECT) {
        long i = slinky_doc__find(v, tok, len);
        return i < 0 ? NULL : v->u.obj.m[i].value;
    }
    if (v->type == SLINKY_DOC_ARRAY) {
        if (strlen(tok) != len)
            return NULL;
        long i = slinky_doc__pointer_index(tok);
        return i < 0 ? NULL : slinky_doc_value_at(v, (size_t)i);
    }
    return NULL;
}

slinky_doc_value *slinky_doc_value_pointer(const slinky_doc_value *v, const char *pointer)
{
    if (!v || !pointer)
        return NULL;
    if (!*pointer)
        return (slinky_doc_value *)v;
    if (*pointer != '/')
        return NULL;
    size_t plen = strlen(pointer);
    char stack[256];
    char *buf = plen < sizeof(stack) ? stack : malloc(plen + 1);
    if (!buf)
        return NULL;
    slinky_doc_value *cur = (slinky_doc_value *)v;
    const char *p = pointer;
    while (cur && *p == '/') {
        size_t used;
        long n = read_token(p + 1, buf, &used);
        if (n < 0) {
            cur = NULL;
            break;
        }
        cur = token_step(cur, buf, (size_t)n);
        p += 1 + used;
    }
    if (buf != stack)
        free(buf);
    return cur;
}

int slinky_doc__pointer_parent(slinky_doc_value **parent, char **last, slinky_doc_value *root,
                               const char *pointer)
{
    if (!*pointer) {
        *parent = NULL;
        *last = NULL;
        return 0;
    }
    if (*pointer != '/')
        return slinky__error_set(SLINKY_EINVALID, "JSON pointer \"%s\" must start with '/'",
                                 pointer);
    size_t plen = strlen(pointer);
    char *buf = malloc(plen + 1);
    if (!buf)
        return slinky__error_oom();
    slinky_doc_value *cur = root;
    const char *p = pointer;
    for (;;) {
        size_t used;
        long n = read_token(p + 1, buf, &used);
        if (n < 0) {
            free(buf);
            return slinky__error_set(SLINKY_EINVALID, "JSON pointer \"%s\": bad ~ escape",
                                     pointer);
        }
        p += 1 + used;
        if (!*p) {
            *parent = cur;
            *last = buf;
            return 0;
        }
        cur = token_step(cur, buf, (size_t)n);
        if (!cur) {
            free(buf);
            return slinky__error_set(SLINKY_ENOTFOUND, "path \"%s\" does not exist", pointer);
        }
    }
}

slinky_status slinky_doc_pointer_escape(char **out, const char *token)
{
    if (!out || !token)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_pointer_escape: NULL argument");
    slinky__buf b = SLINKY__BUF_INIT;
    for (const char *s = token; *s; s++) {
        if (*s == '~')
            slinky__buf_put(&b, "~0", 2);
        else if (*s == '/')
            slinky__buf_put(&b, "~1", 2);
        else
            slinky__buf_putc(&b, *s);
    }
    return slinky__buf_finish(out, NULL, &b);
}
