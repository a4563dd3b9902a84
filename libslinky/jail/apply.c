/* The in-process applier: namespaces, the jail root, mounts, devices, pivot_root,
 * no_new_privs, capabilities, credentials. Linux only; needs root. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail_internal.h"

#define STAGING "/run/slinky-jail"

extern char **environ;

static int sys_err(int err, const char *what, const char *path)
{
    return slinky__error_set_errno(err == EPERM || err == EACCES ? SLINKY_EFORBIDDEN : SLINKY_EIO,
                                   err, "jail: %s %s", what, path ? path : "");
}

/* ---------------------------------------------------------------- safe destinations */

/*
 * Open `dest` (absolute, inside the jail root rootfd) as an O_PATH fd. The
 * walk goes one component at a time with O_NOFOLLOW and resolves symlinks
 * itself, inside the jail: an absolute target restarts at the jail root, and
 * a ".." that would climb above the jail root is refused (that symlink leads
 * out of the jail). Missing components are created when `create` allows
 * (folders; the last one a file when want_file).
 */
#define MAX_DEPTH 256
static int open_dest(int *out, int rootfd, const char *dest, slinky_jail__create create,
                     bool want_file)
{
    int stack[MAX_DEPTH];
    int depth = 0, links = 0, rc = 0;
    char rest[8192], comp[256];
    snprintf(rest, sizeof(rest), "%s", dest);
    if ((stack[0] = dup(rootfd)) < 0)
        return sys_err(errno, "dup", NULL);
    while (rc == 0) {
        char *p = rest;
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, "/");
        if (len >= sizeof(comp)) {
            rc = slinky__error_set(SLINKY_EINVALID, "jail: destination %s: name too long", dest);
            break;
        }
        memcpy(comp, p, len);
        comp[len] = '\0';
        memmove(rest, p + len, strlen(p + len) + 1);
        const char *q = rest;
        while (*q == '/')
            q++;
        bool last = *q == '\0';
        if (!strcmp(comp, "."))
            continue;
        if (!strcmp(comp, "..")) {
            if (depth == 0) {
                rc = slinky__error_set(SLINKY_EFORBIDDEN,
                                       "jail: destination %s leads out of the jail (through "
                                       "'..' or a symlink); refusing",
                                       dest);
                break;
            }
            close(stack[depth--]);
            continue;
        }
        int top = stack[depth];
        int nfd = openat(top, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0 && errno == ENOENT && create != SLINKY_JAIL__CREATE_NONE) {
            int r;
            if (last && want_file) {
                r = openat(top, comp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (r >= 0)
                    close(r);
            } else {
                r = mkdirat(top, comp, 0755);
            }
            if (r < 0 && errno != EEXIST) {
                rc = slinky__error_set_errno(SLINKY_EIO, errno,
                                             "jail: cannot create mount point %s (at '%s')", dest,
                                             comp);
                break;
            }
            nfd = openat(top, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        if (nfd < 0) {
            rc = slinky__error_set_errno(errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, errno,
                                         "jail: mount point %s (at '%s')", dest, comp);
            break;
        }
        struct stat st;
        if (fstat(nfd, &st) < 0) {
            rc = sys_err(errno, "stat", dest);
            close(nfd);
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(nfd, "", target, sizeof(target) - 1);
            close(nfd);
            if (n <= 0 || ++links > 40) {
                rc = slinky__error_set(SLINKY_EIO, "jail: destination %s: bad or looping symlink",
                                       dest);
                break;
            }
            target[n] = '\0';
            if (strlen(target) + strlen(rest) + 2 > sizeof(rest)) {
                rc = slinky__error_set(SLINKY_EINVALID, "jail: destination %s: path too long",
                                       dest);
                break;
            }
            char tmp[8192];
            snprintf(tmp, sizeof(tmp), "%s/%s", target, rest);
            snprintf(rest, sizeof(rest), "%s", tmp);
            if (target[0] == '/') /* absolute: from the jail root, not the host's */
                while (depth > 0)
                    close(stack[depth--]);
            continue;
        }
        if (!last && !S_ISDIR(st.st_mode)) {
            rc = slinky__error_set(SLINKY_EIO, "jail: destination %s: '%s' is not a folder", dest,
                                   comp);
            close(nfd);
            break;
        }
        if (depth + 1 >= MAX_DEPTH) {
            close(nfd);
            rc = slinky__error_set(SLINKY_EINVALID, "jail: destination %s: too deep", dest);
            break;
        }
        stack[++depth] = nfd;
    }
    if (rc == 0 && depth == 0)
        rc = slinky__error_set(SLINKY_EINVALID, "jail: destination %s is the jail root", dest);
    if (rc < 0) {
        while (depth >= 0)
            close(stack[depth--]);
        return rc;
    }
    *out = stack[depth];
    while (--depth >= 0)
        close(stack[depth]);
    return 0;
}

static void fd_path(char *buf, size_t n, int fd)
{
    snprintf(buf, n, "/proc/self/fd/%d", fd);
}

static unsigned attr_flags(bool ro, bool nosuid, bool nodev, bool noexec)
{
    return (ro ? MOUNT_ATTR_RDONLY : 0) | (nosuid ? MOUNT_ATTR_NOSUID : 0) |
           (nodev ? MOUNT_ATTR_NODEV : 0) | (noexec ? MOUNT_ATTR_NOEXEC : 0);
}

/*
 * Bind srcfd onto dstfd. With the new mount API (open_tree + mount_setattr +
 * move_mount) the flags are set on the detached copy, before it is visible;
 * otherwise classic mount + remount.
 */
static int bind_fds(int srcfd, int dstfd, bool recursive, unsigned attrs, const char *dest)
{
    char s[64], d[64];
    fd_path(s, sizeof(s), srcfd);
    fd_path(d, sizeof(d), dstfd);
#if defined(SYS_open_tree) && defined(SYS_move_mount) && defined(SYS_mount_setattr)
    int tree = (int)syscall(SYS_open_tree, srcfd, "",
                            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                                (recursive ? AT_RECURSIVE : 0));
    if (tree >= 0) {
        struct mount_attr a;
        memset(&a, 0, sizeof(a));
        a.attr_set = attrs;
        if (attrs && syscall(SYS_mount_setattr, tree, "",
                             AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof(a)) < 0) {
            int e = errno;
            close(tree);
            return sys_err(e, "cannot set mount flags for", dest);
        }
        if (syscall(SYS_move_mount, tree, "", dstfd, "",
                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
            int e = errno;
            close(tree);
            return sys_err(e, "cannot mount at", dest);
        }
        close(tree);
        return 0;
    }
    if (errno != ENOSYS)
        return sys_err(errno, "cannot bind-mount onto", dest);
#endif
    if (mount(s, d, NULL, MS_BIND | (recursive ? MS_REC : 0), NULL) < 0)
        return sys_err(errno, "cannot bind-mount onto", dest);
    if (attrs) {
        unsigned long f = MS_REMOUNT | MS_BIND | ((attrs & MOUNT_ATTR_RDONLY) ? MS_RDONLY : 0) |
                          ((attrs & MOUNT_ATTR_NOSUID) ? MS_NOSUID : 0) |
                          ((attrs & MOUNT_ATTR_NODEV) ? MS_NODEV : 0) |
                          ((attrs & MOUNT_ATTR_NOEXEC) ? MS_NOEXEC : 0);
        /* the new mount sits on top of the fd's dentry: remount through the path */
        if (mount(NULL, d, NULL, f, NULL) < 0)
            return sys_err(errno, "cannot remount", dest);
    }
    return 0;
}

/* Bind host path src at dest (inside rootfd). Missing source: ENOTFOUND. */
static int bind_path(int rootfd, const char *src, const char *dest, bool recursive,
                     unsigned attrs, slinky_jail__create create)
{
    int srcfd = open(src, O_PATH | O_CLOEXEC);
    if (srcfd < 0)
        return slinky__error_set_errno(errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO, errno,
                                       "jail: mount source %s (for %s)", src, dest);
    struct stat st;
    int rc = 0, dstfd = -1;
    if (fstat(srcfd, &st) < 0)
        rc = sys_err(errno, "stat", src);
    if (rc == 0)
        rc = open_dest(&dstfd, rootfd, dest, create, !S_ISDIR(st.st_mode));
    if (rc == 0)
        rc = bind_fds(srcfd, dstfd, recursive, attrs, dest);
    if (dstfd >= 0)
        close(dstfd);
    close(srcfd);
    return rc;
}

/*
 * bind_path for `name` directly in dirfd, a folder of the jail's own fresh tmpfs (the
 * root, or its /dev) that only this mount namespace can reach: there is no symlink on the
 * way to resolve, so the mount point is made and the copy attached relative to dirfd,
 * without the component walk (a third of the system calls). Anything unexpected (no
 * new mount API, the name already there) takes the general path.
 */
static int bind_fresh(int rootfd, int dirfd, const char *name, const char *src, bool dir,
                      bool recursive, unsigned attrs, const char *dest)
{
#if defined(SYS_open_tree) && defined(SYS_move_mount) && defined(SYS_mount_setattr)
    int r = dir ? mkdirat(dirfd, name, 0755) : mknodat(dirfd, name, S_IFREG | 0644, 0);
    if (r == 0) {
        int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src,
                                OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                                    (recursive ? AT_RECURSIVE : 0));
        if (tree < 0 && errno != ENOSYS)
            return slinky__error_set_errno(errno == ENOENT ? SLINKY_ENOTFOUND : SLINKY_EIO,
                                           errno, "jail: mount source %s (for %s)", src, dest);
        if (tree >= 0) {
            struct mount_attr a;
            memset(&a, 0, sizeof(a));
            a.attr_set = attrs;
            int rc = 0;
            if (attrs && syscall(SYS_mount_setattr, tree, "",
                                 AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a,
                                 sizeof(a)) < 0)
                rc = sys_err(errno, "cannot set mount flags for", dest);
            else if (syscall(SYS_move_mount, tree, "", dirfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                rc = sys_err(errno, "cannot mount at", dest);
            close(tree);
            return rc;
        }
    }
#endif
    (void)dirfd;
    (void)name;
    (void)dir;
    return bind_path(rootfd, src, dest, recursive, attrs, SLINKY_JAIL__CREATE_DIR);
}

static int mount_fs(int rootfd, const char *fstype, const char *dest, unsigned long flags,
                    const char *data, slinky_jail__create create)
{
    int dstfd = -1;
    int rc = open_dest(&dstfd, rootfd, dest, create, false);
    if (rc < 0)
        return rc;
    char d[64];
    fd_path(d, sizeof(d), dstfd);
    if (mount(fstype, d, fstype, flags, data) < 0)
        rc = sys_err(errno, "cannot mount", dest);
    close(dstfd);
    return rc;
}

/* ---------------------------------------------------------------- the root */

static int build_root(int rootfd, const slinky_jail_spec *spec)
{
    slinky_jail__top *top = NULL;
    size_t n = 0;
    int rc = slinky_jail__host_top(&top, &n, spec, spec->root_path);
    if (rc < 0)
        return rc;
    char src[4096], dst[4096];
    for (size_t i = 0; i < n && rc == 0; i++) {
        const slinky_jail__top *t = &top[i];
        if (t->link) {
            if (symlinkat(t->link, rootfd, t->name) < 0)
                rc = sys_err(errno, "cannot create symlink", t->name);
            continue;
        }
        snprintf(dst, sizeof(dst), "/%s", t->name);
        if (slinky_jail__is_mount_top(spec, t->name) || !strcmp(t->name, "tmp")) {
            /* a spec mount takes this place: an empty mount point */
            if (mkdirat(rootfd, t->name, 0755) < 0 && errno != EEXIST)
                rc = sys_err(errno, "cannot create", dst);
            continue;
        }
        snprintf(src, sizeof(src), "%s/%s", strcmp(spec->root_path, "/") ? spec->root_path : "",
                 t->name);
        rc = bind_fresh(rootfd, rootfd, t->name, src, t->is_dir, true,
                        attr_flags(spec->root_read_only, spec->root_nosuid, spec->root_nodev, false),
                        dst);
    }
    slinky_jail__host_top_free(top, n);
    if (rc == 0 && mkdirat(rootfd, "proc", 0555) < 0 && errno != EEXIST)
        rc = sys_err(errno, "cannot create", "/proc");
    return rc;
}

/* Hide the scratch folder (every job's /tmp) if the root shows it. */
static int mask_scratch(int rootfd, const slinky_jail_spec *spec)
{
    char *jp = slinky_jail__scratch_in_jail(spec);
    if (!jp)
        return 0;
    int rc = mount_fs(rootfd, "tmpfs", jp, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      "mode=0755,size=4k", SLINKY_JAIL__CREATE_NONE);
    free(jp);
    return rc;
}

static int build_dev(int rootfd, const slinky_jail_spec *spec, const slinky_jail__ctx *ctx)
{
    int rc = mount_fs(rootfd, "tmpfs", "/dev", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k",
                      SLINKY_JAIL__CREATE_DIR);
    if (rc < 0)
        return rc;
    int devfd = openat(rootfd, "dev", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (devfd < 0)
        return sys_err(errno, "cannot open", "/dev");
    static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty", "pts"};
    char src[4096];
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(nodes) && rc == 0; i++) {
        snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
        rc = bind_fresh(rootfd, devfd, nodes[i], src, !strcmp(nodes[i], "pts"), false,
                        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, src);
    }
    if (rc < 0) {
        close(devfd);
        return rc;
    }
    static const char *const links[][2] = {{"fd", "/proc/self/fd"},
                                           {"stdin", "/proc/self/fd/0"},
                                           {"stdout", "/proc/self/fd/1"},
                                           {"stderr", "/proc/self/fd/2"},
                                           {"ptmx", "pts/ptmx"}};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(links); i++)
        symlinkat(links[i][1], devfd, links[i][0]);
    mkdirat(devfd, "shm", 01777);
    close(devfd);
    /* GPUs: only the allocated ones */
    for (size_t i = 0; i < ctx->ngpus && rc == 0; i++) {
        if (!spec->gpu_source) {
            rc = slinky__error_set(SLINKY_EINVALID,
                                   "jail: GPUs are allocated but the spec has no devices.gpu");
            break;
        }
        char *s = slinky_jail__gpu_path(spec->gpu_source, ctx->gpus[i]);
        char *d = slinky_jail__gpu_path(spec->gpu_destination, ctx->gpus[i]);
        if (!s || !d)
            rc = SLINKY_ENOMEM;
        else
            rc = bind_path(rootfd, s, d, false, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
                           SLINKY_JAIL__CREATE_DIR);
        free(s);
        free(d);
    }
    bool control = ctx->ngpus > 0 || spec->gpu_control_always;
    for (size_t i = 0; control && i < spec->ngpu_control && rc == 0; i++) {
        if (access(spec->gpu_control[i], F_OK) == 0)
            rc = bind_path(rootfd, spec->gpu_control[i], spec->gpu_control[i], false,
                           MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, SLINKY_JAIL__CREATE_DIR);
    }
    for (size_t i = 0; i < spec->ndev_extra && rc == 0; i++) {
        if (access(spec->dev_extra[i], F_OK) == 0)
            rc = bind_path(rootfd, spec->dev_extra[i], spec->dev_extra[i], false,
                           MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, SLINKY_JAIL__CREATE_DIR);
    }
    return rc;
}

static int apply_mounts(int rootfd, const slinky_jail_spec *spec, const slinky_jail__ctx *ctx)
{
    int rc = 0;
    for (size_t i = 0; i < spec->nmounts && rc == 0; i++) {
        const slinky_jail__mount *m = &spec->mounts[i];
        unsigned attrs = attr_flags(m->read_only, m->nosuid, m->nodev, m->noexec);
        switch (m->type) {
        case SLINKY_JAIL__BIND:
        case SLINKY_JAIL__RBIND: {
            char *src = NULL;
            if ((rc = slinky_jail__mount_source(&src, m, ctx)) < 0)
                break;
            rc = bind_path(rootfd, src, m->destination, m->type == SLINKY_JAIL__RBIND, attrs,
                           m->create);
            if (rc == SLINKY_ENOTFOUND && m->optional) {
                slinky__log(SLINKY_LOG_DEBUG, "jail", "optional mount %s skipped: %s",
                            m->destination, slinky_error_last()->message);
                rc = 0;
            }
            free(src);
            break;
        }
        case SLINKY_JAIL__TMPFS: {
            char data[128] = "";
            size_t l = 0;
            if (m->mode >= 0)
                l += (size_t)snprintf(data + l, sizeof(data) - l, "mode=%04o", (unsigned)m->mode);
            if (m->size)
                snprintf(data + l, sizeof(data) - l, "%ssize=%s", l ? "," : "", m->size);
            unsigned long f = (m->read_only ? MS_RDONLY : 0) | (m->nosuid ? MS_NOSUID : 0) |
                              (m->nodev ? MS_NODEV : 0) | (m->noexec ? MS_NOEXEC : 0);
            rc = mount_fs(rootfd, "tmpfs", m->destination, f, data, m->create);
            break;
        }
        case SLINKY_JAIL__PROC:
            rc = mount_fs(rootfd, "proc", m->destination, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL,
                          SLINKY_JAIL__CREATE_DIR);
            break;
        }
        if (rc < 0)
            slinky__error_prefix("mounts[%zu]: ", i);
    }
    return rc;
}

/* ---------------------------------------------------------------- credentials */

static uint64_t keep_mask(const slinky_jail_spec *spec)
{
    uint64_t keep = 0;
    for (size_t i = 0; i < spec->ncaps_keep; i++)
        keep |= 1ULL << slinky_jail__cap_from_name(spec->caps_keep[i]);
    return keep;
}

/* Empty the bounding set (needs CAP_SETPCAP: before the credentials switch). */
static int drop_bounding(const slinky_jail_spec *spec)
{
    uint64_t keep = keep_mask(spec);
    int last = slinky_jail__cap_last();
    for (int c = 0; c <= last; c++) {
        if (keep & (1ULL << c))
            continue;
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
            return sys_err(errno, "cannot drop capability", slinky_jail__cap_name(c));
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    return 0;
}

/* Reduce effective/permitted to the kept set (all of them with keep_identity: the caller
 * still needs CAP_SETUID/SETGID, which its own switch to the job user drops) and clear
 * the inheritable set. */
static int drop_caps(const slinky_jail_spec *spec, bool keep_identity)
{
    uint64_t keep = keep_mask(spec);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof(d));
    if (syscall(SYS_capget, &h, d) < 0)
        return sys_err(errno, "capget", NULL);
    for (int w = 0; w < 2; w++) {
        uint32_t k = (uint32_t)(keep >> (32 * w));
        d[w].inheritable = 0;
        if (!keep_identity) {
            d[w].effective &= k;
            d[w].permitted &= k;
        }
    }
    if (syscall(SYS_capset, &h, d) < 0)
        return sys_err(errno, "capset", NULL);
    return 0;
}

static int switch_identity(const slinky_jail__ctx *ctx)
{
    if (setgroups(ctx->ngroups, ctx->groups) < 0)
        return sys_err(errno, "setgroups for user", ctx->user);
    if (setresgid(ctx->gid, ctx->gid, ctx->gid) < 0)
        return sys_err(errno, "setgid for user", ctx->user);
    if (setresuid(ctx->uid, ctx->uid, ctx->uid) < 0)
        return sys_err(errno, "setuid for user", ctx->user);
    return 0;
}

static int apply_env(const slinky_jail_spec *spec, const slinky_jail__ctx *ctx)
{
    char **env = NULL;
    size_t n = 0;
    int rc = slinky_jail__env_build(&env, &n, spec, ctx, (const char *const *)environ);
    if (rc < 0)
        return rc;
    clearenv();
    for (size_t i = 0; i < n; i++)
        putenv(env[i]); /* the strings now belong to the environment */
    free(env);
    return 0;
}

/* ---------------------------------------------------------------- enter */

slinky_status slinky_jail_enter(const slinky_jail_spec *spec, const slinky_jail_job *job,
                                unsigned flags)
{
    slinky_jail__ctx ctx;
    int rc = slinky_jail__begin(&ctx, spec, job, false);
    if (rc < 0)
        return rc;
    rc = slinky_jail__enter_ctx(spec, &ctx, flags);
    slinky_jail__ctx_dispose(&ctx);
    return rc;
}

/* slinky_jail_enter with the job context already resolved; ctx may be changed (the fixed
 * uid/gid of a spec without `user: job`). */
int slinky_jail__enter_ctx(const slinky_jail_spec *spec, slinky_jail__ctx *cx, unsigned flags)
{
    slinky_jail__ctx ctx = *cx;
    int rc = 0;
    for (size_t i = 0; i < spec->nmounts && !ctx.job_dir; i++)
        if (spec->mounts[i].job_lifetime)
            return slinky__error_set(SLINKY_EINVALID, "jail: mount %s needs a job id",
                                     spec->mounts[i].destination);
    slinky_jail__cap_last(); /* from the host's /proc, before the jail's (it may have none) */
    int rootfd = -1;
    char oldcwd[4096];
    if (!getcwd(oldcwd, sizeof(oldcwd)))
        oldcwd[0] = '\0';
    int ns = CLONE_NEWNS | (spec->ns_ipc ? CLONE_NEWIPC : 0) | (spec->ns_uts ? CLONE_NEWUTS : 0) |
             (spec->ns_pid && !(flags & SLINKY_JAIL_ENTER_NO_PIDNS) ? CLONE_NEWPID : 0);
    if (unshare(ns) < 0) {
        rc = sys_err(errno, "unshare", "(namespaces)");
        goto out;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
        rc = sys_err(errno, "cannot make / a slave mount", NULL);
        goto out;
    }
    if (mkdir(STAGING, 0700) < 0 && errno != EEXIST) {
        rc = sys_err(errno, "cannot create", STAGING);
        goto out;
    }
    if (mount("slinky-jail", STAGING, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0) {
        rc = sys_err(errno, "cannot mount the jail root at", STAGING);
        goto out;
    }
    /* unbindable: the recursive bind of the host's /run must not copy the jail root into
     * itself (/run/slinky-jail inside the jail would show the jail again) */
    if (mount(NULL, STAGING, NULL, MS_UNBINDABLE, NULL) < 0) {
        rc = sys_err(errno, "cannot make the jail root unbindable", STAGING);
        goto out;
    }
    rootfd = open(STAGING, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rootfd < 0) {
        rc = sys_err(errno, "cannot open", STAGING);
        goto out;
    }
    if ((rc = build_root(rootfd, spec)) < 0 || (rc = mask_scratch(rootfd, spec)) < 0 ||
        (rc = build_dev(rootfd, spec, &ctx)) < 0 ||
        (rc = apply_mounts(rootfd, spec, &ctx)) < 0)
        goto out;
    if (mount(NULL, STAGING, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0) {
        rc = sys_err(errno, "cannot make the jail root read-only", NULL);
        goto out;
    }
    if (chdir(STAGING) < 0 || syscall(SYS_pivot_root, ".", ".") < 0) {
        rc = sys_err(errno, "pivot_root into", STAGING);
        goto out;
    }
    if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
        rc = sys_err(errno, "cannot detach the old root", NULL);
        goto out;
    }
    if (spec->ns_uts && spec->hostname && sethostname(spec->hostname, strlen(spec->hostname)) < 0) {
        rc = sys_err(errno, "sethostname", spec->hostname);
        goto out;
    }
    if (!(flags & SLINKY_JAIL_ENTER_KEEP_ENV) && (rc = apply_env(spec, &ctx)) < 0)
        goto out;
    if (spec->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        rc = sys_err(errno, "cannot set no_new_privs", NULL);
        goto out;
    }
    bool keep_id = flags & SLINKY_JAIL_ENTER_KEEP_IDENTITY;
    if ((rc = drop_bounding(spec)) < 0)
        goto out;
    if (!keep_id) {
        uid_t uid = spec->as_job_user ? ctx.uid : (uid_t)spec->uid;
        gid_t gid = spec->as_job_user ? ctx.gid : (gid_t)spec->gid;
        if (!spec->as_job_user) {
            ctx.uid = uid;
            ctx.gid = gid;
            ctx.groups[0] = gid;
            ctx.ngroups = 1;
        }
        /* keep the capabilities the spec keeps across setuid, for a non-root job */
        if (spec->ncaps_keep && uid != 0)
            prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
        if ((rc = switch_identity(&ctx)) < 0)
            goto out;
    }
    if ((rc = drop_caps(spec, keep_id)) < 0)
        goto out;
    const char *cwd = ctx.cwd ? ctx.cwd : oldcwd[0] ? oldcwd : "/";
    if (chdir(cwd) < 0) {
        if (ctx.cwd) {
            rc = sys_err(errno, "cannot change to the working folder", cwd);
            goto out;
        }
        if (chdir("/") < 0) {
            rc = sys_err(errno, "chdir", "/");
            goto out;
        }
    }
out:
    if (rootfd >= 0)
        close(rootfd);
    *cx = ctx;
    return rc;
}
