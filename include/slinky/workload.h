/*
 * libslinky workload: Slinky resources -> the Kubernetes objects and config
 * files that run the cluster, as upstream slurm-operator's builders make them
 * (internal/builder at commit f2ed3fc5), from typed model objects.
 *
 * Input: a slinky_workload_input names every resource the build may look at
 * (Controllers, NodeSets, LoginSets, RestApis, Accountings, Tokens and the
 * ConfigMaps and Secrets they reference), as borrowed model objects. A
 * builder takes one resource and appends the objects it makes to a
 * slinky_workload set; references (controllerRef, accountingRef,
 * configFileRefs, passwordKeyRef, ...) are resolved in the input, by
 * namespace and name. Each built object is a doc ready for server-side
 * apply: apiVersion, kind, metadata (name, namespace, labels, annotations
 * and, where upstream sets one, a controller ownerReference to the resource,
 * which therefore needs metadata.uid), then the kind's fields.
 *
 * Pure: no I/O, no network and no clock (a time the caller passes in
 * slinky_workload_input.now is the only clock; only Tokens use it).
 *
 * Ownership: a slinky_workload owns its objects (one slinky_doc each);
 * accessors hand out borrowed pointers valid until the set is freed or
 * cleared. The input's objects stay owned by the caller and are only read.
 *
 * Threads: a set is used by one thread at a time; builders only read the
 * input, so several threads may build from the same input into distinct sets.
 *
 * Errors: negative slinky_status with slinky_error_last() set once. EINVALID
 * for bad input, with the field path in the message ("NodeSet ns/a:
 * spec.controllerRef.name: no Controller \"x\" in the input"); ENOTFOUND for a
 * referenced Secret/ConfigMap or key that is not in the input; ENOMEM. A
 * builder that fails appends nothing (the set is as before the call).
 */
#ifndef SLINKY_WORKLOAD_H
#define SLINKY_WORKLOAD_H

#include "common.h"
#include "doc.h"
#include "model.h"

SLINKY_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* The set of built objects                                           */
/* ------------------------------------------------------------------ */

/** An ordered set of built objects (opaque). Order: as the builders appended them. */
typedef struct slinky_workload slinky_workload;

/** An empty set. */
SLINKY_API slinky_status slinky_workload_new(slinky_workload **out);
/** Free a set and every object in it. NULL is ignored. */
SLINKY_API void slinky_workload_free(slinky_workload *w);
/** Drop every object (the set stays usable). */
SLINKY_API void slinky_workload_clear(slinky_workload *w);
/** Number of objects. */
SLINKY_API size_t slinky_workload_count(const slinky_workload *w);
/** Object i (borrowed document), or NULL when out of range. */
SLINKY_API slinky_doc *slinky_workload_at(const slinky_workload *w, size_t i);
/** kind of object i ("StatefulSet"), or NULL. Borrowed. */
SLINKY_API const char *slinky_workload_kind_at(const slinky_workload *w, size_t i);
/** apiVersion of object i ("apps/v1"), or NULL. Borrowed. */
SLINKY_API const char *slinky_workload_api_version_at(const slinky_workload *w, size_t i);
/** metadata.name of object i, or NULL. Borrowed. */
SLINKY_API const char *slinky_workload_name_at(const slinky_workload *w, size_t i);
/** metadata.namespace of object i, or NULL. Borrowed. */
SLINKY_API const char *slinky_workload_namespace_at(const slinky_workload *w, size_t i);
/**
 * The first object of `kind` named `name` (kind NULL: any kind). *out is
 * borrowed; ENOTFOUND when there is none.
 */
SLINKY_API slinky_status slinky_workload_find(slinky_doc **out, const slinky_workload *w,
                                              const char *kind, const char *name);
/**
 * Append a document (the set takes ownership, also on failure). It must be
 * an object with apiVersion, kind and metadata.name (EINVALID otherwise).
 */
