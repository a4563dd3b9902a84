/* The top-level entries of a jail root: the applier and the renderers replicate
 * them (folders bind-mounted, symlinks recreated) into a fresh root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail_internal.h"

void slinky_jail__host_top_free(slinky_jail__top *t, size_t n)
{
    if (!t)
        return;
    for (size_t i = 0; i < n; i++) {
        free(t[i].name);
        free(t[i].link);
    }
    free(t);
}

static int cmp_top(const void *a, const void *b)
{
    return strcmp(((const slinky_jail__top *)a)->name, ((const slinky_jail__top *)b)->name);
}

/* Entries of `root` except proc and dev (the jail makes its own), sorted by name.
 * Callers turn entries that are mount destinations into empty mount points. */
int slinky_jail__host_top(slinky_jail__top **out, size_t *n_out, const slinky_jail_spec *spec,
                          const char *root)
{
    (void)spec;
    DIR *d = opendir(root);
    if (!d)
        return slinky__error_set_errno(SLINKY_EIO, errno, "jail: cannot list root %s", root);
    int dfd = dirfd(d);
    slinky_jail__top *v = NULL;
    size_t n = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "proc") ||
            !strcmp(name, "dev"))
            continue;
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
            continue;
        slinky_jail__top *nv = slinky__realloc(v, (n + 1) * sizeof(*nv));
        if (!nv) {
            rc = SLINKY_ENOMEM;
            break;
        }
        v = nv;
        memset(&v[n], 0, sizeof(v[n]));
        if (!(v[n].name = slinky__strdup(name))) {
            rc = SLINKY_ENOMEM;
            break;
        }
        v[n].is_dir = S_ISDIR(st.st_mode);
        if (S_ISLNK(st.st_mode)) {
            char buf[4096];
            ssize_t l = readlinkat(dfd, name, buf, sizeof(buf) - 1);
            if (l < 0) {
                free(v[n].name);
                continue;
            }
            buf[l] = '\0';
            if (!(v[n].link = slinky__strdup(buf))) {
                free(v[n].name);
                rc = SLINKY_ENOMEM;
                break;
            }
        }
        n++;
    }
    closedir(d);
    if (rc < 0) {
        slinky_jail__host_top_free(v, n);
        return rc;
    }
    if (n)
        qsort(v, n, sizeof(*v), cmp_top);
    *out = v;
    *n_out = n;
    return 0;
}

bool slinky_jail__is_mount_top(const slinky_jail_spec *s, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < s->nmounts; i++) {
        const char *d = s->mounts[i].destination + 1;
        if (!strncmp(d, name, n) && d[n] == '\0')
            return true;
    }
    return false;
}

/* The host path that shows at jail path `p` (before mount `upto`), or NULL for /dev, /proc. */
static char *host_path_of(const slinky_jail_spec *s, const slinky_jail__ctx *ctx, size_t upto,
                          const char *p)
{
    size_t best = (size_t)-1, blen = 0;
    for (size_t i = 0; i < upto; i++) {
        const slinky_jail__mount *m = &s->mounts[i];
        size_t n = strlen(m->destination);
        if ((m->type == SLINKY_JAIL__BIND || m->type == SLINKY_JAIL__RBIND) &&
            !strncmp(m->destination, p, n) && (p[n] == '/' || p[n] == '\0') && n > blen) {
            best = i;
            blen = n;
        }
    }
    if (best != (size_t)-1) {
        char *src = NULL;
        if (slinky_jail__mount_source(&src, &s->mounts[best], ctx) < 0)
            return NULL;
        char *r = slinky__sprintf("%s%s", src, p + blen);
        free(src);
        return r;
    }
    if (!strncmp(p, "/dev/", 5) || !strcmp(p, "/dev") || !strncmp(p, "/proc", 5))
        return NULL;
    return slinky__sprintf("%s%s", strcmp(s->root_path, "/") ? s->root_path : "", p);
}

/*
 * Resolve the symlinks on the way to destination `dest` of mount `upto` the way the
 * jail will see them (absolute targets from the jail root; ".." above the root is an
 * escape), reading the host file system. Components that do not exist yet are kept.
 * For the renderers: runtimes such as bwrap resolve symlinks in the host's view.
 */
int slinky_jail__resolve_dest(char **out, const slinky_jail_spec *s, const slinky_jail__ctx *ctx,
                              size_t upto, const char *dest)
{
    char done[4096] = "", rest[8192];
    int links = 0;
    snprintf(rest, sizeof(rest), "%s", dest);
    for (;;) {
        char *p = rest;
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, "/");
        char comp[256];
        if (len >= sizeof(comp))
            return slinky__error_set(SLINKY_EINVALID, "jail: %s: name too long", dest);
        memcpy(comp, p, len);
        comp[len] = '\0';
        memmove(rest, p + len, strlen(p + len) + 1);
        if (!strcmp(comp, "."))
            continue;
        if (!strcmp(comp, "..")) {
            char *slash = strrchr(done, '/');
            if (!slash)
                return slinky__error_set(SLINKY_EFORBIDDEN,
                                         "jail: destination %s leads out of the jail (through "
                                         "'..' or a symlink); refusing",
                                         dest);
            *slash = '\0';
            continue;
        }
        size_t dl = strlen(done);
        if (dl + len + 2 > sizeof(done))
            return slinky__error_set(SLINKY_EINVALID, "jail: %s: path too long", dest);
        snprintf(done + dl, sizeof(done) - dl, "/%s", comp);
        char *host = host_path_of(s, ctx, upto, done);
        if (!host)
            continue;
        char target[4096];
        struct stat st;
        ssize_t n = -1;
        if (lstat(host, &st) == 0 && S_ISLNK(st.st_mode))
            n = readlink(host, target, sizeof(target) - 1);
        free(host);
        if (n <= 0)
            continue;
        if (++links > 40)
            return slinky__error_set(SLINKY_EIO, "jail: destination %s: looping symlinks", dest);
        target[n] = '\0';
        done[dl] = '\0'; /* the link itself is replaced by its target */
        if (target[0] == '/')
            done[0] = '\0';
        char tmp[8192];
        snprintf(tmp, sizeof(tmp), "%s/%s", target, rest);
        snprintf(rest, sizeof(rest), "%s", tmp);
    }
    char *r = slinky__strdup(done[0] ? done : "/");
    if (!r)
        return SLINKY_ENOMEM;
    *out = r;
    return 0;
}

/*
 * Where the scratch folder would show inside the jail through the root's
 * top-level binds (other jobs' /tmp!), or NULL when it does not. The jail
 * covers that path with an empty read-only tmpfs.
 */
char *slinky_jail__scratch_in_jail(const slinky_jail_spec *s)
{
    const char *jp = NULL;
    size_t rl = strlen(s->root_path);
    if (!strcmp(s->root_path, "/"))
        jp = s->scratch;
    else if (!strncmp(s->scratch, s->root_path, rl) && s->scratch[rl] == '/')
        jp = s->scratch + rl;
    if (!jp)
        return NULL;
    char top[256];
    size_t n = strcspn(jp + 1, "/");
    if (n >= sizeof(top))
        return NULL;
    memcpy(top, jp + 1, n);
    top[n] = '\0';
    if (!strcmp(top, "tmp") || !strcmp(top, "proc") || !strcmp(top, "dev") ||
        slinky_jail__is_mount_top(s, top))
        return NULL;
    struct stat st;
    if (lstat(s->scratch, &st) < 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return slinky__strdup(jp);
}
