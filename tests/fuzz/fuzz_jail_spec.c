/* libFuzzer target: jail spec parsing, validation, serialization and rendering. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slinky/jail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_jail_spec *spec = NULL;
    if (slinky_jail_spec_parse(&spec, (const char *)data, size) < 0)
        return 0;
    /* a parsed spec is valid, serializes, and reads back to a valid spec */
    if (slinky_jail_spec_validate(spec) < 0)
        __builtin_trap();
    char *yaml = NULL;
    if (slinky_jail_spec_dump(&yaml, spec, true) == 0) {
        slinky_jail_spec *back = NULL;
        if (slinky_jail_spec_parse(&back, yaml, strlen(yaml)) < 0)
            __builtin_trap();
        slinky_jail_spec_free(back);
        slinky_free(yaml);
    }
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.job_id = "1";
    job.uid = 1000;
    job.gid = 1000;
    job.user = "fuzz";
    job.node = "n1";
    job.gpus = "0";
    char *out = NULL;
    if (slinky_jail_render_slurm(&out, spec, SLINKY_JAIL_SLURM_JOB_CONTAINER, NULL, NULL) == 0)
        slinky_free(out);
    char *env = NULL;
    const char *envp[] = {"PATH=/usr/bin", "HOME=/h", NULL};
    if (slinky_jail_environment(&env, NULL, spec, envp) == 0)
        slinky_free(env);
    slinky_jail_spec_free(spec);
    return 0;
}
