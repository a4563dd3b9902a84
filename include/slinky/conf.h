/*
 * libslinky conf module: slurm.conf and the files beside it.
 *
 * - A parser for slurm.conf, cgroup.conf, gres.conf, slurmdbd.conf,
 *   job_container.conf and plugstack.conf that follows Slurm's own grammar
 *   (measured against slurmctld 22.05): case-insensitive keys, `#` comments
 *   and `\#`, trailing-backslash continuation, quoted values, one global pair
 *   per line, record lines (NodeName, PartitionName, NodeSet, DownNodes,
 *   FrontendName) with DEFAULT records, multi-valued SlurmctldHost, Include
 *   (relative to the including file's folder, %c, nesting), last value wins.
 *   The result is an editable tree that keeps every byte: rendering an
 *   unedited tree gives the input back, and setting one key changes one line.
 * - Hostlist expressions expanded and compressed as Slurm does.
 * - A key catalogue per Slurm version and static checks.
 * - A semantic diff with a change class per change ("reconfigure", "restart
 *   slurmctld", ...).
 * - A renderer from the Slinky resources that matches upstream's generator.
 * - Validation with the installed Slurm and an apply helper.
 *
 * Threads: a slinky_conf or slinky_conf_diff may be used by one thread at a
 * time; distinct objects are independent. The free functions (hostlist,
 * catalogue, render) are thread-safe.
 *
 * Errors: parse errors are SLINKY_EPARSE with slinky_error_last()->line and
 * ->column set and a message "FILE:LINE:COL: <slurmctld-style message>".
 */
#ifndef SLINKY_CONF_H
#define SLINKY_CONF_H

#include "common.h"
#include "doc.h"
#include "model.h"

SLINKY_BEGIN_DECLS

/* ------------------------------------------------------------ versions */

/** Slurm versions as MMmm numbers (22.05 -> 2205). 0 means the newest known. */
#define SLINKY_CONF_SLURM_22_05 2205u
#define SLINKY_CONF_SLURM_24_11 2411u
#define SLINKY_CONF_SLURM_25_05 2505u

/** Which file a text is (decides the grammar and the key catalogue). */
typedef enum slinky_conf_kind {
    SLINKY_CONF_KIND_SLURM = 0,     /**< slurm.conf */
    SLINKY_CONF_KIND_CGROUP = 1,    /**< cgroup.conf */
    SLINKY_CONF_KIND_GRES = 2,      /**< gres.conf (several pairs per line) */
    SLINKY_CONF_KIND_SLURMDBD = 3,  /**< slurmdbd.conf */
    SLINKY_CONF_KIND_JOB_CONTAINER = 4, /**< job_container.conf */
    SLINKY_CONF_KIND_PLUGSTACK = 5  /**< plugstack.conf (directive lines) */
} slinky_conf_kind;

/** What a (logical) line of a file is. */
typedef enum slinky_conf_line_type {
    SLINKY_CONF_LINE_BLANK = 0,   /**< empty or whitespace only */
    SLINKY_CONF_LINE_COMMENT = 1, /**< only a comment */
    SLINKY_CONF_LINE_PAIR = 2,    /**< one global Key=Value */
    SLINKY_CONF_LINE_RECORD = 3,  /**< NodeName=... and friends: several pairs */
    SLINKY_CONF_LINE_INCLUDE = 4, /**< Include FILE */
    SLINKY_CONF_LINE_DIRECTIVE = 5 /**< plugstack.conf: required/optional/include lines */
} slinky_conf_line_type;

/* ------------------------------------------------------------ parse */

/** A parsed file with the files it includes (opaque). */
typedef struct slinky_conf slinky_conf;

#define SLINKY_CONF_PARSE_OPTIONS_VERSION 1

/** Options for slinky_conf_parse()/slinky_conf_load(). */
typedef struct slinky_conf_parse_options {
    unsigned int version;   /**< SLINKY_CONF_PARSE_OPTIONS_VERSION */
    slinky_conf_kind kind;  /**< grammar; default SLINKY_CONF_KIND_SLURM */
    bool no_includes;       /**< keep Include lines but do not read the files */
    const char *include_dir; /**< folder for relative Includes of in-memory text
                                  (default: the file name's folder, else ".") */
} slinky_conf_parse_options;

