/*
 * ServiceAccount tokens (verbs.h): POST serviceaccounts/NAME/token takes an
 * authentication.k8s.io/v1 TokenRequest and answers it with a token that
 * this server accepts as a bearer token until it expires or the
 * ServiceAccount (by uid) is deleted, as in-cluster clients use them
 * (`kubectl create token`). Tokens are random and kept in memory only.
 */
#include "verbs.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static long long now_s(void)
{
    return (long long)time(NULL);
}

long as_sa_token_lookup(as_server *s, const char *token)
{
    if (strncmp(token, "slinky-sa.", 10) != 0)
        return -1;
    char ns[256] = "", name[256] = "", uid[64] = "";
    long found = -1;
    pthread_mutex_lock(&s->client_lock);
    for (size_t i = 0; i < s->n_sa_tokens && found < 0; i++) {
        const as_sa_token *t = &s->sa_tokens[i];
        if (strcmp(t->token, token) != 0 || t->expires <= now_s())
            continue;
        snprintf(ns, sizeof(ns), "%s", t->ns);
        snprintf(name, sizeof(name), "%s", t->name);
        snprintf(uid, sizeof(uid), "%s", t->uid);
        found = (long)i;
    }
    pthread_mutex_unlock(&s->client_lock);
    if (found < 0)
        return -1;
    pthread_mutex_lock(&s->lock);
    as_rtype *rt = as_registry_find_gr(s, "", "serviceaccounts");
    as_obj *sa = rt ? as_store_get(rt, ns, name) : NULL;
    bool alive = sa && !strcmp(sa->uid, uid);
    pthread_mutex_unlock(&s->lock);
    return alive ? found : -1;
}

static int add_token(as_server *s, const char *token, const as_obj *sa, long long expires)
{
    int rc = 0;
    pthread_mutex_lock(&s->client_lock);
    if (s->n_sa_tokens == s->cap_sa_tokens) {
        size_t cap = s->cap_sa_tokens ? s->cap_sa_tokens * 2 : 16;
        as_sa_token *t = realloc(s->sa_tokens, cap * sizeof(*t));
        unsigned *f = t ? realloc(s->sa_inflight, cap * sizeof(*f)) : NULL;
        if (t)
            s->sa_tokens = t;
        if (f) {
            s->sa_inflight = f;
            s->cap_sa_tokens = cap;
        } else {
            rc = as_err_oom();
        }
    }
    if (!rc) {
        as_sa_token *t = &s->sa_tokens[s->n_sa_tokens];
        t->token = as_strdup(token);
        t->ns = as_strdup(sa->ns);
        t->name = as_strdup(sa->name);
        t->uid = as_strdup(sa->uid);
        t->expires = expires;
        if (t->token && t->ns && t->name && t->uid) {
            s->sa_inflight[s->n_sa_tokens] = 0;
            s->n_sa_tokens++;
        } else {
            free(t->token);
            free(t->ns);
            free(t->name);
            free(t->uid);
            rc = SLINKY_ENOMEM;
        }
    }
    pthread_mutex_unlock(&s->client_lock);
    return rc;
}

int as_do_token_request(hctx *h)
{
    if (strcmp(h->req->method, "POST") != 0)
        return as_resp_status(h->resp, 405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              NULL);
    as_obj *sa = as_store_get(h->rt, h->ns, h->route->name);
    if (!sa)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp, h->s->max_body))
        return h->resp->status;
    slinky_doc_value *root = slinky_doc_root(d);
    const slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
    long long secs = (long long)slinky_doc_value_path_int(spec, "expirationSeconds", 3600);
    as_causes c = {0};
    if (secs < 600)
        as_causes_add(&c, "FieldValueInvalid", "spec.expirationSeconds",
                      "Invalid value: %lld: may not specify a duration less than 10 minutes",
                      secs);
    else if (secs > 4294967296LL)
        as_causes_add(&c, "FieldValueInvalid", "spec.expirationSeconds",
                      "Invalid value: %lld: may not specify a duration larger than 2^32 seconds",
                      secs);
    int code = 0;
    if (c.n) {
        as_rtype tr = *h->rt;
        tr.kind = "TokenRequest";
        tr.group = "authentication.k8s.io";
        code = as_resp_invalid(h->resp, &tr, h->route->name, &c);
        as_causes_dispose(&c);
        slinky_doc_free(d);
        return code ? code : 422;
    }
    unsigned char r[24];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        slinky_doc_free(d);
        return as_resp_status(h->resp, 500, "InternalError", "no randomness", NULL);
    }
    char token[64] = "slinky-sa.";
    for (size_t i = 0; i < sizeof(r); i++)
        snprintf(token + 10 + 2 * i, 3, "%02x", r[i]);
    long long expires = now_s() + secs;
    if (add_token(h->s, token, sa, expires) != 0) {
        slinky_doc_free(d);
        return as_resp_status(h->resp, 500, "InternalError", "out of memory", NULL);
    }
    char now[40], exp[40];
    as_now_rfc3339(now, sizeof(now));
    time_t et = (time_t)expires;
    struct tm tm;
    gmtime_r(&et, &tm);
    strftime(exp, sizeof(exp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    as_buf *b = &h->resp->body;
    as_buf_clear(b);
    as_buf_puts(b, "{\"kind\":\"TokenRequest\",\"apiVersion\":\"authentication.k8s.io/v1\","
                   "\"metadata\":{\"name\":");
    as_json_str(b, sa->name);
    as_buf_puts(b, ",\"namespace\":");
    as_json_str(b, sa->ns);
    as_buf_printf(b, ",\"creationTimestamp\":\"%s\"},\"spec\":{\"audiences\":", now);
    const slinky_doc_value *aud = slinky_doc_value_get(spec, "audiences");
    char *aj = NULL;
    size_t al = 0;
    if (slinky_doc_value_size(aud) &&
        slinky_doc_value_dump_json(&aj, &al, aud, SLINKY_DOC_DUMP_COMPACT) == 0)
        as_buf_put(b, aj, al);
    else
        as_buf_puts(b, "[\"https://kubernetes.default.svc.cluster.local\"]");
    slinky_free(aj);
    as_buf_printf(b, ",\"expirationSeconds\":%lld,\"boundObjectRef\":null},\"status\":{\"token\":"
                     "\"%s\",\"expirationTimestamp\":\"%s\"}}",
                  secs, token, exp);
    h->resp->status = 201;
    h->resp->content_type = "application/json";
    slinky_doc_free(d);
    return 0;
}
