/*
 * libslinky jail: the per-job sandbox every Slurm job step runs in.
 *
 * A jail spec (slinky_jail_spec) describes the jail: its root (a shared root
 * folder, or the host root read-only), the namespaces, the mounts (bind,
 * rbind, tmpfs, proc), the devices (GPU nodes only for allocated GPUs), the
 * environment and the process (identity, cwd, no_new_privs, capabilities).
 * Specs are read from YAML or JSON (see docs in tests/data/jail/README.md for
 * the format) and validated with field paths in the messages
 * ("mounts[2].destination: ...").
 *
 * A job context (slinky_jail_job) carries what differs per job: job id,
 * user, node, uid/gid/groups and the allocated GPUs. Templates in mount
 * sources are expanded from it: %j job id, %u user name, %n node, %% a '%'.
 *
 * The same spec is rendered for three runners (OCI runtime config.json for
 * crun, a bwrap argv, Slurm's job_container.conf + slurm.conf keys + the
 * plugstack.conf line) or applied in-process by the applier
 * (slinky_jail_enter / slinky_jail_run), which is what the slinky_jail.so
 * SPANK plugin and the slinky-jail launcher use.
 *
 * Per-job scratch: mounts with lifetime "job" take their source from the
 * job's scratch folder <scratch>/job-<id>/ (on the node's NVMe), created by
 * slinky_jail_setup and emptied and removed by slinky_jail_cleanup at job
 * end. slinky_jail_setup also removes scratch folders left by crashed jobs.
 *
 * Threads: a spec may be read by several threads at once; modifying it
 * (the _set_ calls) needs exclusive access. The applier changes process-wide
 * state (namespaces, root, credentials): call it only in a process (or a
 * freshly forked child) that is meant to become the jailed task.
 *
 * Errors: SLINKY_EINVALID for bad specs or arguments (message names the
 * field), SLINKY_EPARSE for malformed YAML/JSON, SLINKY_EIO/EFORBIDDEN for
 * system call failures (message names the step and the path).
 */
#ifndef SLINKY_JAIL_H
#define SLINKY_JAIL_H

#include "common.h"
#include "doc.h"
#include "error.h"

SLINKY_BEGIN_DECLS

/** A parsed, typed jail spec (opaque). */
typedef struct slinky_jail_spec slinky_jail_spec;

/* ------------------------------------------------------------------ */
/* Specs                                                              */
/* ------------------------------------------------------------------ */

/**
 * The built-in default profile (the Slinky worker jail): host root read-only;
 * mount, pid, ipc and uts namespaces; /home bind (shared FS, read-write);
 * /shared bind read-only (the common dataset area: jobs read datasets,
 * admins publish them from outside the jail); /local bind of the node's NVMe
 * (/mnt/nvme/local, persistent across jobs); /tmp private per-job scratch on
 * the same NVMe (scratch /mnt/nvme/jobs, lifetime job, emptied at job end);
 * /opt/hpcx read-only (optional); /usr/local/cuda read-only (optional);
 * /proc; GPUs /dev/nvidia<i> only when allocated plus nvidiactl, nvidia-uvm,
 * nvidia-uvm-tools and nvidia-modeset; PATH/LD_LIBRARY_PATH prepends for
 * HPC-X and CUDA; the job's uid/gid/groups, no_new_privs, no capabilities.
 * The caller owns *out (slinky_jail_spec_free).
 */
SLINKY_API slinky_status slinky_jail_spec_new_default(slinky_jail_spec **out);

/**
 * Parse a spec from YAML or JSON text (JSON when the first non-blank byte
 * is '{'), then validate it (slinky_jail_spec_validate). Fields left out
 * take the defaults documented in tests/data/jail/README.md. Unknown fields
 * are rejected (a typo must not silently weaken a jail).
 */
SLINKY_API slinky_status slinky_jail_spec_parse(slinky_jail_spec **out, const char *data,
                                                size_t len);

/** Read and parse a spec file. Errors name the file. */
SLINKY_API slinky_status slinky_jail_spec_load(slinky_jail_spec **out, const char *path);

/** Build a spec from a doc value (an object); validated as in _parse. */
SLINKY_API slinky_status slinky_jail_spec_from_doc(slinky_jail_spec **out,
                                                   const slinky_doc_value *v);

