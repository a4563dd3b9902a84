/* Jail spec objects: allocation, copy, the default profile, setters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jail_internal.h"

slinky_jail_spec *slinky_jail__spec_alloc(void)
{
    slinky_jail_spec *s = slinky__calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->root_read_only = true;
    s->root_nosuid = true;
    s->root_nodev = true;
    s->ns_pid = true;
    s->ns_uts = true;
    s->as_job_user = true;
    s->uid = -1;
    s->gid = -1;
    s->no_new_privs = true;
    return s;
}

int slinky_jail__strv_push(char ***v, size_t *n, const char *s)
{
    char **nv = slinky__realloc(*v, (*n + 2) * sizeof(char *));
    if (!nv)
        return SLINKY_ENOMEM;
    *v = nv;
    nv[*n] = slinky__strdup(s ? s : "");
    if (!nv[*n])
        return SLINKY_ENOMEM;
    (*n)++;
    nv[*n] = NULL;
    return 0;
}

void slinky_jail__strv_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void mount_dispose(slinky_jail__mount *m)
{
    free(m->source);
    free(m->destination);
    free(m->size);
}

int slinky_jail__mount_push(slinky_jail_spec *s, slinky_jail__mount_type type, const char *source,
                            const char *dest)
{
    slinky_jail__mount *nm = slinky__realloc(s->mounts, (s->nmounts + 1) * sizeof(*nm));
    if (!nm)
        return SLINKY_ENOMEM;
    s->mounts = nm;
    slinky_jail__mount *m = &nm[s->nmounts];
    memset(m, 0, sizeof(*m));
    m->type = type;
    m->mode = -1;
    m->nosuid = true;
    m->nodev = true;
    m->create = SLINKY_JAIL__CREATE_DIR;
    m->noexec = type == SLINKY_JAIL__PROC;
    if (source && !(m->source = slinky__strdup(source)))
        return SLINKY_ENOMEM;
    if (!(m->destination = slinky__strdup(dest ? dest : ""))) {
        free(m->source);
        return SLINKY_ENOMEM;
    }
    s->nmounts++;
    return 0;
}

const char *slinky_jail__mount_type_name(slinky_jail__mount_type t)
{
    switch (t) {
    case SLINKY_JAIL__BIND: return "bind";
    case SLINKY_JAIL__RBIND: return "rbind";
    case SLINKY_JAIL__TMPFS: return "tmpfs";
    case SLINKY_JAIL__PROC: return "proc";
    }
    return "?";
}

void slinky_jail_spec_free(slinky_jail_spec *s)
{
    if (!s)
        return;
    free(s->root_path);
    free(s->scratch);
    free(s->hostname);
    for (size_t i = 0; i < s->nmounts; i++)
        mount_dispose(&s->mounts[i]);
    free(s->mounts);
    free(s->gpu_source);
    free(s->gpu_destination);
    slinky_jail__strv_free(s->gpu_control, s->ngpu_control);
    slinky_jail__strv_free(s->dev_extra, s->ndev_extra);
    slinky_jail__strv_free(s->env_pass, s->nenv_pass);
    slinky_jail__strv_free(s->env_set, s->nenv_set);
    slinky_jail__strv_free(s->path_prepend, s->npath_prepend);
    slinky_jail__strv_free(s->ld_prepend, s->nld_prepend);
    free(s->cwd);
    slinky_jail__strv_free(s->caps_keep, s->ncaps_keep);
    free(s);
}

static int dup_opt(char **dst, const char *src)
{
    *dst = NULL;
    if (src && !(*dst = slinky__strdup(src)))
        return SLINKY_ENOMEM;
    return 0;
}

static int strv_copy(char ***dst, size_t *ndst, char *const *src, size_t n)
{
    *dst = NULL;
    *ndst = 0;
    for (size_t i = 0; i < n; i++)
        if (slinky_jail__strv_push(dst, ndst, src[i]) < 0)
            return SLINKY_ENOMEM;
    return 0;
}

slinky_status slinky_jail_spec_new_copy(slinky_jail_spec **out, const slinky_jail_spec *spec)
{
    if (!out || !spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_jail_spec *s = slinky__calloc(1, sizeof(*s));
    if (!s)
        return SLINKY_ENOMEM;
    *s = *spec;
    /* reset every owned pointer before copying so that a failure frees safely */
    s->root_path = s->scratch = s->hostname = s->gpu_source = s->gpu_destination = s->cwd = NULL;
    s->mounts = NULL;
    s->nmounts = 0;
    s->gpu_control = s->dev_extra = s->env_pass = s->env_set = NULL;
    s->path_prepend = s->ld_prepend = s->caps_keep = NULL;
    s->ngpu_control = s->ndev_extra = s->nenv_pass = s->nenv_set = 0;
    s->npath_prepend = s->nld_prepend = s->ncaps_keep = 0;
    int rc = 0;
    if ((rc = dup_opt(&s->root_path, spec->root_path)) < 0 ||
        (rc = dup_opt(&s->scratch, spec->scratch)) < 0 ||
        (rc = dup_opt(&s->hostname, spec->hostname)) < 0 ||
        (rc = dup_opt(&s->gpu_source, spec->gpu_source)) < 0 ||
        (rc = dup_opt(&s->gpu_destination, spec->gpu_destination)) < 0 ||
        (rc = dup_opt(&s->cwd, spec->cwd)) < 0 ||
        (rc = strv_copy(&s->gpu_control, &s->ngpu_control, spec->gpu_control,
                        spec->ngpu_control)) < 0 ||
        (rc = strv_copy(&s->dev_extra, &s->ndev_extra, spec->dev_extra, spec->ndev_extra)) < 0 ||
        (rc = strv_copy(&s->env_pass, &s->nenv_pass, spec->env_pass, spec->nenv_pass)) < 0 ||
        (rc = strv_copy(&s->env_set, &s->nenv_set, spec->env_set, spec->nenv_set)) < 0 ||
        (rc = strv_copy(&s->path_prepend, &s->npath_prepend, spec->path_prepend,
                        spec->npath_prepend)) < 0 ||
        (rc = strv_copy(&s->ld_prepend, &s->nld_prepend, spec->ld_prepend,
                        spec->nld_prepend)) < 0 ||
        (rc = strv_copy(&s->caps_keep, &s->ncaps_keep, spec->caps_keep, spec->ncaps_keep)) < 0)
        goto fail;
    for (size_t i = 0; i < spec->nmounts; i++) {
        const slinky_jail__mount *m = &spec->mounts[i];
        if ((rc = slinky_jail__mount_push(s, m->type, m->source, m->destination)) < 0)
            goto fail;
        slinky_jail__mount *c = &s->mounts[s->nmounts - 1];
        char *src = c->source, *dst = c->destination;
        *c = *m;
        c->source = src;
        c->destination = dst;
        c->size = NULL;
        if ((rc = dup_opt(&c->size, m->size)) < 0)
            goto fail;
    }
    *out = s;
    return 0;
