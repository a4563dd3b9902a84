/* The verbs: get, list, create, update, patch, delete (and their subresources). */
#include "apiserver.h"
#include "handlers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* small helpers                                                      */
/* ------------------------------------------------------------------ */

const char *as_req_query(const as_req *r, const char *key)
{
    for (size_t i = 0; i < r->n_query; i++)
        if (strcmp(r->query[i].key, key) == 0)
            return r->query[i].value ? r->query[i].value : "";
    return NULL;
}

void as_json_str(slinky__buf *b, const char *s)
{
    slinky__buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            slinky__buf_puts(b, "\\\"");
            break;
        case '\\':
            slinky__buf_puts(b, "\\\\");
            break;
        case '\n':
            slinky__buf_puts(b, "\\n");
            break;
        case '\t':
            slinky__buf_puts(b, "\\t");
            break;
        case '\r':
            slinky__buf_puts(b, "\\r");
            break;
        default:
            if (*p < 0x20)
                slinky__buf_printf(b, "\\u%04x", *p);
            else
                slinky__buf_putc(b, (char)*p);
        }
    }
    slinky__buf_putc(b, '"');
}

int as_resp_json(as_resp *resp, int code, const char *json, size_t len)
{
    resp->status = code;
    resp->content_type = "application/json";
    slinky__buf_clear(&resp->body);
    slinky__buf_put(&resp->body, json, len);
    return 0;
}

int as_resp_doc(as_resp *resp, int code, const slinky_doc_value *v)
{
    char *json = NULL;
    size_t len = 0;
    if (slinky_doc_value_dump_json(&json, &len, v, SLINKY_DOC_DUMP_COMPACT) != 0)
        return as_resp_status(resp, 500, "InternalError", "serializing the object failed", NULL);
    as_resp_json(resp, code, json, len);
    slinky_free(json);
    return 0;
}

int as_resp_status(as_resp *resp, int code, const char *reason, const char *message,
                   const char *details_json)
{
    slinky__buf *b = &resp->body;
    slinky__buf_clear(b);
    resp->status = code;
    resp->content_type = "application/json";
    slinky__buf_puts(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":");
    slinky__buf_puts(b, code < 300 ? "\"Success\"" : "\"Failure\"");
    slinky__buf_puts(b, ",\"message\":");
    as_json_str(b, message);
    slinky__buf_puts(b, ",\"reason\":");
    as_json_str(b, reason);
    if (details_json) {
        slinky__buf_puts(b, ",\"details\":");
        slinky__buf_puts(b, details_json);
    }
    slinky__buf_printf(b, ",\"code\":%d}", code);
    return 0;
}

/* plural.group (or plural for the core group) */
static void qualified(char *buf, size_t len, const as_rtype *rt)
{
    if (*rt->group)
        snprintf(buf, len, "%s.%s", rt->plural, rt->group);
    else
        snprintf(buf, len, "%s", rt->plural);
}

static void kind_qualified(char *buf, size_t len, const as_rtype *rt)
{
    if (*rt->group)
        snprintf(buf, len, "%s.%s", rt->kind, rt->group);
    else
        snprintf(buf, len, "%s", rt->kind);
}

static char *details(const as_rtype *rt, const char *name, bool kind)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "{\"name\":");
    as_json_str(&b, name ? name : "");
    slinky__buf_puts(&b, ",\"group\":");
    as_json_str(&b, rt->group);
    slinky__buf_puts(&b, ",\"kind\":");
    as_json_str(&b, kind ? rt->kind : rt->plural);
    slinky__buf_puts(&b, "}");
    return slinky__buf_detach(&b, NULL);
}

int as_resp_error(as_resp *resp, const as_rtype *rt, int code, const char *reason,
                  const char *name, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    char *d = rt ? details(rt, name, false) : NULL;
    as_resp_status(resp, code, reason, msg, d);
    free(d);
    return code;
}

int as_resp_not_found(as_resp *resp, const as_rtype *rt, const char *name)
{
    char q[300];
    qualified(q, sizeof(q), rt);
    return as_resp_error(resp, rt, 404, "NotFound", name, "%s \"%s\" not found", q, name);
}

static int resp_conflict(as_resp *resp, const as_rtype *rt, const char *name, const char *why)
{
    char q[300];
    qualified(q, sizeof(q), rt);
    return as_resp_error(resp, rt, 409, "Conflict", name,
                         "Operation cannot be fulfilled on %s \"%s\": %s", q, name, why);
}

static const char *k_modified =
    "the object has been modified; please apply your changes to the latest version and try "
    "again";

int as_resp_invalid(as_resp *resp, const as_rtype *rt, const char *name, const as_causes *c)
{
    char kq[300];
    kind_qualified(kq, sizeof(kq), rt);
    slinky__buf msg = SLINKY__BUF_INIT, d = SLINKY__BUF_INIT;
    slinky__buf_printf(&msg, "%s \"%s\" is invalid: ", kq, name ? name : "");
    if (c->n > 1)
        slinky__buf_putc(&msg, '[');
    for (size_t i = 0; i < c->n; i++)
        slinky__buf_printf(&msg, "%s%s: %s", i ? ", " : "", c->items[i].field,
                           c->items[i].message);
    if (c->n > 1)
        slinky__buf_putc(&msg, ']');
    slinky__buf_puts(&d, "{\"name\":");
    as_json_str(&d, name ? name : "");
    slinky__buf_puts(&d, ",\"group\":");
    as_json_str(&d, rt->group);
    slinky__buf_puts(&d, ",\"kind\":");
    as_json_str(&d, rt->kind);
    slinky__buf_puts(&d, ",\"causes\":[");
    for (size_t i = 0; i < c->n; i++) {
        slinky__buf_puts(&d, i ? ",{\"reason\":" : "{\"reason\":");
        as_json_str(&d, c->items[i].reason);
        slinky__buf_puts(&d, ",\"message\":");
        as_json_str(&d, c->items[i].message);
        slinky__buf_puts(&d, ",\"field\":");
        as_json_str(&d, c->items[i].field);
        slinky__buf_puts(&d, "}");
    }
    slinky__buf_puts(&d, "]}");
    as_resp_status(resp, 422, "Invalid", msg.data ? msg.data : "", d.data);
    slinky__buf_dispose(&msg);
    slinky__buf_dispose(&d);
    return 422;
}

static slinky_doc_value *md_of(slinky_doc_value *root)
{
    slinky_doc_value *md = NULL;
    if (slinky_doc_value_object_put(&md, root, "metadata") != 0)
        return NULL;
    if (slinky_doc_value_type(md) != SLINKY_DOC_OBJECT)
        slinky_doc_value_set_object(md);
    return md;
}

static void set_rv(slinky_doc_value *root, uint64_t rv)
{
    char b[32];
    snprintf(b, sizeof(b), "%llu", (unsigned long long)rv);
    slinky_doc_value_object_set_string(md_of(root), "resourceVersion", b);
}

