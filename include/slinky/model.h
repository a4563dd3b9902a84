/*
 * libslinky model: typed Slinky resources (group slinky.slurm.net, version
 * v1beta1: Controller, NodeSet, LoginSet, RestApi, Accounting, Token) and the
 * core kinds the operator writes (ConfigMap, Secret, coordination Lease).
 *
 * One schema source (libslinky/model/schema/slinky.schema) produces the C
 * tables behind this API, the typed accessors in slinky/model_fields.h and
 * the CRD manifests (slinky_model_crd_dump, share/libslinky/crds/).
 *
 * A model object wraps a JSON/YAML document (slinky/doc.h): every field the
 * object holds, known or not, survives parse -> serialize unchanged. Typed
 * access is a thin layer over schema paths:
 *   - per-kind accessors (slinky/model_fields.h), e.g.
 *       slinky_model_nodeset_has_replicas(ns), slinky_model_nodeset_get_replicas(&n, ns),
 *       slinky_model_controller_get_cluster_name(&s, c),
 *       slinky_model_accounting_get_storage_config_port(&port, a),
 *       slinky_model_controller_get_config_file_refs_count(c) and
 *       slinky_model_controller_get_config_file_refs_name(&s, c, i);
 *   - generic accessors by path checked against the schema, e.g.
 *       slinky_model_get_string(&s, o, "spec.clusterName"),
 *       slinky_model_get_string(&s, o, "spec.metrics.serviceMonitor.endpoints[0].path").
 * Paths: dot-separated property names, `[i]` for array elements, and
 * `["key"]` (or `.key` when the key has no dots) for map entries:
 * `metadata.labels["app.kubernetes.io/name"]`.
 * Optional scalars have explicit presence: has_* is false when the field is
 * absent or null, and get_* then returns SLINKY_ENOTFOUND.
 *
 * Ownership: slinky_model_object is opaque, created by a _new/_parse/_copy
 * call and released with slinky_model_object_free(). Borrowed pointers
 * (strings, doc values) stay valid until the object is modified or freed.
 *
 * Threads: an object may be read by several threads at once; any
 * modification (set_*, defaulting, conditions) needs exclusive access. The
 * schema tables are constant.
 *
 * Errors: SLINKY_EINVALID for bad arguments, an unknown path, a value of the
 * wrong type or an object of another kind; SLINKY_ENOTFOUND for an unset
 * field; SLINKY_EPARSE for malformed JSON/YAML; SLINKY_ENOMEM.
 */
#ifndef SLINKY_MODEL_H
#define SLINKY_MODEL_H

#include "common.h"
#include "doc.h"

SLINKY_BEGIN_DECLS

/** The kinds the model knows. Values are stable. */
typedef enum slinky_model_kind {
    SLINKY_MODEL_KIND_UNKNOWN = 0,
    SLINKY_MODEL_KIND_CONTROLLER = 1,
    SLINKY_MODEL_KIND_NODESET = 2,
    SLINKY_MODEL_KIND_LOGINSET = 3,
    SLINKY_MODEL_KIND_RESTAPI = 4,
    SLINKY_MODEL_KIND_ACCOUNTING = 5,
    SLINKY_MODEL_KIND_TOKEN = 6,
    SLINKY_MODEL_KIND_CONFIGMAP = 7,
    SLINKY_MODEL_KIND_SECRET = 8,
    SLINKY_MODEL_KIND_LEASE = 9
} slinky_model_kind;

/** A resource of any kind. */
typedef struct slinky_model_object slinky_model_object;
/* Per-kind names for the same opaque type (documentation and typed accessors). */
typedef struct slinky_model_object slinky_model_controller;
typedef struct slinky_model_object slinky_model_nodeset;
typedef struct slinky_model_object slinky_model_loginset;
typedef struct slinky_model_object slinky_model_restapi;
typedef struct slinky_model_object slinky_model_accounting;
typedef struct slinky_model_object slinky_model_token;
typedef struct slinky_model_object slinky_model_configmap;
typedef struct slinky_model_object slinky_model_secret;
typedef struct slinky_model_object slinky_model_lease;

/** The API group of the Slinky kinds. */
#define SLINKY_MODEL_GROUP "slinky.slurm.net"
/** The apiVersion of the Slinky kinds. */
#define SLINKY_MODEL_API_VERSION "slinky.slurm.net/v1beta1"

/* ------------------------------------------------------------------ */
/* Kinds                                                              */
/* ------------------------------------------------------------------ */