SLINKY_API slinky_status slinky_workload_add(slinky_workload *w, slinky_doc *doc);
/** Move every object of `from` to the end of `w` (from becomes empty). */
SLINKY_API slinky_status slinky_workload_splice(slinky_workload *w, slinky_workload *from);

/**
 * Every object as a YAML stream ("---\n" before each object), ready for
 * `kubectl apply -f -`. *out released with slinky_free(); len_out may be NULL.
 */
SLINKY_API slinky_status slinky_workload_dump_yaml(char **out, size_t *len_out,
                                                   const slinky_workload *w);
/**
 * Every object as one JSON document: {"apiVersion":"v1","kind":"List",
 * "items":[...]} (flags: SLINKY_DOC_DUMP_*).
 */
SLINKY_API slinky_status slinky_workload_dump_json(char **out, size_t *len_out,
                                                   const slinky_workload *w, unsigned flags);

/* ------------------------------------------------------------------ */
/* Input                                                              */
/* ------------------------------------------------------------------ */

#define SLINKY_WORKLOAD_INPUT_VERSION 1

/**
 * What the builders may look at (all borrowed for the call). `objects` holds
 * resources of any kind in any order; a reference is looked up among them by
 * kind, namespace (the referring resource's) and name.
 */
typedef struct slinky_workload_input {
    unsigned int version;                      /**< SLINKY_WORKLOAD_INPUT_VERSION */
    const slinky_model_object *const *objects; /**< resources, ConfigMaps, Secrets */
    size_t object_count;
    int64_t now;           /**< Unix seconds, for Tokens (iat/exp); 0: not given */
    const char *operator_name; /**< app.kubernetes.io/managed-by on Token secrets (NULL: "slurm-operator") */
} slinky_workload_input;

#define SLINKY_WORKLOAD_INPUT_INIT {SLINKY_WORKLOAD_INPUT_VERSION, NULL, 0, 0, NULL}

/** Initialise `in` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_workload_input_init(slinky_workload_input *in,
                                                    unsigned int version);

/**
 * Look a resource up in the input: the object of `kind` in `namespace_`
 * (NULL or "" matches objects without a namespace) named `name`.
 * *out borrowed; ENOTFOUND (with a message) when absent.
 */
SLINKY_API slinky_status slinky_workload_input_find(const slinky_model_object **out,
                                                    const slinky_workload_input *in,
                                                    slinky_model_kind kind,
                                                    const char *namespace_, const char *name);

/* ------------------------------------------------------------------ */
/* Builders                                                           */
/* ------------------------------------------------------------------ */

/**
 * Everything upstream's Controller reconciler builds
 * (internal/builder/controllerbuilder): the ConfigMap `<name>-config`
 * (slurm.conf, cgroup.conf unless a configFileRefs ConfigMap has one), the
 * Service `<name>-controller`, the headless `<name>-controller-internal`, the
 * StatefulSet `<name>-controller` (replicas 1 + ha.backups with HA on), and
 * the ServiceMonitor when metrics.serviceMonitor.enabled. The NodeSets and
 * Accounting in the input that belong to the Controller feed slurm.conf.
 * External mode (spec.external): the ConfigMap only, with the minimal
 * slurm.conf that points at spec.externalConfig.
 */
SLINKY_API slinky_status slinky_workload_build_controller(slinky_workload *into,
                                                          const slinky_model_controller *c,
                                                          const slinky_workload_input *in);

/**
 * The objects a NodeSet shares with its cluster (internal/builder/workerbuilder):
 * the headless Service `slurm-workers-<controller>` and the PodDisruptionBudget
 * `slurm-workers-pdb-<controller>` (neither has a controller ownerReference,
 * as upstream). Pods: see slinky_workload_build_nodeset_pods.
 */
SLINKY_API slinky_status slinky_workload_build_nodeset(slinky_workload *into,
                                                       const slinky_model_nodeset *ns,
                                                       const slinky_workload_input *in);