static uint64_t parse_rv(const char *s, bool *ok)
{
    char *end = NULL;
    *ok = false;
    if (!s || !*s)
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return 0;
    *ok = true;
    return v;
}

int as_parse_body(slinky_doc **out, const as_req *req, as_resp *resp)
{
    const char *ct = req->content_type ? req->content_type : "application/json";
    const char *p = req->body ? req->body : "";
    size_t n = req->body_len;
    while (n && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
        p++;
        n--;
    }
    int rc;
    if (strstr(ct, "protobuf") && as_proto_decode(out, req->body, req->body_len) == 0)
        return 0;
    if (strstr(ct, "protobuf") || strstr(ct, "cbor")) {
        as_resp_status(resp, 415, "UnsupportedMediaType",
                       "the body of the request was in an unknown format - accepted media types "
                       "include: application/json, application/yaml",
                       NULL);
        return 415;
    }
    if (strstr(ct, "yaml") && !(n && (*p == '{' || *p == '[')))
        rc = slinky_doc_parse_yaml(out, p, n);
    else
        rc = slinky_doc_parse_json(out, p, n);
    if (rc) {
        char msg[1200];
        snprintf(msg, sizeof(msg), "the body of the request could not be decoded: %s",
                 slinky_error_last()->message);
        as_resp_status(resp, 400, "BadRequest", msg, NULL);
        return 400;
    }
    return 0;
}

static bool query_bool(const as_req *req, const char *key)
{
    const char *v = as_req_query(req, key);
    bool b = false;
    if (!v)
        return false;
    if (!*v)
        return true;
    return as_parse_bool(&b, v) == 0 && b;
}

static void gen_name(char *out, size_t len, const char *prefix)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char r[5];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        for (size_t i = 0; i < sizeof(r); i++)
            r[i] = (unsigned char)rand();
    char sfx[6];
    for (size_t i = 0; i < 5; i++)
        sfx[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
    sfx[5] = '\0';
    size_t pl = strlen(prefix);
    if (pl > 58)
        pl = 58;
    snprintf(out, len, "%.*s%s", (int)pl, prefix, sfx);
}

/* ------------------------------------------------------------------ */
/* validation common to every kind                                    */
/* ------------------------------------------------------------------ */

static void check_meta(as_causes *c, const as_rtype *rt, const slinky_doc_value *root)
{
    const slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
    const char *name = slinky_doc_value_path_string(md, "name", "");
    const char *why = strcmp(rt->plural, "namespaces") == 0 ? as_check_dns_label(name)
                                                              : as_check_dns_subdomain(name);
    if (*name && why)
        as_causes_add(c, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", name,
                      why);
    const slinky_doc_value *labels = slinky_doc_value_get(md, "labels");
    for (size_t i = 0; i < slinky_doc_value_size(labels); i++) {
        const char *k = slinky_doc_value_key_at(labels, i);
        const slinky_doc_value *v = slinky_doc_value_member_at(labels, i);
        char f[600];
        snprintf(f, sizeof(f), "metadata.labels");
        if ((why = as_check_label_key(k)))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s", k, why);
        else if (slinky_doc_value_type(v) != SLINKY_DOC_STRING)
            as_causes_add(c, "FieldValueTypeInvalid", f,
                          "Invalid value: \"%s\": label values must be strings", k);
        else if ((why = as_check_label_value(slinky_doc_value_get_string(v))))
            as_causes_add(c, "FieldValueInvalid", f, "Invalid value: \"%s\": %s",
                          slinky_doc_value_get_string(v), why);
    }
}

/*
 * Prune, default and validate a custom object (or check a built-in one).
 * Returns 0 or an HTTP code with resp filled. Unknown fields go to `unknown`.
 */
static int admit(as_server *s, const as_rtype *rt, const as_version *ver, slinky_doc_value *root,
                 const as_req *req, as_resp *resp, const char *name)
{
    as_causes causes = {0}, unknown = {0};
    const char *fv = as_req_query(req, "fieldValidation");
    if (ver && ver->schema) {
        const slinky_doc_value *schema = slinky_doc_root(ver->schema);
        as_schema_prune(root, schema, true, &unknown, "");
        as_schema_default(root, schema);
        as_schema_validate(&causes, root, schema, "");
    }
    check_meta(&causes, rt, root);
    if (strcmp(rt->plural, "customresourcedefinitions") == 0)
        as_registry_check_crd(&causes, root);
    if (unknown.n && fv && strcmp(fv, "Strict") == 0) {
        slinky__buf msg = SLINKY__BUF_INIT;
        slinky__buf_puts(&msg, "strict decoding error: ");
        for (size_t i = 0; i < unknown.n; i++)
            slinky__buf_printf(&msg, "%sunknown field \"%s\"", i ? ", " : "",
                               unknown.items[i].field);
        as_resp_status(resp, 400, "BadRequest", msg.data, NULL);
        slinky__buf_dispose(&msg);
        as_causes_dispose(&causes);
        as_causes_dispose(&unknown);
        return 400;
    }
    if (unknown.n && fv && strcmp(fv, "Warn") == 0) {
        slinky__buf w = SLINKY__BUF_INIT;
        for (size_t i = 0; i < unknown.n; i++)
            slinky__buf_printf(&w, "%s299 - \"unknown field \\\"%s\\\"\"", i ? ", " : "",
                               unknown.items[i].field);
        free(resp->warning);
        resp->warning = slinky__buf_detach(&w, NULL);
    }
    as_causes_dispose(&unknown);
    int code = 0;
    if (causes.n)
        code = as_resp_invalid(resp, rt, name, &causes);
    as_causes_dispose(&causes);
    (void)s;
    return code;
}

/* ------------------------------------------------------------------ */
/* GET                                                                */
/* ------------------------------------------------------------------ */

static int scale_doc(slinky_doc **out, const as_version *ver, const slinky_doc_value *root)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d);
    slinky_doc_value_set_object(r);
    slinky_doc_value_object_set_string(r, "kind", "Scale");
    slinky_doc_value_object_set_string(r, "apiVersion", "autoscaling/v1");
    slinky_doc_value *md = md_of(r);
    const slinky_doc_value *omd = slinky_doc_value_get(root, "metadata");
    static const char *const keep[] = {"name", "namespace", "uid", "resourceVersion",
                                       "creationTimestamp"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keep); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(omd, keep[i]);
        if (v)
            slinky_doc_value_object_set(md, keep[i], v);
    }
    slinky_doc_value *spec = NULL, *status = NULL;
    slinky_doc_value_object_put(&spec, r, "spec");
    slinky_doc_value_set_object(spec);
    slinky_doc_value_object_put(&status, r, "status");
    slinky_doc_value_set_object(status);
    const char *sp = ver->scale_spec ? ver->scale_spec : ".spec.replicas";
    const char *st = ver->scale_status ? ver->scale_status : ".status.replicas";
    slinky_doc_value_object_set_int(spec, "replicas",
                                    slinky_doc_value_path_int(root, sp + (*sp == '.'), 0));
    slinky_doc_value_object_set_int(status, "replicas",
                                    slinky_doc_value_path_int(root, st + (*st == '.'), 0));
    if (ver->scale_selector) {
        const char *sel = slinky_doc_value_path_string(
            root, ver->scale_selector + (*ver->scale_selector == '.'), NULL);
        if (sel)
            slinky_doc_value_object_set_string(status, "selector", sel);
    }
    *out = d;
    return 0;
}

