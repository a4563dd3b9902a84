/* Renderer: OCI runtime config.json (1.0.2) and bundles for crun/runc. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail_internal.h"

extern char **environ;

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((rc = (x)) < 0)                                                                        \
            goto out;                                                                              \
    } while (0)

static int arr_str(slinky_doc_value *a, const char *s)
{
    slinky_doc_value *e = NULL;
    int rc = slinky_doc_value_array_append(&e, a);
    return rc < 0 ? rc : slinky_doc_value_set_string(e, s);
}

static int put_arr(slinky_doc_value **out, slinky_doc_value *obj, const char *key)
{
    int rc = slinky_doc_value_object_put(out, obj, key);
    return rc < 0 ? rc : slinky_doc_value_set_array(*out);
}

/* one entry of "mounts" */
static int oci_mount(slinky_doc_value *mounts, const char *dest, const char *type,
                     const char *source, const char *const *opts)
{
    slinky_doc_value *m = NULL, *o = NULL;
    int rc = slinky_doc_value_array_append(&m, mounts);
    TRY(slinky_doc_value_set_object(m));
    TRY(slinky_doc_value_object_set_string(m, "destination", dest));
    TRY(slinky_doc_value_object_set_string(m, "type", type));
    TRY(slinky_doc_value_object_set_string(m, "source", source));
    TRY(put_arr(&o, m, "options"));
    for (size_t i = 0; opts[i]; i++)
        TRY(arr_str(o, opts[i]));
out:
    return rc;
}

static int bind_opts(const char **o, bool rec, bool ro, bool nosuid, bool nodev, bool noexec)
{
    int n = 0;
    o[n++] = rec ? "rbind" : "bind";
    if (ro)
        o[n++] = "ro";
    if (nosuid)
        o[n++] = "nosuid";
    if (nodev)
        o[n++] = "nodev";
    if (noexec)
        o[n++] = "noexec";
    o[n] = NULL;
    return n;
}

/* one of the spec's mounts, at its resolved destination */
static int oci_spec_mount(slinky_doc_value *mounts, const slinky_jail__mount *m, const char *dest,
                          const slinky_jail__ctx *ctx)
{
    const char *opts[8];
    int rc = 0;
    if (m->type == SLINKY_JAIL__PROC) {
        static const char *const po[] = {"nosuid", "noexec", "nodev", NULL};
        return oci_mount(mounts, dest, "proc", "proc", po);
    }
    if (m->type == SLINKY_JAIL__TMPFS) {
        char mode[32], size[48];
        const char *to[10];
        int k = 0;
        if (m->read_only)
            to[k++] = "ro";
        if (m->nosuid)
            to[k++] = "nosuid";
        if (m->nodev)
            to[k++] = "nodev";
        if (m->noexec)
            to[k++] = "noexec";
        if (m->mode >= 0) {
            snprintf(mode, sizeof(mode), "mode=%04o", (unsigned)m->mode);
            to[k++] = mode;
        }
        if (m->size) {
            snprintf(size, sizeof(size), "size=%s", m->size);
            to[k++] = size;
        }
        to[k] = NULL;
        return oci_mount(mounts, dest, "tmpfs", "tmpfs", to);
    }
    char *src = NULL;
    if ((rc = slinky_jail__mount_source(&src, m, ctx)) < 0)
        return rc;
    if (!(m->optional && access(src, F_OK) != 0)) {
        bind_opts(opts, m->type == SLINKY_JAIL__RBIND, m->read_only, m->nosuid, m->nodev,
                  m->noexec);
        rc = oci_mount(mounts, dest, "bind", src, opts);
    }
    free(src);
    return rc;
}