#define SLINKY_CONF_PARSE_OPTIONS_INIT {SLINKY_CONF_PARSE_OPTIONS_VERSION, SLINKY_CONF_KIND_SLURM, false, NULL}

/** Initialise `opts` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_conf_parse_options_init(slinky_conf_parse_options *opts,
                                                        unsigned int version);

/**
 * Parse text. `filename` (may be NULL: "slurm.conf") is used in messages and
 * to find relative Includes. `opts` may be NULL. The text is copied.
 * Errors: EPARSE (with file:line:col), ENOTFOUND (missing Include), ENOMEM.
 */
SLINKY_API slinky_status slinky_conf_parse(slinky_conf **out, const char *data, size_t len,
                                           const char *filename,
                                           const slinky_conf_parse_options *opts);

/** Read and parse a file (see slinky_conf_parse). */
SLINKY_API slinky_status slinky_conf_load(slinky_conf **out, const char *path,
                                          const slinky_conf_parse_options *opts);

/** Release a tree (NULL is ignored). */
SLINKY_API void slinky_conf_free(slinky_conf *conf);

/**
 * The text of the top file (Included files are not inlined): byte-for-byte
 * the input when nothing was edited. `*out` is released with slinky_free().
 * `len_out` may be NULL.
 */
SLINKY_API slinky_status slinky_conf_render(char **out, size_t *len_out, const slinky_conf *conf);

/** Write the top file atomically to `path` (mode 0644). */
SLINKY_API slinky_status slinky_conf_save(const slinky_conf *conf, const char *path);

/** The file name given at parse time (borrowed, valid until the tree is freed). */
SLINKY_API const char *slinky_conf_filename(const slinky_conf *conf);

/** Number of logical lines of the top file. */
SLINKY_API size_t slinky_conf_line_count(const slinky_conf *conf);
/** Type of logical line `i` (0-based); BLANK when out of range. */
SLINKY_API slinky_conf_line_type slinky_conf_line_type_at(const slinky_conf *conf, size_t i);
/** The exact text of logical line `i` (with continuations and newline), or NULL. */
SLINKY_API const char *slinky_conf_line_text_at(const slinky_conf *conf, size_t i);

/* ------------------------------------------------------------ values */

/**
 * The effective value of a global key (case-insensitive), after Includes and
 * "last value wins"; for SlurmctldHost the first (primary). NULL if unset.
 * Borrowed: valid until the tree is edited or freed.
 */
SLINKY_API const char *slinky_conf_get(const slinky_conf *conf, const char *key);

/** How many times a global key is set (SlurmctldHost: number of hosts). */
SLINKY_API size_t slinky_conf_get_count(const slinky_conf *conf, const char *key);

/** The `i`th value of a global key in file order, or NULL. Borrowed. */
SLINKY_API const char *slinky_conf_get_at(const slinky_conf *conf, const char *key, size_t i);

/**
 * Set a global key. The last line of the top file that sets the key is
 * rewritten (its indentation, key spelling and trailing comment are kept);
 * the other lines are untouched. Without such a line "Key=Value" is appended.
 * The value is quoted/escaped as Slurm needs (spaces, `#`).
 * Errors: EINVALID (bad key, empty value, value with `"` or a newline,
 * a record key such as NodeName).
 */
SLINKY_API slinky_status slinky_conf_set(slinky_conf *conf, const char *key, const char *value);

/** Remove every line of the top file that sets `key`. ENOTFOUND if none. */
SLINKY_API slinky_status slinky_conf_unset(slinky_conf *conf, const char *key);

/** Number of warnings found while parsing (e.g. repeated keys). */
SLINKY_API size_t slinky_conf_warning_count(const slinky_conf *conf);
/** Warning `i` ("FILE:LINE:COL: message"), or NULL. Borrowed. */
SLINKY_API const char *slinky_conf_warning_at(const slinky_conf *conf, size_t i);