/** Serialize a spec into a new document (all fields, defaults made explicit). */
SLINKY_API slinky_status slinky_jail_spec_to_doc(slinky_doc **out, const slinky_jail_spec *spec);

/** Serialize as JSON (pretty) or YAML. *out released with slinky_free(). */
SLINKY_API slinky_status slinky_jail_spec_dump(char **out, const slinky_jail_spec *spec,
                                               bool yaml);

/** Deep copy. */
SLINKY_API slinky_status slinky_jail_spec_new_copy(slinky_jail_spec **out,
                                                   const slinky_jail_spec *spec);

/**
 * Check a spec: absolute destinations without "." or ".." components, no
 * mount over the jail root, no mount but type proc at or below /proc, no
 * mount that hides an earlier one (same destination, or an ancestor of an
 * earlier destination), job-lifetime sources relative without "..",
 * tmpfs size/mode syntax, known capability names, absolute paths where
 * required. SLINKY_EINVALID naming the field ("mounts[3].destination: ...").
 */
SLINKY_API slinky_status slinky_jail_spec_validate(const slinky_jail_spec *spec);

/** Free a spec. NULL is ignored. */
SLINKY_API void slinky_jail_spec_free(slinky_jail_spec *spec);

/** The scratch folder (per-job folders live in <scratch>/job-<id>). Borrowed. */
SLINKY_API const char *slinky_jail_spec_get_scratch(const slinky_jail_spec *spec);

/** Set the scratch folder (absolute). */
SLINKY_API slinky_status slinky_jail_spec_set_scratch(slinky_jail_spec *spec, const char *path);

/**
 * Set the jail root: `path` a shared root folder, or "/" for the host root.
 * `read_only` remounts it read-only.
 */
SLINKY_API slinky_status slinky_jail_spec_set_root(slinky_jail_spec *spec, const char *path,
                                                   bool read_only);

/**
 * Override the source of the mount at `destination` (e.g. point /home at a
 * test folder). SLINKY_ENOTFOUND when the spec has no such mount.
 */
SLINKY_API slinky_status slinky_jail_spec_set_mount_source(slinky_jail_spec *spec,
                                                           const char *destination,
                                                           const char *source);

/**
 * Override the GPU device paths: `source` and `destination` are patterns
 * where %i is the GPU index (e.g. "/tmp/t/dev/nvidia%i", "/dev/nvidia%i").
 * `destination` NULL keeps the current one.
 */
SLINKY_API slinky_status slinky_jail_spec_set_gpu_devices(slinky_jail_spec *spec,
                                                          const char *source,
                                                          const char *destination);

/**
 * Append a bind mount of host `source` at `destination` (both absolute, no
 * templates), e.g. the folder of a batch script. Validated like the rest:
 * it must not hide an earlier mount.
 */
SLINKY_API slinky_status slinky_jail_spec_add_bind(slinky_jail_spec *spec, const char *source,
                                                   const char *destination, bool read_only);

/** Number of mounts. */
SLINKY_API size_t slinky_jail_spec_mount_count(const slinky_jail_spec *spec);

/**
 * Destination of mount i, or NULL when out of range. Borrowed until the spec
 * is modified or freed.
 */
SLINKY_API const char *slinky_jail_spec_mount_destination(const slinky_jail_spec *spec, size_t i);

/* ------------------------------------------------------------------ */
/* Job context                                                        */
/* ------------------------------------------------------------------ */

#define SLINKY_JAIL_JOB_VERSION 1

/**
 * What differs per job. Strings are borrowed for the duration of each call.
 * Unset fields: job_id NULL is invalid for setup/run/cleanup/render;
 * user NULL means the current user (or the uid's name); node NULL means
 * the short host name; uid/gid -1 means "from user" (or the current ones);
 * groups NULL with ngroups 0 means the user's supplementary groups (from
 * the group database) when user is set, none otherwise; gpus NULL or ""
 * means no GPU allocated, else a list of GPU indices "0,2" or ranges "0-3"
 * (as in SLURM_STEP_GPUS).
 */
typedef struct slinky_jail_job {
    unsigned int version;
    const char *job_id;
    const char *user;
    const char *node;
    int64_t uid;
    int64_t gid;
    const uint32_t *groups;
    size_t ngroups;
    const char *gpus;
    const char *cwd; /**< working folder inside the jail; NULL: spec's process.cwd */
} slinky_jail_job;

