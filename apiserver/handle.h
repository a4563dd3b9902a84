/*
 * Layer 11: one request from start to end, above the verbs: routing to a
 * resource and verb (handlers.c), fault injection (fault.c) and the
 * Prometheus metrics (metrics.c). http.c calls
 * these; nothing below includes this header.
 *
 * Threads: as_handle takes as_server.lock itself; faults have their own lock.
 */
#ifndef SLINKY_APISERVER_HANDLE_H
#define SLINKY_APISERVER_HANDLE_H

#include "verbs.h"

int as_handle(as_server *s, const as_req *req, as_resp *resp);

/** POST/GET/DELETE /admin/faults. */
int as_fault_admin(as_server *s, const as_req *req, as_resp *resp);
/** Apply a scheduled fault to this request; true when the response is final. */
bool as_fault_check(as_server *s, const as_req *req, as_resp *resp, unsigned *delay_ms);
void as_fault_free_all(as_server *s);

/* ---- metrics.c: /metrics (Prometheus text format) ------------------------- */

/** Count one request (its verb and resource from method and path) taking `seconds`. */
void as_metrics_record(const char *method, const char *path, bool watch, int code,
                       double seconds);
/** A watch stream opened (+1) or closed (-1). */
void as_metrics_watch(int delta);
/** The /metrics document (takes as_server.lock itself). */
int as_metrics_render(as_server *s, as_resp *resp);

#endif
