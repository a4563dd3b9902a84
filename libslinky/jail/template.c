/* Job context: resolving who/where a job runs, template expansion, GPU lists. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail_internal.h"

bool slinky_jail__path_has_dotdot(const char *p)
{
    if (!p)
        return false;
    const char *c = p;
    while (*c) {
        while (*c == '/')
            c++;
        const char *e = c;
        while (*e && *e != '/')
            e++;
        if (e - c == 2 && c[0] == '.' && c[1] == '.')
            return true;
        c = e;
    }
    return false;
}

int slinky_jail__valid_job_id(const char *id)
{
    if (!id || !*id)
        return slinky__error_set(SLINKY_EINVALID, "jail: a job id is required");
    size_t n = strlen(id);
    if (n > 64 || !strcmp(id, ".") || !strcmp(id, ".."))
        return slinky__error_set(SLINKY_EINVALID, "jail: invalid job id '%.64s'", id);
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)id[i]) && id[i] != '_' && id[i] != '-' && id[i] != '.')
            return slinky__error_set(SLINKY_EINVALID,
                                     "jail: invalid job id '%.64s' (letters, digits, '_', '-', '.')",
                                     id);
    return 0;
}

static int expand(char **out, const char *tmpl, const char *job, const char *user,
                  const char *node)
{
    slinky__buf b = SLINKY__BUF_INIT;
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            slinky__buf_putc(&b, *p);
            continue;
        }
        const char *val = NULL;
        switch (p[1]) {
        case 'j': val = job; break;
        case 'u': val = user; break;
        case 'n': val = node; break;
        case '%': val = "%"; break;
        default:
            slinky__buf_dispose(&b);
            return slinky__error_set(SLINKY_EINVALID,
                                     "jail: unknown template '%%%c' in '%s' (%%j, %%u, %%n, %%%%)",
                                     p[1] ? p[1] : ' ', tmpl);
        }
        if (!val) {
            slinky__buf_dispose(&b);
            return slinky__error_set(SLINKY_EINVALID, "jail: '%s' needs %%%c, which is not known",
                                     tmpl, p[1]);
        }
        if (p[1] != '%' && (strchr(val, '/') || !strcmp(val, "..") || !strcmp(val, "."))) {
            slinky__buf_dispose(&b);
            return slinky__error_set(SLINKY_EINVALID, "jail: refusing to expand %%%c to '%s'",
                                     p[1], val);
        }
        slinky__buf_puts(&b, val);
        p++;
    }
    if (b.failed) {
        slinky__buf_dispose(&b);
        return SLINKY_ENOMEM;
    }
    char *s = slinky__buf_detach(&b, NULL);
    if (!s)
        return SLINKY_ENOMEM;
    if (slinky_jail__path_has_dotdot(s)) {
        int rc = slinky__error_set(SLINKY_EINVALID, "jail: '%s' expands to a path with '..'", tmpl);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int slinky_jail__expand_ctx(char **out, const char *tmpl, const slinky_jail__ctx *ctx)
{
    return expand(out, tmpl, ctx->job_id, ctx->user, ctx->node);
}

slinky_status slinky_jail_expand(char **out, const char *tmpl, const slinky_jail_job *job)
{
    if (!out || !tmpl)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    if (job && job->version != SLINKY_JAIL_JOB_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "jail: unknown slinky_jail_job version");
    return expand(out, tmpl, job ? job->job_id : NULL, job ? job->user : NULL,
                  job ? job->node : NULL);
}

int slinky_jail__parse_gpus(int **out, size_t *n_out, const char *list)
{
    int *v = NULL;
    size_t n = 0;
    const char *p = list ? list : "";
    while (*p) {
        if (*p == ',' || *p == ' ') {
            p++;
            continue;
        }
        char *end = NULL;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a > 1023 || errno)
            goto bad;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b > 1023)
                goto bad;
            p = end;
        }
        if (*p && *p != ',' && *p != ' ')
            goto bad;
        for (long i = a; i <= b; i++) {
            bool dup = false;
            for (size_t k = 0; k < n; k++)
                dup |= v[k] == i;
            if (dup)
                continue;
            int *nv = slinky__realloc(v, (n + 1) * sizeof(int));
            if (!nv) {
                free(v);
                return SLINKY_ENOMEM;
            }
            v = nv;
            v[n++] = (int)i;
        }
    }
    *out = v;
    *n_out = n;
    return 0;
bad:
    free(v);
    return slinky__error_set(SLINKY_EINVALID,
                             "jail: invalid GPU list '%s' (indices such as \"0,2\" or \"0-3\")",
                             list);
}

char *slinky_jail__gpu_path(const char *pattern, int index)
{
    slinky__buf b = SLINKY__BUF_INIT;
    for (const char *p = pattern; *p; p++) {
        if (p[0] == '%' && p[1] == 'i') {
            slinky__buf_printf(&b, "%d", index);
            p++;
        } else {
            slinky__buf_putc(&b, *p);
        }
    }
    return slinky__buf_detach(&b, NULL); /* NULL (ENOMEM set) if any append failed */
}

int slinky_jail__mount_source(char **out, const slinky_jail__mount *m, const slinky_jail__ctx *ctx)
{
    char *src = NULL;
    int rc = slinky_jail__expand_ctx(&src, m->source ? m->source : "", ctx);
    if (rc < 0)
        return rc;
    if (!m->job_lifetime) {
        *out = src;
        return 0;
    }
    if (!ctx->job_dir) {
        free(src);
        return slinky__error_set(SLINKY_EINVALID, "jail: mount %s needs a job id",
                                 m->destination);
    }
    char *full = slinky__sprintf("%s/%s", ctx->job_dir, src);
    free(src);
    if (!full)
        return SLINKY_ENOMEM;
    *out = full;
    return 0;
}