fail:
    slinky_jail_spec_free(s);
    return rc;
}

/* ---------------------------------------------------------------- default profile */

static int add_bind(slinky_jail_spec *s, const char *src, const char *dst, bool ro, bool optional)
{
    int rc = slinky_jail__mount_push(s, SLINKY_JAIL__BIND, src, dst);
    if (rc < 0)
        return rc;
    slinky_jail__mount *m = &s->mounts[s->nmounts - 1];
    m->read_only = ro;
    m->optional = optional;
    return 0;
}

slinky_status slinky_jail_spec_new_default(slinky_jail_spec **out)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL out");
    slinky_jail_spec *s = slinky_jail__spec_alloc();
    if (!s)
        return SLINKY_ENOMEM;
    int rc = 0;
    static const char *const control[] = {"/dev/nvidiactl", "/dev/nvidia-uvm",
                                          "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"};
    static const char *const paths[] = {"/opt/hpcx/ompi/bin", "/usr/local/cuda/bin"};
    static const char *const ld[] = {"/opt/hpcx/ompi/lib", "/usr/local/cuda/lib64"};
    if (!(s->root_path = slinky__strdup("/")) || !(s->scratch = slinky__strdup("/mnt/nvme/jobs")))
        goto oom;
    /* ipc stays shared: tasks of one step on a node talk through SysV IPC (MPI). */
    s->ns_ipc = false;
    if ((rc = add_bind(s, "/home", "/home", false, false)) < 0 ||
        (rc = add_bind(s, "/shared", "/shared", true, false)) < 0 ||
        (rc = add_bind(s, "/mnt/nvme/local", "/local", false, false)) < 0 ||
        (rc = add_bind(s, "tmp", "/tmp", false, false)) < 0)
        goto fail;
    /* per-job folders are owned by the job user, mode 0700: invisible to other users */
    s->mounts[s->nmounts - 1].job_lifetime = true;
    if ((rc = add_bind(s, "shm", "/dev/shm", false, false)) < 0)
        goto fail;
    s->mounts[s->nmounts - 1].job_lifetime = true;
    if ((rc = add_bind(s, "/opt/hpcx", "/opt/hpcx", true, true)) < 0 ||
        (rc = add_bind(s, "/usr/local/cuda", "/usr/local/cuda", true, true)) < 0 ||
        (rc = slinky_jail__mount_push(s, SLINKY_JAIL__PROC, NULL, "/proc")) < 0)
        goto fail;
    if (!(s->gpu_source = slinky__strdup("/dev/nvidia%i")) ||
        !(s->gpu_destination = slinky__strdup("/dev/nvidia%i")))
        goto oom;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(control); i++)
        if ((rc = slinky_jail__strv_push(&s->gpu_control, &s->ngpu_control, control[i])) < 0)
            goto fail;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(paths); i++)
        if ((rc = slinky_jail__strv_push(&s->path_prepend, &s->npath_prepend, paths[i])) < 0 ||
            (rc = slinky_jail__strv_push(&s->ld_prepend, &s->nld_prepend, ld[i])) < 0)
            goto fail;
    *out = s;
    return 0;
oom:
    rc = slinky__error_oom();
fail:
    slinky_jail_spec_free(s);
    return rc;
}