/** Static name of a kind ("Controller", ...), or NULL for an unknown value. */
SLINKY_API const char *slinky_model_kind_name(slinky_model_kind kind);
/** Static apiVersion of a kind ("slinky.slurm.net/v1beta1", "v1", ...), or NULL. */
SLINKY_API const char *slinky_model_kind_api_version(slinky_model_kind kind);
/** Static plural resource name ("nodesets"), or NULL. */
SLINKY_API const char *slinky_model_kind_plural(slinky_model_kind kind);
/**
 * Look a kind up by Kind, plural, singular or short name (case-insensitive:
 * "NodeSet", "nodesets", "nss", "slurmd"). SLINKY_MODEL_KIND_UNKNOWN when
 * nothing matches.
 */
SLINKY_API slinky_model_kind slinky_model_kind_lookup(const char *name);

/* ------------------------------------------------------------------ */
/* Objects: create, parse, serialize                                  */
/* ------------------------------------------------------------------ */

/**
 * A new object of `kind` with apiVersion, kind, metadata.name and (when not
 * NULL) metadata.namespace set, and an empty spec for kinds that have one.
 */
SLINKY_API slinky_status slinky_model_object_new(slinky_model_object **out, slinky_model_kind kind,
                                                 const char *namespace_, const char *name);

/**
 * Wrap a deep copy of a document value. The value must be an object whose
 * apiVersion and kind name a known kind (EINVALID otherwise, naming what was
 * found). Field values are not checked here: see slinky_model_validate.
 */
SLINKY_API slinky_status slinky_model_object_new_from_value(slinky_model_object **out,
                                                            const slinky_doc_value *v);
/**
 * Like _new_from_value for a value known to be of `kind`, such as an item of
 * a list response (where the API server leaves out apiVersion and kind):
 * missing apiVersion/kind are filled in; present ones must match `kind`.
 */
SLINKY_API slinky_status slinky_model_object_new_from_value_kind(slinky_model_object **out,
                                                                 slinky_model_kind kind,
                                                                 const slinky_doc_value *v);
/**
 * Parse JSON (see slinky_doc_parse_json), then as _new_from_value. A key
 * written twice in one object is SLINKY_EPARSE naming both lines (as the API
 * server's strict field validation and kubectl), not "the last one wins".
 */
SLINKY_API slinky_status slinky_model_object_parse_json(slinky_model_object **out,
                                                        const char *data, size_t len);
/** Parse the first YAML document (see slinky_doc_parse_yaml: duplicate keys are an
 * error there), then as _new_from_value. */
SLINKY_API slinky_status slinky_model_object_parse_yaml(slinky_model_object **out,
                                                        const char *data, size_t len);
/** Parse JSON when the first non-blank byte is `{`, YAML otherwise. */
SLINKY_API slinky_status slinky_model_object_parse(slinky_model_object **out, const char *data,
                                                   size_t len);
/** Read and parse a file (JSON or YAML); errors name the file. */
SLINKY_API slinky_status slinky_model_object_load_file(slinky_model_object **out,
                                                       const char *path);

/** Free an object. NULL is ignored. */
SLINKY_API void slinky_model_object_free(slinky_model_object *o);

/** Deep copy. */
SLINKY_API slinky_status slinky_model_object_copy(slinky_model_object **out,
                                                  const slinky_model_object *o);

/** The object's kind. */
SLINKY_API slinky_model_kind slinky_model_object_get_kind(const slinky_model_object *o);

/**
 * The whole object as a document value (borrowed; valid until o is modified
 * or freed). Read-only: modify through the setters.
 */
SLINKY_API const slinky_doc_value *slinky_model_object_get_value(const slinky_model_object *o);

/** A new document holding a deep copy of the object. */
SLINKY_API slinky_status slinky_model_object_to_doc(slinky_doc **out,
                                                    const slinky_model_object *o);

/**
 * Serialize as JSON (flags: SLINKY_DOC_DUMP_*). Unknown fields are kept.
 * *json_out released with slinky_free().
 */
SLINKY_API slinky_status slinky_model_object_dump_json(char **json_out, size_t *len_out,
                                                       const slinky_model_object *o,
                                                       unsigned flags);
/** Serialize as YAML (like kubectl -o yaml). *yaml_out released with slinky_free(). */
SLINKY_API slinky_status slinky_model_object_dump_yaml(char **yaml_out, size_t *len_out,
                                                       const slinky_model_object *o);

/** Deep equality of the whole objects (member order ignored). */
SLINKY_API bool slinky_model_object_equal(const slinky_model_object *a,
                                          const slinky_model_object *b);
