/*
 * Fault injection for client tests (only with --enable-faults; the admin
 * endpoint needs the admin token; the server listens on loopback only).
 *
 *   POST   /admin/faults   {"path": "<fnmatch glob>", "method": "GET", "watch": true,
 *                           "count": 1, "kind": "<kind>", ...}   -> 201 with the fault
 *   GET    /admin/faults   -> {"faults": [...]} with "remaining" and "hits"
 *   DELETE /admin/faults   -> remove every fault
 *
 * Kinds: "status" (code 429/500/503/..., optional "retryAfter" seconds and
 * "message"), "delay" ("ms"), "tiny-chunks" ("bytes": body or watch stream
 * written in chunks of that size), "drop" (connection closed in the middle of
 * the body; a watch after its first chunk), "close-watch" ("events": end the
 * watch cleanly after N events), "watch-410" (the watch starts with a 410
 * Expired ERROR event and ends). "count" is how many requests the fault hits
 * (default 1, -1 = forever); the first matching fault with count left wins.
 */
#include "handle.h"

#include <fnmatch.h>
#include <strings.h>
#include <stdio.h>
#include <string.h>

struct as_fault {
    char *path;
    char *method; /* NULL = any */
    int watch;    /* -1 any, 0 only non-watch, 1 only watch */
    long remaining;
    long hits;
    char *kind;
    int code;
    long retry_after;
    char *message;
    long ms;
    long bytes;
    long events;
    struct as_fault *next;
};

static void fault_free(as_fault *f)
{
    free(f->path);
    free(f->method);
    free(f->kind);
    free(f->message);
    free(f);
}

static void fault_json(as_buf *b, const as_fault *f)
{
    as_buf_puts(b, "{\"path\":");
    as_json_str(b, f->path);
    if (f->method) {
        as_buf_puts(b, ",\"method\":");
        as_json_str(b, f->method);
    }
    if (f->watch >= 0)
        as_buf_printf(b, ",\"watch\":%s", f->watch ? "true" : "false");
    as_buf_puts(b, ",\"kind\":");
    as_json_str(b, f->kind);
    as_buf_printf(b, ",\"remaining\":%ld,\"hits\":%ld", f->remaining, f->hits);
    if (f->code)
        as_buf_printf(b, ",\"code\":%d", f->code);
    if (f->retry_after)
        as_buf_printf(b, ",\"retryAfter\":%ld", f->retry_after);
    if (f->ms)
        as_buf_printf(b, ",\"ms\":%ld", f->ms);
    if (f->bytes)
        as_buf_printf(b, ",\"bytes\":%ld", f->bytes);
    if (f->events)
        as_buf_printf(b, ",\"events\":%ld", f->events);
    as_buf_puts(b, "}");
}

static const char *const k_kinds[] = {"status", "delay", "tiny-chunks", "drop", "close-watch",
                                      "watch-410"};

int as_fault_admin(as_server *s, const as_req *req, as_resp *resp)
{
    if (strcmp(req->path, "/admin/faults") != 0)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    if (!strcmp(req->method, "DELETE")) {
        pthread_mutex_lock(&s->fault_lock);
        while (s->faults) {
            as_fault *n = s->faults->next;
            fault_free(s->faults);
            s->faults = n;
        }
        pthread_mutex_unlock(&s->fault_lock);
        return as_resp_status(resp, 200, "", "all faults removed", NULL);
    }
    if (!strcmp(req->method, "GET")) {
        resp->status = 200;
        resp->content_type = "application/json";
        as_buf_puts(&resp->body, "{\"faults\":[");
        pthread_mutex_lock(&s->fault_lock);
        for (as_fault *f = s->faults; f; f = f->next) {
            if (f != s->faults)
                as_buf_putc(&resp->body, ',');
            fault_json(&resp->body, f);
        }
        pthread_mutex_unlock(&s->fault_lock);
        as_buf_puts(&resp->body, "]}");
        return 0;
    }
    if (strcmp(req->method, "POST") != 0)
        return as_resp_status(resp, 405, "MethodNotAllowed", "use GET, POST or DELETE", NULL);
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, req->body ? req->body : "", req->body_len) != 0)
        return as_resp_status(resp, 400, "BadRequest", slinky_error_last()->message, NULL);
    const slinky_doc_value *r = slinky_doc_root(d);
    const char *kind = slinky_doc_value_path_string(r, "kind", "");
    const char *path = slinky_doc_value_path_string(r, "path", "*");
    bool known = false;
    for (size_t i = 0; i < AS_ARRAY_SIZE(k_kinds); i++)
        known |= !strcmp(kind, k_kinds[i]);
    if (!known) {
        slinky_doc_free(d);
        return as_resp_status(resp, 400, "BadRequest",
                              "kind must be one of status, delay, tiny-chunks, drop, "
                              "close-watch, watch-410",
                              NULL);
    }
    as_fault *f = as_calloc(1, sizeof(*f));
    if (!f) {
        slinky_doc_free(d);
        return as_resp_status(resp, 500, "InternalError", "out of memory", NULL);
    }
    f->path = as_strdup(path);
    const char *m = slinky_doc_value_path_string(r, "method", NULL);
    f->method = m ? as_strdup(m) : NULL;
    const slinky_doc_value *w = slinky_doc_value_get(r, "watch");
    f->watch = w ? slinky_doc_value_get_bool(w) : -1;
    f->remaining = slinky_doc_value_path_int(r, "count", 1);
    f->kind = as_strdup(kind);
    f->code = (int)slinky_doc_value_path_int(r, "code", 503);
    f->retry_after = slinky_doc_value_path_int(r, "retryAfter", 0);
    const char *msg = slinky_doc_value_path_string(r, "message", NULL);
    f->message = msg ? as_strdup(msg) : NULL;
    f->ms = slinky_doc_value_path_int(r, "ms", 1000);
    f->bytes = slinky_doc_value_path_int(r, "bytes", 1);
    f->events = slinky_doc_value_path_int(r, "events", 1);
    slinky_doc_free(d);
    if (strcmp(f->kind, "status") != 0)
        f->code = 0;
    if (strcmp(f->kind, "delay") != 0)
        f->ms = 0;
    if (strcmp(f->kind, "tiny-chunks") != 0)
        f->bytes = 0;
    if (strcmp(f->kind, "close-watch") != 0)
        f->events = 0;
    if (!strcmp(f->kind, "status") && f->code == 429 && !f->retry_after)
        f->retry_after = 1;
    pthread_mutex_lock(&s->fault_lock);
    as_fault **tail = &s->faults;
    while (*tail)
        tail = &(*tail)->next;
    *tail = f;
    resp->status = 201;
    resp->content_type = "application/json";
    fault_json(&resp->body, f);
    pthread_mutex_unlock(&s->fault_lock);
    return 0;
}