static int render_doc(slinky_doc **out, const slinky_jail_spec *spec, const slinky_jail__ctx *ctx,
                      const char *const *argv, const char *rootfs)
{
    slinky_doc *doc = NULL;
    slinky_jail__top *top = NULL;
    size_t ntop = 0;
    char **env = NULL;
    size_t nenv = 0;
    int rc = slinky_doc_new(&doc);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(doc), *p = NULL, *o = NULL, *a = NULL, *mounts = NULL;
    const char *opts[8];
    char buf[4096];
    TRY(slinky_doc_value_set_object(r));
    TRY(slinky_doc_value_object_set_string(r, "ociVersion", "1.0.2"));
    /* process */
    TRY(slinky_doc_value_object_put(&p, r, "process"));
    TRY(slinky_doc_value_set_object(p));
    TRY(slinky_doc_value_object_set_bool(p, "terminal", false));
    TRY(slinky_doc_value_object_put(&o, p, "user"));
    TRY(slinky_doc_value_set_object(o));
    int64_t uid = spec->as_job_user ? (int64_t)ctx->uid : spec->uid;
    int64_t gid = spec->as_job_user ? (int64_t)ctx->gid : spec->gid;
    TRY(slinky_doc_value_object_set_int(o, "uid", uid));
    TRY(slinky_doc_value_object_set_int(o, "gid", gid));
    if (spec->as_job_user) {
        TRY(put_arr(&a, o, "additionalGids"));
        for (size_t i = 0; i < ctx->ngroups; i++) {
            slinky_doc_value *e = NULL;
            TRY(slinky_doc_value_array_append(&e, a));
            TRY(slinky_doc_value_set_int(e, ctx->groups[i]));
        }
    }
    TRY(put_arr(&a, p, "args"));
    if (argv && argv[0]) {
        for (size_t i = 0; argv[i]; i++)
            TRY(arr_str(a, argv[i]));
    } else {
        TRY(arr_str(a, "/bin/sh"));
    }
    TRY(slinky_jail__env_build(&env, &nenv, spec, ctx, (const char *const *)environ));
    TRY(put_arr(&a, p, "env"));
    for (size_t i = 0; i < nenv; i++)
        TRY(arr_str(a, env[i]));
    TRY(slinky_doc_value_object_set_string(p, "cwd", ctx->cwd ? ctx->cwd : "/"));
    TRY(slinky_doc_value_object_put(&o, p, "capabilities"));
    TRY(slinky_doc_value_set_object(o));
    static const char *const sets[] = {"bounding", "effective", "inheritable", "permitted",
                                       "ambient"};
    for (size_t s = 0; s < SLINKY__ARRAY_SIZE(sets); s++) {
        TRY(put_arr(&a, o, sets[s]));
        if (s == 2 || s == 4)
            continue; /* inheritable and ambient stay empty */
        for (size_t i = 0; i < spec->ncaps_keep; i++)
            TRY(arr_str(a, slinky_jail__cap_name(slinky_jail__cap_from_name(spec->caps_keep[i]))));
    }
    TRY(slinky_doc_value_object_set_bool(p, "noNewPrivileges", spec->no_new_privs));
    /* root */
    TRY(slinky_doc_value_object_put(&o, r, "root"));
    TRY(slinky_doc_value_set_object(o));
    TRY(slinky_doc_value_object_set_string(o, "path", rootfs ? rootfs : "rootfs"));
    TRY(slinky_doc_value_object_set_bool(o, "readonly", true));
    if (spec->ns_uts && spec->hostname)
        TRY(slinky_doc_value_object_set_string(r, "hostname", spec->hostname));
    /* mounts: the root's top-level folders, /dev, the GPUs, then the spec's mounts */
    TRY(put_arr(&mounts, r, "mounts"));
    TRY(slinky_jail__host_top(&top, &ntop, spec, spec->root_path));
    for (size_t i = 0; i < ntop; i++) {
        if (top[i].link || slinky_jail__is_mount_top(spec, top[i].name) || !strcmp(top[i].name, "tmp"))
            continue; /* symlinks and empty mount points live in the bundle's rootfs */
        char dest[1024];
        snprintf(dest, sizeof(dest), "/%s", top[i].name);
        snprintf(buf, sizeof(buf), "%s/%s", strcmp(spec->root_path, "/") ? spec->root_path : "",
                 top[i].name);
        bind_opts(opts, true, spec->root_read_only, spec->root_nosuid, spec->root_nodev, false);
        TRY(oci_mount(mounts, dest, "bind", buf, opts));
    }
    char *hide = slinky_jail__scratch_in_jail(spec);
    if (hide) {
        static const char *const ho[] = {"ro", "nosuid", "nodev", "noexec", "size=4k", NULL};
        rc = oci_mount(mounts, hide, "tmpfs", "tmpfs", ho);
        free(hide);
        if (rc < 0)
            goto out;
    }
    {
        static const char *const dev[] = {"nosuid", "noexec", "strictatime", "mode=755",
                                          "size=64k", NULL};
        static const char *const pts[] = {"nosuid", "noexec", "newinstance", "ptmxmode=0666",
                                          "mode=0620", NULL};
        TRY(oci_mount(mounts, "/dev", "tmpfs", "tmpfs", dev));
        TRY(oci_mount(mounts, "/dev/pts", "devpts", "devpts", pts));
    }
    for (size_t i = 0; i < ctx->ngpus; i++) {
        if (!spec->gpu_source) {
            rc = slinky__error_set(SLINKY_EINVALID,
                                   "jail: GPUs are allocated but the spec has no devices.gpu");
            goto out;
        }
        char *s = slinky_jail__gpu_path(spec->gpu_source, ctx->gpus[i]);
        char *d = slinky_jail__gpu_path(spec->gpu_destination, ctx->gpus[i]);
        bind_opts(opts, false, false, true, false, true);
        rc = (s && d) ? oci_mount(mounts, d, "bind", s, opts) : SLINKY_ENOMEM;
        free(s);
        free(d);
        if (rc < 0)
            goto out;
    }
    bool control = ctx->ngpus > 0 || spec->gpu_control_always;
    for (size_t i = 0; control && i < spec->ngpu_control; i++) {
        if (access(spec->gpu_control[i], F_OK) != 0)
            continue;
        bind_opts(opts, false, false, true, false, true);
        TRY(oci_mount(mounts, spec->gpu_control[i], "bind", spec->gpu_control[i], opts));
    }
    for (size_t i = 0; i < spec->ndev_extra; i++) {
        if (access(spec->dev_extra[i], F_OK) != 0)
            continue;
        bind_opts(opts, false, false, true, false, true);
        TRY(oci_mount(mounts, spec->dev_extra[i], "bind", spec->dev_extra[i], opts));
    }
    for (size_t i = 0; i < spec->nmounts; i++) {
        const slinky_jail__mount *m = &spec->mounts[i];
        char *dest = NULL;
        TRY(slinky_jail__resolve_dest(&dest, spec, ctx, i, m->destination));
        rc = oci_spec_mount(mounts, m, dest, ctx);
        free(dest);
        if (rc < 0)
            goto out;
    }
    /* linux */
    TRY(slinky_doc_value_object_put(&o, r, "linux"));
    TRY(slinky_doc_value_set_object(o));
    TRY(put_arr(&a, o, "namespaces"));
    const char *ns[4];
    size_t nns = 0;
    ns[nns++] = "mount";
    if (spec->ns_pid)
        ns[nns++] = "pid";
    if (spec->ns_ipc)
        ns[nns++] = "ipc";
    if (spec->ns_uts)
        ns[nns++] = "uts";
    for (size_t i = 0; i < nns; i++) {
        slinky_doc_value *e = NULL;
        TRY(slinky_doc_value_array_append(&e, a));
        TRY(slinky_doc_value_set_object(e));
        TRY(slinky_doc_value_object_set_string(e, "type", ns[i]));
    }
    /* no masked /proc paths: nested user namespaces (Apptainer) must mount a fresh /proc */
    TRY(put_arr(&a, o, "maskedPaths"));
    TRY(put_arr(&a, o, "readonlyPaths"));
    TRY(slinky_doc_value_object_set_string(o, "rootfsPropagation", "slave"));
    *out = doc;
    doc = NULL;
out:
    slinky_jail__host_top_free(top, ntop);
    slinky_jail__strv_free(env, nenv);
    slinky_doc_free(doc);
    return rc;
}