#define SLINKY_JAIL_JOB_INIT {SLINKY_JAIL_JOB_VERSION, NULL, NULL, NULL, -1, -1, NULL, 0, NULL, NULL}

/** Initialise a job context (SLINKY_EINVALID for an unknown version). */
SLINKY_API slinky_status slinky_jail_job_init(slinky_jail_job *job, unsigned int version);

/**
 * Expand a template ("%j", "%u", "%n", "%%") for a job. The result must not
 * contain ".." components (a user name like ".." is refused).
 */
SLINKY_API slinky_status slinky_jail_expand(char **out, const char *tmpl,
                                            const slinky_jail_job *job);

/* ------------------------------------------------------------------ */
/* Renderers                                                          */
/* ------------------------------------------------------------------ */

/**
 * Render an OCI runtime config.json (1.0.2) for crun/runc: the spec for this
 * job, running argv (NULL-terminated; NULL gives ["/bin/sh"]). `rootfs` is
 * the bundle's root folder: for a shared-root spec pass NULL (the root path
 * is used); for a host-root spec pass the folder made by
 * slinky_jail_bundle_create (host top-level folders are bind-mounted into it
 * read-only). No cgroup resources are rendered (the runtime is expected to
 * run with its cgroup manager disabled; device access is enforced by Slurm's
 * cgroup ConstrainDevices). *json_out released with slinky_free().
 */
SLINKY_API slinky_status slinky_jail_render_oci(char **json_out, const slinky_jail_spec *spec,
                                                const slinky_jail_job *job,
                                                const char *const *argv, const char *rootfs);

/**
 * Write an OCI bundle into `dir`: dir/config.json and dir/rootfs (for a
 * host-root spec, a skeleton with the host's top-level symlinks and empty
 * mount points; for a shared root, config.json points at the root folder).
 */
SLINKY_API slinky_status slinky_jail_bundle_create(const char *dir, const slinky_jail_spec *spec,
                                                   const slinky_jail_job *job,
                                                   const char *const *argv);

/**
 * Render the bwrap (bubblewrap 0.8) argument vector, without the leading
 * "bwrap" and followed by "--" and argv. *args_out holds the arguments each
 * terminated by a NUL byte; *count_out (may be NULL) receives their number
 * and *len_out (may be NULL) the total length. Released with slinky_free().
 */
SLINKY_API slinky_status slinky_jail_render_bwrap(char **args_out, size_t *count_out,
                                                  size_t *len_out,
                                                  const slinky_jail_spec *spec,
                                                  const slinky_jail_job *job,
                                                  const char *const *argv);

/** What slinky_jail_render_slurm produces. */
typedef enum slinky_jail_slurm_file {
    SLINKY_JAIL_SLURM_JOB_CONTAINER = 0, /**< job_container.conf (job_container/tmpfs) */
    SLINKY_JAIL_SLURM_CONF = 1,          /**< the slurm.conf lines the jail needs */
    SLINKY_JAIL_SLURM_PLUGSTACK = 2      /**< the plugstack.conf line for slinky_jail.so */
} slinky_jail_slurm_file;

/**
 * The Slurm file named "job-container", "slurm-conf" or "plugstack" (as the
 * tools spell them). SLINKY_EINVALID for other names.
 */
SLINKY_API slinky_status slinky_jail_slurm_file_parse(slinky_jail_slurm_file *out,
                                                      const char *name);

/**
 * Render a Slurm file for this spec. `plugin` is the path of slinky_jail.so
 * and `spec_path` where the spec lives on the nodes (both used only by
 * SLINKY_JAIL_SLURM_PLUGSTACK; NULL gives the installed defaults).
 */
SLINKY_API slinky_status slinky_jail_render_slurm(char **out, const slinky_jail_spec *spec,
                                                  slinky_jail_slurm_file which,
                                                  const char *plugin, const char *spec_path);

/* ------------------------------------------------------------------ */
/* Applier                                                            */
/* ------------------------------------------------------------------ */