bool slinky_jail__valid_size(const char *s)
{
    if (!s || !*s)
        return false;
    size_t d = strspn(s, "0123456789");
    if (d == 0 || d > 15)
        return false;
    const char *u = s + d;
    return !*u || (!u[1] && strchr("kKmMgG%", *u));
}

void slinky_jail__ctx_dispose(slinky_jail__ctx *ctx)
{
    free(ctx->job_id);
    free(ctx->user);
    free(ctx->node);
    free(ctx->groups);
    free(ctx->gpus);
    free(ctx->cwd);
    free(ctx->job_dir);
    memset(ctx, 0, sizeof(*ctx));
}

int slinky_jail__ctx_resolve(slinky_jail__ctx *ctx, const slinky_jail_spec *spec,
                             const slinky_jail_job *job, bool need_job)
{
    slinky_jail_job none = SLINKY_JAIL_JOB_INIT;
    int rc = 0;
    memset(ctx, 0, sizeof(*ctx));
    if (!job)
        job = &none;
    if (job->version != SLINKY_JAIL_JOB_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "jail: unknown slinky_jail_job version %u",
                                 job->version);
    if (job->job_id || need_job) {
        if ((rc = slinky_jail__valid_job_id(job->job_id)) < 0)
            return rc;
        if (!(ctx->job_id = slinky__strdup(job->job_id)) ||
            !(ctx->job_dir = slinky__sprintf("%s/job-%s", spec->scratch, job->job_id)))
            goto oom;
    }
    /* identity */
    struct passwd pw, *pwp = NULL;
    char pwbuf[4096];
    if (job->user) {
        if (getpwnam_r(job->user, &pw, pwbuf, sizeof(pwbuf), &pwp) != 0 || !pwp) {
            if (job->uid < 0) {
                rc = slinky__error_set(SLINKY_ENOTFOUND, "jail: unknown user '%s'", job->user);
                goto fail;
            }
            pwp = NULL;
        }
    } else {
        uid_t u = job->uid >= 0 ? (uid_t)job->uid : getuid();
        if (getpwuid_r(u, &pw, pwbuf, sizeof(pwbuf), &pwp) != 0)
            pwp = NULL;
    }
    ctx->uid = job->uid >= 0 ? (uid_t)job->uid : pwp ? pwp->pw_uid : getuid();
    ctx->gid = job->gid >= 0 ? (gid_t)job->gid : pwp ? pwp->pw_gid : getgid();
    if (job->user)
        ctx->user = slinky__strdup(job->user);
    else if (pwp)
        ctx->user = slinky__strdup(pwp->pw_name);
    else
        ctx->user = slinky__sprintf("%u", (unsigned)ctx->uid);
    if (!ctx->user)
        goto oom;
    if (strchr(ctx->user, '/') || !strcmp(ctx->user, "..") || !strcmp(ctx->user, ".")) {
        rc = slinky__error_set(SLINKY_EINVALID, "jail: invalid user name '%s'", ctx->user);
        goto fail;
    }
    if (job->groups && job->ngroups) {
        if (!(ctx->groups = slinky__calloc(job->ngroups, sizeof(gid_t))))
            goto oom;
        for (size_t i = 0; i < job->ngroups; i++)
            ctx->groups[i] = job->groups[i];
        ctx->ngroups = job->ngroups;
    } else if (pwp) {
        int n = 64;
        for (int tries = 0; tries < 4; tries++) {
            gid_t *g = slinky__calloc((size_t)n, sizeof(gid_t));
            if (!g)
                goto oom;
            int got = n;
            if (getgrouplist(pwp->pw_name, ctx->gid, g, &got) >= 0) {
                ctx->groups = g;
                ctx->ngroups = (size_t)got;
                break;
            }
            free(g);
            n = got > n ? got : n * 4;
        }
    }
    if (!ctx->groups) {
        if (!(ctx->groups = slinky__calloc(1, sizeof(gid_t))))
            goto oom;
        ctx->groups[0] = ctx->gid;
        ctx->ngroups = 1;
    }
    /* node */
    if (job->node) {
        ctx->node = slinky__strdup(job->node);
    } else {
        char host[256] = "";
        gethostname(host, sizeof(host) - 1);
        host[strcspn(host, ".")] = '\0';
        ctx->node = slinky__strdup(host[0] ? host : "localhost");
    }
    if (!ctx->node)
        goto oom;
    if ((rc = slinky_jail__parse_gpus(&ctx->gpus, &ctx->ngpus, job->gpus)) < 0)
        goto fail;
    const char *cwd = job->cwd ? job->cwd : spec->cwd;
    if (cwd && !(ctx->cwd = slinky__strdup(cwd)))
        goto oom;
    return 0;
oom:
    rc = slinky__error_oom();
fail:
    slinky_jail__ctx_dispose(ctx);
    return rc;
}

int slinky_jail__begin(slinky_jail__ctx *ctx, const slinky_jail_spec *spec,
                       const slinky_jail_job *job, bool need_job)
{
    if (!spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    int rc = slinky_jail_spec_validate(spec);
    if (rc < 0)
        return rc;
    return slinky_jail__ctx_resolve(ctx, spec, job, need_job);
}
