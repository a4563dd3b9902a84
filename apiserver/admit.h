/*
 * Layer 8: admission, below every verb that writes. Identity of a body
 * (apiVersion, kind, namespace), dry-run, finalizers, generated names,
 * metadata and schema checks with pruning and defaulting (admit.c), the
 * built-in workload kinds' defaults, required and immutable fields (kinds.c),
 * managedFields bookkeeping (managed.c) and kind-specific behaviour (hooks.c).
 *
 * Threads: as_server.lock held. Functions returning int give 0 or the HTTP
 * code of the response they wrote into h->resp.
 */
#ifndef SLINKY_APISERVER_ADMIT_H
#define SLINKY_APISERVER_ADMIT_H

#include "request.h"

/* ---- admit.c ------------------------------------------------------------ */

/** apiVersion/kind/namespace of a body against the request; 0 or HTTP code. */
int as_check_identity(hctx *h, slinky_doc_value *root);
/** dryRun=All on the query. */
bool as_is_dry_run(const as_req *req);
/** The request is a dry run (query or DeleteOptions). */
bool as_dry(const hctx *h);
bool as_has_finalizers(const slinky_doc_value *root);
/** Name from generateName (prefix + 5 random characters), unused in h's namespace. */
void as_generate_name(hctx *h, char *out, size_t len, const char *prefix);
/**
 * Prune unknown fields (fieldValidation Strict: 400, Warn: Warning header),
 * apply schema defaults, validate schema, metadata and CRD bodies (422).
 */
int as_admit(hctx *h, slinky_doc_value *root, const char *name, const slinky_doc_value *old);
/** A namespaced write: 404 when the namespace is missing, 403 when it terminates. */
int as_check_namespace(hctx *h, const char *name);

/* ---- kinds.c: built-in workload kinds (Kubernetes 1.32 defaults and checks) ---- */

void as_kind_defaults(const as_rtype *rt, slinky_doc_value *root);
/**
 * v1 Service: defaults, cluster IP from 10.96.0.0/12 and node ports from
 * 30000-32767 allocated (kept on update, checked when given), checks.
 */
void as_service_admit(as_server *s, const as_rtype *rt, slinky_doc_value *root,
                      const slinky_doc_value *old, as_causes *c);
/** A metav1.LabelSelector (matchLabels, matchExpressions) against an object of labels. */
bool as_label_selector_matches(const slinky_doc_value *sel, const slinky_doc_value *labels);
/** Required and immutable fields (old: the stored state on update, else NULL). */
void as_kind_validate(as_causes *c, const as_rtype *rt, const slinky_doc_value *root,
                      const slinky_doc_value *old);

/* ---- managed.c: managedFields ------------------------------------------- */

typedef struct as_mentry {
    char *manager;
    char *operation;
    char *api_version;
    char *time;
    char *subresource;
    as_pset set;
    bool touched;
} as_mentry;

typedef struct as_mlist {
    as_mentry *e;
    size_t n;
} as_mlist;

void as_mlist_load(as_mlist *m, const slinky_doc_value *obj);
/** The entry of (manager, operation, subresource), added when missing. */
as_mentry *as_mlist_get(as_mlist *m, const char *manager, const char *op, const char *sub);
void as_mlist_store(as_mlist *m, slinky_doc_value *root, const char *gv);
void as_mlist_dispose(as_mlist *m);
/** "group/version" of the request (malloc'd). */
char *as_gv_of(const hctx *h);
/** The version's schema root, or NULL. */
const slinky_doc_value *as_schema_of(const hctx *h);
/** A write through /status. */
bool as_status_write(const hctx *h);
/** Record an Update (or `operation`) entry for the fields a write changed. */
void as_managed_update(hctx *h, const slinky_doc_value *old, slinky_doc_value *root,
                       const char *operation);

/* ---- events.c: v1 and events.k8s.io/v1 Events are the same objects ------- */

/** After a write (deleted: a removal) of an Event: the same in the other group. */
void as_events_mirror(hctx *h, const as_rtype *rt, const slinky_doc_value *root, bool deleted);

/* ---- hooks.c: kind-specific behaviour ----------------------------------- */

void as_hook_before_create(hctx *h, slinky_doc_value *root);
void as_hook_after_write(hctx *h, const slinky_doc_value *root);

#endif
