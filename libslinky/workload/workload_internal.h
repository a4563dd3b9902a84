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

/* --- reading resources -------------------------------------------------- */

/** A resource's spec (NULL when it has none). */
static inline const slinky_doc_value *wl_spec(const slinky_model_object *o)
{
    return slinky_doc_value_get(slinky_model_object_get_value(o), "spec");
}

/** A resource's metadata[field] ("labels", "annotations"). */
static inline const slinky_doc_value *wl_meta(const slinky_model_object *o, const char *field)
{
    return slinky_doc_value_get(
        slinky_doc_value_get(slinky_model_object_get_value(o), "metadata"), field);
}

/**
 * The argument check every builder starts with: `out` and `o` non-NULL, a
 * good input, `o` of `kind` (EINVALID naming what it is otherwise).
 */
SLINKY_HIDDEN int slinky_workload__builder_args(const void *out, const slinky_model_object *o,
                                                const slinky_workload_input *in,
                                                slinky_model_kind kind);

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

/** Lowercase hex SHA-256 of bytes into out[65] (GnuTLS). */
SLINKY_HIDDEN void slinky_workload__sha256_hex(char out[65], const void *data, size_t len);
/**
 * Upstream's crypto.CheckSumFromMap: SHA-256 of the values concatenated in
 * key order, "" when they are all empty. `data` is a ConfigMap data or a
 * Secret data map (base64 values, decoded first when `base64`); NULL is "".
 */
SLINKY_HIDDEN int slinky_workload__checksum_map(char out[65], const slinky_doc_value *data,
                                                bool base64);
/**
 * FNV-1a 64 (over 8-byte words) of a value walked in canonical order
 * (object keys sorted; type, lengths and bytes of every value) as 16 hex
 * digits into out[17]: the
 * revision hash of a pod template (upstream hashes its revisions with FNV
 * too; no JSON is made, so it is cheap on 1,000 templates).
 */
SLINKY_HIDDEN int slinky_workload__value_fnv(char out[17], const slinky_doc_value *v);

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

/**
 * BuildPodTemplate's merge of the user's PodSpec into the built `spec`:
 * the user's containers and initContainers are appended (MergeList), the
 * rest merged strategically.
 */
SLINKY_HIDDEN int slinky_workload__merge_pod_spec(slinky_doc_value *spec,
                                                  const slinky_doc_value *user);
/**
 * BuildContainer's merge of the user's Container into the built one: args
 * appended, probe handlers replaced where both have the probe, the rest
 * merged strategically.
 */
SLINKY_HIDDEN int slinky_workload__merge_container(slinky_doc_value *c,
                                                   const slinky_doc_value *user);

/** A service port as upstream's builders write it. */
typedef struct slinky_workload__port {
    const char *name;
    int64_t port;
    int64_t node_port; /* 0: left out */
} slinky_workload__port;

/**
 * BuildService: root.spec = copy of the user's ServiceSpec (may be NULL)
 * with `port` appended to its ports (TCP, targetPort = the port's name),
 * externalIPs removed (CVE-2020-8554), selector merged with `selector`, and
 * clusterIP None + publishNotReadyAddresses for a headless one. Duplicate
 * port names or numbers: EINVALID naming `from` and `field`.
 */
SLINKY_HIDDEN int slinky_workload__service_spec(slinky_doc_value *root,
                                                const slinky_doc_value *user_spec,
                                                const slinky_doc_value *selector,
                                                const slinky_workload__port *port, bool headless,
                                                const slinky_model_object *from,
                                                const char *field);

/** Fills a built object's metadata for `o`, with `extra` metadata ({labels, annotations}). */
typedef int (*slinky_workload__meta_fn)(slinky_doc_value *meta, const slinky_model_object *o,
                                        const slinky_doc_value *extra);
/**
 * The Service `name` of a resource from its spec.service (metadata, spec,
 * port (0: def_port), nodePort): metadata by meta_fn with spec.service.metadata,
 * selector {app, instance: the resource's name} plus sel_key=sel_value when
 * not NULL, one port named `app`, and a controller ownerReference.
 */
