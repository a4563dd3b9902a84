/*
 * Layer 9: the write steps every verb ends in. Create a new object, store a
 * new state of an existing one, delete (or mark for deletion while
 * finalizers remain), remove for good with garbage collection of dependents
 * and of an emptied terminating namespace (commit.c); the scale subresource
 * (scale.c).
 *
 * Threads: as_server.lock held. Each returns 0 or the HTTP code of the
 * response written into h->resp.
 */
#ifndef SLINKY_APISERVER_COMMIT_H
#define SLINKY_APISERVER_COMMIT_H

#include "admit.h"

/** Store a new object (name/generateName, admission, uid...); `code` on success. */
int as_create_doc(hctx *h, slinky_doc_value *root, int code);
/** Store `root` as the new state of `old` (status_only: a /status write). */
int as_update_doc(hctx *h, as_obj *old, slinky_doc_value *root, bool status_only);
/**
 * Delete `old` of type rt (finalizers: mark it), with `propagation`
 * ("Orphan", "Background", ...). *final_out gets its last state.
 */
int as_delete_one(hctx *h, as_rtype *rt, as_obj *old, const char *propagation,
                  slinky_doc **final_out);
/** Remove an object for good (no finalizers left): DELETED event, then GC. */
int as_remove_object(hctx *h, as_rtype *rt, as_obj *prev, slinky_doc_value *final_root,
                     bool orphan);

/* ---- scale.c ---------------------------------------------------------------- */

/** The autoscaling/v1 Scale of an object. */
int as_scale_doc(slinky_doc **out, const as_version *ver, const slinky_doc_value *root);
/** Set the object's replicas from a Scale body; 0 or 422. */
int as_scale_apply(hctx *h, slinky_doc_value *target, const slinky_doc_value *scale);
/** Replace a 200 response with the object's Scale. */
void as_scale_respond(hctx *h);

#endif