/* ---------------------------------------------------------------- accessors */

const char *slinky_jail_spec_get_scratch(const slinky_jail_spec *spec)
{
    return spec ? spec->scratch : NULL;
}

static int check_abs(const char *what, const char *p)
{
    if (!p || p[0] != '/' || slinky_jail__path_has_dotdot(p))
        return slinky__error_set(SLINKY_EINVALID, "jail: %s must be an absolute path without '..' (got '%s')",
                                 what, p ? p : "(null)");
    return 0;
}

slinky_status slinky_jail_spec_set_scratch(slinky_jail_spec *spec, const char *path)
{
    if (!spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    int rc = check_abs("scratch", path);
    if (rc < 0)
        return rc;
    char *c = slinky__strdup(path);
    if (!c)
        return SLINKY_ENOMEM;
    free(spec->scratch);
    spec->scratch = c;
    return 0;
}

slinky_status slinky_jail_spec_set_root(slinky_jail_spec *spec, const char *path, bool read_only)
{
    if (!spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    int rc = check_abs("root.path", path);
    if (rc < 0)
        return rc;
    char *c = slinky__strdup(path);
    if (!c)
        return SLINKY_ENOMEM;
    free(spec->root_path);
    spec->root_path = c;
    spec->root_read_only = read_only;
    return 0;
}

slinky_status slinky_jail_spec_set_mount_source(slinky_jail_spec *spec, const char *destination,
                                                const char *source)
{
    if (!spec || !destination || !source)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    for (size_t i = 0; i < spec->nmounts; i++) {
        slinky_jail__mount *m = &spec->mounts[i];
        if (strcmp(m->destination, destination) != 0)
            continue;
        if (m->type != SLINKY_JAIL__BIND && m->type != SLINKY_JAIL__RBIND)
            return slinky__error_set(SLINKY_EINVALID, "jail: mount %s is a %s mount (no source)",
                                     destination, slinky_jail__mount_type_name(m->type));
        if (m->job_lifetime) {
            if (source[0] == '/' || slinky_jail__path_has_dotdot(source))
                return slinky__error_set(SLINKY_EINVALID,
                                         "jail: mount %s has lifetime job: its source is a "
                                         "relative path in the job's scratch folder (got '%s')",
                                         destination, source);
        } else if (source[0] != '/') {
            return slinky__error_set(SLINKY_EINVALID, "jail: source for %s must be absolute ('%s')",
                                     destination, source);
        }
        char *c = slinky__strdup(source);
        if (!c)
            return SLINKY_ENOMEM;
        free(m->source);
        m->source = c;
        return 0;
    }
    return slinky__error_set(SLINKY_ENOTFOUND, "jail: the spec has no mount at %s", destination);
}

slinky_status slinky_jail_spec_set_gpu_devices(slinky_jail_spec *spec, const char *source,
                                               const char *destination)
{
    if (!spec || !source)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    int rc;
    if ((rc = check_abs("devices.gpu.source", source)) < 0 ||
        (destination && (rc = check_abs("devices.gpu.destination", destination)) < 0))
        return rc;
    char *s = slinky__strdup(source);
    char *d = destination ? slinky__strdup(destination) : NULL;
    if (!s || (destination && !d)) {
        free(s);
        free(d);
        return SLINKY_ENOMEM;
    }
    free(spec->gpu_source);
    spec->gpu_source = s;
    if (d) {
        free(spec->gpu_destination);
        spec->gpu_destination = d;
    }
    return 0;
}

slinky_status slinky_jail_spec_add_bind(slinky_jail_spec *spec, const char *source,
                                        const char *destination, bool read_only)
{
    if (!spec || !source || !destination)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    int rc;
    if ((rc = check_abs("source", source)) < 0 || (rc = check_abs("destination", destination)) < 0)
        return rc;
    if (strchr(source, '%') || strchr(destination, '%'))
        return slinky__error_set(SLINKY_EINVALID, "jail: no templates in added binds");
    if ((rc = slinky_jail__mount_push(spec, SLINKY_JAIL__BIND, source, destination)) < 0)
        return rc;
    spec->mounts[spec->nmounts - 1].read_only = read_only;
    if ((rc = slinky_jail_spec_validate(spec)) < 0) {
        slinky_jail__mount *m = &spec->mounts[--spec->nmounts];
        free(m->source);
        free(m->destination);
        return rc;
    }
    return 0;
}

size_t slinky_jail_spec_mount_count(const slinky_jail_spec *spec)
{
    return spec ? spec->nmounts : 0;
}

const char *slinky_jail_spec_mount_destination(const slinky_jail_spec *spec, size_t i)
{
    if (!spec || i >= spec->nmounts)
        return NULL;
    return spec->mounts[i].destination;
}

slinky_status slinky_jail_job_init(slinky_jail_job *job, unsigned int version)
{
    if (!job || version != SLINKY_JAIL_JOB_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "jail: unknown slinky_jail_job version %u",
                                 version);
    slinky_jail_job init = SLINKY_JAIL_JOB_INIT;
    *job = init;
    return 0;
}