static int do_get(hctx *h)
{
    as_obj *o = as_store_get(h->rt, h->ns, h->route->name);
    if (!o)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    if (h->route->sub && strcmp(h->route->sub, "scale") == 0) {
        slinky_doc *d = NULL, *sd = NULL;
        if (as_obj_doc(&d, o) || scale_doc(&sd, h->ver, slinky_doc_root(d))) {
            slinky_doc_free(d);
            return as_resp_status(h->resp, 500, "InternalError", "scale failed", NULL);
        }
        as_resp_doc(h->resp, 200, slinky_doc_root(sd));
        slinky_doc_free(sd);
        slinky_doc_free(d);
        return 0;
    }
    if (as_wants_table(h->req)) {
        slinky__buf_clear(&h->resp->body);
        h->resp->status = 200;
        h->resp->content_type = "application/json";
        char meta[64];
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\"}",
                 (unsigned long long)o->rv);
        return as_table_render(&h->resp->body, h->s, h->rt, h->ver->name, &o, 1, meta);
    }
    return as_resp_json(h->resp, 200, o->json, o->json_len);
}

/* ------------------------------------------------------------------ */
/* LIST                                                               */
/* ------------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *b64_encode(const char *s)
{
    size_t n = strlen(s);
    char *out = slinky__malloc(n * 4 / 3 + 5);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        if (i + 1 < n)
            out[o++] = b64[(v >> 6) & 63];
        if (i + 2 < n)
            out[o++] = b64[v & 63];
    }
    out[o] = '\0';
    return out;
}

static char *b64_decode(const char *s)
{
    size_t n = strlen(s);
    char *out = slinky__malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = strchr(b64, s[i]);
        if (!p || !s[i]) {
            free(out);
            return NULL;
        }
        v = (v << 6) | (unsigned)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((v >> bits) & 0xff);
        }
    }
    out[o] = '\0';
    return out;
}

typedef struct view_item {
    as_obj *obj; /* NULL = absent at that rv */
} view_item;

static int obj_cmp(const void *a, const void *b)
{
    const as_obj *x = *(as_obj *const *)a, *y = *(as_obj *const *)b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

/*
 * The objects of rt as they were at resourceVersion `at` (from the current
 * state undone by history events newer than `at`). Returns a new array of
 * borrowed pointers sorted by key; *n_out its length.
 */
static as_obj **view_at(as_server *s, as_rtype *rt, uint64_t at, size_t *n_out)
{
    size_t cap = rt->n_items + 16, n = 0;
    as_obj **v = slinky__malloc(cap * sizeof(*v));
    if (!v)
        return NULL;
    for (size_t i = 0; i < rt->n_items; i++)
        v[n++] = rt->items[i];
    for (uint64_t r = s->rv; r > at; r--) {
        const as_event *e = as_store_event(s, r);
        if (!e || e->rt != rt)
            continue;
        const as_obj *key = e->type == AS_EV_DELETED ? e->prev : e->obj;
        size_t j;
        for (j = 0; j < n; j++)
            if (v[j] && strcmp(v[j]->ns, key->ns) == 0 && strcmp(v[j]->name, key->name) == 0)
                break;
        if (j == n) {
            if (n == cap) {
                cap *= 2;
                as_obj **nv = realloc(v, cap * sizeof(*nv));
                if (!nv) {
                    free(v);
                    return NULL;
                }
                v = nv;
            }
            v[n++] = NULL;
        }
        v[j] = e->type == AS_EV_ADDED ? NULL : e->prev;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i])
            v[m++] = v[i];
    qsort(v, m, sizeof(*v), obj_cmp);
    *n_out = m;
    return v;
}

static int do_list(hctx *h)
{
    as_server *s = h->s;
    as_filter f;
    if (as_filter_init(&f, h->req, h->ns, h->resp) != 0)
        return 400;
    long limit = 0;
    const char *ls = as_req_query(h->req, "limit");
    if (ls && *ls)
        limit = strtol(ls, NULL, 10);
    const char *cont = as_req_query(h->req, "continue");
    uint64_t at = s->rv;
    char *start_ns = NULL, *start_name = NULL;
    if (cont && *cont) {
        char *tok = b64_decode(cont);
        unsigned long long rv = 0;
        int used = 0;
        if (!tok || sscanf(tok, "%llu/%n", &rv, &used) != 1 || !used) {
            free(tok);
            as_filter_dispose(&f);
            return as_resp_status(h->resp, 400, "BadRequest",
                                  "continue key is not valid: illegal base64 data", NULL);
        }
        const char *rest = tok + used;
        const char *sep = strchr(rest, '/');
        start_ns = slinky__strndup(rest, sep ? (size_t)(sep - rest) : strlen(rest));
        start_name = slinky__strdup(sep ? sep + 1 : "");
        free(tok);
        if (rv < as_store_oldest_rv(s) - 1 && rv != s->rv) {
            free(start_ns);
            free(start_name);
            as_filter_dispose(&f);
            return as_resp_status(
                h->resp, 410, "Expired",
                "The provided continue parameter is too old to display a consistent list "
                "result. You can start a new list without the continue parameter, or use the "
                "continue token in this response to retrieve the remainder of the results. "
                "Continuing with the provided token results in an inconsistent list - objects "
                "that were created, modified, or deleted between the time the first chunk was "
                "returned and now may show up in the list.",
                NULL);
        }
        at = rv;
    }
    size_t n = 0;
    as_obj **view = at == s->rv ? NULL : view_at(s, h->rt, at, &n);
    as_obj **items = view ? view : h->rt->items;
    if (!view)
        n = h->rt->n_items;
    as_obj **sel = slinky__malloc((n ? n : 1) * sizeof(*sel));
    size_t ns_count = 0;
    bool more = false;
    for (size_t i = 0; sel && i < n; i++) {
        as_obj *o = items[i];
        if (start_ns) {
            int c = strcmp(o->ns, start_ns);
            if (c < 0 || (c == 0 && strcmp(o->name, start_name) <= 0))
                continue;
        }
        if (!as_filter_match(&f, o))
            continue;
        if (limit > 0 && ns_count == (size_t)limit) {
            more = true;
            break;
        }
        sel[ns_count++] = o;
    }
    char meta[512];
    char *tok = NULL;
    if (more && ns_count) {
        as_obj *last = sel[ns_count - 1];
        char *raw = slinky__sprintf("%llu/%s/%s", (unsigned long long)at, last->ns, last->name);
        tok = raw ? b64_encode(raw) : NULL;
        free(raw);
    }
    if (tok)
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\",\"continue\":\"%s\"}",
                 (unsigned long long)at, tok);
    else
        snprintf(meta, sizeof(meta), "{\"resourceVersion\":\"%llu\"}", (unsigned long long)at);
    free(tok);
    as_resp *resp = h->resp;
    slinky__buf_clear(&resp->body);
    resp->status = 200;
    resp->content_type = "application/json";
    if (as_wants_table(h->req)) {
        as_table_render(&resp->body, s, h->rt, h->ver->name, sel, ns_count, meta);
    } else {
        slinky__buf *b = &resp->body;
        size_t total = 256;
        for (size_t i = 0; i < ns_count; i++)
            total += sel[i]->json_len + 1;
        slinky__buf_grow(b, total);
        slinky__buf_printf(b, "{\"kind\":\"%s\",\"apiVersion\":\"", h->rt->list_kind);
        if (*h->rt->group)
            slinky__buf_printf(b, "%s/", h->rt->group);
        slinky__buf_printf(b, "%s\",\"metadata\":%s,\"items\":[", h->ver->name, meta);
        for (size_t i = 0; i < ns_count; i++) {
            if (i)
                slinky__buf_putc(b, ',');
            slinky__buf_put(b, sel[i]->json, sel[i]->json_len);
        }
        slinky__buf_puts(b, "]}");
    }
    free(sel);
    free(view);
    free(start_ns);
    free(start_name);
    as_filter_dispose(&f);
    return 0;
}

