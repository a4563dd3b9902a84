/* The top-level entries of a jail root: the applier and the renderers replicate
 * them (folders bind-mounted, symlinks recreated) into a fresh root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

/* Entries of `root` except proc and dev (the jail makes its own). A top-level
 * folder that is a mount destination becomes an empty folder (link NULL,
 * name prefixed by nothing, is_dir) and is flagged by `link == NULL && !is_dir`
 * never: callers check the destination themselves. Sorted by name. */
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
