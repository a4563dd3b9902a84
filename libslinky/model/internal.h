/*
 * model module internals (never installed). The schema tables are generated
 * (build tree: libslinky/model/model_schema.c) from schema/slinky.schema.
 */
#ifndef SLINKY_MODEL_INTERNAL_H
#define SLINKY_MODEL_INTERNAL_H

#include "core/internal.h"
#include "slinky/doc.h"
#include "slinky/model.h"

/* ---- schema tables (generated) ------------------------------------- */

enum {
    SLINKY_MODEL__T_OBJECT = 1,
    SLINKY_MODEL__T_ARRAY,
    SLINKY_MODEL__T_STRING,
    SLINKY_MODEL__T_INTEGER,
    SLINKY_MODEL__T_BOOLEAN,
    SLINKY_MODEL__T_INTSTR,
    SLINKY_MODEL__T_ANY
};

enum {
    SLINKY_MODEL__F_NULLABLE = 1 << 0,
    SLINKY_MODEL__F_PRESERVE = 1 << 1,    /* x-kubernetes-preserve-unknown-fields */
    SLINKY_MODEL__F_ATOMIC = 1 << 2,      /* x-kubernetes-map-type: atomic */
    SLINKY_MODEL__F_MATERIALIZE = 1 << 3, /* operator default: create parents */
    SLINKY_MODEL__F_HAS_MIN = 1 << 4,
    SLINKY_MODEL__F_HAS_MAX = 1 << 5,
    SLINKY_MODEL__F_HAS_MIN_LEN = 1 << 6,
    SLINKY_MODEL__F_HAS_MAX_LEN = 1 << 7,
    SLINKY_MODEL__F_LIST_MAP = 1 << 8 /* x-kubernetes-list-type: map */
};

/* One schema node. Children (properties, then items "[]", then
 * additionalProperties "{}") are contiguous: first_child .. +n_children. */
typedef struct slinky_model__node {
    const char *name;         /* property name, "[]" or "{}"; "" for a root */
    const char *path;         /* "spec.ha.backups", "spec.configFileRefs[].name" */
    int type;                 /* SLINKY_MODEL__T_* */
    unsigned flags;           /* SLINKY_MODEL__F_* */
    const char *format;       /* NULL when none */
    const char *pattern;      /* ECMA regex as in the CRD, or NULL */
    const char *default_json; /* the default as JSON text, or NULL */
    const char *const *enums; /* NULL-terminated, or NULL */
    const char *const *required;
    int64_t minimum, maximum, min_length, max_length;
    int first_child, n_children, items, addl, first_rule, n_rules;
} slinky_model__node;

/* A CRD x-kubernetes-validations rule; fn (rules.c) returns 1 when it holds. */
typedef int (*slinky_model__rule_fn)(const slinky_doc_value *self);
typedef struct slinky_model__rule {
    const char *id;
    const char *message;
    const char *cel;
    slinky_model__rule_fn fn;
} slinky_model__rule;

typedef struct slinky_model__kind_info {
    slinky_model_kind kind;
    const char *name;
    const char *api_version;
    const char *plural;
    const char *singular;
    const char *list_kind;
    const char *const *short_names;
    bool status_subresource;
    int root;     /* index of the root node */
    int node_end; /* one past the kind's last node */
    const char *crd_yaml;
    const char *crd_file;
} slinky_model__kind_info;

extern const slinky_model__node slinky_model__nodes[];
extern const size_t slinky_model__n_nodes;
extern const slinky_model__rule slinky_model__rules[];
extern const size_t slinky_model__n_rules;
extern const slinky_model__kind_info slinky_model__kinds[];
extern const size_t slinky_model__n_kinds;

/* ---- objects --------------------------------------------------------- */

struct slinky_model_object {
    slinky_doc *doc;
    const slinky_model__kind_info *info;
};

SLINKY_HIDDEN const slinky_model__kind_info *slinky_model__kind_info_of(slinky_model_kind kind);
SLINKY_HIDDEN const slinky_model__node *slinky_model__child(const slinky_model__node *n,
                                                            const char *name);
SLINKY_HIDDEN slinky_doc_value *slinky_model__root(const slinky_model_object *o);

/* ---- paths ------------------------------------------------------------ */

/* A parsed path: each step is a name (object member / map key) or an index. */
typedef struct slinky_model__step {
    char *key; /* NULL for an index step */
    size_t index;
} slinky_model__step;

