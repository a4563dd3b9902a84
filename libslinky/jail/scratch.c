/* Per-job scratch folders: setup, teardown, and removal of what crashed jobs left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jail_internal.h"

#define OWNERS_FILE ".slinky-owners"
#define BOOT_FILE ".slinky-boot"

static int rm_at(int dfd, dev_t dev, int depth, const char *top);

/* Remove everything inside the folder dfd (not the folder itself). */
static int rm_contents(int dfd, dev_t dev, int depth, const char *top)
{
    if (depth > 256)
        return slinky__error_set(SLINKY_EIO, "jail: %s: folders nested too deep", top);
    int dup_fd = dup(dfd);
    if (dup_fd < 0)
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: dup");
    DIR *d = fdopendir(dup_fd);
    if (!d) {
        close(dup_fd);
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot list %s", top);
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (st.st_dev != dev) {
                rc = slinky__error_set(SLINKY_EIO,
                                       "jail: %s: refusing to cross into a mounted file system "
                                       "at %s",
                                       top, e->d_name);
                continue;
            }
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue;
            int r = rm_at(sub, dev, depth + 1, top);
            close(sub);
            if (r < 0)
                rc = r;
            else if (unlinkat(dfd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
                rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot remove %s/.../%s",
                                             top, e->d_name);
        } else if (unlinkat(dfd, e->d_name, 0) < 0 && errno != ENOENT) {
            rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot remove %s/.../%s", top,
                                         e->d_name);
        }
    }
    closedir(d);
    return rc;
}

static int rm_at(int dfd, dev_t dev, int depth, const char *top)
{
    return rm_contents(dfd, dev, depth, top);
}

int slinky_jail__rmtree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot open %s", path);
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: stat %s", path);
    }
    int rc = rm_contents(fd, st.st_dev, 0, path);
    close(fd);
    if (rc == 0 && rmdir(path) < 0 && errno != ENOENT)
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot remove %s", path);
    return rc;
}

/* A small file (procfs) into buf, NUL-terminated; "" when unreadable. */
static void read_small(char *buf, size_t n, const char *path)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t got = 0;
    while (got + 1 < n) {
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
}

static void boot_id(char *buf, size_t n)
{
    read_small(buf, n, "/proc/sys/kernel/random/boot_id");
    buf[strcspn(buf, "\n")] = '\0';
    if (!buf[0])
        snprintf(buf, n, "unknown");
}

static unsigned long long proc_starttime(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    read_small(buf, sizeof(buf), path);
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* fields after ")": state is field 3; starttime is field 22 */
    unsigned long long v = 0;
    int field = 2;
    for (char *t = p + 1; *t; t++) {
        if (*t == ' ') {
            field++;
            if (field == 22) {
                v = strtoull(t + 1, NULL, 10);
                break;
            }
        }
    }
    /* a zombie is not a user of the scratch */
    char state = p[2];
    return state == 'Z' ? 0 : v;
}

/* Is the job folder (fd) stale? */
static bool job_stale(int jfd, const char *cur_boot)
{
    char buf[8192];
    int fd = openat(jfd, BOOT_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        if (strcmp(buf, cur_boot) != 0)
            return true;
    }
    fd = openat(jfd, OWNERS_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        /* being set up right now, or very old: stale only after a minute */
        struct stat st;
        return fstat(jfd, &st) == 0 && time(NULL) - st.st_mtime > 60;
    }
    flock(fd, LOCK_SH);
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        long pid = 0;
        unsigned long long start = 0;
        if (sscanf(line, "%ld %llu", &pid, &start) == 2 && pid > 0 &&
            proc_starttime(pid) == start && start != 0)
            return false;
    }
    return true;
}

slinky_status slinky_jail_cleanup_stale(size_t *removed_out, const slinky_jail_spec *spec,
                                        const char *keep_job_id)
{
    if (!spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    size_t removed = 0;
    DIR *d = opendir(spec->scratch);
    if (!d) {
        if (errno == ENOENT) {
            if (removed_out)
                *removed_out = 0;
            return 0;
        }
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot list %s", spec->scratch);
    }
    char cur[128] = "";
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "job-", 4) != 0)
            continue;
        if (keep_job_id && !strcmp(e->d_name + 4, keep_job_id))
            continue;
        int jfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (jfd < 0)
            continue;
        if (!cur[0]) /* only when there is another job's folder to judge */
            boot_id(cur, sizeof(cur));
        bool stale = job_stale(jfd, cur);
        close(jfd);
        if (!stale)
            continue;
        char *path = slinky__sprintf("%s/%s", spec->scratch, e->d_name);
        if (!path) {
            rc = SLINKY_ENOMEM;
            break;
        }
        int r = slinky_jail__rmtree(path);
        free(path);
        if (r < 0)
            rc = r;
        else
            removed++;
    }
    closedir(d);
    if (rc == 0 && removed_out)
        *removed_out = removed;
    return rc;
}