/* ------------------------------------------------------------------ */
/* CREATE                                                             */
/* ------------------------------------------------------------------ */

static bool ns_exists(as_server *s, const char *ns, bool *terminating)
{
    as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
    as_obj *o = nrt ? as_store_get(nrt, "", ns) : NULL;
    *terminating = o && strstr(o->json, "\"deletionTimestamp\"") != NULL;
    return o != NULL;
}

/* apiVersion / kind / namespace checks shared by create and update */
int as_check_identity(hctx *h, slinky_doc_value *root)
{
    if (slinky_doc_value_type(root) != SLINKY_DOC_OBJECT)
        return as_resp_status(h->resp, 400, "BadRequest",
                              "the body of the request must be a JSON object", NULL);
    char gv[300];
    if (*h->rt->group)
        snprintf(gv, sizeof(gv), "%s/%s", h->rt->group, h->ver->name);
    else
        snprintf(gv, sizeof(gv), "%s", h->ver->name);
    const char *kind = slinky_doc_value_path_string(root, "kind", NULL);
    const char *api = slinky_doc_value_path_string(root, "apiVersion", NULL);
    if (kind && *kind && strcmp(kind, h->rt->kind) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the API version in the data (%s) does not match the expected API "
                             "version (%s) or kind %s does not match %s",
                             api ? api : "", gv, kind, h->rt->kind);
    if (api && *api && strcmp(api, gv) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the API version in the data (%s) does not match the expected API "
                             "version (%s)",
                             api, gv);
    slinky_doc_value_object_set_string(root, "apiVersion", gv);
    slinky_doc_value_object_set_string(root, "kind", h->rt->kind);
    slinky_doc_value *md = md_of(root);
    if (!md)
        return as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
    const char *bns = slinky_doc_value_path_string(md, "namespace", NULL);
    if (h->rt->namespaced) {
        if (bns && *bns && strcmp(bns, h->ns) != 0)
            return as_resp_status(h->resp, 400, "BadRequest",
                                  "the namespace of the provided object does not match the "
                                  "namespace sent on the request",
                                  NULL);
        slinky_doc_value_object_set_string(md, "namespace", h->ns);
    } else if (slinky_doc_value_get(md, "namespace")) {
        slinky_doc_value_object_remove(md, "namespace");
    }
    return 0;
}

static bool is_dry_run(const as_req *req)
{
    const char *d = as_req_query(req, "dryRun");
    return d && strcmp(d, "All") == 0;
}

/* the final store step of create (also used by server-side apply) */
int as_create_doc(hctx *h, slinky_doc_value *root, int ok_code)
{
    as_server *s = h->s;
    slinky_doc_value *md = md_of(root);
    const char *name = slinky_doc_value_path_string(md, "name", "");
    char gname[300];
    if (!*name) {
        const char *gen = slinky_doc_value_path_string(md, "generateName", "");
        if (*gen) {
            for (int tries = 0; tries < 8; tries++) {
                gen_name(gname, sizeof(gname), gen);
                if (!as_store_get(h->rt, h->ns, gname))
                    break;
            }
            slinky_doc_value_object_set_string(md, "name", gname);
            name = slinky_doc_value_path_string(md, "name", "");
        } else {
            as_causes c = {0};
            as_causes_add(&c, "FieldValueRequired", "metadata.name",
                          "Required value: name or generateName is required");
            as_resp_invalid(h->resp, h->rt, "", &c);
            as_causes_dispose(&c);
            return 422;
        }
    }
    if (h->route->name && strcmp(h->route->name, name) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the name of the object (%s) does not match the name on the URL "
                             "(%s)",
                             name, h->route->name);
    if (h->rt->namespaced) {
        bool term = false;
        if (!ns_exists(s, h->ns, &term)) {
            as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
            return as_resp_not_found(h->resp, nrt, h->ns);
        }
        if (term)
            return as_resp_error(h->resp, NULL, 403, "Forbidden", NULL,
                                 "%s \"%s\" is forbidden: unable to create new content in "
                                 "namespace %s because it is being terminated",
                                 h->rt->plural, name, h->ns);
    }
    /* a custom resource with a status subresource starts without status */
    if (!h->rt->builtin && h->ver->has_status)
        slinky_doc_value_object_remove(root, "status");
    /* server-owned metadata */
    static const char *const drop[] = {"resourceVersion", "uid", "creationTimestamp",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "generation", "selfLink"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(drop); i++)
        if (slinky_doc_value_get(md, drop[i]))
            slinky_doc_value_object_remove(md, drop[i]);
    int code = admit(s, h->rt, h->ver, root, h->req, h->resp, name);
    if (code)
        return code;
    md = md_of(root);
    if (as_store_get(h->rt, h->ns, name)) {
        char q[300];
        qualified(q, sizeof(q), h->rt);
        return as_resp_error(h->resp, h->rt, 409, "AlreadyExists", name,
                             "%s \"%s\" already exists", q, name);
    }
    char uid[40], now[40];
    as_new_uid(uid);
    as_now_rfc3339(now, sizeof(now));
    slinky_doc_value_object_set_string(md, "uid", uid);
    slinky_doc_value_object_set_string(md, "creationTimestamp", now);
    if (h->rt->crd_sets_generation)
        slinky_doc_value_object_set_int(md, "generation", 1);
    as_hook_before_create(h, root);
    as_managed_update(h, NULL, root, "Update");
    if ((is_dry_run(h->req) || h->body_dry_run))
        return as_resp_doc(h->resp, ok_code, root);
    uint64_t rv = s->rv + 1;
    set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "storing the object failed", NULL);
    if (as_store_commit(s, h->rt, AS_EV_ADDED, o, NULL) != 0) {
        as_obj_unref(o);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message,
                              NULL);
    }
    as_hook_after_write(h, root);
    return as_resp_json(h->resp, ok_code, o->json, o->json_len);
}

