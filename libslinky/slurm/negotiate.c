/*
 * slurm: version negotiation. The server's OpenAPI description lists every
 * path it serves ("/slurm/v0.0.42/node/{node_name}" with its methods); the
 * newest data-parser version both sides know is used, and the methods it
 * offers decide which calls are possible (v0.0.38 has no node update,
 * 24.11 has no reservation create).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "slurm_internal.h"

/* newest first */
static const char *const known[] = {"v0.0.42", "v0.0.41", "v0.0.40", "v0.0.38"};

/* "/slurm/v0.0.42/nodes/" -> version "v0.0.42" (out), rest "nodes" (rel, rel_len) */
static bool split_path(const char *p, char ver[16], const char **rel, size_t *rel_len)
{
    if (strncmp(p, "/slurm/v", 8) != 0)
        return false;
    const char *v = p + 7, *s = strchr(v, '/');
    if (s == NULL || (size_t)(s - v) >= 16)
        return false;
    memcpy(ver, v, (size_t)(s - v));
    ver[s - v] = '\0';
    *rel = s + 1;
    size_t n = strlen(*rel);
    while (n && (*rel)[n - 1] == '/')
        n--;
    *rel_len = n;
    return true;
}

static int collect(slinky_slurm_client *c, const slinky_doc_value *paths)
{
    size_t n = slinky_doc_value_size(paths);
    bool have[SLINKY__ARRAY_SIZE(known)] = {false};
    char ver[16];
    const char *rel;
    size_t rel_len;
    for (size_t i = 0; i < n; i++) {
        const char *k = slinky_doc_value_key_at(paths, i);
        if (!split_path(k, ver, &rel, &rel_len))
            continue;
        for (size_t j = 0; j < SLINKY__ARRAY_SIZE(known); j++)
            if (strcmp(ver, known[j]) == 0)
                have[j] = true;
    }
    const char *pick = NULL;
    for (size_t j = 0; j < SLINKY__ARRAY_SIZE(known) && !pick; j++)
        if (have[j] && (c->forced_version == NULL || strcmp(c->forced_version, known[j]) == 0))
            pick = known[j];
    if (pick == NULL) {
        slinky__buf b = SLINKY__BUF_INIT;
        for (size_t i = 0; i < n; i++)
            if (split_path(slinky_doc_value_key_at(paths, i), ver, &rel, &rel_len) && (!b.data || !strstr(b.data, ver)))
                slinky__buf_printf(&b, "%s%s", b.len ? " " : "", ver);
        int err = slinky__error_set(SLINKY_EUNSUPPORTED,
                                    "slurmrestd %s offers data parser versions [%s]; %s%s", c->base,
                                    b.data ? b.data : "", c->forced_version ? "wanted " : "this library knows v0.0.38 and v0.0.40-v0.0.42",
                                    c->forced_version ? c->forced_version : "");
        slinky__buf_dispose(&b);
        return err;
    }
    char **ops = NULL;
    size_t nops = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!split_path(slinky_doc_value_key_at(paths, i), ver, &rel, &rel_len) || strcmp(ver, pick) != 0)
            continue;
        slinky_doc_value *m = slinky_doc_value_member_at(paths, i);
        for (size_t j = 0; j < slinky_doc_value_size(m); j++) {
            const char *meth = slinky_doc_value_key_at(m, j);
            if (strcmp(meth, "get") && strcmp(meth, "post") && strcmp(meth, "delete") && strcmp(meth, "put"))
                continue;
            if (nops == cap) {
                size_t nc = cap ? cap * 2 : 32;
                char **p = slinky__realloc(ops, nc * sizeof(*p));
                if (p == NULL)
                    goto oom;
                ops = p;
                cap = nc;
            }
            char up[8];
            size_t l = 0;
            for (; meth[l] && l < sizeof(up) - 1; l++)
                up[l] = (char)toupper((unsigned char)meth[l]);
            up[l] = '\0';
            if ((ops[nops] = slinky__sprintf("%s %.*s", up, (int)rel_len, rel)) == NULL)
                goto oom;
            nops++;
        }
    }
    c->ops = ops;
    c->nops = nops;
    snprintf(c->version, sizeof(c->version), "%s", pick);
    return 0;