/* ------------------------------------------------------------ records */

/**
 * Number of records of a type ("NodeName", "PartitionName", "NodeSet",
 * "DownNodes", "FrontendName"; case-insensitive), DEFAULT lines excluded.
 * A NodeName line with a hostlist counts once.
 */
SLINKY_API size_t slinky_conf_record_count(const slinky_conf *conf, const char *type);
/** The name (first value, e.g. "n[1-4]") of record `i` of a type, or NULL. Borrowed. */
SLINKY_API const char *slinky_conf_record_name_at(const slinky_conf *conf, const char *type,
                                                  size_t i);
/**
 * The value of `key` in the record named `name` (exact, case-sensitive name;
 * for NodeName a single host inside a hostlist record also matches), with the
 * DEFAULT lines before it applied. NULL if unset. Borrowed.
 */
SLINKY_API const char *slinky_conf_record_get(const slinky_conf *conf, const char *type,
                                              const char *name, const char *key);

/**
 * Set `key` in the record line `type`=`name` of the top file (the last such
 * line; exact name, e.g. ("PartitionName", "debug", "MaxTime", "60")): the
 * value is replaced (or the pair appended); the line keeps its other pairs in
 * order, its indentation and its trailing comment; no other line changes.
 * Errors: EINVALID (unknown type, the name key itself, empty value, a quote
 * or newline), ENOTFOUND (no such line in the top file).
 */
SLINKY_API slinky_status slinky_conf_record_set(slinky_conf *conf, const char *type,
                                                const char *name, const char *key,
                                                const char *value);

/* ------------------------------------------------------------ hostlists */

/**
 * Expand a Slurm hostlist ("node[001-128,130],gpu[1-2]x[3-4]") into host
 * names in Slurm's order. `*out` is an array of `*count_out` strings freed
 * with slinky_conf_strv_free(). Errors: EPARSE with Slurm's message
 * ("Invalid range: `3-1'", "Too many hosts in range ...").
 */
SLINKY_API slinky_status slinky_conf_hostlist_expand(char ***out, size_t *count_out,
                                                     const char *expr);

/**
 * Compress host names into a hostlist exactly as `scontrol show hostlist`
 * does (no sorting: adjacent hosts with one prefix and consecutive numbers
 * of a compatible width form ranges).
 */
SLINKY_API slinky_status slinky_conf_hostlist_compress(char **out, const char *const *hosts,
                                                       size_t count);

/** Release an array from slinky_conf_hostlist_expand() (NULL is ignored). */
SLINKY_API void slinky_conf_strv_free(char **v, size_t count);

/* ------------------------------------------------------------ catalogue and checks */

/** True when `key` (case-insensitive) is a parameter of `kind` in that Slurm version
 *  (`scope` "global" or a record type such as "NodeName"). */
SLINKY_API bool slinky_conf_key_is_known(slinky_conf_kind kind, const char *scope,
                                         const char *key, unsigned int slurm_version);

/**
 * Static checks of a parsed tree for a Slurm version (0 = newest): unknown
 * keys, bad numbers, empty values, duplicate records, plugin values the
 * version lacks (auth/slurm on 22.05) and incompatible pairs (PreemptType
 * without PreemptMode, job_container/tmpfs without PrologFlags=Contain,
 * MaxNodeCount without select/cons_tres).
 * Returns 0 when there is no error, else EINVALID with the first error in
 * slinky_error_last() (line/column set). `report_out` (may be NULL) receives
 * every finding, one "FILE:LINE:COL: error|warning: message" per line ("" when
 * clean); release it with slinky_free().
 */
SLINKY_API slinky_status slinky_conf_check(char **report_out, const slinky_conf *conf,
                                           unsigned int slurm_version);

/* ------------------------------------------------------------ diff */

