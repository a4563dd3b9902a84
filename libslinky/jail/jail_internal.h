/* jail module internals (never installed). */
#ifndef SLINKY_JAIL_INTERNAL_H
#define SLINKY_JAIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"
#include "slinky/jail.h"

typedef enum slinky_jail__mount_type {
    SLINKY_JAIL__BIND = 0,
    SLINKY_JAIL__RBIND = 1,
    SLINKY_JAIL__TMPFS = 2,
    SLINKY_JAIL__PROC = 3
} slinky_jail__mount_type;

typedef enum slinky_jail__create {
    SLINKY_JAIL__CREATE_NONE = 0,
    SLINKY_JAIL__CREATE_DIR = 1,
    SLINKY_JAIL__CREATE_FILE = 2
} slinky_jail__create;

typedef struct slinky_jail__mount {
    slinky_jail__mount_type type;
    char *source;      /* bind/rbind: host path (templates) or, lifetime job, relative to scratch */
    char *destination; /* absolute, inside the jail */
    bool read_only, nosuid, nodev, noexec;
    char *size;        /* tmpfs: "64m", "50%" or NULL */
    int mode;          /* tmpfs root / created dir mode, -1 unset */
    slinky_jail__create create;
    bool optional;
    bool job_lifetime; /* lifetime: job */
} slinky_jail__mount;

struct slinky_jail_spec {
    char *root_path; /* "/" = host root */
    bool root_read_only;
    bool root_nosuid, root_nodev; /* the root's binds (default true) */
    char *scratch;
    bool ns_pid, ns_ipc, ns_uts; /* mount namespace is always on */
    char *hostname;              /* uts: NULL keeps the node name */
    slinky_jail__mount *mounts;
    size_t nmounts;
    /* devices */
    char *gpu_source;      /* pattern with %i */
    char *gpu_destination; /* pattern with %i */
    char **gpu_control;    /* exposed when >= 1 GPU is allocated (missing ones skipped) */
    size_t ngpu_control;
    bool gpu_control_always;
    char **dev_extra; /* always exposed (missing ones skipped) */
    size_t ndev_extra;
    /* environment */
    bool env_clear;
    char **env_pass;
    size_t nenv_pass;
    char **env_set; /* pairs: key, value */
    size_t nenv_set;
    char **path_prepend;
    size_t npath_prepend;
    char **ld_prepend;
    size_t nld_prepend;
    /* process */
    bool as_job_user; /* user: job; otherwise uid/gid below */
    int64_t uid, gid;
    char *cwd; /* NULL: keep (job's cwd, else "/") */
    bool no_new_privs;
    char **caps_keep;
    size_t ncaps_keep;
};

/* spec.c */
SLINKY_HIDDEN slinky_jail_spec *slinky_jail__spec_alloc(void);
SLINKY_HIDDEN int slinky_jail__strv_push(char ***v, size_t *n, const char *s);
SLINKY_HIDDEN void slinky_jail__strv_free(char **v, size_t n);
SLINKY_HIDDEN int slinky_jail__mount_push(slinky_jail_spec *s, slinky_jail__mount_type type,
                                          const char *source, const char *dest);
SLINKY_HIDDEN const char *slinky_jail__mount_type_name(slinky_jail__mount_type t);

/* caps.c */
SLINKY_HIDDEN int slinky_jail__cap_from_name(const char *name);
SLINKY_HIDDEN const char *slinky_jail__cap_name(int cap);
SLINKY_HIDDEN int slinky_jail__cap_last(void);

/* template.c */
/** Resolved job facts (strings owned). */
typedef struct slinky_jail__ctx {
    char *job_id;
    char *user;
    char *node;
    uid_t uid;
    gid_t gid;
    gid_t *groups;
    size_t ngroups;
    int *gpus; /* GPU indices */
    size_t ngpus;
    char *cwd;
    char *job_dir; /* <scratch>/job-<id> */
} slinky_jail__ctx;

SLINKY_HIDDEN int slinky_jail__ctx_resolve(slinky_jail__ctx *ctx, const slinky_jail_spec *spec,
                                           const slinky_jail_job *job, bool need_job);
SLINKY_HIDDEN void slinky_jail__ctx_dispose(slinky_jail__ctx *ctx);
/** Check spec (non-NULL, valid) and resolve the job: the start of every job operation. */
SLINKY_HIDDEN int slinky_jail__begin(slinky_jail__ctx *ctx, const slinky_jail_spec *spec,
                                     const slinky_jail_job *job, bool need_job);
/* slinky_jail_setup / slinky_jail_enter on a resolved context (slinky_jail__begin):
 * slinky_jail_run looks the job user up once, for both (not again in its child). */
SLINKY_HIDDEN int slinky_jail__setup_ctx(const slinky_jail_spec *spec,
                                         const slinky_jail__ctx *ctx, int64_t owner_pid);
SLINKY_HIDDEN int slinky_jail__enter_ctx(const slinky_jail_spec *spec, slinky_jail__ctx *ctx,
                                         unsigned flags);
SLINKY_HIDDEN int slinky_jail__parse_gpus(int **out, size_t *n_out, const char *list);
SLINKY_HIDDEN int slinky_jail__expand_ctx(char **out, const char *tmpl,
                                          const slinky_jail__ctx *ctx);
/** Host source of a mount for this job (templates expanded, job sources under job_dir). */
SLINKY_HIDDEN int slinky_jail__mount_source(char **out, const slinky_jail__mount *m,
                                            const slinky_jail__ctx *ctx);
/** Expand a GPU pattern (%i). */
SLINKY_HIDDEN char *slinky_jail__gpu_path(const char *pattern, int index);
SLINKY_HIDDEN bool slinky_jail__path_has_dotdot(const char *p);
SLINKY_HIDDEN int slinky_jail__valid_job_id(const char *id);
/** mode/size parse helpers */
SLINKY_HIDDEN bool slinky_jail__valid_size(const char *s);

/* env.c */
/* ctx NULL: no job known, GPU variables pass as the rest; else CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES name the job's GPUs renumbered from 0 (unset with none). */
SLINKY_HIDDEN int slinky_jail__env_build(char ***out, size_t *n_out,
                                         const slinky_jail_spec *spec,
                                         const slinky_jail__ctx *ctx,
                                         const char *const *envp);

/* scratch.c */
SLINKY_HIDDEN int slinky_jail__rmtree(const char *path);

/* rootfs.c: top-level entries of the host root that the jail replicates */
typedef struct slinky_jail__top {
    char *name;
    char *link; /* symlink target, or NULL for a folder/file */
    bool is_dir;
} slinky_jail__top;
SLINKY_HIDDEN int slinky_jail__host_top(slinky_jail__top **out, size_t *n_out,
                                        const slinky_jail_spec *spec, const char *root);
SLINKY_HIDDEN void slinky_jail__host_top_free(slinky_jail__top *t, size_t n);
/** Is /name the destination of one of the spec's mounts? */
SLINKY_HIDDEN bool slinky_jail__is_mount_top(const slinky_jail_spec *s, const char *name);
/** The scratch folder's path inside the jail when the root exposes it, else NULL. */
SLINKY_HIDDEN char *slinky_jail__scratch_in_jail(const slinky_jail_spec *s);
/** Destination of mount `upto` with symlinks resolved as the jail sees them (renderers). */
SLINKY_HIDDEN int slinky_jail__resolve_dest(char **out, const slinky_jail_spec *s,
                                            const slinky_jail__ctx *ctx, size_t upto,
                                            const char *dest);

#endif
