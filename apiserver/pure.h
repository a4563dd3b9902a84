/*
 * Layer 1: pure helpers (no server state, no I/O), each unit tested in
 * tests/apiserver: label/field selectors, Go booleans and name checks
 * (selector.c), openAPIV3Schema prune/default/validate and Status causes
 * (schema.c), FieldsV1 field sets of server-side apply (fields.c), strategic
 * merge patch (smp.c), URL routes and version priority (route.c), JSONPath
 * and ages (jsonpath.c), YAML alias expansion (yamlsize.c), protobuf bodies
 * (proto.c).
 *
 * Threads: every function is reentrant. Errors: negative slinky_status with
 * slinky_error_last() set, unless documented otherwise.
 */
#ifndef SLINKY_APISERVER_PURE_H
#define SLINKY_APISERVER_PURE_H

#include "base.h"

/* ---- selector.c: label/field selectors, Go-style booleans, names ------ */

typedef enum as_sel_op {
    AS_SEL_EQ,        /* key=v, key==v */
    AS_SEL_NE,        /* key!=v */
    AS_SEL_IN,        /* key in (a,b) */
    AS_SEL_NOTIN,     /* key notin (a,b) */
    AS_SEL_EXISTS,    /* key */
    AS_SEL_NOT_EXISTS /* !key */
} as_sel_op;

typedef struct as_sel_req {
    char *key;
    as_sel_op op;
    char **values;
    size_t n_values;
} as_sel_req;

typedef struct as_selector {
    as_sel_req *reqs;
    size_t n;
} as_selector;

/** Parse a label selector ("a=b,c in (x,y),!d"). Empty/NULL matches all. */
int as_selector_parse_labels(as_selector *out, const char *text);
/** Parse a field selector (=, ==, != only). */
int as_selector_parse_fields(as_selector *out, const char *text);
void as_selector_dispose(as_selector *sel);
/** Lookup callback: the value for key, or NULL when absent. */
typedef const char *(*as_sel_lookup)(const char *key, void *payload);
bool as_selector_matches(const as_selector *sel, as_sel_lookup lookup, void *payload);
/** Match against an object of string values (metadata.labels); NULL = none. */
bool as_selector_matches_labels(const as_selector *sel, const slinky_doc_value *labels);
/** Go strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False. */
int as_parse_bool(bool *out, const char *text);
/** Label key/value syntax check (qualified name / label value); NULL when fine. */
const char *as_check_label_key(const char *key);
const char *as_check_label_value(const char *value);
/** DNS-1123 subdomain / label name check; NULL when valid, else the reason. */
const char *as_check_dns_subdomain(const char *name);
const char *as_check_dns_label(const char *name);

/* ---- schema.c: causes and openAPIV3Schema prune / default / validate --- */

typedef struct as_cause {
    char *reason; /* FieldValueRequired, FieldValueNotSupported, ... */
    char *field;  /* spec.scalingMode */
    char *message;
} as_cause;

typedef struct as_causes {
    as_cause *items;
    size_t n, cap;
} as_causes;

int as_causes_add(as_causes *c, const char *reason, const char *field, const char *fmt, ...)
    SLINKY_PRINTF(4, 5);
void as_causes_dispose(as_causes *c);

/**
 * Remove fields the schema does not know (root apiVersion/kind/metadata kept)
 * and nulls of non-nullable fields. Each removed unknown field is recorded in
 * `unknown` (may be NULL) with its path (for fieldValidation=Strict/Warn).
 */
void as_schema_prune(slinky_doc_value *obj, const slinky_doc_value *schema, bool root,
                     as_causes *unknown, const char *path);
/** Fill in `default:` values (after pruning). */
int as_schema_default(slinky_doc_value *obj, const slinky_doc_value *schema);
/** Validate; appends one cause per bad field. Returns 0 (causes may be empty). */
int as_schema_validate(as_causes *causes, const slinky_doc_value *obj,
                       const slinky_doc_value *schema, const char *path);

/* ---- fields.c: FieldsV1 field sets (server-side apply) ----------------- */

typedef struct as_pset {
    char **v; /* sorted, unique; tokens joined by '\x01' */
    size_t n, cap;
} as_pset;
void as_pset_dispose(as_pset *p);
bool as_pset_has(const as_pset *p, const char *path);
int as_pset_add(as_pset *p, const char *s);
void as_pset_remove(as_pset *p, const char *s);
/** Leaf field paths of an object (FieldsV1 tokens: f:, k:, v:, "."). */
int as_fields_of(as_pset *out, const slinky_doc_value *obj, const slinky_doc_value *schema,
                 bool builtin, bool status_only, bool has_status);
int as_fields_to_v1(slinky_doc_value *out, const as_pset *p);
int as_fields_from_v1(as_pset *out, const slinky_doc_value *v1);
/** ".spec.containers[name=\"a\"].image" */
char *as_field_display(const char *path);
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

/* ---- smp.c: strategic merge patch for built-in kinds ------------------- */

int as_strategic_merge(slinky_doc_value *target, const slinky_doc_value *patch);

/* ---- route.c: URL -> resource, API version priority -------------------- */

typedef struct as_route {
    const char *group; /* "" core */
    const char *version;
    const char *ns; /* NULL when not in the path */
    const char *resource;
    const char *name; /* NULL for collections */
    const char *sub;  /* status / scale / NULL */
    char *storage;    /* owns the strings above */
} as_route;

enum as_route_kind {
    AS_ROUTE_NONE = 0,
    AS_ROUTE_RESOURCE,
    AS_ROUTE_API,        /* /api */
    AS_ROUTE_API_V1,     /* /api/v1 */
    AS_ROUTE_APIS,       /* /apis */
    AS_ROUTE_APIS_GROUP, /* /apis/g */
    AS_ROUTE_APIS_GV     /* /apis/g/v */
};

/** Returns an as_route_kind (AS_ROUTE_NONE when the path is not an API path). */
int as_route_parse(as_route *out, const char *path);
void as_route_dispose(as_route *r);
/** <0 when version a is preferred to b (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others). */
int as_version_priority_cmp(const char *a, const char *b);

/* ---- jsonpath.c: JSONPath and ages (Table output) ---------------------- */

/** kube-apiserver's HumanDuration ("45s", "5m3s", "3h", "2d4h", "1y10d"). */
void as_human_duration(char *buf, size_t len, long long secs);
/** Minimal JSONPath (".a.b", "[0]", "[*]", "[?(@.k==\"v\")]"); NULL when missing. */
const slinky_doc_value *as_jsonpath(const slinky_doc_value *v, const char *path);

/* ---- yamlsize.c: YAML alias expansion ---------------------------------- */

/** Would the YAML text, with its aliases expanded, pass `limit` bytes (about)? */
bool as_yaml_expands_beyond(const char *data, size_t len, size_t limit);

/* ---- proto.c: protobuf bodies of Namespace/ConfigMap/Secret/ServiceAccount */

int as_proto_decode(slinky_doc **out, const char *data, size_t len);

#endif