/** What applying a change takes. Ordered: a bigger value needs more. */
typedef enum slinky_conf_change_class {
    SLINKY_CONF_CLASS_NONE = 0,              /**< nothing to do */
    SLINKY_CONF_CLASS_RECONFIGURE = 1,       /**< `scontrol reconfigure` applies it */
    SLINKY_CONF_CLASS_RESTART_SLURMCTLD = 2, /**< restart slurmctld */
    SLINKY_CONF_CLASS_RESTART_ALL = 3,       /**< restart slurmctld and every slurmd */
    SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE = 4 /**< a reconfigure kills slurmctld: restart all */
} slinky_conf_change_class;

/** "none", "reconfigure", "restart-slurmctld", "restart-all", "fatal-on-reconfigure". */
SLINKY_API const char *slinky_conf_change_class_name(slinky_conf_change_class klass);

/** One change between two configs (borrowed from its diff). */
typedef struct slinky_conf_change {
    const char *scope;     /**< "global" or a record type ("NodeName", ...) */
    const char *name;      /**< record name (one host for nodes), NULL for globals */
    const char *key;       /**< the key as written in the newer file (or older if removed);
                                for an added/removed record the record type */
    const char *old_value; /**< NULL when added */
    const char *new_value; /**< NULL when removed */
    slinky_conf_change_class klass;
    const char *reason;    /**< why this class (man page sentence or measurement) */
} slinky_conf_change;

/** A semantic diff (opaque). */
typedef struct slinky_conf_diff slinky_conf_diff;

/**
 * Compare two trees for a Slurm version (0 = newest): global keys
 * case-insensitively after "last value wins", records matched by name
 * (NodeName hostlists expanded and compared as sets, DEFAULTs applied),
 * SlurmctldHost as an ordered list, comma lists of *Parameters keys
 * compared as option sets.
 */
SLINKY_API slinky_status slinky_conf_diff_new(slinky_conf_diff **out, const slinky_conf *old_conf,
                                              const slinky_conf *new_conf,
                                              unsigned int slurm_version);
SLINKY_API void slinky_conf_diff_free(slinky_conf_diff *diff);
SLINKY_API size_t slinky_conf_diff_count(const slinky_conf_diff *diff);
/** Change `i`, or NULL when out of range. Borrowed until the diff is freed. */
SLINKY_API const slinky_conf_change *slinky_conf_diff_at(const slinky_conf_diff *diff, size_t i);
/** The class of the whole diff (the largest of its changes; NONE when empty). */
SLINKY_API slinky_conf_change_class slinky_conf_diff_class(const slinky_conf_diff *diff);
/**
 * Human readable: one line per change "CLASS SCOPE[NAME] KEY: OLD -> NEW",
 * then "overall: CLASS".
 */
SLINKY_API slinky_status slinky_conf_diff_render(char **out, const slinky_conf_diff *diff);

/**
 * The class of changing one global key (or `key` = "SlurmctldParameters",
 * `option` = "enable_configless") in a Slurm version, and the reason
 * (static string, may be NULL).
 */
SLINKY_API slinky_conf_change_class slinky_conf_key_change_class(const char **reason_out,
                                                                 const char *key,
                                                                 const char *option,
                                                                 unsigned int slurm_version);

/* ------------------------------------------------------------ render */

/** A NodeSet as the renderer needs it. */
typedef struct slinky_conf_nodeset {
    const char *name;              /**< NodeSet resource name */
    const char *hostname;          /**< spec.template.hostname or NULL */
    bool partition_enabled;        /**< spec.partition.enabled */
    const char *partition_config;  /**< spec.partition.config or NULL */
    unsigned int gpus;             /**< GPUs per node (0: none) for gres.conf */
    const char *gpu_type;          /**< e.g. "nvidia" or NULL */
    const char *gpu_files;         /**< device files, e.g. "/dev/nvidia[0-3]" or NULL */
} slinky_conf_nodeset;

#define SLINKY_CONF_CLUSTER_VERSION 1

