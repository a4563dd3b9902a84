/*
 * workload: helpers shared by the builders (never installed).
 * Facts (names, labels, constants) follow upstream slurm-operator's
 * internal/builder/{common,labels,metadata} at commit f2ed3fc5.
 */
#ifndef SLINKY_WORKLOAD_INTERNAL_H
#define SLINKY_WORKLOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "slinky/doc.h"
#include "slinky/model.h"
#include "slinky/workload.h"

/* --- labels (builder/labels) --------------------------------------- */
#define SLINKY_WL_LABEL_APP "app.kubernetes.io/name"
#define SLINKY_WL_LABEL_INSTANCE "app.kubernetes.io/instance"
#define SLINKY_WL_LABEL_COMPONENT "app.kubernetes.io/component"
#define SLINKY_WL_LABEL_PART_OF "app.kubernetes.io/part-of"
#define SLINKY_WL_LABEL_MANAGED_BY "app.kubernetes.io/managed-by"
#define SLINKY_WL_LABEL_CLUSTER "slinky.slurm.net/cluster"
#define SLINKY_WL_LABEL_POD_PROTECT "nodeset.slinky.slurm.net/pod-protect"

#define SLINKY_WL_APP_CONTROLLER "slurmctld"
#define SLINKY_WL_COMP_CONTROLLER "controller"
#define SLINKY_WL_APP_RESTAPI "slurmrestd"
#define SLINKY_WL_COMP_RESTAPI "restapi"
#define SLINKY_WL_APP_ACCOUNTING "slurmdbd"
#define SLINKY_WL_COMP_ACCOUNTING "accounting"
#define SLINKY_WL_APP_WORKER "slurmd"
#define SLINKY_WL_COMP_WORKER "worker"
#define SLINKY_WL_APP_LOGIN "login"
#define SLINKY_WL_COMP_LOGIN "login"

/* --- constants (builder/common/const.go) ---------------------------- */
#define SLINKY_WL_SLURM_USER "slurm"
#define SLINKY_WL_SLURM_UID 401
#define SLINKY_WL_CONFIG_VOLUME "slurm-config"
#define SLINKY_WL_CONFIG_DIR "/mnt/slurm"
#define SLINKY_WL_ETC_VOLUME "slurm-etc"
#define SLINKY_WL_ETC_MOUNT_DIR "/mnt/etc/slurm"
#define SLINKY_WL_ETC_DIR "/etc/slurm"
#define SLINKY_WL_PID_VOLUME "run"
#define SLINKY_WL_PID_DIR "/run"
#define SLINKY_WL_LOG_VOLUME "slurm-logfile"
#define SLINKY_WL_LOG_DIR "/var/log/slurm"
#define SLINKY_WL_SLURM_KEY_FILE "slurm.key"
#define SLINKY_WL_JWT_KEY_FILE "jwt.key"
#define SLINKY_WL_JWKS_KEY_FILE "jwks.json"
#define SLINKY_WL_LIVEZ "/livez"
#define SLINKY_WL_READYZ "/readyz"
#define SLINKY_WL_SLURMD_PORT 6818
#define SLINKY_WL_SLURMCTLD_PORT 6817
#define SLINKY_WL_SLURMDBD_PORT 6819
#define SLINKY_WL_SLURMRESTD_PORT 6820
#define SLINKY_WL_ANN_SLURM_KEY_HASH "slinky.slurm.net/slurm-key-hash"
#define SLINKY_WL_ANN_JWT_KEY_HASH "slinky.slurm.net/jwt-key-hash"
#define SLINKY_WL_ANN_DEFAULT_CONTAINER "kubectl.kubernetes.io/default-container"

/* --- the object set --------------------------------------------------- */

struct slinky_workload {
    slinky_doc **docs;
    size_t count, cap;
};

/* --- object skeleton (builder/metadata) ------------------------------ */

/**
 * A new document {apiVersion, kind, metadata: {name, namespace}}; *root_out
 * and *meta_out (may be NULL) receive the root and metadata objects.
 * namespace_ NULL or "" is left out.
 */
SLINKY_HIDDEN int slinky_workload__object_new(slinky_doc **out, slinky_doc_value **root_out,
                                              slinky_doc_value **meta_out,
                                              const char *api_version, const char *kind,
                                              const char *namespace_, const char *name);

/**
 * maps.Copy(meta[field], src) for a string map (field "labels" or
 * "annotations"): the member is created when needed; non-string values in
 * src are skipped; src NULL or not an object does nothing.
 */
SLINKY_HIDDEN int slinky_workload__map_copy(slinky_doc_value *meta, const char *field,
                                            const slinky_doc_value *src);
/** meta[field][key] = value (creates the map). */
SLINKY_HIDDEN int slinky_workload__map_put(slinky_doc_value *meta, const char *field,
                                           const char *key, const char *value);
/**
 * Upstream's With<Kind>Labels / With<Kind>SelectorLabels into an object
 * `map`: name=app, instance=instance, and component when not NULL.
 */
SLINKY_HIDDEN int slinky_workload__labels(slinky_doc_value *map, const char *app,
                                          const char *instance, const char *component);
