/* Responses, Status objects, request bodies and small shared helpers of the verbs. */
#include "request.h"

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


int as_resp_json(as_resp *resp, int code, const char *json, size_t len)
{
    resp->status = code;
    resp->content_type = "application/json";
    as_buf_clear(&resp->body);
    as_buf_put(&resp->body, json, len);
    return 0;
}

size_t as_resp_list_size(const as_resp *resp)
{
    size_t total = resp->body.len + 2 + (resp->n_items ? resp->n_items - 1 : 0);
    for (size_t i = 0; i < resp->n_items; i++)
        total += resp->items[i]->json_len;
    return total;
}

int as_resp_list_flatten(as_resp *resp)
{
    if (!resp->list)
        return 0;
    as_buf *b = &resp->body;
    int rc = as_buf_grow(b, as_resp_list_size(resp) - b->len + 1);
    for (size_t i = 0; !rc && i < resp->n_items; i++) {
        if (i)
            as_buf_putc(b, ',');
        as_buf_put(b, resp->items[i]->json, resp->items[i]->json_len);
    }
    if (!rc)
        rc = as_buf_puts(b, "]}");
    as_resp_items_release(resp);
    return rc;
}

void as_resp_items_release(as_resp *resp)
{
    for (size_t i = 0; i < resp->n_items; i++)
        as_obj_unref(resp->items[i]);
    free(resp->items);
    resp->items = NULL;
    resp->n_items = 0;
    resp->list = false;
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
    as_buf *b = &resp->body;
    as_buf_clear(b);
    resp->status = code;
    resp->content_type = "application/json";
    as_buf_puts(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":");
    as_buf_puts(b, code < 300 ? "\"Success\"" : "\"Failure\"");
    as_buf_puts(b, ",\"message\":");
    as_json_str(b, message);
    as_buf_puts(b, ",\"reason\":");
    as_json_str(b, reason);
    if (details_json) {
        as_buf_puts(b, ",\"details\":");
        as_buf_puts(b, details_json);
    }
    as_buf_printf(b, ",\"code\":%d}", code);
    return 0;
}

/* plural.group (or plural for the core group) */
void as_qualified(char *buf, size_t len, const as_rtype *rt)
{
    if (*rt->group)
        snprintf(buf, len, "%s.%s", rt->plural, rt->group);
    else
        snprintf(buf, len, "%s", rt->plural);
}

void as_kind_qualified(char *buf, size_t len, const as_rtype *rt)
{
    if (*rt->group)
        snprintf(buf, len, "%s.%s", rt->kind, rt->group);
    else
        snprintf(buf, len, "%s", rt->kind);
}

static char *details(const as_rtype *rt, const char *name, bool kind)
{
    as_buf b = AS_BUF_INIT;
    as_buf_puts(&b, "{\"name\":");
    as_json_str(&b, name ? name : "");
    as_buf_puts(&b, ",\"group\":");
    as_json_str(&b, rt->group);
    as_buf_puts(&b, ",\"kind\":");
    as_json_str(&b, kind ? rt->kind : rt->plural);
    as_buf_puts(&b, "}");
    return as_buf_detach(&b, NULL);
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
    as_qualified(q, sizeof(q), rt);
    return as_resp_error(resp, rt, 404, "NotFound", name, "%s \"%s\" not found", q, name);
}

int as_resp_conflict(as_resp *resp, const as_rtype *rt, const char *name, const char *why)
{
    char q[300];
    as_qualified(q, sizeof(q), rt);
    return as_resp_error(resp, rt, 409, "Conflict", name,
                         "Operation cannot be fulfilled on %s \"%s\": %s", q, name, why);
}

const char *const as_k_modified =
    "the object has been modified; please apply your changes to the latest version and try "
    "again";

int as_resp_invalid(as_resp *resp, const as_rtype *rt, const char *name, const as_causes *c)
{
    char kq[300];
    as_kind_qualified(kq, sizeof(kq), rt);
    as_buf msg = AS_BUF_INIT, d = AS_BUF_INIT;
    as_buf_printf(&msg, "%s \"%s\" is invalid: ", kq, name ? name : "");
    if (c->n > 1)
        as_buf_putc(&msg, '[');
    for (size_t i = 0; i < c->n; i++)
        as_buf_printf(&msg, "%s%s: %s", i ? ", " : "", c->items[i].field,
                           c->items[i].message);
    if (c->n > 1)
        as_buf_putc(&msg, ']');
    as_buf_puts(&d, "{\"name\":");
    as_json_str(&d, name ? name : "");
    as_buf_puts(&d, ",\"group\":");
    as_json_str(&d, rt->group);
    as_buf_puts(&d, ",\"kind\":");
    as_json_str(&d, rt->kind);
    as_buf_puts(&d, ",\"causes\":[");
    for (size_t i = 0; i < c->n; i++) {
        as_buf_puts(&d, i ? ",{\"reason\":" : "{\"reason\":");
        as_json_str(&d, c->items[i].reason);
        as_buf_puts(&d, ",\"message\":");
        as_json_str(&d, c->items[i].message);
        as_buf_puts(&d, ",\"field\":");
        as_json_str(&d, c->items[i].field);
        as_buf_puts(&d, "}");
    }
    as_buf_puts(&d, "]}");
    as_resp_status(resp, 422, "Invalid", msg.data ? msg.data : "", d.data);
    as_buf_dispose(&msg);
    as_buf_dispose(&d);
    return 422;
}

slinky_doc_value *as_md_of(slinky_doc_value *root)
{
    slinky_doc_value *md = NULL;
    if (slinky_doc_value_object_put(&md, root, "metadata") != 0)
        return NULL;
    if (slinky_doc_value_type(md) != SLINKY_DOC_OBJECT)
        slinky_doc_value_set_object(md);
    return md;
}

void as_set_rv(slinky_doc_value *root, uint64_t rv)
{
    char b[32];
    snprintf(b, sizeof(b), "%llu", (unsigned long long)rv);
    slinky_doc_value_object_set_string(as_md_of(root), "resourceVersion", b);
}

uint64_t as_parse_rv(const char *s, bool *ok)
{
    uint64_t v = 0;
    *ok = as_parse_uint(s, UINT64_MAX, &v) == 0;
    return *ok ? v : 0;
}

int as_parse_body(slinky_doc **out, const as_req *req, as_resp *resp, size_t max_body)
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
    bool yaml = strstr(ct, "yaml") && !(n && (*p == '{' || *p == '['));
    if (yaml && max_body && as_yaml_expands_beyond(p, n, max_body)) {
        as_resp_error(resp, NULL, 413, "RequestEntityTooLarge", NULL,
                      "the YAML body expands (anchors and aliases) to more than the limit of "
                      "%zu bytes",
                      max_body);
        return 413;
    }
    if (yaml)
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

bool as_query_bool(const as_req *req, const char *key)
{
    const char *v = as_req_query(req, key);
    bool b = false;
    if (!v)
        return false;
    if (!*v)
        return true;
    return as_parse_bool(&b, v) == 0 && b;
}



