/* handlers.c internals shared with apply.c and hooks.c. */
#ifndef SLINKY_APISERVER_HANDLERS_H
#define SLINKY_APISERVER_HANDLERS_H

#include "apiserver.h"

/** One resource request in flight (lock held while it is used). */
typedef struct hctx {
    as_server *s;
    as_rtype *rt;
    as_version *ver;
    const as_route *route;
    const char *ns; /* "" for cluster-scoped kinds */
    const as_req *req;
    as_resp *resp;
    bool body_dry_run; /* DeleteOptions.dryRun */
    bool managed_done; /* server-side apply already wrote managedFields */
} hctx;

int as_resp_error(as_resp *resp, const as_rtype *rt, int code, const char *reason,
                  const char *name, const char *fmt, ...) SLINKY_PRINTF(6, 7);
int as_resp_not_found(as_resp *resp, const as_rtype *rt, const char *name);
int as_resp_invalid(as_resp *resp, const as_rtype *rt, const char *name, const as_causes *c);
int as_parse_body(slinky_doc **out, const as_req *req, as_resp *resp);
/** apiVersion/kind/namespace of a body against the request; 0 or HTTP code. */
int as_check_identity(hctx *h, slinky_doc_value *root);
/** Store a new object (name/generateName, admission, uid...); returns 0 or HTTP code. */
int as_create_doc(hctx *h, slinky_doc_value *root, int code);
/** Store `root` as the new state of `old`; returns 0 or HTTP code. */
int as_update_doc(hctx *h, as_obj *old, slinky_doc_value *root, bool status_only);

/* respond.c, read.c, write.c, delete.c: shared by the verbs */
extern const char *const as_k_modified;
void as_qualified(char *buf, size_t len, const as_rtype *rt);
void as_kind_qualified(char *buf, size_t len, const as_rtype *rt);
int as_resp_conflict(as_resp *resp, const as_rtype *rt, const char *name, const char *why);
slinky_doc_value *as_md_of(slinky_doc_value *root);
void as_set_rv(slinky_doc_value *root, uint64_t rv);
uint64_t as_parse_rv(const char *s, bool *ok);
bool as_query_bool(const as_req *req, const char *key);
bool as_is_dry_run(const as_req *req);
bool as_has_finalizers(const slinky_doc_value *root);
int as_scale_doc(slinky_doc **out, const as_version *ver, const slinky_doc_value *root);
int as_do_get(hctx *h);
int as_do_list(hctx *h);
int as_do_create(hctx *h);
int as_do_put(hctx *h);
int as_do_patch(hctx *h);
int as_do_delete(hctx *h);
int as_do_delete_collection(hctx *h);
/** Remove an object for good (no finalizers left): DELETED event, then GC. */
int as_remove_object(hctx *h, as_rtype *rt, as_obj *prev, slinky_doc_value *final_root,
                     bool orphan);

/* hooks.c: kind-specific behavior */
void as_hook_before_create(hctx *h, slinky_doc_value *root);
void as_hook_after_write(hctx *h, const slinky_doc_value *root);

/* apply.c: server-side apply and managedFields */
int as_apply_patch(hctx *h);
void as_managed_update(hctx *h, const slinky_doc_value *old, slinky_doc_value *root,
                       const char *operation);

/* field sets (apply.c), exposed for the unit tests */
typedef struct as_pset {
    char **v; /* sorted, unique; tokens joined by '\x01' */
    size_t n, cap;
} as_pset;
void as_pset_dispose(as_pset *p);
bool as_pset_has(const as_pset *p, const char *path);
/** Leaf field paths of an object (FieldsV1 tokens: f:, k:, v:, "."). */
int as_fields_of(as_pset *out, const slinky_doc_value *obj, const slinky_doc_value *schema,
                 bool builtin, bool status_only, bool has_status);
int as_fields_to_v1(slinky_doc_value *out, const as_pset *p);
int as_fields_from_v1(as_pset *out, const slinky_doc_value *v1);
/** ".spec.containers[name=\"a\"].image" */
char *as_field_display(const char *path);
int as_pset_add(as_pset *p, const char *s);
void as_pset_remove(as_pset *p, const char *s);
const slinky_doc_value *as_child_schema(const slinky_doc_value *schema, const char *key);
/** List type: 'm' map (keys from the schema or the built-in key), 's' set, 'a' atomic. */
char as_list_kind(const slinky_doc_value *schema, const char *field, bool builtin,
                  const slinky_doc_value **keys_out, const char **bkey);
/** "k:{...}" token of a map-list item, or NULL when it has no key fields. */
char *as_item_key(const slinky_doc_value *item, const slinky_doc_value *keys, const char *bkey);
bool as_item_matches(const slinky_doc_value *item, const slinky_doc_value *keyobj);
/** The value at a field path (NULL when missing); parent/index/key locate it. */
slinky_doc_value *as_value_at(slinky_doc_value *root, const char *path,
                              slinky_doc_value **parent_out, long *index_out,
                              const char **key_out);
/** Remove the value at a field path ("<item>\x01." removes the item). */
void as_remove_at(slinky_doc_value *root, const char *path);

#endif
