/* Renderer: bubblewrap (0.8) argument vector. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail_internal.h"

extern char **environ;

typedef struct args {
    slinky__buf b;
    size_t n;
} args;

static void add(args *a, const char *s)
{
    slinky__buf_put(&a->b, s, strlen(s) + 1);
    a->n++;
}

static void add2(args *a, const char *x, const char *y)
{
    add(a, x);
    add(a, y);
}

static void add3(args *a, const char *x, const char *y, const char *z)
{
    add(a, x);
    add(a, y);
    add(a, z);
}

/* "64m" -> bytes; percentages have no bwrap equivalent (0: leave the default) */
static unsigned long long size_bytes(const char *s)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'k': case 'K': return v << 10;
    case 'm': case 'M': return v << 20;
    case 'g': case 'G': return v << 30;
    case '%': return 0;
    default: return v;
    }
}

static const char *env_lookup(const char *key)
{
    size_t k = strlen(key);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, key, k) && (*e)[k] == '=')
            return *e + k + 1;
    return NULL;
}

static int render(args *a, const slinky_jail_spec *spec, const slinky_jail__ctx *ctx,
                  const char *const *argv)
{
    char buf[4096], num[32];
    slinky_jail__top *top = NULL;
    size_t ntop = 0;
    char **env = NULL;
    size_t nenv = 0;
    int rc = 0;
    add(a, "--die-with-parent");
    add(a, "--unshare-user");
    if (spec->ns_pid)
        add(a, "--unshare-pid");
    if (spec->ns_ipc)
        add(a, "--unshare-ipc");
    if (spec->ns_uts)
        add(a, "--unshare-uts");
    if (spec->ns_uts && spec->hostname)
        add2(a, "--hostname", spec->hostname);
    int64_t uid = spec->as_job_user ? (int64_t)ctx->uid : spec->uid;
    int64_t gid = spec->as_job_user ? (int64_t)ctx->gid : spec->gid;
    snprintf(num, sizeof(num), "%lld", (long long)uid);
    add2(a, "--uid", num);
    snprintf(num, sizeof(num), "%lld", (long long)gid);
    add2(a, "--gid", num);
    /* the root: top-level folders bound, symlinks recreated, mount points empty */
    if ((rc = slinky_jail__host_top(&top, &ntop, spec, spec->root_path)) < 0)
        return rc;
    for (size_t i = 0; i < ntop; i++) {
        char dest[1024];
        snprintf(dest, sizeof(dest), "/%s", top[i].name);
        if (top[i].link) {
            add3(a, "--symlink", top[i].link, dest);
        } else if (slinky_jail__is_mount_top(spec, top[i].name) || !strcmp(top[i].name, "tmp")) {
            add2(a, "--dir", dest);
        } else {
            snprintf(buf, sizeof(buf), "%s/%s",
                     strcmp(spec->root_path, "/") ? spec->root_path : "", top[i].name);
            add3(a, spec->root_read_only ? "--ro-bind" : "--bind", buf, dest);
        }
    }
    slinky_jail__host_top_free(top, ntop);
    char *hide = slinky_jail__scratch_in_jail(spec);
    if (hide) {
        add2(a, "--tmpfs", hide);
        add2(a, "--remount-ro", hide);
        free(hide);
    }
    add2(a, "--dev", "/dev");
    for (size_t i = 0; i < ctx->ngpus; i++) {
        if (!spec->gpu_source)
            return slinky__error_set(SLINKY_EINVALID,
                                     "jail: GPUs are allocated but the spec has no devices.gpu");
        char *s = slinky_jail__gpu_path(spec->gpu_source, ctx->gpus[i]);
        char *d = slinky_jail__gpu_path(spec->gpu_destination, ctx->gpus[i]);
        if (s && d)
            add3(a, "--dev-bind", s, d);
        free(s);
        free(d);
        if (!s || !d)
            return SLINKY_ENOMEM;
    }
    bool control = ctx->ngpus > 0 || spec->gpu_control_always;
    for (size_t i = 0; control && i < spec->ngpu_control; i++)
        add3(a, "--dev-bind-try", spec->gpu_control[i], spec->gpu_control[i]);
    for (size_t i = 0; i < spec->ndev_extra; i++)
        add3(a, "--dev-bind-try", spec->dev_extra[i], spec->dev_extra[i]);
    for (size_t i = 0; i < spec->nmounts; i++) {
        const slinky_jail__mount *m = &spec->mounts[i];
        char *dest = NULL;
        if ((rc = slinky_jail__resolve_dest(&dest, spec, ctx, i, m->destination)) < 0)
            return rc;
        switch (m->type) {
        case SLINKY_JAIL__PROC:
            add2(a, "--proc", dest);
            break;
        case SLINKY_JAIL__TMPFS:
            if (m->mode >= 0) {
                snprintf(num, sizeof(num), "%04o", (unsigned)m->mode);
                add2(a, "--perms", num);
            }
            if (m->size && size_bytes(m->size)) {
                snprintf(num, sizeof(num), "%llu", size_bytes(m->size));
                add2(a, "--size", num);
            }
            add2(a, "--tmpfs", dest);
            if (m->read_only)
                add2(a, "--remount-ro", dest);
            break;
        default: {
            char *src = NULL;
            if ((rc = slinky_jail__mount_source(&src, m, ctx)) < 0) {
                free(dest);
                return rc;
            }
            const char *op = m->read_only ? (m->optional ? "--ro-bind-try" : "--ro-bind")
                                          : (m->optional ? "--bind-try" : "--bind");
            add3(a, op, src, dest);
            free(src);
        }
        }
        free(dest);
    }
    add2(a, "--remount-ro", "/");
    /* environment: only the differences from the caller's */
    if ((rc = slinky_jail__env_build(&env, &nenv, spec, ctx, (const char *const *)environ)) < 0)
        return rc;
    if (spec->env_clear)
        add(a, "--clearenv");
    for (size_t i = 0; !spec->env_clear && environ[i]; i++) {
        /* what the jail drops from the caller's (the GPU variables with no GPU) */
        size_t k = strcspn(environ[i], "=");
        bool kept = false;
        for (size_t j = 0; j < nenv && !kept; j++)
            kept = !strncmp(env[j], environ[i], k) && env[j][k] == '=';
        if (!kept && environ[i][k] == '=') {
            char key[256];
            if (k < sizeof(key)) {
                memcpy(key, environ[i], k);
                key[k] = '\0';
                add2(a, "--unsetenv", key);
            }
        }
    }
    for (size_t i = 0; i < nenv; i++) {
        char *eq = strchr(env[i], '=');
        *eq = '\0';
        const char *old = env_lookup(env[i]);
        if (spec->env_clear || !old || strcmp(old, eq + 1) != 0)
            add3(a, "--setenv", env[i], eq + 1);
        *eq = '=';
    }
    slinky_jail__strv_free(env, nenv);
    if (ctx->cwd)
        add2(a, "--chdir", ctx->cwd);
    add2(a, "--cap-drop", "ALL");
    for (size_t i = 0; i < spec->ncaps_keep; i++)
        add2(a, "--cap-add",
             slinky_jail__cap_name(slinky_jail__cap_from_name(spec->caps_keep[i])));
    add(a, "--");
    if (argv && argv[0]) {
        for (size_t i = 0; argv[i]; i++)
            add(a, argv[i]);
    } else {
        add(a, "/bin/sh");
    }
    return 0;
}

slinky_status slinky_jail_render_bwrap(char **args_out, size_t *count_out, size_t *len_out,
                                       const slinky_jail_spec *spec, const slinky_jail_job *job,
                                       const char *const *argv)
{
    if (!args_out)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_jail__ctx ctx;
    int rc = slinky_jail__begin(&ctx, spec, job, false);
    if (rc < 0)
        return rc;
    if (!spec->no_new_privs)
        slinky__log(SLINKY_LOG_INFO, "jail", "bwrap always sets no_new_privs");
    args a = {SLINKY__BUF_INIT, 0};
    rc = render(&a, spec, &ctx, argv);
    slinky_jail__ctx_dispose(&ctx);
    if (rc == 0 && a.b.failed)
        rc = slinky__error_oom();
    if (rc < 0) {
        slinky__buf_dispose(&a.b);
        return rc;
    }
    size_t len = 0;
    char *s = slinky__buf_detach(&a.b, &len);
    if (!s)
        return SLINKY_ENOMEM;
    *args_out = s;
    if (count_out)
        *count_out = a.n;
    if (len_out)
        *len_out = len;
    return 0;
}
