/* kube: Kubernetes Status replies -> slinky error codes + per-thread details. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

#define STATUS_ARENA 8192
#define STATUS_MAX_CAUSES 16

static _Thread_local char tl_arena[STATUS_ARENA];
static _Thread_local size_t tl_used;
static _Thread_local slinky_kube_status_cause tl_causes[STATUS_MAX_CAUSES];
static _Thread_local slinky_kube_status tl_status;

static const char *arena_put(const char *s)
{
    if (s == NULL)
        s = "";
    size_t n = strlen(s);
    if (tl_used + 1 >= STATUS_ARENA)
        return "";
    if (n > STATUS_ARENA - tl_used - 1)
        n = STATUS_ARENA - tl_used - 1;
    char *p = tl_arena + tl_used;
    memcpy(p, s, n);
    p[n] = '\0';
    tl_used += n + 1;
    return p;
}

void slinky_kube__status_clear(void)
{
    tl_used = 0;
    memset(&tl_status, 0, sizeof(tl_status));
    tl_status.reason = tl_status.message = tl_status.name = tl_status.kind = "";
    tl_status.causes = tl_causes;
}

const slinky_kube_status *slinky_kube_status_last(void)
{
    if (tl_status.reason == NULL)
        slinky_kube__status_clear();
    return &tl_status;
}

static const struct {
    const char *reason;
    int code;
} reasons[] = {
    {"NotFound", SLINKY_ENOTFOUND},
    {"AlreadyExists", SLINKY_EEXISTS},
    {"Conflict", SLINKY_ECONFLICT},
    {"Invalid", SLINKY_EINVALID},
    {"BadRequest", SLINKY_EINVALID},
    {"Gone", SLINKY_EGONE},
    {"Expired", SLINKY_EGONE},
    {"Unauthorized", SLINKY_EAUTH},
    {"Forbidden", SLINKY_EFORBIDDEN},
    {"TooManyRequests", SLINKY_EBUSY},
    {"ServiceUnavailable", SLINKY_EBUSY},
    {"Timeout", SLINKY_ETIMEOUT},
    {"ServerTimeout", SLINKY_ETIMEOUT},
    {"UnsupportedMediaType", SLINKY_EUNSUPPORTED},
    {"MethodNotAllowed", SLINKY_EUNSUPPORTED},
    {"NotAcceptable", SLINKY_EUNSUPPORTED},
    {"RequestEntityTooLarge", SLINKY_EINVALID},
    {"InternalError", SLINKY_EHTTP},
};

int slinky_kube__code_for(const char *reason, int http_status)
{
    if (reason && *reason) {
        for (size_t i = 0; i < SLINKY__ARRAY_SIZE(reasons); i++)
            if (strcmp(reasons[i].reason, reason) == 0)
                return reasons[i].code;
    }
    switch (http_status) {
    case 400:
    case 422:
    case 413:
        return SLINKY_EINVALID;
    case 401:
        return SLINKY_EAUTH;
    case 403:
        return SLINKY_EFORBIDDEN;
    case 404:
        return SLINKY_ENOTFOUND;
    case 409:
        return SLINKY_ECONFLICT;
    case 410:
        return SLINKY_EGONE;
    case 405:
    case 406:
    case 415:
        return SLINKY_EUNSUPPORTED;
    case 429:
    case 503:
        return SLINKY_EBUSY;
    case 504:
        return SLINKY_ETIMEOUT;
    default:
        return SLINKY_EHTTP;
    }
}

int slinky_kube__status_error_value(int http_status, const slinky_doc_value *st)
{
    slinky_kube__status_clear();
    const char *reason = slinky_doc_value_path_string(st, "reason", "");
    const char *message = slinky_doc_value_path_string(st, "message", "");
    int code = (int)slinky_doc_value_path_int(st, "code", 0);
    if (http_status == 0)
        http_status = code;
    tl_status.http_status = http_status;
    tl_status.code = code ? code : http_status;
    tl_status.reason = arena_put(reason);
    tl_status.message = arena_put(message);
    tl_status.name = arena_put(slinky_doc_value_path_string(st, "details.name", ""));
    tl_status.kind = arena_put(slinky_doc_value_path_string(st, "details.kind", ""));
    tl_status.retry_after_seconds = (long)slinky_doc_value_path_int(st, "details.retryAfterSeconds", 0);
    const slinky_doc_value *causes = slinky_doc_value_path(st, "details.causes");
    size_t n = slinky_doc_value_size(causes);
    if (slinky_doc_value_type(causes) != SLINKY_DOC_ARRAY)
        n = 0;
    if (n > STATUS_MAX_CAUSES)
        n = STATUS_MAX_CAUSES;
    for (size_t i = 0; i < n; i++) {
        const slinky_doc_value *c = slinky_doc_value_at(causes, i);
        tl_causes[i].reason = arena_put(slinky_doc_value_path_string(c, "reason", ""));
        tl_causes[i].message = arena_put(slinky_doc_value_path_string(c, "message", ""));
        tl_causes[i].field = arena_put(slinky_doc_value_path_string(c, "field", ""));
    }
    tl_status.ncauses = n;
    int err = slinky_kube__code_for(reason, http_status);
    if (*message)
        return slinky__error_set_http(err, http_status, "%s", message);
    return slinky__error_set_http(err, http_status, "HTTP %d%s%s", http_status,
                                  *reason ? " " : "", reason);
}

int slinky_kube__status_error(int http_status, const char *body, size_t len, long retry_after)
{
    slinky_doc *d = NULL;
    int err;
    if (body && len && slinky_doc_parse_json(&d, body, len) == 0 &&
        slinky_doc_value_type(slinky_doc_root(d)) == SLINKY_DOC_OBJECT &&
        strcmp(slinky_doc_value_path_string(slinky_doc_root(d), "kind", ""), "Status") == 0) {
        err = slinky_kube__status_error_value(http_status, slinky_doc_root(d));
        if (retry_after > 0)
            tl_status.retry_after_seconds = retry_after;
        slinky_doc_free(d);
        return err;
    }
    slinky_doc_free(d);
    slinky_kube__status_clear();
    tl_status.http_status = tl_status.code = http_status;
    tl_status.retry_after_seconds = retry_after;
    err = slinky_kube__code_for(NULL, http_status);
    /* a short excerpt of a non-Status body */
    char excerpt[201];
    size_t n = body ? len : 0;
    if (n > 200)
        n = 200;
    for (size_t i = 0; i < n; i++)
        excerpt[i] = (body[i] >= 32 && body[i] < 127) ? body[i] : ' ';
    excerpt[n] = '\0';
    tl_status.message = arena_put(excerpt);
    return slinky__error_set_http(err, http_status, "HTTP %d%s%s", http_status, n ? ": " : "",
                                  excerpt);
}