static int do_create(hctx *h)
{
    if (h->rt->namespaced && !h->ns)
        return as_resp_status(h->resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = as_check_identity(h, root);
    if (!code)
        code = as_create_doc(h, root, 201);
    slinky_doc_free(d);
    return code;
}

/* ------------------------------------------------------------------ */
/* UPDATE (PUT, PATCH, status, scale)                                 */
/* ------------------------------------------------------------------ */

/* everything but metadata and status */
static bool spec_equal(const slinky_doc_value *a, const slinky_doc_value *b)
{
    size_t na = slinky_doc_value_size(a), nb = slinky_doc_value_size(b), ca = 0, cb = 0;
    for (size_t i = 0; i < na; i++) {
        const char *k = slinky_doc_value_key_at(a, i);
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        ca++;
        if (!slinky_doc_value_equal(slinky_doc_value_member_at(a, i),
                                    slinky_doc_value_get(b, k)))
            return false;
    }
    for (size_t i = 0; i < nb; i++) {
        const char *k = slinky_doc_value_key_at(b, i);
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        cb++;
    }
    return ca == cb;
}

static bool has_finalizers(const slinky_doc_value *root)
{
    return slinky_doc_value_size(slinky_doc_value_path(root, "metadata.finalizers")) > 0;
}

static int remove_object(hctx *h, as_rtype *rt, as_obj *prev, slinky_doc_value *final_root,
                         bool orphan);

/*
 * Store `root` as the new state of `old` (lock held). `sub` is the
 * subresource written ("status" or NULL). Checks, admits, bumps generation.
 */
int as_update_doc(hctx *h, as_obj *old, slinky_doc_value *root, bool status_only)
{
    as_server *s = h->s;
    slinky_doc *od = NULL;
    if (as_obj_doc(&od, old) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "reading the object failed", NULL);
    slinky_doc_value *oroot = slinky_doc_root(od);
    slinky_doc_value *md = md_of(root);
    const slinky_doc_value *omd = slinky_doc_value_get(oroot, "metadata");
    int code = 0;
    /* immutable metadata */
    static const char *const keep[] = {"uid", "creationTimestamp", "deletionTimestamp",
                                       "deletionGracePeriodSeconds", "generation", "name",
                                       "namespace"};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keep); i++) {
        const slinky_doc_value *v = slinky_doc_value_get(omd, keep[i]);
        if (v)
            slinky_doc_value_object_set(md, keep[i], v);
        else if (slinky_doc_value_get(md, keep[i]))
            slinky_doc_value_object_remove(md, keep[i]);
    }
    bool has_status = h->ver->has_status;
    if (status_only) {
        /* only .status changes through /status */
        const slinky_doc_value *st = slinky_doc_value_get(root, "status");
        slinky_doc *nd = NULL;
        if (slinky_doc_new_copy(&nd, oroot) != 0) {
            slinky_doc_free(od);
            return as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
        }
        slinky_doc_value *nroot = slinky_doc_root(nd);
        const slinky_doc_value *mf = slinky_doc_value_path(root, "metadata.managedFields");
        if (h->managed_done && mf)
            slinky_doc_value_object_set(slinky_doc_value_get(nroot, "metadata"), "managedFields",
                                        mf);
        if (st)
            slinky_doc_value_object_set(nroot, "status", st);
        else if (slinky_doc_value_get(nroot, "status"))
            slinky_doc_value_object_remove(nroot, "status");
        slinky_doc_value_set_copy(root, nroot);
        slinky_doc_free(nd);
        md = md_of(root);
    } else if (has_status) {
        const slinky_doc_value *st = slinky_doc_value_get(oroot, "status");
        if (st)
            slinky_doc_value_object_set(root, "status", st);
        else if (slinky_doc_value_get(root, "status"))
            slinky_doc_value_object_remove(root, "status");
    }
    const char *name = slinky_doc_value_path_string(omd, "name", "");
    code = admit(s, h->rt, h->ver, root, h->req, h->resp, name);
    if (code)
        goto done;
    md = md_of(root);
    if (h->rt->crd_sets_generation && !spec_equal(oroot, root))
        slinky_doc_value_object_set_int(md, "generation",
                                        slinky_doc_value_path_int(omd, "generation", 1) + 1);
    as_managed_update(h, oroot, root, "Update");
    /* no change at all: no new resourceVersion, no event */
    set_rv(root, old->rv);
    if (slinky_doc_value_equal(oroot, root)) {
        code = as_resp_json(h->resp, 200, old->json, old->json_len);
        goto done;
    }
    if ((is_dry_run(h->req) || h->body_dry_run)) {
        code = as_resp_doc(h->resp, 200, root);
        goto done;
    }
    if (slinky_doc_value_get(md, "deletionTimestamp") && !has_finalizers(root)) {
        code = remove_object(h, h->rt, old, root, false);
        if (!code)
            code = as_resp_doc(h->resp, 200, root);
        goto done;
    }
    uint64_t rv = s->rv + 1;
    set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) != 0) {
        code = as_resp_status(h->resp, 500, "InternalError", "storing failed", NULL);
        goto done;
    }
    if (as_store_commit(s, h->rt, AS_EV_MODIFIED, o, old) != 0) {
        as_obj_unref(o);
        code = as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message, NULL);
        goto done;
    }
    as_hook_after_write(h, root);
    code = as_resp_json(h->resp, 200, o->json, o->json_len);
done:
    slinky_doc_free(od);
    return code;
}

static int apply_scale(hctx *h, slinky_doc_value *target, const slinky_doc_value *scale)
{
    const char *sp = h->ver->scale_spec ? h->ver->scale_spec : ".spec.replicas";
    slinky_doc_value *v = NULL;
    const slinky_doc_value *rep = slinky_doc_value_path(scale, "spec.replicas");
    if (!rep || slinky_doc_value_type(rep) != SLINKY_DOC_INT) {
        as_causes c = {0};
        as_causes_add(&c, "FieldValueRequired", "spec.replicas", "Required value");
        as_resp_invalid(h->resp, h->rt, h->route->name, &c);
        as_causes_dispose(&c);
        return 422;
    }
    if (slinky_doc_value_path_put(&v, target, sp + (*sp == '.')) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "setting replicas failed", NULL);
    slinky_doc_value_set_int(v, slinky_doc_value_get_int(rep));
    return 0;
}

static int respond_scale(hctx *h)
{
    if (h->resp->status != 200)
        return 0;
    as_obj *o = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL, *sd = NULL;
    if (!o || as_obj_doc(&d, o) || scale_doc(&sd, h->ver, slinky_doc_root(d))) {
        slinky_doc_free(d);
        return 0;
    }
    as_resp_doc(h->resp, 200, slinky_doc_root(sd));
    slinky_doc_free(sd);
    slinky_doc_free(d);
    return 0;
}