slinky_status slinky_jail_render_oci(char **json_out, const slinky_jail_spec *spec,
                                     const slinky_jail_job *job, const char *const *argv,
                                     const char *rootfs)
{
    if (!json_out)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_jail__ctx ctx;
    int rc = slinky_jail__begin(&ctx, spec, job, false);
    if (rc < 0)
        return rc;
    slinky_doc *doc = NULL;
    rc = render_doc(&doc, spec, &ctx, argv, rootfs);
    slinky_jail__ctx_dispose(&ctx);
    if (rc < 0)
        return rc;
    char *json = NULL;
    rc = slinky_doc_value_dump_json(&json, NULL, slinky_doc_root(doc), SLINKY_DOC_DUMP_PRETTY);
    slinky_doc_free(doc);
    if (rc == 0)
        *json_out = json;
    return rc;
}

slinky_status slinky_jail_bundle_create(const char *dir, const slinky_jail_spec *spec,
                                        const slinky_jail_job *job, const char *const *argv)
{
    if (!dir || !spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    char *json = NULL, *rootfs = NULL, *cfg = NULL;
    slinky_jail__top *top = NULL;
    size_t ntop = 0;
    int rc = slinky_jail_render_oci(&json, spec, job, argv, "rootfs");
    if (rc < 0)
        return rc;
    if (!(rootfs = slinky__sprintf("%s/rootfs", dir)) ||
        !(cfg = slinky__sprintf("%s/config.json", dir))) {
        rc = SLINKY_ENOMEM;
        goto out;
    }
    if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || (mkdir(rootfs, 0755) < 0 && errno != EEXIST)) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot create bundle %s", dir);
        goto out;
    }
    if ((rc = slinky_jail__host_top(&top, &ntop, spec, spec->root_path)) < 0)
        goto out;
    int rfd = open(rootfs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rfd < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot open %s", rootfs);
        goto out;
    }
    for (size_t i = 0; i < ntop; i++) {
        if (top[i].link) {
            if (symlinkat(top[i].link, rfd, top[i].name) < 0 && errno != EEXIST)
                rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: symlink %s", top[i].name);
        } else if (top[i].is_dir || slinky_jail__is_mount_top(spec, top[i].name)) {
            if (mkdirat(rfd, top[i].name, 0755) < 0 && errno != EEXIST)
                rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: mkdir %s", top[i].name);
        } else {
            int f = openat(rfd, top[i].name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (f >= 0)
                close(f);
        }
    }
    mkdirat(rfd, "proc", 0555);
    mkdirat(rfd, "dev", 0755);
    close(rfd);
    if (rc == 0)
        rc = slinky__write_file_atomic(cfg, json, strlen(json), 0644);
out:
    slinky_jail__host_top_free(top, ntop);
    free(json);
    free(rootfs);
    free(cfg);
    return rc;
}