/**
 * Semantic equality of the specs (the whole object minus metadata and status
 * for kinds without a spec): both sides with all defaults applied
 * (SLINKY_MODEL_DEFAULT_ALL, so an unset clusterName equals
 * "<namespace>_<name>"), nulls treated as absent, member order ignored.
 * Objects of different kinds are never equal.
 */
SLINKY_API bool slinky_model_object_spec_equal(const slinky_model_object *a,
                                               const slinky_model_object *b);
/**
 * A stable hash of the spec: lowercase hex SHA-256 (64 characters) of the
 * canonical JSON (sorted keys, compact, all defaults applied as for
 * spec_equal, nulls dropped). Equal for specs that are spec_equal. *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_model_object_spec_hash(char **out, const slinky_model_object *o);

/* ------------------------------------------------------------------ */
/* ObjectMeta                                                         */
/* ------------------------------------------------------------------ */

/** metadata.name, or NULL when unset. Borrowed. */
SLINKY_API const char *slinky_model_object_get_name(const slinky_model_object *o);
/** metadata.namespace, or NULL when unset. Borrowed. */
SLINKY_API const char *slinky_model_object_get_namespace(const slinky_model_object *o);
/** metadata.uid, or NULL when unset. Borrowed. */
SLINKY_API const char *slinky_model_object_get_uid(const slinky_model_object *o);
/** metadata.resourceVersion, or NULL when unset. Borrowed. */
SLINKY_API const char *slinky_model_object_get_resource_version(const slinky_model_object *o);
/** metadata.generation; ENOTFOUND when unset. */
SLINKY_API slinky_status slinky_model_object_get_generation(int64_t *out,
                                                            const slinky_model_object *o);
/** A label value; ENOTFOUND when absent. Borrowed. */
SLINKY_API slinky_status slinky_model_object_get_label(const char **out,
                                                       const slinky_model_object *o,
                                                       const char *key);
/** An annotation value; ENOTFOUND when absent. Borrowed. */
SLINKY_API slinky_status slinky_model_object_get_annotation(const char **out,
                                                            const slinky_model_object *o,
                                                            const char *key);
/** Set metadata.name (copied; NULL removes it). */
SLINKY_API slinky_status slinky_model_object_set_name(slinky_model_object *o, const char *name);
/** Set metadata.namespace (copied; NULL removes it). */
SLINKY_API slinky_status slinky_model_object_set_namespace(slinky_model_object *o,
                                                           const char *namespace_);
/** Set a label (value NULL removes it). */
SLINKY_API slinky_status slinky_model_object_set_label(slinky_model_object *o, const char *key,
                                                       const char *value);
/** Set an annotation (value NULL removes it). */
SLINKY_API slinky_status slinky_model_object_set_annotation(slinky_model_object *o,
                                                            const char *key, const char *value);

/**
 * A new document holding an OwnerReference to `owner` ({apiVersion, kind,
 * name, uid, controller, blockOwnerDeletion}). The owner needs a name and a
 * uid (EINVALID otherwise).
 */
SLINKY_API slinky_status slinky_model_owner_reference_new(slinky_doc **out,
                                                          const slinky_model_object *owner,
                                                          bool controller);
/**
 * Add (or replace, matched by uid) an owner reference to `owner` in
 * o.metadata.ownerReferences. A second controller reference to another
 * owner is SLINKY_ECONFLICT.
 */
SLINKY_API slinky_status slinky_model_object_set_owner(slinky_model_object *o,
                                                       const slinky_model_object *owner,
                                                       bool controller);
/** True when o has an owner reference with owner's uid. */
SLINKY_API bool slinky_model_object_is_owned_by(const slinky_model_object *o,
                                                const slinky_model_object *owner);

/* ------------------------------------------------------------------ */
/* Generic typed access by schema path                                */
/* ------------------------------------------------------------------ */

/**
 * True when the path is part of the kind's schema (inside pass-through
 * subtrees such as spec.template.spec every path is). Does not look at values.
 */
SLINKY_API bool slinky_model_path_is_known(slinky_model_kind kind, const char *path);

/** True when the value at path is present and not null. */
SLINKY_API bool slinky_model_has(const slinky_model_object *o, const char *path);
/** String at path (schema type string or int-or-string). Borrowed. */
SLINKY_API slinky_status slinky_model_get_string(const char **out, const slinky_model_object *o,
                                                 const char *path);