static int do_put(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp))
        return 400;
    slinky_doc_value *root = slinky_doc_root(d);
    int code = 0;
    bool scale = h->route->sub && strcmp(h->route->sub, "scale") == 0;
    bool status = h->route->sub && strcmp(h->route->sub, "status") == 0;
    if (!old) {
        code = as_resp_not_found(h->resp, h->rt, h->route->name);
        goto done;
    }
    const char *brv = slinky_doc_value_path_string(root, "metadata.resourceVersion", NULL);
    bool ok = false;
    uint64_t rv = parse_rv(brv, &ok);
    if (brv && *brv && (!ok || rv != old->rv)) {
        code = resp_conflict(h->resp, h->rt, h->route->name, k_modified);
        goto done;
    }
    if (scale) {
        slinky_doc *od = NULL;
        if (as_obj_doc(&od, old) != 0) {
            code = as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
            goto done;
        }
        code = apply_scale(h, slinky_doc_root(od), root);
        if (!code)
            code = as_update_doc(h, old, slinky_doc_root(od), false);
        slinky_doc_free(od);
        if (!code)
            respond_scale(h);
        goto done;
    }
    if ((!brv || !*brv) && !h->rt->builtin) {
        as_causes c = {0};
        as_causes_add(&c, "FieldValueInvalid", "metadata.resourceVersion",
                      "Invalid value: 0x0: must be specified for an update");
        code = as_resp_invalid(h->resp, h->rt, h->route->name, &c);
        as_causes_dispose(&c);
        goto done;
    }
    code = as_check_identity(h, root);
    if (code)
        goto done;
    const char *bname = slinky_doc_value_path_string(root, "metadata.name", "");
    if (strcmp(bname, h->route->name) != 0) {
        code = as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "the name of the object (%s) does not match the name on the URL "
                             "(%s)",
                             bname, h->route->name);
        goto done;
    }
    code = as_update_doc(h, old, root, status);
done:
    slinky_doc_free(d);
    return code;
}

static const char *k_415 = "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml";

static int do_patch(hctx *h)
{
    const char *ct = h->req->content_type ? h->req->content_type : "";
    bool merge = strncmp(ct, "application/merge-patch+json", 28) == 0;
    bool json = strncmp(ct, "application/json-patch+json", 27) == 0;
    bool smp = strncmp(ct, "application/strategic-merge-patch+json", 38) == 0;
    bool apply = strncmp(ct, "application/apply-patch+yaml", 28) == 0 ||
                 strncmp(ct, "application/apply-patch+json", 28) == 0;
    if (!merge && !json && !(smp && h->rt->builtin) && !apply)
        return as_resp_status(h->resp, 415, "UnsupportedMediaType",
                              h->rt->builtin ? "the body of the request was in an unknown "
                                               "format - accepted media types include: "
                                               "application/json-patch+json, "
                                               "application/merge-patch+json, "
                                               "application/apply-patch+yaml, "
                                               "application/strategic-merge-patch+json"
                                             : k_415,
                              NULL);
    if (apply)
        return as_apply_patch(h);
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    slinky_doc *pd = NULL, *od = NULL;
    int code = 0;
    if (as_parse_body(&pd, h->req, h->resp))
        return 400;
    if (as_obj_doc(&od, old) != 0) {
        slinky_doc_free(pd);
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    }
    slinky_doc_value *target = slinky_doc_root(od);
    bool scale = h->route->sub && strcmp(h->route->sub, "scale") == 0;
    slinky_doc *sd = NULL;
    if (scale) {
        if (scale_doc(&sd, h->ver, target) != 0) {
            code = as_resp_status(h->resp, 500, "InternalError", "scale failed", NULL);
            goto done;
        }
        target = slinky_doc_root(sd);
    }
    int rc;
    if (json) {
        rc = slinky_doc_json_patch_apply(target, slinky_doc_root(pd));
    } else if (smp) {
        rc = as_strategic_merge(target, slinky_doc_root(pd));
    } else {
        if (slinky_doc_value_type(slinky_doc_root(pd)) != SLINKY_DOC_OBJECT) {
            code = as_resp_status(h->resp, 400, "BadRequest",
                                  "the body of the request must be a JSON object", NULL);
            goto done;
        }
        rc = slinky_doc_merge_patch_apply(target, slinky_doc_root(pd));
    }
    if (rc) {
        char msg[1200];
        snprintf(msg, sizeof(msg), "the server rejected our request due to an error in our "
                                   "request: %s",
                 slinky_error_last()->message);
        code = as_resp_status(h->resp, json ? 422 : 400, json ? "Invalid" : "BadRequest", msg,
                              NULL);
        goto done;
    }
    const char *prv = slinky_doc_value_path_string(target, "metadata.resourceVersion", NULL);
    bool ok = false;
    if (prv && *prv && (parse_rv(prv, &ok) != old->rv || !ok)) {
        code = resp_conflict(h->resp, h->rt, h->route->name, k_modified);
        goto done;
    }
    if (scale) {
        slinky_doc *od2 = NULL;
        if (as_obj_doc(&od2, old) == 0) {
            code = apply_scale(h, slinky_doc_root(od2), target);
            if (!code)
                code = as_update_doc(h, old, slinky_doc_root(od2), false);
            slinky_doc_free(od2);
            if (!code)
                respond_scale(h);
        }
        goto done;
    }
    if (slinky_doc_value_type(target) != SLINKY_DOC_OBJECT) {
        code = as_resp_status(h->resp, 422, "Invalid", "the patched object is not an object",
                              NULL);
        goto done;
    }
    code = as_check_identity(h, target);
    if (!code)
        code = as_update_doc(h, old, target,
                             h->route->sub && strcmp(h->route->sub, "status") == 0);
done:
    slinky_doc_free(sd);
    slinky_doc_free(pd);
    slinky_doc_free(od);
    return code;
}

/* ------------------------------------------------------------------ */
/* DELETE and garbage collection                                      */
/* ------------------------------------------------------------------ */

static int delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
                      slinky_doc **final_out);

static bool owner_exists(as_server *s, const char *uid)
{
    for (as_rtype *rt = s->types; rt; rt = rt->next)
        for (size_t i = 0; i < rt->n_items; i++)
            if (strcmp(rt->items[i]->uid, uid) == 0)
                return true;
    return false;
}

