/* Jail spec validation: every message names the field. */
#include <stdio.h>
#include <string.h>

#include "jail_internal.h"

static int fail(const char *field, const char *fmt, const char *a, const char *b)
{
    return slinky__error_set(SLINKY_EINVALID, "%s: %s%s%s", field, fmt, a ? a : "", b ? b : "");
}

/* Absolute, normalised (no "", ".", ".." components, no trailing '/'). */
static int check_dest(const char *field, const char *d)
{
    if (!d || !*d)
        return fail(field, "required", NULL, NULL);
    if (d[0] != '/')
        return fail(field, "must be an absolute path, got ", d, NULL);
    if (slinky_jail__path_has_dotdot(d))
        return fail(field, "'..' is not allowed in ", d, NULL);
    if (!strcmp(d, "/"))
        return fail(field, "cannot mount over the jail root", NULL, NULL);
    for (const char *c = d; *c; c++) {
        if (c[0] == '/' && (c[1] == '/' || c[1] == '\0'))
            return fail(field, "empty path component in ", d, NULL);
        if (c[0] == '/' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
            return fail(field, "'.' component in ", d, NULL);
    }
    if (strchr(d, '%'))
        return fail(field, "templates are not allowed in destinations: ", d, NULL);
    return 0;
}

/* a is b or an ancestor of b */
static bool covers(const char *a, const char *b)
{
    size_t n = strlen(a);
    return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

static int check_abs(const char *field, const char *p, bool allow_pct)
{
    if (!p || p[0] != '/')
        return fail(field, "must be an absolute path, got ", p ? p : "(none)", NULL);
    if (slinky_jail__path_has_dotdot(p))
        return fail(field, "'..' is not allowed in ", p, NULL);
    if (!allow_pct && strchr(p, '%'))
        return fail(field, "templates are not allowed in ", p, NULL);
    return 0;
}

static int check_template(const char *field, const char *p)
{
    for (const char *c = p; *c; c++) {
        if (*c != '%')
            continue;
        if (c[1] != 'j' && c[1] != 'u' && c[1] != 'n' && c[1] != '%')
            return fail(field, "unknown template (use %j, %u, %n, %%) in ", p, NULL);
        c++;
    }
    return 0;
}

static int check_gpu_pattern(const char *field, const char *p)
{
    int rc = check_abs(field, p, true);
    if (rc < 0)
        return rc;
    const char *i = strstr(p, "%i");
    if (!i)
        return fail(field, "needs %i (the GPU index) in ", p, NULL);
    for (const char *c = p; *c; c++)
        if (*c == '%' && c[1] != 'i')
            return fail(field, "only %i is allowed in ", p, NULL);
    return 0;
}

slinky_status slinky_jail_spec_validate(const slinky_jail_spec *s)
{
    char field[96], other[96];
    int rc;
    if (!s)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL spec");
    if ((rc = check_abs("root.path", s->root_path, false)) < 0 ||
        (rc = check_abs("scratch", s->scratch, false)) < 0)
        return rc;
    if (!strcmp(s->scratch, "/") || !strcmp(s->scratch, "/tmp"))
        return fail("scratch", "must be a dedicated folder, not ", s->scratch, NULL);
    if (s->hostname && (!*s->hostname || strlen(s->hostname) > 64 || strchr(s->hostname, '/')))
        return fail("namespaces.hostname", "invalid host name ", s->hostname, NULL);
    if (s->hostname && !s->ns_uts)
        return fail("namespaces.hostname", "needs namespaces.uts: true", NULL, NULL);
    size_t nproc = 0;
    for (size_t i = 0; i < s->nmounts; i++) {
        const slinky_jail__mount *m = &s->mounts[i];
        snprintf(field, sizeof(field), "mounts[%zu].destination", i);
        if ((rc = check_dest(field, m->destination)) < 0)
            return rc;
        bool in_proc = covers("/proc", m->destination);
        if (m->type == SLINKY_JAIL__PROC) {
            if (strcmp(m->destination, "/proc") != 0)
                return fail(field, "a proc mount goes at /proc, not ", m->destination, NULL);
            if (++nproc > 1)
                return fail(field, "/proc is mounted twice", NULL, NULL);
        } else if (in_proc) {
            return fail(field, "mounting over /proc is not allowed: ", m->destination, NULL);
        }
        if (!strcmp(m->destination, "/dev"))
            return fail(field, "/dev is built by the jail (see devices)", NULL, NULL);
        snprintf(field, sizeof(field), "mounts[%zu].source", i);
        if (m->type == SLINKY_JAIL__BIND || m->type == SLINKY_JAIL__RBIND) {
            if (!m->source || !*m->source)
                return fail(field, "required for bind mounts", NULL, NULL);
            if ((rc = check_template(field, m->source)) < 0)
                return rc;
            if (slinky_jail__path_has_dotdot(m->source))
                return fail(field, "'..' is not allowed in ", m->source, NULL);
            if (m->job_lifetime && m->source[0] == '/')
                return fail(field,
                            "lifetime job: the source is relative to the job's scratch folder, "
                            "got ",
                            m->source, NULL);
            if (!m->job_lifetime && m->source[0] != '/')
                return fail(field, "must be an absolute path, got ", m->source, NULL);
        } else {
            if (m->source && *m->source && m->type == SLINKY_JAIL__PROC)
                return fail(field, "a proc mount has no source", NULL, NULL);
            if (m->job_lifetime)
                return fail(field, "lifetime job applies to bind mounts only", NULL, NULL);
        }
        snprintf(field, sizeof(field), "mounts[%zu].size", i);
        if (m->size && m->type != SLINKY_JAIL__TMPFS)
            return fail(field, "size applies to tmpfs only", NULL, NULL);
        if (m->size && !slinky_jail__valid_size(m->size))
            return fail(field, "expected a size such as 64m, 2g or 50%, got ", m->size, NULL);
        /* a later mount must not hide an earlier one */
        for (size_t j = 0; j < i; j++) {
            if (covers(m->destination, s->mounts[j].destination)) {
                snprintf(field, sizeof(field), "mounts[%zu].destination", i);
                snprintf(other, sizeof(other), " (mounts[%zu])", j);
                return slinky__error_set(SLINKY_EINVALID,
                                         "%s: %s hides the earlier mount at %s%s: put it first",
                                         field, m->destination, s->mounts[j].destination, other);
            }
        }
    }
    if (s->gpu_source && (rc = check_gpu_pattern("devices.gpu.source", s->gpu_source)) < 0)
        return rc;
    if (s->gpu_destination &&
        (rc = check_gpu_pattern("devices.gpu.destination", s->gpu_destination)) < 0)
        return rc;
    if (s->gpu_destination && strncmp(s->gpu_destination, "/dev/", 5) != 0)
        return fail("devices.gpu.destination", "must be under /dev/, got ", s->gpu_destination,
                    NULL);
    for (size_t i = 0; i < s->ngpu_control; i++) {
        snprintf(field, sizeof(field), "devices.gpu.control[%zu]", i);
        if ((rc = check_abs(field, s->gpu_control[i], false)) < 0)
            return rc;
        if (strncmp(s->gpu_control[i], "/dev/", 5) != 0)
            return fail(field, "must be under /dev/, got ", s->gpu_control[i], NULL);
    }
    for (size_t i = 0; i < s->ndev_extra; i++) {
        snprintf(field, sizeof(field), "devices.extra[%zu]", i);
        if ((rc = check_abs(field, s->dev_extra[i], false)) < 0)
            return rc;
        if (strncmp(s->dev_extra[i], "/dev/", 5) != 0)
            return fail(field, "must be under /dev/, got ", s->dev_extra[i], NULL);
    }
    for (size_t i = 0; i + 1 < s->nenv_set; i += 2) {
        snprintf(field, sizeof(field), "environment.set.%s", s->env_set[i]);
        if (!*s->env_set[i] || strchr(s->env_set[i], '='))
            return fail(field, "invalid variable name", NULL, NULL);
    }
    for (size_t i = 0; i < s->nenv_pass; i++) {
        snprintf(field, sizeof(field), "environment.pass[%zu]", i);
        if (!*s->env_pass[i] || strchr(s->env_pass[i], '='))
            return fail(field, "invalid variable name ", s->env_pass[i], NULL);
    }
    for (size_t i = 0; i < s->npath_prepend; i++) {
        snprintf(field, sizeof(field), "environment.pathPrepend[%zu]", i);
        if ((rc = check_abs(field, s->path_prepend[i], false)) < 0)
            return rc;
        if (strchr(s->path_prepend[i], ':'))
            return fail(field, "':' is not allowed in ", s->path_prepend[i], NULL);
    }
    for (size_t i = 0; i < s->nld_prepend; i++) {
        snprintf(field, sizeof(field), "environment.ldLibraryPathPrepend[%zu]", i);
        if ((rc = check_abs(field, s->ld_prepend[i], false)) < 0)
            return rc;
        if (strchr(s->ld_prepend[i], ':'))
            return fail(field, "':' is not allowed in ", s->ld_prepend[i], NULL);
    }
    if (s->cwd && (rc = check_abs("process.cwd", s->cwd, false)) < 0)
        return rc;
    for (size_t i = 0; i < s->ncaps_keep; i++) {
        snprintf(field, sizeof(field), "process.capabilities[%zu]", i);
        if (slinky_jail__cap_from_name(s->caps_keep[i]) < 0)
            return fail(field, "unknown capability ", s->caps_keep[i], NULL);
    }
    return 0;
}
