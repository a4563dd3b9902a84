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

/** Current version of slinky_workload_input. */
#define SLINKY_WORKLOAD_INPUT_VERSION 1

/**
 * What the builders may look at (all borrowed for the call). `objects` holds
 * resources of any kind in any order; a reference is looked up among them by
 * kind, namespace (the referring resource's) and name.
 */
typedef struct slinky_workload_input {
    unsigned int version;                      /**< SLINKY_WORKLOAD_INPUT_VERSION */
    const slinky_model_object *const *objects; /**< resources, ConfigMaps, Secrets */
    size_t object_count;                       /**< number of entries in objects */
    int64_t now;           /**< Unix seconds, for Tokens (iat/exp); 0: not given */
    const char *operator_name; /**< app.kubernetes.io/managed-by on Token secrets (NULL: "slurm-operator") */
    const char *cluster_domain; /**< Kubernetes cluster domain for FQDNs (NULL: "cluster.local") */
} slinky_workload_input;

/** Static initialiser: version set, no objects, every option at its default. */
#define SLINKY_WORKLOAD_INPUT_INIT {SLINKY_WORKLOAD_INPUT_VERSION, NULL, 0, 0, NULL, NULL}

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
 * the ServiceMonitor when metrics.enabled and metrics.serviceMonitor.enabled,
 * appended in upstream's sync order (internal Service, Service, ConfigMap,
 * StatefulSet, ServiceMonitor). The NodeSets and Accounting in the input that
 * belong to the Controller feed slurm.conf (slinky_conf_models_new). The pod
 * template's config hash annotations are computed from the ConfigMap built
 * here and the key Secrets in the input (a key Secret missing from the input
 * hashes as "", as upstream). External mode (spec.external): the ConfigMap
 * only, with the minimal slurm.conf that points at spec.externalConfig (and
 * the ServiceMonitor when on).
 */
SLINKY_API slinky_status slinky_workload_build_controller(slinky_workload *into,
                                                          const slinky_model_controller *c,
                                                          const slinky_workload_input *in);

/**
 * The objects a NodeSet shares with its cluster (internal/builder/workerbuilder):
 * the headless Service `slurm-workers-<controller>` and the PodDisruptionBudget
 * `slurm-workers-pdb-<controller>` (neither has a controller ownerReference,
 * as upstream), then, with spec.ssh.enabled, the ConfigMap
 * `<nodeset>-ssh-config` (sshd_config for pam_slurm_adopt). Pods: see
 * slinky_workload_build_nodeset_pods.
 */
SLINKY_API slinky_status slinky_workload_build_nodeset(slinky_workload *into,
                                                       const slinky_model_nodeset *ns,
                                                       const slinky_workload_input *in);

/**
 * Every Pod of a NodeSet in StatefulSet scaling mode: ordinals 0 ..
 * spec.replicas-1 (replicas default 1), each as slinky_workload_nodeset_pod.
 * In DaemonSet mode this is EINVALID (pods are per node: slinky_workload_nodeset_pod_for_node()).
 */
SLINKY_API slinky_status slinky_workload_build_nodeset_pods(slinky_workload *into,
                                                            const slinky_model_nodeset *ns,
                                                            const slinky_workload_input *in);

/**
 * The Pod for ordinal `ordinal` (>= 0) of a NodeSet: name `<nodeset>-<i>`
 * (i padded to spec.ordinalPadding digits), generateName `<nodeset>-`,
 * hostname `<spec.template.spec.hostname><i>` or the name, subdomain
 * `slurm-workers-<controller>`, labels
 * nodeset.slinky.slurm.net/pod-{name,index,hostname} and the template hash
 * label, the slurmd container with
 * `-Z --conf-server <svc>:6817 --conf "<sorted Key=Value>"`
 * (slinky_workload_slurmd_conf), the preStop hook, a
 * claim volume per spec.volumeClaimTemplates (`<claim>-<nodeset>-<i>`), the
 * one-Pod-per-node anti-affinity unless spec.oversubscribeNode, and a
 * controller ownerReference to the NodeSet. Not done: spec.pinToNode (needs
 * the Nodes). *out is a new document (free with slinky_doc_free()).
 */
SLINKY_API slinky_status slinky_workload_nodeset_pod(slinky_doc **out,
                                                     const slinky_model_nodeset *ns,
                                                     int64_t ordinal,
                                                     const slinky_workload_input *in);

/**
 * The Pod of a DaemonSet-mode NodeSet for Kubernetes node `node_name`: as
 * slinky_workload_nodeset_pod() but with generateName only (no name), hostname = the node name up
 * to its first dot, and a node affinity term matching metadata.name = node_name
 * (ReplaceDaemonSetPodNodeNameNodeAffinity).
 */