/** Flags for slinky_jail_enter. */
enum slinky_jail_enter_flags {
    /** Keep the caller's credentials: the caller (e.g. slurmstepd) switches
     *  to the job user itself. The capability bounding and inheritable sets
     *  are still emptied and no_new_privs is set, so the credentials switch
     *  and exec end with no capabilities. */
    SLINKY_JAIL_ENTER_KEEP_IDENTITY = 1,
    /** Do not create a PID namespace (needs a fork to take effect). */
    SLINKY_JAIL_ENTER_NO_PIDNS = 2,
    /** Leave the environment untouched (the caller applies it). */
    SLINKY_JAIL_ENTER_KEEP_ENV = 4
};

/**
 * Create the job's scratch folder and its job-lifetime sources (idempotent;
 * several steps of one job share it) and record this process (`owner_pid`,
 * 0 for getpid()) as a user of it. Scratch left by crashed jobs (recorded
 * owners all gone, or a previous boot) is removed first. Needs root.
 */
SLINKY_API slinky_status slinky_jail_setup(const slinky_jail_spec *spec,
                                           const slinky_jail_job *job, int64_t owner_pid);

/**
 * Enter the jail in the calling process (as root): new mount (and ipc, uts)
 * namespaces, / made recursively slave, the jail root built and pivoted
 * into, mounts, /dev with the allocated GPUs only, /proc, no_new_privs,
 * capabilities dropped, the job's groups/gid/uid (unless KEEP_IDENTITY),
 * cwd and environment. Without SLINKY_JAIL_ENTER_NO_PIDNS the PID namespace
 * is unshared too (only children of the caller join it; use
 * slinky_jail_run for a jailed PID 1). On failure the process may be left
 * half-jailed: callers run this in a process that exits on failure.
 */
SLINKY_API slinky_status slinky_jail_enter(const slinky_jail_spec *spec,
                                           const slinky_jail_job *job, unsigned flags);

/**
 * Run argv (NULL-terminated, argv[0] searched in the jail's PATH) in the
 * jail: setup, fork into new namespaces, enter, exec; waits for it and
 * stores its exit status (0-255, or 128+signal) in *exit_out. SIGINT,
 * SIGTERM and SIGHUP received meanwhile are forwarded. With `cleanup`
 * true the job's scratch is removed afterwards (a one-shot job).
 * Failures before exec are reported as errors (not as an exit status).
 * Signal forwarding uses process-wide handlers (restored afterwards): run
 * one slinky_jail_run at a time per process.
 */
SLINKY_API slinky_status slinky_jail_run(int *exit_out, const slinky_jail_spec *spec,
                                         const slinky_jail_job *job,
                                         const char *const *argv, bool cleanup);

/**
 * Empty and remove the job's scratch folder <scratch>/job-<id>. Never
 * follows symlinks nor crosses into other file systems. Removing a folder
 * that does not exist is not an error.
 */
SLINKY_API slinky_status slinky_jail_cleanup(const slinky_jail_spec *spec, const char *job_id);

/**
 * Remove scratch folders of jobs whose recorded owners are all gone (or
 * that were made before the current boot). *removed_out (may be NULL)
 * receives how many were removed. `keep_job_id` (may be NULL) is never
 * removed.
 */
SLINKY_API slinky_status slinky_jail_cleanup_stale(size_t *removed_out,
                                                   const slinky_jail_spec *spec,
                                                   const char *keep_job_id);

/**
 * The environment a jailed process gets from `envp` (NULL-terminated; NULL
 * means none): process.environment.clear drops everything but `pass`,
 * `set` overrides, PATH and LD_LIBRARY_PATH prepends are applied. *out is
 * NUL-separated "KEY=VALUE" entries (count in *count_out, may be NULL).
 */
SLINKY_API slinky_status slinky_jail_environment(char **out, size_t *count_out,
                                                 const slinky_jail_spec *spec,
                                                 const char *const *envp);

/**
 * slinky_jail_environment for a job: in addition, CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES name the job's allocated GPUs as the jail shows them,
 * renumbered from 0 ("0,1" for two GPUs), whatever envp held; with no GPU
 * allocated both are removed. slinky_jail_enter and slinky_jail_run apply the
 * same environment.
 */
SLINKY_API slinky_status slinky_jail_job_environment(char **out, size_t *count_out,
                                                     const slinky_jail_spec *spec,
                                                     const slinky_jail_job *job,
                                                     const char *const *envp);

SLINKY_END_DECLS

#endif