/** Everything slurm.conf is rendered from (strings are borrowed for the call). */
typedef struct slinky_conf_cluster {
    unsigned int version;        /**< SLINKY_CONF_CLUSTER_VERSION */
    const char *name;            /**< Controller metadata.name */
    const char *namespace_;      /**< Controller metadata.namespace ("" allowed) */
    const char *cluster_name;    /**< spec.clusterName or NULL (=> NAMESPACE_NAME) */
    bool external;               /**< spec.external */
    const char *external_host;   /**< spec.externalConfig.host */
    int external_port;           /**< spec.externalConfig.port */
    bool ha_enabled;             /**< spec.highAvailability.enabled */
    int ha_backups;              /**< spec.highAvailability.backups (<0: default 1) */
    bool metrics_enabled;        /**< spec.metrics.enabled */
    bool jwks;                   /**< spec.jwksKeyRef set */
    const char *accounting_name; /**< referenced Accounting's name, NULL for none */
    const char *extra_conf;      /**< spec.extraConf, appended verbatim */
    bool has_cgroup_conf;        /**< a configFileRefs ConfigMap has cgroup.conf */
    const char *const *prolog;            size_t prolog_count;
    const char *const *epilog;            size_t epilog_count;
    const char *const *prolog_slurmctld;  size_t prolog_slurmctld_count;
    const char *const *epilog_slurmctld;  size_t epilog_slurmctld_count;
    const slinky_conf_nodeset *nodesets;  size_t nodeset_count;
} slinky_conf_cluster;

#define SLINKY_CONF_CLUSTER_INIT {SLINKY_CONF_CLUSTER_VERSION, NULL, NULL, NULL, false, NULL, 0, \
    false, -1, false, false, NULL, NULL, false, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0}

/** Initialise `c` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_conf_cluster_init(slinky_conf_cluster *c, unsigned int version);

#define SLINKY_CONF_PROFILE_VERSION 1

/**
 * Target profile: the Slurm version decides what exists (22.05 has no
 * auth/slurm, AuthInfo=use_client_ids, reconfig_on_restart, MetricsType);
 * `local` overrides hosts, ports and paths so the output runs on 127.0.0.1
 * with every file under `local_dir`.
 */
typedef struct slinky_conf_profile {
    unsigned int version;       /**< SLINKY_CONF_PROFILE_VERSION */
    unsigned int slurm_version; /**< 0 = upstream (newest) output */
    bool local;                 /**< apply the local overrides below */
    const char *local_dir;      /**< state/ spool/ log/ run/ etc/ live here */
    int slurmctld_port;         /**< local ports (0: 6817/6818/6819) */
    int slurmd_port;
    int slurmdbd_port;
    const char *munge_socket;   /**< AuthInfo socket= for munge (22.05) or NULL */
    const char *slurm_user;     /**< SlurmUser (local default "root") */
} slinky_conf_profile;

#define SLINKY_CONF_PROFILE_INIT {SLINKY_CONF_PROFILE_VERSION, 0, false, NULL, 0, 0, 0, NULL, NULL}

/** Initialise `p` to the defaults. EINVALID for an unknown version. */
SLINKY_API slinky_status slinky_conf_profile_init(slinky_conf_profile *p, unsigned int version);

/**
 * Render slurm.conf like upstream's buildSlurmConf (or buildSlurmConfMinimal
 * when `cluster->external`), adjusted by `profile` (NULL: upstream output).
 * Errors: EINVALID (missing name, external without host).
 */
SLINKY_API slinky_status slinky_conf_render_slurm(char **out, const slinky_conf_cluster *cluster,
                                                  const slinky_conf_profile *profile);

/**
 * Upstream's BuildMergedConfig: for each key of `keys` (sorted) present in
 * `conf_raw`, the union of the operator's `values[k]` and the user's options
 * (de-duplicated by option key, the operator winning; user values
 * lower-cased; the user's last line wins), sorted. `values[k]` is a
 * NULL-terminated array. Lines joined by "\n" without a final newline.
 */
SLINKY_API slinky_status slinky_conf_merge_parameters(char **out, const char *conf_raw,
                                                      const char *const *keys,
                                                      const char *const *const *values,
                                                      size_t key_count);

/**
 * cgroup.conf: CgroupPlugin=cgroup/v2 and IgnoreSystemd=yes (upstream; the
 * local profile: autodetect on 22.05, disabled later). Like upstream, callers
 * skip it when the user supplies a cgroup.conf (cluster.has_cgroup_conf).
 */