/** Integer at path (schema type integer or int-or-string). */
SLINKY_API slinky_status slinky_model_get_int(int64_t *out, const slinky_model_object *o,
                                              const char *path);
/** Boolean at path. */
SLINKY_API slinky_status slinky_model_get_bool(bool *out, const slinky_model_object *o,
                                               const char *path);
/** Any value at path (borrowed; valid until o changes). */
SLINKY_API slinky_status slinky_model_get_value(const slinky_doc_value **out,
                                                const slinky_model_object *o, const char *path);
/** Element count of the array at path (0 when unset or not an array). */
SLINKY_API size_t slinky_model_get_count(const slinky_model_object *o, const char *path);

/* Setters check the path and the value's type against the schema and create
 * missing parent objects (array elements must exist: SLINKY_ENOTFOUND).
 * Strings are copied. Borrowed pointers into o become invalid. */
SLINKY_API slinky_status slinky_model_set_string(slinky_model_object *o, const char *path,
                                                 const char *value);
SLINKY_API slinky_status slinky_model_set_int(slinky_model_object *o, const char *path,
                                              int64_t value);
SLINKY_API slinky_status slinky_model_set_bool(slinky_model_object *o, const char *path,
                                               bool value);
/** Set path to a deep copy of value (any shape; validate afterwards). */
SLINKY_API slinky_status slinky_model_set_value(slinky_model_object *o, const char *path,
                                                const slinky_doc_value *value);
/** Remove the value at path; ENOTFOUND when it is not there. */
SLINKY_API slinky_status slinky_model_unset(slinky_model_object *o, const char *path);

/* ------------------------------------------------------------------ */
/* Defaults                                                           */
/* ------------------------------------------------------------------ */

/** What slinky_model_object_apply_defaults applies. */
enum slinky_model_default_flags {
    /** The CRD schema defaults, as the API server applies them (only inside objects present). */
    SLINKY_MODEL_DEFAULT_CRD = 1,
    /**
     * The operator's defaulting on top (it creates missing parents):
     * NodeSet updateStrategy.type RollingUpdate and then
     * rollingUpdate.maxUnavailable "25%" (for RollingUpdate only),
     * persistentVolumeClaimRetentionPolicy Retain/Retain; Controller
     * persistence.enabled true and spec.clusterName = <namespace>_<name>
     * when empty (ha.backups 1 is a CRD default once ha is present).
     */
    SLINKY_MODEL_DEFAULT_OPERATOR = 2,
    SLINKY_MODEL_DEFAULT_ALL = 3
};

/** Apply defaults in place (existing values are never changed). */
SLINKY_API slinky_status slinky_model_object_apply_defaults(slinky_model_object *o,
                                                            unsigned flags);

/**
 * The Slurm ClusterName of a Controller: spec.clusterName, or
 * "<namespace>_<name>" when that is empty. *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_model_controller_cluster_name(char **out,
                                                              const slinky_model_controller *c);

/* ------------------------------------------------------------------ */
/* Validation                                                         */
/* ------------------------------------------------------------------ */

/** Severity of a problem. Only errors make an object invalid. */
typedef enum slinky_model_severity {
    SLINKY_MODEL_ERROR = 0,
    SLINKY_MODEL_WARNING = 1
} slinky_model_severity;

/** A list of problems found by validation (opaque). */
typedef struct slinky_model_problems slinky_model_problems;

/** An empty list (to collect problems from several calls). */
SLINKY_API slinky_status slinky_model_problems_new(slinky_model_problems **out);
SLINKY_API void slinky_model_problems_free(slinky_model_problems *p);
/** Number of problems (errors and warnings). */
SLINKY_API size_t slinky_model_problems_count(const slinky_model_problems *p);
/** Number of errors. */
SLINKY_API size_t slinky_model_problems_error_count(const slinky_model_problems *p);
/** Field path of problem i ("spec.replicas", "spec" for whole-object rules); NULL when out of range. */
SLINKY_API const char *slinky_model_problems_get_path(const slinky_model_problems *p, size_t i);
/** Message of problem i; NULL when out of range. */
SLINKY_API const char *slinky_model_problems_get_message(const slinky_model_problems *p,
                                                         size_t i);
SLINKY_API slinky_model_severity slinky_model_problems_get_severity(
    const slinky_model_problems *p, size_t i);
/** True when some problem has exactly this path (and, when not NULL, a message containing `text`). */
SLINKY_API bool slinky_model_problems_has(const slinky_model_problems *p, const char *path,
                                          const char *text);
