/* The environment of a jailed process. */
#include <stdlib.h>
#include <string.h>

#include "jail_internal.h"

static const char *env_get(char **env, size_t n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(env[i], key, k) && env[i][k] == '=')
            return env[i] + k + 1;
    return NULL;
}

static int env_put(char ***env, size_t *n, const char *key, const char *val)
{
    size_t k = strlen(key);
    char *e = slinky__sprintf("%s=%s", key, val);
    if (!e)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < *n; i++) {
        if (!strncmp((*env)[i], key, k) && (*env)[i][k] == '=') {
            free((*env)[i]);
            (*env)[i] = e;
            return 0;
        }
    }
    int rc = slinky_jail__strv_push(env, n, e);
    free(e);
    return rc;
}

static void env_unset(char **env, size_t *n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < *n; i++) {
        if (!strncmp(env[i], key, k) && env[i][k] == '=') {
            free(env[i]);
            memmove(env + i, env + i + 1, (*n - i - 1) * sizeof(*env));
            (*n)--;
            env[*n] = NULL;
            return;
        }
    }
}

/*
 * The GPU variables inside the jail name the allocated GPUs as the jail shows them:
 * renumbered from 0, whatever the caller's environment (or a user's export) held.
 */
static int gpu_env(char ***env, size_t *n, size_t ngpus)
{
    static const char *const keys[] = {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"};
    if (ngpus == 0) {
        for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keys); i++)
            env_unset(*env, n, keys[i]);
        return 0;
    }
    slinky__buf b = SLINKY__BUF_INIT;
    for (size_t i = 0; i < ngpus; i++)
        slinky__buf_printf(&b, "%s%zu", i ? "," : "", i);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return SLINKY_ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keys) && rc == 0; i++)
        rc = env_put(env, n, keys[i], b.data);
    slinky__buf_dispose(&b);
    return rc;
}

/* prepend dirs (in order) to a ':' list, dropping entries already present */
static int prepend(char ***env, size_t *n, const char *key, char *const *dirs, size_t ndirs,
                   const char *fallback)
{
    if (!ndirs)
        return 0;
    const char *old = env_get(*env, *n, key);
    if (!old)
        old = fallback;
    slinky__buf b = SLINKY__BUF_INIT;
    for (size_t i = 0; i < ndirs; i++) {
        if (b.len)
            slinky__buf_putc(&b, ':');
        slinky__buf_puts(&b, dirs[i]);
    }
    const char *p = old ? old : "";
    while (*p) {
        size_t len = strcspn(p, ":");
        bool dup = false;
        for (size_t i = 0; i < ndirs; i++)
            dup |= strlen(dirs[i]) == len && !strncmp(dirs[i], p, len);
        if (!dup && len) {
            slinky__buf_putc(&b, ':');
            slinky__buf_put(&b, p, len);
        }
        p += len;
        if (*p == ':')
            p++;
    }
    if (b.failed) {
        slinky__buf_dispose(&b);
        return SLINKY_ENOMEM;
    }
    int rc = env_put(env, n, key, b.data);
    slinky__buf_dispose(&b);
    return rc;
}

int slinky_jail__env_build(char ***out, size_t *n_out, const slinky_jail_spec *spec,
                           const slinky_jail__ctx *ctx, const char *const *envp)
{
    char **env = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *eq = strchr(envp[i], '=');
        if (!eq)
            continue;
        if (spec->env_clear) {
            bool keep = false;
            size_t k = (size_t)(eq - envp[i]);
            for (size_t j = 0; j < spec->nenv_pass; j++)
                keep |= strlen(spec->env_pass[j]) == k && !strncmp(spec->env_pass[j], envp[i], k);
            if (!keep)
                continue;
        }
        if ((rc = slinky_jail__strv_push(&env, &n, envp[i])) < 0)
            goto fail;
    }
    for (size_t i = 0; i + 1 < spec->nenv_set; i += 2)
        if ((rc = env_put(&env, &n, spec->env_set[i], spec->env_set[i + 1])) < 0)
            goto fail;
    if ((rc = prepend(&env, &n, "PATH", spec->path_prepend, spec->npath_prepend,
                      "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin")) < 0 ||
        (rc = prepend(&env, &n, "LD_LIBRARY_PATH", spec->ld_prepend, spec->nld_prepend, NULL)) < 0 ||
        (ctx && (rc = gpu_env(&env, &n, ctx->ngpus)) < 0))
        goto fail;
    if (!env && !(env = slinky__calloc(1, sizeof(char *)))) {
        rc = SLINKY_ENOMEM;
        goto fail;
    }
    *out = env;
    *n_out = n;
    return 0;
fail:
    slinky_jail__strv_free(env, n);
    return rc;
}

static int environment(char **out, size_t *count_out, const slinky_jail_spec *spec,
                       const slinky_jail__ctx *ctx, const char *const *envp)
{
    char **env = NULL;
    size_t n = 0;
    int rc = slinky_jail__env_build(&env, &n, spec, ctx, envp);
    if (rc < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    for (size_t i = 0; i < n; i++)
        slinky__buf_put(&b, env[i], strlen(env[i]) + 1);
    slinky_jail__strv_free(env, n);
    if ((rc = slinky__buf_finish(out, NULL, &b)) < 0)
        return rc;
    if (count_out)
        *count_out = n;
    return 0;
}

slinky_status slinky_jail_environment(char **out, size_t *count_out, const slinky_jail_spec *spec,
                                      const char *const *envp)
{
    if (!out || !spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    return environment(out, count_out, spec, NULL, envp);
}

slinky_status slinky_jail_job_environment(char **out, size_t *count_out,
                                          const slinky_jail_spec *spec,
                                          const slinky_jail_job *job, const char *const *envp)
{
    if (!out || !spec || !job)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    slinky_jail__ctx ctx;
    int rc = slinky_jail__ctx_resolve(&ctx, spec, job, false);
    if (rc < 0)
        return rc;
    rc = environment(out, count_out, spec, &ctx, envp);
    slinky_jail__ctx_dispose(&ctx);
    return rc;
}