SLINKY_API slinky_status slinky_workload_nodeset_pod_for_node(slinky_doc **out,
                                                              const slinky_model_nodeset *ns,
                                                              const char *node_name,
                                                              const slinky_workload_input *in);

/**
 * The stable hash of a NodeSet's pod template (the controller-revision-hash
 * label of its Pods): FNV-1a 64 (8-byte words) of the built template walked
 * with sorted keys, as 16 lowercase hex digits; changes exactly when the
 * template changes (not with replicas, ordinals or metadata outside it).
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_nodeset_template_hash(char **out,
                                                               const slinky_model_nodeset *ns,
                                                               const slinky_workload_input *in);

/** Flags for slinky_workload_slurmd_conf. */
enum slinky_workload_conf_flags {
    /**
     * The libslinky form, used in the Pods: no empty tokens (a Key= with no
     * value is dropped) and, unless spec.extraConf sets Topology, the
     * topology token is the shell expansion
     * `'"${SLINKY_TOPOLOGY:+Topology=$SLINKY_TOPOLOGY}"'`, which yields nothing
     * when the Pod has no topology annotation (SlinkyProject/containers#20).
     */
    SLINKY_WORKLOAD_CONF_DEFAULT = 0,
    /** Upstream's exact string (TestSlurmdConfArgs): `Topology='"$SLINKY_TOPOLOGY"'`. */
    SLINKY_WORKLOAD_CONF_UPSTREAM = 1
};

/**
 * The value of slurmd's --conf argument for a NodeSet, single quotes
 * included: its node options as sorted, space-separated Key=Value pairs
 * (keys title-cased as upstream; Features = the NodeSet name plus every
 * Feature/Features value, sorted and de-duplicated; Gres and every other
 * extraConf key kept). Each value is checked (newline, carriage return, NUL,
 * '#': EINVALID naming spec.extraConf or spec.template.spec.hostname).
 * A token without '=' in extraConf: with _UPSTREAM the baseline (Features
 * and Topology only, as upstream); otherwise EINVALID naming spec.extraConf.
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_slurmd_conf(char **out, const slinky_model_nodeset *ns,
                                                     unsigned flags);

/**
 * A RestApi's Deployment `<name>-restapi` (slurmrestd with SLURM_JWT=daemon)
 * and its Service `<name>-restapi` on port 6820 (internal/builder/restapibuilder).
 */
SLINKY_API slinky_status slinky_workload_build_restapi(slinky_workload *into,
                                                       const slinky_model_restapi *r,
                                                       const slinky_workload_input *in);

/**
 * An Accounting's Service `<name>-accounting`, Secret `<name>-accounting`
 * (stringData slurmdbd.conf: StoragePass read from the Secret
 * spec.storageConfig.passwordKeyRef names, which must be in the input;
 * extraConf merged as upstream) and StatefulSet `<name>-accounting`
 * (internal/builder/accountingbuilder), in that order. An external Accounting
 * (spec.external) builds nothing, as upstream.
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

/* ---- LoginSet, Token ---- */

/*
 * JWTs (HS256), SSH host keys, the LoginSet builder and the Token builder.
 * Cryptography comes from GnuTLS (HMAC-SHA256, key generation, the random
 * generator); nothing here is hand-rolled beyond the wire layouts. Key
 * material handed out is plain text the caller frees with slinky_free().
 * Threads: every function here may run in several threads at once.
 */

/** Current version of slinky_workload_jwt_claims. */
#define SLINKY_WORKLOAD_JWT_CLAIMS_VERSION 1

/** The claims of a Slurm JWT, as upstream's slurmjwt package sets them. */
typedef struct slinky_workload_jwt_claims {
    unsigned int version; /**< SLINKY_WORKLOAD_JWT_CLAIMS_VERSION */
    const char *username; /**< "sun": the Slurm user (required) */
    int64_t issued_at;    /**< "iat" and "nbf", Unix seconds */
    int64_t expires_at;   /**< "exp", Unix seconds (not before issued_at) */
    const char *issuer;   /**< "iss"; NULL: "slurm-operator" */
    const char *id;       /**< "jti"; NULL: a random UUID from GnuTLS's generator */
} slinky_workload_jwt_claims;

/** Static initialiser: version set, everything else zero or NULL. */
#define SLINKY_WORKLOAD_JWT_CLAIMS_INIT {SLINKY_WORKLOAD_JWT_CLAIMS_VERSION, NULL, 0, 0, NULL, NULL}

/** Initialise `c` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_workload_jwt_claims_init(slinky_workload_jwt_claims *c,
                                                         unsigned int version);

/**
 * Sign `claims` as a compact JWS: base64url({"alg":"HS256","typ":"JWT"}) "."
 * base64url({"iss","exp","nbf","iat","jti","sun"}) "." base64url(HMAC-SHA256
 * with `key`). *out released with slinky_free(). EINVALID for an empty key,
 * a missing username or exp before iat.
 */