oom:
    for (size_t i = 0; i < nops; i++)
        free(ops[i]);
    free(ops);
    return SLINKY_ENOMEM;
}

/*
 * The OpenAPI description is ~660 KB, of which negotiation needs the path names, their
 * methods and info.version: they are picked out while it arrives (yajl callbacks) into a
 * small document {"info": {"version"}, "paths": {PATH: {METHOD: null}}}.
 */
typedef struct oscan {
    yajl_handle h;
    int depth;
    int top; /* 1 "paths", 2 "info" */
    bool version_key;
    bool failed;
    slinky_doc *doc;
    slinky_doc_value *paths, *info, *cur;
} oscan;

static int os_skip(void *p)
{
    (void)p;
    return 1;
}
static int os_bool(void *p, int b)
{
    (void)p, (void)b;
    return 1;
}
static int os_num(void *p, const char *t, size_t n)
{
    (void)p, (void)t, (void)n;
    return 1;
}
static int os_open(void *p)
{
    ((oscan *)p)->depth++;
    return 1;
}
static int os_close(void *p)
{
    oscan *o = p;
    if (--o->depth <= 2)
        o->cur = NULL;
    return 1;
}
static int os_key(void *p, const unsigned char *k, size_t n)
{
    oscan *o = p;
    slinky_doc_value *v = NULL;
    if (o->depth == 1) {
        o->top = n == 5 && !memcmp(k, "paths", 5) ? 1 : n == 4 && !memcmp(k, "info", 4) ? 2 : 0;
    } else if (o->depth == 2 && o->top == 1) {
        char *key = slinky__strndup((const char *)k, n);
        if (key == NULL || slinky_doc_value_object_put(&v, o->paths, key) || slinky_doc_value_set_object(v))
            o->failed = true;
        free(key);
        o->cur = v;
    } else if (o->depth == 3 && o->top == 1 && o->cur) {
        char *key = slinky__strndup((const char *)k, n);
        if (key == NULL || slinky_doc_value_object_put(&v, o->cur, key))
            o->failed = true;
        free(key);
    } else if (o->depth == 2 && o->top == 2) {
        o->version_key = n == 7 && !memcmp(k, "version", 7);
    }
    return o->failed ? 0 : 1;
}
static int os_str(void *p, const unsigned char *v, size_t n)
{
    oscan *o = p;
    if (o->depth == 2 && o->top == 2 && o->version_key) {
        slinky_doc_value *x = NULL;
        if (slinky_doc_value_object_put(&x, o->info, "version") ||
            slinky_doc_value_set_string_len(x, (const char *)v, n))
            o->failed = true;
    }
    return o->failed ? 0 : 1;
}

static const yajl_callbacks os_callbacks = {os_skip, os_bool, NULL, NULL, os_num, os_str,
                                            os_open, os_key, os_close, os_open, os_close};

static int os_feed(void *p, const char *d, size_t n)
{
    oscan *o = p;
    if (!o->failed && yajl_parse(o->h, (const unsigned char *)d, n) != yajl_status_ok)
        o->failed = true;
    return 0;
}

static bool os_done(void *p)
{
    oscan *o = p;
    if (!o->failed && yajl_complete_parse(o->h) != yajl_status_ok)
        o->failed = true;
    return !o->failed;
}

static int os_init(oscan *o)
{
    memset(o, 0, sizeof(*o));
    slinky_doc_value *root = NULL;
    if (slinky_doc_new(&o->doc) || slinky_doc_value_set_object(root = slinky_doc_root(o->doc)) ||
        slinky_doc_value_object_put(&o->paths, root, "paths") || slinky_doc_value_set_object(o->paths) ||
        slinky_doc_value_object_put(&o->info, root, "info") || slinky_doc_value_set_object(o->info) ||
        (o->h = yajl_alloc(&os_callbacks, NULL, o)) == NULL) {
        slinky_doc_free(o->doc);
        return slinky__error_oom();
    }
    return 0;
}