typedef struct slinky_model__path {
    slinky_model__step *steps;
    size_t n;
} slinky_model__path;

SLINKY_HIDDEN int slinky_model__path_parse(slinky_model__path *out, const char *path);
SLINKY_HIDDEN void slinky_model__path_dispose(slinky_model__path *p);
/* Schema node for a path in a kind; NULL when unknown. *free_form is set when
 * the path runs into a preserve-unknown-fields / metadata subtree. */
SLINKY_HIDDEN const slinky_model__node *slinky_model__schema_at(const slinky_model__kind_info *k,
                                                                const slinky_model__path *p,
                                                                bool *free_form);

/* ---- accessors used by the generated per-kind functions ---------------- */

SLINKY_HIDDEN bool slinky_model__k_has(const slinky_model_object *o, slinky_model_kind k,
                                       const char *path);
SLINKY_HIDDEN int slinky_model__k_get_string(const char **out, const slinky_model_object *o,
                                             slinky_model_kind k, const char *path);
SLINKY_HIDDEN int slinky_model__k_get_int(int64_t *out, const slinky_model_object *o,
                                          slinky_model_kind k, const char *path);
SLINKY_HIDDEN int slinky_model__k_get_bool(bool *out, const slinky_model_object *o,
                                           slinky_model_kind k, const char *path);
SLINKY_HIDDEN int slinky_model__k_get_value(const slinky_doc_value **out,
                                            const slinky_model_object *o, slinky_model_kind k,
                                            const char *path);
SLINKY_HIDDEN int slinky_model__k_set_string(slinky_model_object *o, slinky_model_kind k,
                                             const char *path, const char *value);
SLINKY_HIDDEN int slinky_model__k_set_int(slinky_model_object *o, slinky_model_kind k,
                                          const char *path, int64_t value);
SLINKY_HIDDEN int slinky_model__k_set_bool(slinky_model_object *o, slinky_model_kind k,
                                           const char *path, bool value);
SLINKY_HIDDEN int slinky_model__k_set_value(slinky_model_object *o, slinky_model_kind k,
                                            const char *path, const slinky_doc_value *value);
SLINKY_HIDDEN size_t slinky_model__k_count(const slinky_model_object *o, slinky_model_kind k,
                                           const char *path);
SLINKY_HIDDEN int slinky_model__k_get_item_string(const char **out, const slinky_model_object *o,
                                                  slinky_model_kind k, const char *path,
                                                  size_t i, const char *leaf);
SLINKY_HIDDEN int slinky_model__k_get_item_int(int64_t *out, const slinky_model_object *o,
                                               slinky_model_kind k, const char *path, size_t i,
                                               const char *leaf);
SLINKY_HIDDEN int slinky_model__k_get_item_bool(bool *out, const slinky_model_object *o,
                                                slinky_model_kind k, const char *path, size_t i,
                                                const char *leaf);
SLINKY_HIDDEN int slinky_model__k_get_entry(const char **out, const slinky_model_object *o,
                                            slinky_model_kind k, const char *path,
                                            const char *key);
SLINKY_HIDDEN int slinky_model__k_set_entry(slinky_model_object *o, slinky_model_kind k,
                                            const char *path, const char *key,
                                            const char *value);

/* ---- defaults, validation, hashing ------------------------------------- */

/* CRD defaults over a value tree described by schema node n. */
SLINKY_HIDDEN int slinky_model__default_value(slinky_doc_value *v, const slinky_model__node *n,
                                              bool materialize);
SLINKY_HIDDEN int slinky_model__problems_add(slinky_model_problems *p, slinky_model_severity s,
                                             const char *path, const char *fmt, ...)
    SLINKY_PRINTF(4, 5);
/* Webhook and immutability rules (webhook.c). */
SLINKY_HIDDEN int slinky_model__webhook_validate(slinky_model_problems *p,
                                                 const slinky_model_object *o,
                                                 const slinky_doc_value *defaulted);
SLINKY_HIDDEN int slinky_model__webhook_validate_update(slinky_model_problems *p,
                                                        const slinky_model_object *old,
                                                        const slinky_model_object *new_);
/* SHA-256 (sha256.c): hex digest of data into out[65]. */
SLINKY_HIDDEN void slinky_model__sha256_hex(char out[65], const void *data, size_t len);

#endif