static bool is_watch(const as_req *req)
{
    const char *v = as_req_query(req, "watch");
    bool b = false;
    return v && (!*v || (as_parse_bool(&b, v) == 0 && b));
}

bool as_fault_check(as_server *s, const as_req *req, as_resp *resp, unsigned *delay_ms)
{
    bool final = false;
    pthread_mutex_lock(&s->fault_lock);
    for (as_fault *f = s->faults; f; f = f->next) {
        if (f->remaining == 0)
            continue;
        if (fnmatch(f->path, req->path, 0) != 0)
            continue;
        if (f->method && strcasecmp(f->method, req->method) != 0)
            continue;
        if (f->watch >= 0 && f->watch != is_watch(req))
            continue;
        if (f->remaining > 0)
            f->remaining--;
        f->hits++;
        if (!strcmp(f->kind, "status")) {
            static const struct {
                int code;
                const char *reason, *msg;
            } m[] = {{429, "TooManyRequests", "Too many requests, please try again later."},
                     {500, "InternalError", "Internal error occurred: injected fault"},
                     {503, "ServiceUnavailable", "The server is currently unable to handle "
                                                 "the request"},
                     {504, "Timeout", "The server was unable to return a response in the time "
                                      "allotted"},
                     {409, "Conflict", "injected conflict"},
                     {410, "Expired", "injected: too old resource version"}};
            const char *reason = "InternalError", *msg = "injected fault";
            for (size_t i = 0; i < AS_ARRAY_SIZE(m); i++)
                if (m[i].code == f->code) {
                    reason = m[i].reason;
                    msg = m[i].msg;
                }
            as_resp_status(resp, f->code, reason, f->message ? f->message : msg, NULL);
            if (f->retry_after) {
                char b[32];
                snprintf(b, sizeof(b), "%ld", f->retry_after);
                resp->retry_after = as_strdup(b);
                as_buf_clear(&resp->body);
                char details[64];
                snprintf(details, sizeof(details), "{\"retryAfterSeconds\":%ld}", f->retry_after);
                as_resp_status(resp, f->code, reason, f->message ? f->message : msg, details);
            }
            final = true;
        } else if (!strcmp(f->kind, "delay")) {
            *delay_ms = (unsigned)f->ms;
        } else if (!strcmp(f->kind, "tiny-chunks")) {
            resp->fault_chunk = (unsigned)(f->bytes > 0 ? f->bytes : 1);
        } else if (!strcmp(f->kind, "drop")) {
            resp->fault_drop = true;
        } else if (!strcmp(f->kind, "close-watch")) {
            resp->fault_close_after = (unsigned)(f->events > 0 ? f->events : 1);
        } else if (!strcmp(f->kind, "watch-410")) {
            resp->fault_410 = true;
        }
        break;
    }
    pthread_mutex_unlock(&s->fault_lock);
    return final;
}

void as_fault_free_all(as_server *s)
{
    while (s->faults) {
        as_fault *n = s->faults->next;
        fault_free(s->faults);
        s->faults = n;
    }
}