/* Background garbage collection of the dependents of `uid` (lock held). */
static void collect_garbage(hctx *h, const char *uid, const char *ns, bool orphan)
{
    as_server *s = h->s;
    bool again = true;
    while (again) {
        again = false;
        for (as_rtype *rt = s->types; rt && !again; rt = rt->next) {
            for (size_t i = 0; i < rt->n_items && !again; i++) {
                as_obj *o = rt->items[i];
                if (!strstr(o->json, uid))
                    continue;
                if (*o->ns && *ns && strcmp(o->ns, ns) != 0)
                    continue;
                slinky_doc *d = NULL;
                if (as_obj_doc(&d, o) != 0)
                    continue;
                slinky_doc_value *root = slinky_doc_root(d);
                slinky_doc_value *refs = slinky_doc_value_path(root, "metadata.ownerReferences");
                size_t n = slinky_doc_value_size(refs);
                bool mine = false, others = false;
                for (size_t j = 0; j < n; j++) {
                    const char *u =
                        slinky_doc_value_path_string(slinky_doc_value_at(refs, j), "uid", "");
                    if (strcmp(u, uid) == 0)
                        mine = true;
                    else if (owner_exists(s, u))
                        others = true;
                }
                if (!mine) {
                    slinky_doc_free(d);
                    continue;
                }
                bool deleting = slinky_doc_value_path(root, "metadata.deletionTimestamp");
                if (orphan || others) {
                    /* drop the dangling reference */
                    for (size_t j = n; j-- > 0;)
                        if (strcmp(slinky_doc_value_path_string(slinky_doc_value_at(refs, j),
                                                                "uid", ""),
                                   uid) == 0)
                            slinky_doc_value_array_remove(refs, j);
                    if (slinky_doc_value_size(refs) == 0)
                        slinky_doc_value_object_remove(slinky_doc_value_get(root, "metadata"),
                                                       "ownerReferences");
                    uint64_t rv = s->rv + 1;
                    set_rv(root, rv);
                    as_obj *no = NULL;
                    if (as_obj_new(&no, root, rv) == 0) {
                        if (as_store_commit(s, rt, AS_EV_MODIFIED, no, o) == 0)
                            again = true;
                        else
                            as_obj_unref(no);
                    }
                } else if (!deleting) {
                    slinky_doc *fd = NULL;
                    if (delete_one(h, rt, o, "Background", &fd) == 0)
                        again = true;
                    slinky_doc_free(fd);
                }
                slinky_doc_free(d);
            }
        }
    }
}

/* Remove an object for good (no finalizers left); DELETED event; GC. */
static int remove_object(hctx *h, as_rtype *rt, as_obj *prev, slinky_doc_value *final_root,
                         bool orphan)
{
    as_server *s = h->s;
    uint64_t rv = s->rv + 1;
    set_rv(final_root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, final_root, rv) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "delete failed", NULL);
    char *uid = slinky__strdup(prev->uid), *ns = slinky__strdup(prev->ns);
    char *name = slinky__strdup(prev->name);
    if (as_store_commit(s, rt, AS_EV_DELETED, o, prev) != 0) {
        as_obj_unref(o);
        free(uid);
        free(ns);
        free(name);
        return as_resp_status(h->resp, 500, "InternalError", slinky_error_last()->message, NULL);
    }
    if (strcmp(rt->plural, "customresourcedefinitions") == 0 && rt->builtin)
        as_registry_remove_crd(s, final_root);
    if (uid && *uid)
        collect_garbage(h, uid, ns ? ns : "", orphan);
    /* a terminating namespace goes away once it is empty */
    if (ns && *ns) {
        as_rtype *nrt = as_registry_find_gr(s, "", "namespaces");
        as_obj *nso = nrt ? as_store_get(nrt, "", ns) : NULL;
        if (nso && strstr(nso->json, "\"deletionTimestamp\"")) {
            bool empty = true;
            for (as_rtype *t = s->types; t && empty; t = t->next)
                for (size_t i = 0; i < t->n_items && empty; i++)
                    if (strcmp(t->items[i]->ns, ns) == 0)
                        empty = false;
            if (empty) {
                slinky_doc *nd = NULL;
                if (as_obj_doc(&nd, nso) == 0)
                    remove_object(h, nrt, nso, slinky_doc_root(nd), false);
                slinky_doc_free(nd);
            }
        }
    }
    free(uid);
    free(ns);
    free(name);
    return 0;
}

/*
 * Delete (or mark for deletion when finalizers remain). *final_out gets the
 * object's last state for the response. Returns 0 or an HTTP code.
 */