SLINKY_HIDDEN int slinky_workload__owner_service(slinky_workload *w,
                                                 const slinky_model_object *owner,
                                                 const char *name, const char *app,
                                                 int64_t def_port, slinky_workload__meta_fn meta_fn,
                                                 const char *sel_key, const char *sel_value);

/**
 * A Kubernetes resource quantity's Value() (rounded up to an integer, as
 * resource.Quantity.Value): "2" -> 2, "500m" -> 1, "4Gi" -> 4294967296.
 * A string or number; 0 for NULL. EINVALID for a malformed quantity.
 */
SLINKY_HIDDEN int slinky_workload__quantity(int64_t *out, const slinky_doc_value *q);

/** `name.namespace.svc.<domain>` (upstream's domainname.Fqdn); malloc'd. */
SLINKY_HIDDEN char *slinky_workload__fqdn(const slinky_workload_input *in, const char *name,
                                          const char *namespace_);

/** A volume {name, emptyDir: {medium: Memory}} (or plain emptyDir: {} when !memory). */
SLINKY_HIDDEN int slinky_workload__empty_dir(slinky_doc_value *volumes, const char *name,
                                             bool memory);
/** A volumeMount {name, mountPath[, readOnly: true]}. */
SLINKY_HIDDEN int slinky_workload__mount(slinky_doc_value *mounts, const char *name,
                                         const char *path, bool read_only);
/** A volume {name, projected: {defaultMode: mode, sources: []}}; *sources receives the list. */
SLINKY_HIDDEN int slinky_workload__projected(slinky_doc_value **sources, slinky_doc_value *volumes,
                                             const char *name, int64_t mode);
/** Projection {secret|configMap: {name[, items: [{key, path}]]}} appended to sources. */
SLINKY_HIDDEN int slinky_workload__projection(slinky_doc_value *sources, bool secret,
                                              const char *name, const char *key,
                                              const char *path);
/** An HTTP (path != NULL, port by name) or TCP (port number) probe at c[field]. */
SLINKY_HIDDEN int slinky_workload__probe(slinky_doc_value *c, const char *field,
                                         const char *path, const char *port_name,
                                         int64_t port_number, int64_t failure_threshold,
                                         int64_t period);
/** The logfile init container (CommonBuilder.LogfileContainer) merged with `user`. */
SLINKY_HIDDEN int slinky_workload__logfile_container(slinky_doc_value *init_containers,
                                                     const slinky_doc_value *user,
                                                     const char *log_path);
/** {runAsNonRoot: true, runAsUser: uid, runAsGroup: uid[, fsGroup: uid]} at obj[field]. */
SLINKY_HIDDEN int slinky_workload__run_as(slinky_doc_value *obj, const char *field, int64_t uid,
                                          bool fs_group);
/** The auth key hashes annotations (slurm-key-hash, jwt-key-hash) of a Controller/Accounting. */
SLINKY_HIDDEN int slinky_workload__auth_hashes(slinky_doc_value *meta,
                                               const slinky_workload_input *in,
                                               const slinky_model_object *o);
/** The JWT key reference (jwtKeyRef, else jwtHs256KeyRef): name and key, "" when unset. */
SLINKY_HIDDEN void slinky_workload__jwt_ref(const char **name, const char **key,
                                            const slinky_model_object *o);

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
/** The end of a builder of one object: rc != 0 frees doc (may be NULL) and returns rc, else push. */
SLINKY_HIDDEN int slinky_workload__push_done(slinky_workload *w, slinky_doc *doc, int rc);
/**
 * The end of a builder that collected into `tmp`: on rc == 0 move tmp's
 * objects to `into` (all or nothing); always empties and releases tmp.
 */
SLINKY_HIDDEN int slinky_workload__commit(slinky_workload *into, slinky_workload *tmp, int rc);

/** `*out = doc` and 0, or free doc and return rc (the end of a single-object builder). */
SLINKY_HIDDEN int slinky_workload__hand_out(slinky_doc **out, slinky_doc *doc, int rc);

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