SLINKY_API slinky_status slinky_workload_jwt_sign(char **out,
                                                  const slinky_workload_jwt_claims *claims,
                                                  const void *key, size_t key_len);

/**
 * Check a JWT against `key`: three base64url parts, a JSON object header
 * with alg HS256 (any other alg, "none" included, is EAUTH), a JSON object
 * payload, and the HMAC (compared in constant time; EAUTH when it differs).
 * With now >= 0 also refuses a token with no exp, exp <= now, or nbf > now
 * (EAUTH). *claims_out receives the payload as a new document. EPARSE for
 * malformed input.
 */
SLINKY_API slinky_status slinky_workload_jwt_verify(slinky_doc **claims_out, const char *jwt,
                                                    const void *key, size_t key_len,
                                                    int64_t now);

/** The SSH key types a LoginSet's sshd gets (upstream's crypto.KeyPair types). */
typedef enum slinky_workload_ssh_key_type {
    SLINKY_WORKLOAD_SSH_KEY_ED25519 = 0,
    SLINKY_WORKLOAD_SSH_KEY_RSA = 1,
    SLINKY_WORKLOAD_SSH_KEY_ECDSA = 2
} slinky_workload_ssh_key_type;

/** Upstream's RSA host key size (crypto.DefaultRsaBitLength). */
#define SLINKY_WORKLOAD_SSH_RSA_DEFAULT_BITS 4096

/** "ed25519", "rsa", "ecdsa" (static), or NULL for an unknown value. */
SLINKY_API const char *slinky_workload_ssh_key_type_name(slinky_workload_ssh_key_type type);

/**
 * Generate a key pair with GnuTLS. *private_out: OpenSSH's private key
 * format ("-----BEGIN OPENSSH PRIVATE KEY-----", unencrypted, empty
 * comment, base64 at 64 columns), as upstream writes it and sshd loads it;
 * *public_out: the authorized_keys line "TYPE BASE64\n". `bits`: RSA 2048 to
 * 16384 (0: 4096); ECDSA 256, 384 or 521 (0: 256, nistp256 as upstream);
 * Ed25519 0 or 256. Both released with slinky_free(). Cost: RSA 4096 is
 * slow (about 1.8 s measured on 2 shared cores; RSA 2048 0.26 s, ECDSA and
 * Ed25519 under 1 ms), which is why the LoginSet builder keeps existing keys.
 */
SLINKY_API slinky_status slinky_workload_ssh_keygen(char **private_out, char **public_out,
                                                    slinky_workload_ssh_key_type type,
                                                    unsigned int bits);

/**
 * A Token's lifetime in seconds: spec.lifetime (a Go duration: "15m",
 * "1h30m", "90s"; fractions truncated to whole seconds) clamped to
 * 0 .. 2147483646 (Slurm's "infinite") as upstream; 15 minutes when unset.
 * EINVALID naming spec.lifetime when it is not a duration.
 */
SLINKY_API slinky_status slinky_workload_token_lifetime(int64_t *out,
                                                        const slinky_model_token *t);

/**
 * The name of a Token's Secret: spec.secretRef.name, or
 * "<name>-jwt-<spec.username>". *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_token_secret_name(char **out,
                                                           const slinky_model_token *t);

/**
 * A Token's Secret (upstream builder/common/token_secret.go): named as
 * slinky_workload_token_secret_name, in the Token's namespace, with the
 * Token's labels and annotations, `stringData` {spec.secretRef.key or
 * "SLURM_JWT": JWT}, `immutable` = !spec.refresh (refresh defaults to true),
 * and a controller ownerReference to the Secret holding the signing key (as
 * upstream: deleting the key deletes the tokens). The JWT: HS256 with the
 * key from spec.jwtKeyRef (else spec.jwtHs256KeyRef), sun = spec.username,
 * iss "slurm-operator", iat = nbf = in->now, exp = iat + lifetime, and a jti
 * derived from the Token's identity and iat (so the same input gives the
 * same bytes). Needs in->now > 0 (EINVALID). ENOTFOUND naming the field
 * when the key's Secret or key is not in the input. *out: a new document.
 */
SLINKY_API slinky_status slinky_workload_token_secret(slinky_doc **out,
                                                      const slinky_model_token *t,
                                                      const slinky_workload_input *in);

/** slinky_workload_token_secret, appended to `into`. */
SLINKY_API slinky_status slinky_workload_build_token(slinky_workload *into,
                                                     const slinky_model_token *t,
                                                     const slinky_workload_input *in);