static int delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
                      slinky_doc **final_out)
{
    as_server *s = h->s;
    slinky_doc *d = NULL;
    if (as_obj_doc(&d, old) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    slinky_doc_value *root = slinky_doc_root(d);
    slinky_doc_value *md = md_of(root);
    bool ns_kind = strcmp(rt->plural, "namespaces") == 0 && !*rt->group;
    bool orphan = propagation && strcmp(propagation, "Orphan") == 0;
    if (has_finalizers(root) || (ns_kind && old->ns)) {
        bool ns_has_content = false;
        if (ns_kind) {
            for (as_rtype *t = s->types; t && !ns_has_content; t = t->next)
                for (size_t i = 0; i < t->n_items; i++)
                    if (strcmp(t->items[i]->ns, old->name) == 0)
                        ns_has_content = true;
        }
        if (has_finalizers(root) || ns_has_content) {
            if (!slinky_doc_value_get(md, "deletionTimestamp")) {
                char now[40];
                as_now_rfc3339(now, sizeof(now));
                slinky_doc_value_object_set_string(md, "deletionTimestamp", now);
                slinky_doc_value_object_set_int(md, "deletionGracePeriodSeconds", 0);
                if (ns_kind) {
                    slinky_doc_value *st = NULL;
                    if (slinky_doc_value_path_put(&st, root, "status.phase") == 0)
                        slinky_doc_value_set_string(st, "Terminating");
                }
                if (!(is_dry_run(h->req) || h->body_dry_run)) {
                    uint64_t rv = s->rv + 1;
                    set_rv(root, rv);
                    as_obj *o = NULL;
                    if (as_obj_new(&o, root, rv) != 0 ||
                        as_store_commit(s, rt, AS_EV_MODIFIED, o, old) != 0) {
                        as_obj_unref(o);
                        slinky_doc_free(d);
                        return as_resp_status(h->resp, 500, "InternalError", "delete failed",
                                              NULL);
                    }
                    if (ns_kind) {
                        /* delete the content now; the namespace goes when empty */
                        char *nsname = slinky__strdup(old->name);
                        for (as_rtype *t = s->types; t && nsname; t = t->next) {
                            for (size_t i = 0; i < t->n_items;) {
                                as_obj *c = t->items[i];
                                if (strcmp(c->ns, nsname) != 0 ||
                                    strstr(c->json, "\"deletionTimestamp\"")) {
                                    i++;
                                    continue;
                                }
                                slinky_doc *cd = NULL;
                                size_t before = t->n_items;
                                delete_one(h, t, c, "Background", &cd);
                                slinky_doc_free(cd);
                                if (t->n_items == before)
                                    i++;
                            }
                        }
                        free(nsname);
                    }
                }
            }
            *final_out = d;
            return 0;
        }
    }
    if ((is_dry_run(h->req) || h->body_dry_run)) {
        *final_out = d;
        return 0;
    }
    as_obj_ref(old);
    int code = remove_object(h, rt, old, root, orphan);
    as_obj_unref(old);
    if (code) {
        slinky_doc_free(d);
        return code;
    }
    *final_out = d;
    return 0;
}

static int do_delete(hctx *h)
{
    as_obj *old = as_store_get(h->rt, h->ns, h->route->name);
    if (!old)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    const char *propagation = as_req_query(h->req, "propagationPolicy");
    slinky_doc *opts = NULL;
    if (h->req->body_len) {
        if (as_parse_body(&opts, h->req, h->resp))
            return 400;
        const slinky_doc_value *o = slinky_doc_root(opts);
        const char *p = slinky_doc_value_path_string(o, "propagationPolicy", NULL);
        if (p)
            propagation = p;
        if (slinky_doc_value_path_bool(o, "orphanDependents", false))
            propagation = "Orphan";
        const char *puid = slinky_doc_value_path_string(o, "preconditions.uid", NULL);
        const char *prv = slinky_doc_value_path_string(o, "preconditions.resourceVersion", NULL);
        char why[300];
        if (puid && strcmp(puid, old->uid) != 0) {
            snprintf(why, sizeof(why),
                     "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                     puid, old->uid);
            int code = resp_conflict(h->resp, h->rt, h->route->name, why);
            slinky_doc_free(opts);
            return code;
        }
        bool ok = false;
        if (prv && (parse_rv(prv, &ok) != old->rv || !ok)) {
            snprintf(why, sizeof(why),
                     "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion "
                     "in object meta: %llu",
                     prv, (unsigned long long)old->rv);
            int code = resp_conflict(h->resp, h->rt, h->route->name, why);
            slinky_doc_free(opts);
            return code;
        }
        const slinky_doc_value *dr = slinky_doc_value_get(o, "dryRun");
        if (dr && slinky_doc_value_size(dr) &&
            strcmp(slinky_doc_value_path_string(dr, "[0]", ""), "All") == 0)
            h->body_dry_run = true;
    }
    slinky_doc *final = NULL;
    int code = delete_one(h, h->rt, old, propagation, &final);
    if (!code)
        as_resp_doc(h->resp, 200, slinky_doc_root(final));
    slinky_doc_free(final);
    slinky_doc_free(opts);
    return code;
}

static int do_delete_collection(hctx *h)
{
    as_filter f;
    if (as_filter_init(&f, h->req, h->ns, h->resp) != 0)
        return 400;
    for (size_t i = 0; i < h->rt->n_items;) {
        as_obj *o = h->rt->items[i];
        if (!as_filter_match(&f, o) || strstr(o->json, "\"deletionTimestamp\"")) {
            i++;
            continue;
        }
        size_t before = h->rt->n_items;
        slinky_doc *fd = NULL;
        delete_one(h, h->rt, o, as_req_query(h->req, "propagationPolicy"), &fd);
        slinky_doc_free(fd);
        if (h->rt->n_items == before)
            i++;
    }
    as_filter_dispose(&f);
    h->resp->status = 0;
    return do_list(h);
}

/* ------------------------------------------------------------------ */
/* dispatch                                                           */
/* ------------------------------------------------------------------ */

static int handle_resource(as_server *s, const as_req *req, as_resp *resp, const as_route *route)
{
    as_version *ver = NULL;
    as_rtype *rt = as_registry_find(s, route->group, route->version, route->resource, &ver);
    if (!rt)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    const char *ns = route->ns;
    if (!rt->namespaced && ns)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    if (rt->namespaced && !ns && route->name)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    if (route->sub) {
        bool ok = (strcmp(route->sub, "status") == 0 && ver->has_status) ||
                  (strcmp(route->sub, "scale") == 0 && ver->has_scale);
        if (!ok || !route->name)
            return as_resp_status(resp, 404, "NotFound",
                                  "the server could not find the requested resource", NULL);
    }
    hctx h = {s, rt, ver, route, rt->namespaced ? ns : "", req, resp, false};
    if (!rt->namespaced)
        h.ns = "";
    const char *m = req->method;
    if (strcmp(m, "GET") == 0) {
        if (route->name)
            return do_get(&h);
        if (query_bool(req, "watch"))
            return as_watch_start(s, req, resp, rt, route);
        return do_list(&h);
    }
    if (strcmp(m, "POST") == 0) {
        if (route->name)
            return as_resp_status(resp, 405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested "
                                  "resource",
                                  NULL);
        return do_create(&h);
    }
    if (!route->name && strcmp(m, "DELETE") == 0)
        return do_delete_collection(&h);
    if (!route->name)
        return as_resp_status(resp, 405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              NULL);
    if (strcmp(m, "PUT") == 0)
        return do_put(&h);
    if (strcmp(m, "PATCH") == 0)
        return do_patch(&h);
    if (strcmp(m, "DELETE") == 0) {
        if (route->sub)
            return as_resp_status(resp, 405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested "
                                  "resource",
                                  NULL);
        return do_delete(&h);
    }
    return as_resp_status(resp, 405, "MethodNotAllowed",
                          "the server does not allow this method on the requested resource",
                          NULL);
}

int as_handle(as_server *s, const as_req *req, as_resp *resp)
{
    const char *p = req->path;
    if (!strcmp(p, "/healthz") || !strcmp(p, "/readyz") || !strcmp(p, "/livez")) {
        resp->status = 200;
        resp->content_type = "text/plain";
        slinky__buf_puts(&resp->body, "ok");
        return 0;
    }
    if (!strcmp(p, "/version") || !strcmp(p, "/version/")) {
        resp->status = 200;
        resp->content_type = "application/json";
        slinky__buf_puts(&resp->body,
                         "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-slinky\","
                         "\"gitCommit\":\"0000000000000000000000000000000000000000\","
                         "\"gitTreeState\":\"clean\",\"buildDate\":\"2026-01-01T00:00:00Z\","
                         "\"goVersion\":\"go1.23.0\",\"compiler\":\"gc\",\"platform\":"
                         "\"linux/amd64\"}");
        return 0;
    }
    if (!strncmp(p, "/openapi/", 9)) {
        pthread_mutex_lock(&s->lock);
        int rc = as_openapi(s, resp, p);
        pthread_mutex_unlock(&s->lock);
        return rc;
    }
    as_route route;
    int kind = as_route_parse(&route, p);
    int rc = 0;
    if (kind == AS_ROUTE_NONE) {
        as_resp_status(resp, 404, "NotFound", "the server could not find the requested resource",
                       NULL);
        return 0;
    }
    pthread_mutex_lock(&s->lock);
    if (kind == AS_ROUTE_RESOURCE) {
        rc = handle_resource(s, req, resp, &route);
    } else if (strcmp(req->method, "GET") != 0) {
        as_resp_status(resp, 405, "MethodNotAllowed",
                       "the server does not allow this method on the requested resource", NULL);
    } else {
        rc = as_discovery(s, resp, kind, route.group, route.version);
    }
    pthread_mutex_unlock(&s->lock);
    as_route_dispose(&route);
    return rc > 0 ? 0 : rc;
}
