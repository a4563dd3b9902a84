/* Renderer: Slurm's job_container.conf, the slurm.conf keys, the plugstack.conf line. */
#include <string.h>

#include "jail_internal.h"

#define DEFAULT_PLUGIN "slinky_jail.so"
#define DEFAULT_SPEC "/etc/slurm/slinky-jail.yaml"

slinky_status slinky_jail_slurm_file_parse(slinky_jail_slurm_file *out, const char *name)
{
    static const char *const names[] = {"job-container", "slurm-conf", "plugstack"};
    for (size_t i = 0; out && name && i < SLINKY__ARRAY_SIZE(names); i++) {
        if (!strcmp(name, names[i])) {
            *out = (slinky_jail_slurm_file)i;
            return 0;
        }
    }
    return slinky__error_set(SLINKY_EINVALID,
                             "jail: unknown Slurm file '%s' (job-container, slurm-conf, plugstack)",
                             name ? name : "(null)");
}

slinky_status slinky_jail_render_slurm(char **out, const slinky_jail_spec *spec,
                                       slinky_jail_slurm_file which, const char *plugin,
                                       const char *spec_path)
{
    if (!out || !spec)
        return slinky__error_set(SLINKY_EINVALID, "jail: NULL argument");
    int rc = slinky_jail_spec_validate(spec);
    if (rc < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    switch (which) {
    case SLINKY_JAIL_SLURM_JOB_CONTAINER:
        /* slurmd 22.05 dies with "Cannot use /tmp or /dev/shm as BasePath" (a prefix check) */
        if (!strncmp(spec->scratch, "/tmp", 4) || !strncmp(spec->scratch, "/dev/shm", 8))
            return slinky__error_set(SLINKY_EINVALID,
                                     "scratch: job_container/tmpfs refuses a BasePath under /tmp "
                                     "or /dev/shm (%s/job_container)",
                                     spec->scratch);
        /* job_container/tmpfs gives each job a private /tmp and /dev/shm under BasePath
         * (on the node's NVMe, beside the jail's scratch); the SPANK jail then carries
         * them into its root. Slurm 22.05 keys only (Dirs= needs 23.02). */
        slinky__buf_puts(&b, "# job_container.conf (job_container/tmpfs), rendered by libslinky\n");
        slinky__buf_puts(&b, "AutoBasePath=true\n");
        slinky__buf_printf(&b, "BasePath=%s/job_container\n", spec->scratch);
        break;
    case SLINKY_JAIL_SLURM_CONF:
        slinky__buf_puts(&b, "# slurm.conf keys for the slinky jail, rendered by libslinky\n");
        slinky__buf_puts(&b, "JobContainerType=job_container/tmpfs\n");
        slinky__buf_puts(&b, "PrologFlags=Contain\n");
        break;
    case SLINKY_JAIL_SLURM_PLUGSTACK:
        if (plugin && (strchr(plugin, ' ') || strchr(plugin, '\n')))
            return slinky__error_set(SLINKY_EINVALID, "jail: plugin path with blanks: '%s'",
                                     plugin);
        if (spec_path && (strchr(spec_path, ' ') || strchr(spec_path, '\n')))
            return slinky__error_set(SLINKY_EINVALID, "jail: spec path with blanks: '%s'",
                                     spec_path);
        slinky__buf_printf(&b, "required %s spec=%s\n", plugin ? plugin : DEFAULT_PLUGIN,
                           spec_path ? spec_path : DEFAULT_SPEC);
        break;
    default:
        return slinky__error_set(SLINKY_EINVALID, "jail: unknown Slurm file %d", (int)which);
    }
    return slinky__buf_finish(out, NULL, &b);
}