/**
 * When the Token's Secret must be (re)built, from the Secret found in the
 * input (the live one): *out = Unix time, compared by the caller with
 * in->now (refresh when *out <= now). Upstream's rule: exp - lifetime/5
 * (80% of the lifetime). Better than upstream (whose refresh stops for
 * good once the stored token fails to parse): *out = in->now, i.e. refresh
 * now, when the Secret or its key is missing, the stored token does not
 * verify with the current signing key (key rotated, garbage), is for another
 * user, or was issued with another lifetime. INT64_MAX (never) when the
 * Secret exists and spec.refresh is false. *reason_out (may be NULL): a
 * static sentence saying why. Errors: EINVALID (bad Token, in->now unset),
 * ENOTFOUND (the signing key is not in the input).
 */
SLINKY_API slinky_status slinky_workload_token_refresh_time(int64_t *out,
                                                            const char **reason_out,
                                                            const slinky_model_token *t,
                                                            const slinky_workload_input *in);

/** Current version of slinky_workload_loginset_options. */
#define SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION 1

/** Options of the LoginSet builders (NULL: the defaults). */
typedef struct slinky_workload_loginset_options {
    unsigned int version;          /**< SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION */
    unsigned int rsa_bits;         /**< new RSA host keys (0: 4096, upstream's) */
    bool seamless_ssh;             /**< sshd_config gets the identity ledger's fragment
                                        (slinky_ledger_sshd_render: AuthorizedKeysCommand) */
    const char *keys_command;      /**< seamless: the keys command (NULL: the ledger's default) */
    const char *keys_command_user; /**< seamless: its user (NULL: the ledger's default) */
} slinky_workload_loginset_options;

/** Static initialiser: version set, every option at its default. */
#define SLINKY_WORKLOAD_LOGINSET_OPTIONS_INIT {SLINKY_WORKLOAD_LOGINSET_OPTIONS_VERSION, 0, false, NULL, NULL}

/** Initialise `opts` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_workload_loginset_options_init(
    slinky_workload_loginset_options *opts, unsigned int version);

/**
 * The sshd_config of a LoginSet (login_config.go buildSshdConfig): GENERAL
 * (Include /etc/ssh/sshd_config.d/\*.conf, UsePAM yes, X11Forwarding yes,
 * Subsystem sftp internal-sftp) and EXTRA CONFIG (spec.extraSshdConfig).
 * With opts->seamless_ssh, a SEAMLESS SSH section first (sshd keeps the
 * first value of a keyword) with the ledger's fragment on the login port.
 * EUNSUPPORTED for seamless SSH when the ledger module is not built.
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_workload_loginset_sshd_config(
    char **out, const slinky_model_loginset *ls, const slinky_workload_loginset_options *opts);

/**
 * The host-key Secret `<name>-ssh-host-keys` (login_secret.go): immutable,
 * labels/annotations of the LoginSet plus the login labels, a controller
 * ownerReference, and `data` ssh_host_{ecdsa,ed25519,rsa}_key and their .pub
 * (base64 of OpenSSH private keys and authorized_keys lines, see
 * slinky_workload_ssh_keygen). When a Secret of that name is in the input
 * its keys are kept (an immutable Secret cannot change: delete it for new
 * keys; one lacking a key file is EINVALID); otherwise new keys are made.
 */
SLINKY_API slinky_status slinky_workload_loginset_host_keys(
    slinky_doc **out, const slinky_model_loginset *ls, const slinky_workload_input *in,
    const slinky_workload_loginset_options *opts);

/**
 * Everything upstream's LoginSet reconciler builds, in its order: the
 * host-key Secret, the ConfigMap `<name>-ssh-config` (authorized_keys from
 * spec.rootSshAuthorizedKeys, sshd_config as above), the Service `<name>`
 * (port spec.service.port or 22 named "login", nodePort, the user's
 * ServiceSpec merged) and the Deployment `<name>` (revisionHistoryLimit 0,
 * strategy, selector, the pod template with the ssh-host-keys/sshd-conf/
 * sssd-conf hash annotations of what this build makes, the login container
 * (SACKD_OPTIONS --conf-server, port, readiness probe on the sackd socket,
 * mounts), the initconf init container, the slurm-workers DNS search and
 * the projected volumes with upstream's modes, the user's PodSpec merged).
 * Errors: ENOTFOUND naming spec.controllerRef.name when the Controller is not
 * in the input; EINVALID for a missing spec.sssdConfRef or a LoginSet without
 * metadata.uid. All or nothing.
 */
SLINKY_API slinky_status slinky_workload_build_loginset(slinky_workload *into,
                                                        const slinky_model_loginset *ls,
                                                        const slinky_workload_input *in,
                                                        const slinky_workload_loginset_options *opts);

SLINKY_END_DECLS

#endif