slinky_status slinky_jail_cleanup(const slinky_jail_spec *spec, const char *job_id)
{
    if (!spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    int rc = slinky_jail__valid_job_id(job_id);
    if (rc < 0)
        return rc;
    char *path = slinky__sprintf("%s/job-%s", spec->scratch, job_id);
    if (!path)
        return SLINKY_ENOMEM;
    rc = slinky_jail__rmtree(path);
    free(path);
    return rc;
}

/* mkdir -p for the scratch folder itself (root owned, mode 0711). */
static int make_scratch(const char *path)
{
    char *p = slinky__strdup(path);
    if (!p)
        return SLINKY_ENOMEM;
    for (char *c = p + 1;; c++) {
        if (*c == '/' || *c == '\0') {
            char save = *c;
            *c = '\0';
            if (mkdir(p, save ? 0755 : 0711) < 0 && errno != EEXIST) {
                int rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot create %s", p);
                free(p);
                return rc;
            }
            *c = save;
            if (!save)
                break;
        }
    }
    free(p);
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return slinky__error_set(SLINKY_EIO, "jail: scratch %s is not a folder", path);
    return 0;
}

/* Create rel (relative, no "..") under dfd component by component, never following symlinks;
 * the last one gets mode and owner. */
static int make_rel(int dfd, const char *rel, int mode, uid_t uid, gid_t gid, const char *what)
{
    char *p = slinky__strdup(rel);
    if (!p)
        return SLINKY_ENOMEM;
    int fd = dup(dfd), rc = 0;
    char *save = NULL;
    char *comp = strtok_r(p, "/", &save);
    while (comp && fd >= 0) {
        char *next = strtok_r(NULL, "/", &save);
        bool last = next == NULL;
        if (mkdirat(fd, comp, last ? 0700 : 0711) < 0 && errno != EEXIST) {
            rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot create %s", what);
            break;
        }
        int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0) {
            rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot open %s", what);
            break;
        }
        close(fd);
        fd = nfd;
        if (last) {
            if (fchown(fd, uid, gid) < 0 || fchmod(fd, (mode_t)mode) < 0)
                rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot set owner of %s",
                                             what);
        }
        comp = next;
    }
    if (fd >= 0)
        close(fd);
    free(p);
    return rc;
}

slinky_status slinky_jail_setup(const slinky_jail_spec *spec, const slinky_jail_job *job,
                                int64_t owner_pid)
{
    slinky_jail__ctx ctx;
    int rc = slinky_jail__begin(&ctx, spec, job, true);
    if (rc < 0)
        return rc;
    rc = slinky_jail__setup_ctx(spec, &ctx, owner_pid);
    slinky_jail__ctx_dispose(&ctx);
    return rc;
}

/* slinky_jail_setup with the job context already resolved (ctx->job_id set). */
int slinky_jail__setup_ctx(const slinky_jail_spec *spec, const slinky_jail__ctx *ctx,
                           int64_t owner_pid)
{
    int rc = 0;
    size_t removed = 0;
    if (slinky_jail_cleanup_stale(&removed, spec, ctx->job_id) < 0)
        slinky__log(SLINKY_LOG_WARNING, "jail", "stale scratch cleanup: %s",
                    slinky_error_last()->message);
    else if (removed)
        slinky__log(SLINKY_LOG_INFO, "jail", "removed %zu stale job scratch folder(s) in %s",
                    removed, spec->scratch);
    int sfd = -1, jfd = -1, ofd = -1;
    char name[80];
    if ((rc = make_scratch(spec->scratch)) < 0)
        goto out;
    sfd = open(spec->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot open %s", spec->scratch);
        goto out;
    }
    snprintf(name, sizeof(name), "job-%s", ctx->job_id);
    bool fresh = mkdirat(sfd, name, 0711) == 0;
    if (!fresh && errno != EEXIST) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot create %s", ctx->job_dir);
        goto out;
    }
    jfd = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (jfd < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot open %s", ctx->job_dir);
        goto out;
    }
    if (fresh) {
        char boot[128];
        boot_id(boot, sizeof(boot));
        int bfd = openat(jfd, BOOT_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                         0600);
        if (bfd >= 0) {
            dprintf(bfd, "%s\n", boot);
            close(bfd);
        }
    }
    /* record the owner before creating sources, so a concurrent stale scan keeps us */
    ofd = openat(jfd, OWNERS_FILE, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ofd < 0) {
        rc = slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot record owner in %s",
                                     ctx->job_dir);
        goto out;
    }
    long pid = owner_pid > 0 ? (long)owner_pid : (long)getpid();
    flock(ofd, LOCK_EX);
    dprintf(ofd, "%ld %llu\n", pid, proc_starttime(pid));
    flock(ofd, LOCK_UN);
    for (size_t i = 0; i < spec->nmounts; i++) {
        const slinky_jail__mount *m = &spec->mounts[i];
        if (!m->job_lifetime)
            continue;
        char *rel = NULL;
        if ((rc = slinky_jail__expand_ctx(&rel, m->source, ctx)) < 0)
            goto out;
        rc = make_rel(jfd, rel, m->mode >= 0 ? m->mode : 0700, ctx->uid, ctx->gid, m->destination);
        free(rel);
        if (rc < 0)
            goto out;
    }
out:
    if (ofd >= 0)
        close(ofd);
    if (jfd >= 0)
        close(jfd);
    if (sfd >= 0)
        close(sfd);
    return rc;
}