SLINKY_API slinky_status slinky_conf_render_cgroup(char **out, const slinky_conf_profile *profile);

/** An Accounting as slurmdbd.conf needs it (strings borrowed for the call). */
typedef struct slinky_conf_accounting {
    const char *name;          /**< Accounting metadata.name */
    const char *storage_host;  /**< spec.storageConfig.host */
    int storage_port;          /**< spec.storageConfig.port (0: 3306) */
    const char *storage_user;  /**< spec.storageConfig.username */
    const char *storage_pass;  /**< the password from the referenced Secret */
    const char *storage_loc;   /**< spec.storageConfig.database */
    const char *extra_conf;    /**< spec.extraConf or NULL */
    bool jwks;                 /**< spec.jwksKeyRef set */
} slinky_conf_accounting;

/**
 * slurmdbd.conf for an Accounting, like upstream's buildSlurmdbdConf
 * (GENERAL, PLUGINS & PARAMETERS, STORAGE, LOGGING, EXTRA CONFIG, MERGED CONFIG),
 * adjusted by `profile`.
 */
SLINKY_API slinky_status slinky_conf_render_slurmdbd(char **out,
                                                     const slinky_conf_accounting *accounting,
                                                     const slinky_conf_profile *profile);

/** gres.conf: one "NodeName=... Name=gpu ..." line per GPU NodeSet ("" when none). */
SLINKY_API slinky_status slinky_conf_render_gres(char **out, const slinky_conf_cluster *cluster);

/**
 * job_container.conf ("AutoBasePath=true BasePath=...") and the plugstack.conf
 * line that loads the jail SPANK plugin (`plugin_path`, may be NULL: no line).
 */
SLINKY_API slinky_status slinky_conf_render_jail(char **job_container_out, char **plugstack_out,
                                                 const char *base_path, const char *plugin_path);

/**
 * The renderer's input built from typed resources (opaque), gathered the way
 * upstream's BuildControllerConfig does. It owns copies of the resources
 * with the schema's defaults applied (SLINKY_MODEL_DEFAULT_ALL: the only
 * defaults; an unset clusterName becomes <namespace>_<name>, ha.backups 1).
 */
typedef struct slinky_conf_models slinky_conf_models;

/**
 * Gather `controller` (may be NULL when only slurmdbd.conf is wanted) and,
 * among `objects` (any kinds, borrowed for the call; other kinds ignored):
 *   - the NodeSets in the Controller's namespace whose spec.controllerRef.name
 *     names it (refresolver.GetNodeSetsForController);
 *   - the Accounting spec.accountingRef names (not given: no accounting, as
 *     upstream); with controller NULL, the first Accounting;
 *   - the ConfigMaps of spec.configFileRefs (a cgroup.conf in one sets
 *     has_cgroup_conf) and of spec.{prolog,epilog,prologSlurmctld,
 *     epilogSlurmctld}ScriptRefs, whose file names (sorted per ConfigMap)
 *     become the Prolog/Epilog/... lines; a referenced ConfigMap that is not
 *     given is ENOTFOUND naming the field ("spec.prologScriptRefs[0]");
 *   - the Secret of the Accounting's spec.storageConfig.passwordKeyRef, when
 *     given (StoragePass; ENOTFOUND when it lacks the key).
 * A value that lands on a slurm.conf line (clusterName, externalConfig.host,
 * a NodeSet's spec.template.spec.hostname or spec.partition.config, a script
 * file name) holding a line break or '#' is EINVALID naming resource and field.
 * *out released with slinky_conf_models_free().
 */
SLINKY_API slinky_status slinky_conf_models_new(slinky_conf_models **out,
                                                const slinky_model_controller *controller,
                                                const slinky_model_object *const *objects,
                                                size_t object_count);
/** Free the models and everything borrowed from them. NULL is ignored. */
SLINKY_API void slinky_conf_models_free(slinky_conf_models *models);
/** The cluster for slinky_conf_render_slurm() and friends (borrowed, valid until
 *  models is freed); NULL when built without a Controller. */