/** All problems, one per line: "error: spec.replicas: must be ...". *out released with slinky_free(). */
SLINKY_API slinky_status slinky_model_problems_dump(char **out, const slinky_model_problems *p);

/**
 * Validate an object as the API server and the upstream admission webhook
 * would on create, collecting every problem: schema types, enums, required,
 * minimum/maximum, length limits, patterns and formats (evaluated on a copy
 * with the CRD defaults applied, as the API server does); the CRDs'
 * x-kubernetes-validations rules; the webhook rules (clusterName at most 40
 * characters, NodeSet controllerRef.name non-empty, maxUnavailable not 0,
 * extraConf as space-separated Key=Value pairs, ssh needs sssdConfRef.name,
 * externalIPs warned); unknown fields are warnings.
 * Returns 0 whenever validation ran (the object may still be invalid: see
 * slinky_model_problems_error_count); *out always receives a list.
 */
SLINKY_API slinky_status slinky_model_validate(slinky_model_problems **out,
                                               const slinky_model_object *o);

/**
 * Validate an update: everything slinky_model_validate checks on `new_`,
 * plus kind/name/namespace unchanged and the immutable fields (Controller:
 * clusterName, slurmKeyRef, jwtKeyRef/jwtHs256KeyRef, persistence.enabled,
 * persistence.existingClaim; NodeSet: controllerRef, scalingMode,
 * volumeClaimTemplates; Token: jwtKeyRef, jwtHs256KeyRef).
 */
SLINKY_API slinky_status slinky_model_validate_update(slinky_model_problems **out,
                                                      const slinky_model_object *old,
                                                      const slinky_model_object *new_);

/**
 * The webhook's check of one ConfigMap referenced by a Controller's
 * configFileRefs: appends an error for each file the operator reserves
 * (slurm.conf, slurmdbd.conf) and a warning for each file name Slurm does
 * not know. The path names the ref ("spec.configFileRefs[1]"); a ConfigMap
 * that the Controller does not reference is SLINKY_ENOTFOUND.
 */
SLINKY_API slinky_status slinky_model_validate_config_map(slinky_model_problems *into,
                                                          const slinky_model_controller *c,
                                                          const slinky_model_configmap *cm);

/* ------------------------------------------------------------------ */
/* Status conditions (status.conditions, a list keyed by type)        */
/* ------------------------------------------------------------------ */

/**
 * Set condition `type` (status "True", "False" or "Unknown"; reason
 * non-empty CamelCase). lastTransitionTime becomes `now` (RFC 3339; NULL for
 * the current UTC time) only when the condition is new or its status
 * changes. observed_generation < 0 leaves it out.
 */
SLINKY_API slinky_status slinky_model_condition_set(slinky_model_object *o, const char *type,
                                                    const char *status, const char *reason,
                                                    const char *message,
                                                    int64_t observed_generation,
                                                    const char *now);
/** The condition of `type` (borrowed object value); ENOTFOUND when absent. */
SLINKY_API slinky_status slinky_model_condition_get(const slinky_doc_value **out,
                                                    const slinky_model_object *o,
                                                    const char *type);
/** Its status string; ENOTFOUND when absent. */
SLINKY_API slinky_status slinky_model_condition_get_status(const char **out,
                                                           const slinky_model_object *o,
                                                           const char *type);
/** True when condition `type` has status "True". */
SLINKY_API bool slinky_model_condition_is_true(const slinky_model_object *o, const char *type);
/** Remove condition `type`; ENOTFOUND when absent. */
SLINKY_API slinky_status slinky_model_condition_remove(slinky_model_object *o, const char *type);

/* ------------------------------------------------------------------ */
/* CRD manifests (generated from the same schema)                     */
/* ------------------------------------------------------------------ */

/**
 * The CustomResourceDefinition(s) as YAML: one kind (looked up like
 * slinky_model_kind_lookup; ENOTFOUND when no Slinky kind matches) or, with
 * kind NULL, all six as a stream separated by `---`.
 * *yaml_out released with slinky_free().
 */
SLINKY_API slinky_status slinky_model_crd_dump(char **yaml_out, const char *kind);

/**
 * File name under share/libslinky/crds/ of a kind's CRD
 * ("slinky.slurm.net_nodesets.yaml"), static, or NULL for core kinds.
 */
SLINKY_API const char *slinky_model_crd_file_name(slinky_model_kind kind);

SLINKY_END_DECLS

/* Generated typed accessors: slinky_model_<kind>_{has,get,set}_<field>. */
#include "model_fields.h"

#endif