/**
 * Every Pod of a NodeSet in StatefulSet scaling mode: ordinals 0 ..
 * spec.replicas-1 (replicas default 1), each as slinky_workload_nodeset_pod.
 * In DaemonSet mode this is EINVALID (pods are per node: _pod_for_node).
 */
SLINKY_API slinky_status slinky_workload_build_nodeset_pods(slinky_workload *into,
                                                            const slinky_model_nodeset *ns,
                                                            const slinky_workload_input *in);

/**
 * The Pod for ordinal `ordinal` (>= 0) of a NodeSet: name `<nodeset>-<i>`
 * (or `<hostname prefix><i>` style hostnames, as upstream), hostname,
 * subdomain `slurm-workers-<controller>`, labels
 * nodeset.slinky.slurm.net/pod-{name,index,hostname} and the template hash
 * label, the slurmd container with `-Z --conf-server <svc>:6817 --conf
 * '<sorted Key=Value>'`, the preStop hook, and a controller ownerReference
 * to the NodeSet. *out is a new document (free with slinky_doc_free()).
 */
SLINKY_API slinky_status slinky_workload_nodeset_pod(slinky_doc **out,
                                                     const slinky_model_nodeset *ns,
                                                     int64_t ordinal,
                                                     const slinky_workload_input *in);

/**
 * The Pod of a DaemonSet-mode NodeSet for Kubernetes node `node_name`: as
 * _pod, named and hostnamed after the node, pinned to it with node affinity.
 */
SLINKY_API slinky_status slinky_workload_nodeset_pod_for_node(slinky_doc **out,
                                                              const slinky_model_nodeset *ns,
                                                              const char *node_name,
                                                              const slinky_workload_input *in);

/**
 * The stable hash of a NodeSet's pod template (the revision label of its
 * Pods): lowercase hex, changes exactly when the built template changes
 * (not with replicas, ordinals or metadata outside the template).
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_nodeset_template_hash(char **out,
                                                               const slinky_model_nodeset *ns,
                                                               const slinky_workload_input *in);

/**
 * The value of slurmd's --conf for a NodeSet: its node options as sorted,
 * space-separated Key=Value pairs (upstream's TestSlurmdConfArgs), with Gres
 * from spec.extraConf kept and no empty Features/Topology tokens. Each value
 * is checked (newline, NUL, '#': EINVALID naming the field).
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_slurmd_conf(char **out, const slinky_model_nodeset *ns,
                                                     const slinky_workload_input *in);

/**
 * A RestApi's Deployment `<name>-restapi` (slurmrestd with SLURM_JWT=daemon)
 * and its Service `<name>-restapi` on port 6820 (internal/builder/restapibuilder).
 */
SLINKY_API slinky_status slinky_workload_build_restapi(slinky_workload *into,
                                                       const slinky_model_restapi *r,
                                                       const slinky_workload_input *in);

/**
 * An Accounting's Secret `<name>-config` with slurmdbd.conf (StoragePass read
 * from the Secret spec.storageConfig.passwordKeyRef names, extraConf merged as
 * upstream), its Service `<name>-accounting` and its StatefulSet
 * `<name>-accounting` (internal/builder/accountingbuilder).
 */
SLINKY_API slinky_status slinky_workload_build_accounting(slinky_workload *into,
                                                          const slinky_model_accounting *a,
                                                          const slinky_workload_input *in);

/**
 * Build every object for the Accountings, Controllers, NodeSets (shared
 * objects, then Pods for StatefulSet-mode NodeSets) and RestApis in the
 * input, in that kind order and in input order within a kind. All or
 * nothing. LoginSets and Tokens have their own builders (below).
 */
SLINKY_API slinky_status slinky_workload_build_all(slinky_workload *into,
                                                   const slinky_workload_input *in);

SLINKY_END_DECLS

#endif
