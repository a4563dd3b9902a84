/* Request dispatch: health, version, OpenAPI, discovery, resources. */
#include "handle.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* dispatch                                                           */
/* ------------------------------------------------------------------ */

/* kube-apiserver's verb of a resource request */
static const char *verb_of(const as_req *req, const as_route *route)
{
    const char *m = req->method;
    if (!strcmp(m, "GET"))
        return route->name ? "get" : as_query_bool(req, "watch") ? "watch" : "list";
    if (!strcmp(m, "POST"))
        return "create";
    if (!strcmp(m, "PUT"))
        return "update";
    if (!strcmp(m, "PATCH"))
        return "patch";
    if (!strcmp(m, "DELETE"))
        return route->name ? "delete" : "deletecollection";
    return "unknown";
}

static int handle_resource(as_server *s, const as_req *req, as_resp *resp, const as_route *route)
{
    as_version *ver = NULL;
    as_rtype *rt = as_registry_find(s, route->group, route->version, route->resource, &ver);
    if (!rt)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    if (as_rbac_check(s, req, route, verb_of(req, route), resp))
        return 403;
    const char *ns = route->ns;
    if (!rt->namespaced && ns)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    if (rt->namespaced && !ns && route->name)
        return as_resp_status(resp, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    bool pod_sub = route->sub && !*rt->group && rt->builtin && !strcmp(rt->plural, "pods") &&
                   (!strcmp(route->sub, "eviction") || !strcmp(route->sub, "binding"));
    if (route->sub && !strcmp(route->sub, "token") && rt->builtin && !*rt->group &&
        !strcmp(rt->plural, "serviceaccounts") && route->name && ns) {
        hctx th = {s, rt, ver, route, ns, req, resp, false};
        return as_do_token_request(&th);
    }
    if (pod_sub && route->name && ns) {
        hctx ph = {s, rt, ver, route, ns, req, resp, false};
        return as_do_pod_subresource(&ph);
    }
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
            return as_do_get(&h);
        if (as_query_bool(req, "watch"))
            return as_watch_start(s, req, resp, rt, route);
        return as_do_list(&h);
    }
    if (strcmp(m, "POST") == 0) {
        if (route->name)
            return as_resp_status(resp, 405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested "
                                  "resource",
                                  NULL);
        return as_do_create(&h);
    }
    if (!route->name && strcmp(m, "DELETE") == 0)
        return as_do_delete_collection(&h);
    if (!route->name)
        return as_resp_status(resp, 405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              NULL);
    if (strcmp(m, "PUT") == 0)
        return as_do_put(&h);
    if (strcmp(m, "PATCH") == 0)
        return as_do_patch(&h);
    if (strcmp(m, "DELETE") == 0) {
        if (route->sub)
            return as_resp_status(resp, 405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested "
                                  "resource",
                                  NULL);
        return as_do_delete(&h);
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
        as_buf_puts(&resp->body, "ok");
        return 0;
    }
    if (!strcmp(p, "/version") || !strcmp(p, "/version/")) {
        resp->status = 200;
        resp->content_type = "application/json";
        as_buf_puts(&resp->body,
                         "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-slinky\","
                         "\"gitCommit\":\"0000000000000000000000000000000000000000\","
                         "\"gitTreeState\":\"clean\",\"buildDate\":\"2026-01-01T00:00:00Z\","
                         "\"goVersion\":\"go1.23.0\",\"compiler\":\"gc\",\"platform\":"
                         "\"linux/amd64\"}");
        return 0;
    }
    if (!strcmp(p, "/metrics"))
        return as_metrics_render(s, resp);
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
        rc = as_discovery(s, resp, kind, route.group, route.version, req->accept);
    }
    pthread_mutex_unlock(&s->lock);
    as_route_dispose(&route);
    return rc > 0 ? 0 : rc;
}