int slinky_slurm__negotiate(slinky_slurm_client *c)
{
    pthread_mutex_lock(&c->neg_lock);
    bool done = c->negotiated;
    pthread_mutex_unlock(&c->neg_lock);
    if (done)
        return 0;
    slinky_slurm__reply r;
    oscan o;
    int err = os_init(&o);
    if (err)
        return err;
    slinky_slurm__sink sink = {os_feed, os_done, &o};
    err = slinky_slurm__send_sink(&r, c, "GET", "/openapi/v3", NULL, &sink);
    yajl_free(o.h);
    if (err == 0 && r.doc == NULL)
        r.doc = o.doc; /* picked out on the way in */
    else
        slinky_doc_free(o.doc);
    if (err)
        return err;
    slinky_doc_value *paths = slinky_doc_value_get(slinky_doc_root(r.doc), "paths");
    const char *info = slinky_doc_value_path_string(slinky_doc_root(r.doc), "info.version", "");
    pthread_mutex_lock(&c->neg_lock);
    if (!c->release[0] && strncmp(info, "Slurm-", 6) == 0) /* "Slurm-24.11.5&openapi/slurmctld" */
        snprintf(c->release, sizeof(c->release), "%.*s", (int)strcspn(info + 6, "&"), info + 6);
    if (!c->negotiated) {
        if (slinky_doc_value_type(paths) != SLINKY_DOC_OBJECT)
            err = slinky__error_set(SLINKY_EPARSE, "slurmrestd %s/openapi/v3: no \"paths\" object", c->base);
        else if ((err = collect(c, paths)) == 0)
            c->negotiated = true;
    }
    pthread_mutex_unlock(&c->neg_lock);
    slinky_doc_free(r.doc);
    return err;
}

slinky_status slinky_slurm_client_negotiate(const char **version_out, slinky_slurm_client *c)
{
    if (c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_client_negotiate: NULL client");
    int err = slinky_slurm__negotiate(c);
    if (err)
        return err;
    if (version_out)
        *version_out = c->version;
    return 0;
}

static bool offers(const slinky_slurm_client *c, const char *method, const char *tmpl)
{
    size_t ml = strlen(method);
    for (size_t i = 0; i < c->nops; i++)
        if (strncmp(c->ops[i], method, ml) == 0 && c->ops[i][ml] == ' ' && strcmp(c->ops[i] + ml + 1, tmpl) == 0)
            return true;
    return false;
}

bool slinky_slurm_client_can_update(slinky_slurm_client *c)
{
    return c && slinky_slurm__negotiate(c) == 0 && offers(c, "POST", "node/{node_name}");
}

int slinky_slurm__call(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method, const char *tmpl,
                       const char *rel, const char *body)
{
    return slinky_slurm__call_sink(out, c, method, tmpl, rel, body, NULL);
}

int slinky_slurm__call_sink(slinky_slurm__reply *out, slinky_slurm_client *c, const char *method, const char *tmpl,
                            const char *rel, const char *body, const slinky_slurm__sink *sink)
{
    int err = slinky_slurm__negotiate(c);
    if (err)
        return err;
    if (!offers(c, method, tmpl)) {
        char rel_[32];
        pthread_mutex_lock(&c->neg_lock);
        snprintf(rel_, sizeof(rel_), "%s", c->release[0] ? c->release : "");
        pthread_mutex_unlock(&c->neg_lock);
        return slinky__error_set(SLINKY_EUNSUPPORTED,
                                 "slurmrestd%s%s (data parser %s) offers no %s /slurm/%s/%s: this call "
                                 "needs a newer Slurm",
                                 rel_[0] ? " " : "", rel_, c->version, method, c->version, tmpl);
    }
    char *path = slinky__sprintf("/slurm/%s/%s", c->version, rel);
    if (path == NULL)
        return SLINKY_ENOMEM;
    err = slinky_slurm__send_sink(out, c, method, path, body, sink);
    free(path);
    return err;
}