/** Remove empty "labels"/"annotations" maps from meta (Go's omitempty). */
SLINKY_HIDDEN void slinky_workload__meta_prune(slinky_doc_value *meta);

/**
 * metadata.ownerReferences = [controller reference to owner] (apiVersion,
 * kind, name, uid, controller: true, blockOwnerDeletion: true). EINVALID
 * naming the owner when it has no uid or name.
 */
SLINKY_HIDDEN int slinky_workload__set_controller_ref(slinky_doc_value *meta,
                                                      const slinky_model_object *owner);

/** "Kind namespace/name" of a resource, static per thread (for messages). */
SLINKY_HIDDEN const char *slinky_workload__describe(const slinky_model_object *o);

/* --- hashes ------------------------------------------------------------ */

/** Lowercase hex SHA-256 of bytes into out[65]. */
SLINKY_HIDDEN void slinky_workload__sha256_hex(char out[65], const void *data, size_t len);
/**
 * Upstream's crypto.CheckSumFromMap: SHA-256 of the values concatenated in
 * key order, "" when they are all empty. `data` is a ConfigMap data or a
 * Secret data map (base64 values, decoded first when `base64`); NULL is "".
 */
SLINKY_HIDDEN int slinky_workload__checksum_map(char out[65], const slinky_doc_value *data,
                                                bool base64);
/** SHA-256 hex of a value's canonical JSON (sorted keys, compact). */
SLINKY_HIDDEN int slinky_workload__value_hash(char out[65], const slinky_doc_value *v);

/* --- merges (structutils.StrategicMergePatch) -------------------------- */

/** What a value being merged is, so keyed lists merge like Kubernetes' strategic merge. */
typedef enum slinky_workload__smp_type {
    SLINKY_WL_SMP_POD_SPEC = 0,
    SLINKY_WL_SMP_CONTAINER = 1,
    SLINKY_WL_SMP_SERVICE_SPEC = 2,
    SLINKY_WL_SMP_OBJECT = 3 /* plain recursive merge, lists replaced */
} slinky_workload__smp_type;

/**
 * Merge `patch` into `base` in place like upstream's StrategicMergePatch:
 * empty values in the patch (null, false, 0, "", [], {}) are dropped first;
 * objects merge recursively; lists with a Kubernetes merge key (containers
 * and volumes by name, env by name, ports by containerPort/port,
 * volumeMounts by mountPath, ...) merge by key; other lists replace.
 */
SLINKY_HIDDEN int slinky_workload__smp(slinky_doc_value *base, const slinky_doc_value *patch,
                                       slinky_workload__smp_type type);

/** Append copies of the elements of array `src` (may be NULL) to array `dst` (MergeList). */
SLINKY_HIDDEN int slinky_workload__append_all(slinky_doc_value *dst, const slinky_doc_value *src);

/* --- input -------------------------------------------------------------- */

/** Check `in` (non-NULL, known version). */
SLINKY_HIDDEN int slinky_workload__input_check(const slinky_workload_input *in);
/**
 * Find a referenced ConfigMap/Secret/resource of `kind` named `name` in the
 * namespace of `from`. ENOTFOUND with "<from>: <field>: <Kind> \"name\" not
 * in the input" when absent.
 */
SLINKY_HIDDEN int slinky_workload__ref(const slinky_model_object **out,
                                       const slinky_workload_input *in,
                                       const slinky_model_object *from, const char *field,
                                       slinky_model_kind kind, const char *name);
/**
 * The decoded bytes of Secret `name` key `key` (data, base64; or stringData)
 * in the namespace of `from`; *out (NUL terminated) freed with free().
 * ENOTFOUND naming `field` when the Secret or key is missing.
 */
SLINKY_HIDDEN int slinky_workload__secret_value(char **out, size_t *len_out,
                                                const slinky_workload_input *in,
                                                const slinky_model_object *from,
                                                const char *field, const char *name,
                                                const char *key);

/**
 * A value that goes onto a slurm.conf or slurmd --conf line: EINVALID
 * "<from>: <field>: ..." when it holds a newline, carriage return, NUL or '#'.
 */
SLINKY_HIDDEN int slinky_workload__check_line_value(const slinky_model_object *from,
                                                    const char *field, const char *value,
                                                    size_t len);

/* --- building into a set ------------------------------------------------- */

/** Append doc to w (w owns it, also on failure). */
SLINKY_HIDDEN int slinky_workload__push(slinky_workload *w, slinky_doc *doc);

/* --- small doc helpers ---------------------------------------------------- */

/** Get or create obj[key] as an object (an existing non-object is replaced). */
SLINKY_HIDDEN int slinky_workload__obj(slinky_doc_value **out, slinky_doc_value *obj,
                                       const char *key);
/** Get or create obj[key] as an array (an existing non-array is replaced). */
SLINKY_HIDDEN int slinky_workload__arr(slinky_doc_value **out, slinky_doc_value *obj,
                                       const char *key);
/** Append a new empty object to array arr. */
SLINKY_HIDDEN int slinky_workload__push_obj(slinky_doc_value **out, slinky_doc_value *arr);
/** Append a string to array arr. */
SLINKY_HIDDEN int slinky_workload__push_str(slinky_doc_value *arr, const char *s);

#endif
