/*
 * Layer 10: the verbs and the read-side documents. GET and LIST (read.c),
 * watch (watch.c), Table output (table.c), POST and PUT (write.c), PATCH
 * (patch.c), server-side apply (apply.c), DELETE and deletecollection
 * (delete.c), pod eviction and binding (pods.c), ServiceAccount tokens
 * (tokens.c), RBAC for their requests (rbac.c), discovery (discovery.c) and
 * OpenAPI (openapi.c).
 *
 * Threads: as_do_* and the documents run with as_server.lock held; the
 * watch stream (as_watch_read) takes it itself.
 */
#ifndef SLINKY_APISERVER_VERBS_H
#define SLINKY_APISERVER_VERBS_H

#include "commit.h"

int as_do_get(hctx *h);
int as_do_list(hctx *h);
int as_do_create(hctx *h);
int as_do_put(hctx *h);
int as_do_patch(hctx *h);
int as_do_delete(hctx *h);
int as_do_delete_collection(hctx *h);
/** POST pods/NAME/eviction (PodDisruptionBudgets honoured) and pods/NAME/binding. */
int as_do_pod_subresource(hctx *h);
/** POST serviceaccounts/NAME/token: a TokenRequest, answered with a token the server accepts. */
int as_do_token_request(hctx *h);
/**
 * The index of a ServiceAccount token in s->sa_tokens, or -1 when it is
 * unknown, expired, or its ServiceAccount is gone (takes client_lock and
 * as_server.lock itself; call it without them).
 */
long as_sa_token_lookup(as_server *s, const char *token);
/**
 * With s->rbac, may the request's ServiceAccount (req->sa_*) do `verb` on
 * the route? 0, or 403 written to resp (as_server.lock held).
 */
int as_rbac_check(as_server *s, const as_req *req, const as_route *route, const char *verb,
                  as_resp *resp);
/** PATCH application/apply-patch+yaml. */
int as_apply_patch(hctx *h);

/* ---- watch.c ---------------------------------------------------------------- */

int as_watch_start(as_server *s, const as_req *req, as_resp *resp, as_rtype *rt,
                   const as_route *route);
/** Watch stream: fill buf with up to max bytes; 0 = keep waiting, -1 = end. */
long as_watch_read(as_watch *w, char *buf, size_t max);
void as_watch_free(as_watch *w);
/** The connection's socket, polled to notice a client that went away. */
void as_watch_set_fd(as_watch *w, int fd);
/** Fault injection: end after N events; start with a 410 ERROR event. */
void as_watch_fault(as_watch *w, unsigned close_after, bool send_410);

/* ---- table.c ------------------------------------------------------------------ */

bool as_wants_table(const as_req *req);
/** includeObject=Object: Table rows carry the whole object. */
bool as_table_full(const as_req *req);
/** A meta.k8s.io/v1 Table; rows carry the whole object when `full` (includeObject=Object). */
int as_table_render(as_buf *out, as_server *s, as_rtype *rt, const char *version, bool full,
                    as_obj **items, size_t n, const char *list_meta_json);

/* ---- discovery.c, openapi.c ------------------------------------------------------ */

/** Discovery documents; aggregated (apidiscovery v2/v2beta1) when `accept` asks for it. */
int as_discovery(as_server *s, as_resp *resp, int kind, const char *group,
                 const char *version, const char *accept);
int as_openapi(as_server *s, as_resp *resp, const char *path);

#endif