SLINKY_API const slinky_conf_cluster *slinky_conf_models_cluster(const slinky_conf_models *models);
/**
 * The Accounting for slinky_conf_render_slurmdbd() (strings borrowed from
 * models; storage_pass NULL when its Secret was not given). ENOTFOUND when
 * there is none.
 */
SLINKY_API slinky_status slinky_conf_models_accounting(slinky_conf_accounting *out,
                                                       const slinky_conf_models *models);

/* ------------------------------------------------------------ real Slurm */

#define SLINKY_CONF_VALIDATE_OPTIONS_VERSION 1

/** How to run the installed Slurm for validation. */
typedef struct slinky_conf_validate_options {
    unsigned int version;      /**< SLINKY_CONF_VALIDATE_OPTIONS_VERSION */
    const char *bin_prefix;    /**< command prefix that keeps the file system view
                                    (e.g. "nice -n 10"); NULL for none. A chroot does
                                    not work: the throwaway files are written on the host */
    const char *munge_socket;  /**< socket of a running munged (speeds up stage 2) */
    int port;                  /**< slurmctld port for stage 2 (0: a free one) */
    int timeout_ms;            /**< stage 2 timeout (0: 15000) */
    bool parse_only;           /**< stop after stage 1 */
    const char *scratch_dir;   /**< where to put the throwaway copy (default /tmp) */
} slinky_conf_validate_options;

#define SLINKY_CONF_VALIDATE_OPTIONS_INIT {SLINKY_CONF_VALIDATE_OPTIONS_VERSION, NULL, NULL, 0, 0, false, NULL}

SLINKY_API slinky_status slinky_conf_validate_options_init(slinky_conf_validate_options *opts,
                                                           unsigned int version);

/**
 * Is the file at `path` accepted by the installed Slurm? Stage 1: client
 * parse (`SLURM_CONF=path scontrol show hostnames x`); stage 2: a throwaway
 * `slurmctld -D` on a copy with private port, state, pid and log paths.
 * Returns 0 when accepted; EINVALID when rejected, with slurmctld's own
 * error lines in the message and in `*message_out` (may be NULL; "" when
 * accepted); ETIMEOUT; EIO when Slurm cannot be run.
 */
SLINKY_API slinky_status slinky_conf_validate_slurm(char **message_out, const char *path,
                                                    const slinky_conf_validate_options *opts);

/** Restart callback for slinky_conf_apply(): restart what `klass` says. */
typedef slinky_status (*slinky_conf_restart_cb)(slinky_conf_change_class klass, void *payload);

#define SLINKY_CONF_APPLY_OPTIONS_VERSION 1

typedef struct slinky_conf_apply_options {
    unsigned int version;         /**< SLINKY_CONF_APPLY_OPTIONS_VERSION */
    const char *client_conf;      /**< SLURM_CONF for scontrol (a copy of the OLD file,
                                       so the client still reaches the daemons) */
    const char *bin_prefix;       /**< command prefix, e.g. a script that runs its
                                       arguments inside a chroot ("slurm24.sh exec"), or NULL */
    slinky_conf_restart_cb restart; /**< called for the restart classes */
    void *payload;
} slinky_conf_apply_options;

#define SLINKY_CONF_APPLY_OPTIONS_INIT {SLINKY_CONF_APPLY_OPTIONS_VERSION, NULL, NULL, NULL, NULL}

SLINKY_API slinky_status slinky_conf_apply_options_init(slinky_conf_apply_options *opts,
                                                        unsigned int version);

/**
 * Apply a config already written in place: NONE does nothing, RECONFIGURE
 * runs `scontrol reconfigure`, every other class calls `opts->restart` (never
 * reconfigure). `applied_out` (may be NULL) receives the class acted on.
 * Errors: EINVALID (restart needed and no callback), EIO (scontrol failed,
 * message has its output), or the callback's status.
 */
SLINKY_API slinky_status slinky_conf_apply(slinky_conf_change_class *applied_out,
                                           const slinky_conf_diff *diff,
                                           const slinky_conf_apply_options *opts);

SLINKY_END_DECLS

#endif
