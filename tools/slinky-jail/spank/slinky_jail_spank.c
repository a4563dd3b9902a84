/*
 * slinky_jail.so: a SPANK plugin that runs every Slurm job step inside the
 * jail described by a libslinky jail spec.
 *
 * plugstack.conf:  required /path/slinky_jail.so spec=/etc/slurm/slinky-jail.yaml
 *
 * Hooks (Slurm 22.05, see slurm/spank.h for the order):
 *  - slurm_spank_init (remote: slurmstepd, root): load the spec, create the
 *    job's scratch (per-job /tmp ...) and record this slurmstepd as a user
 *    of it; scratch left by crashed jobs is removed on the way.
 *  - slurm_spank_task_init_privileged (the task's own process, after the
 *    fork, as root, before slurmstepd drops to the job user and execs):
 *    enter the jail (mount/ipc/uts namespaces, pivot_root, mounts, /dev with
 *    the step's GPUs only (SLURM_STEP_GPUS; SLURM_JOB_GPUS for the batch step), /proc, no_new_privs, capability bounding set
 *    emptied) and apply the environment. slurmstepd then switches to the
 *    job's uid/gid/groups itself, which leaves no capabilities. There is no
 *    PID namespace here: it would need another fork inside the task.
 *  - slurm_spank_job_epilog (slurmd's epilog, root): empty and remove the
 *    job's scratch.
 * A failure in the task hook fails the task: a step never runs unjailed.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "slinky/core.h"
#include "slinky/error.h"
#include "slinky/jail.h"

SPANK_PLUGIN(slinky_jail, 1);

static slinky_jail_spec *g_spec;
static char g_spec_path[4096] = "/etc/slurm/slinky-jail.yaml";

/*
 * The library's log goes to Slurm's log, through the public log callback (the plugin
 * links only the jail, doc and core code it uses: no libcurl, no libgit2, which matters
 * as slurmstepd loads the plugin for every step).
 */
static void to_slurm(slinky_log_level level, const char *module, const char *msg, void *payload)
{
    (void)payload;
    if (level <= SLINKY_LOG_WARNING)
        slurm_error("slinky_jail: %s: %s", module, msg);
    else
        slurm_debug("slinky_jail: %s: %s", module, msg);
}

static int parse_args(int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        if (!strncmp(av[i], "spec=", 5)) {
            snprintf(g_spec_path, sizeof(g_spec_path), "%s", av[i] + 5);
        } else {
            slurm_error("slinky_jail: unknown plugin argument '%s' (spec=PATH)", av[i]);
            return -1;
        }
    }
    return 0;
}

static int load_spec(void)
{
    slinky_log_set_callback(to_slurm, SLINKY_LOG_DEBUG, NULL);
    if (g_spec)
        return 0;
    if (slinky_jail_spec_load(&g_spec, g_spec_path) < 0) {
        slurm_error("slinky_jail: %s", slinky_error_last()->message);
        return -1;
    }
    return 0;
}

/* Job facts from Slurm; strings live in the caller's buffers. */
static int job_facts(spank_t sp, slinky_jail_job *job, char *id, size_t idlen, char *user,
                     size_t ulen)
{
    uint32_t jobid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
        slurm_error("slinky_jail: no job id");
        return -1;
    }
    snprintf(id, idlen, "%u", jobid);
    slinky_jail_job_init(job, SLINKY_JAIL_JOB_VERSION);
    job->job_id = id;
    if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS) {
        job->uid = uid;
        struct passwd pw, *pwp = NULL;
        char buf[4096];
        if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) == 0 && pwp) {
            snprintf(user, ulen, "%s", pwp->pw_name);
            job->user = user;
        }
    }
    if (spank_get_item(sp, S_JOB_GID, &gid) == ESPANK_SUCCESS)
        job->gid = gid;
    return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (parse_args(ac, av) < 0)
        return -1;
    if (!spank_remote(sp))
        return 0;
    if (load_spec() < 0)
        return -1;
    slinky_jail_job job;
    char id[32], user[256];
    if (job_facts(sp, &job, id, sizeof(id), user, sizeof(user)) < 0)
        return -1;
    if (slinky_jail_setup(g_spec, &job, (int64_t)getpid()) < 0) {
        slurm_error("slinky_jail: job %s: %s", id, slinky_error_last()->message);
        return -1;
    }
    return 0;
}

/*
 * GPUs of this step (Slurm's global indices), only from variables Slurm itself sets and
 * clears: SLURM_STEP_GPUS for a step, SLURM_JOB_GPUS for the batch step. (For an srun
 * step, a SLURM_JOB_GPUS in the user's environment reaches the step unchanged, so it is
 * not trusted there.)
 */
static void step_gpus(spank_t sp, uint32_t stepid, char *buf, int len)
{
    const char *var = stepid == SLURM_BATCH_SCRIPT ? "SLURM_JOB_GPUS" : "SLURM_STEP_GPUS";
    if (spank_getenv(sp, var, buf, len) != ESPANK_SUCCESS)
        buf[0] = '\0';
}

static int apply_env(spank_t sp, const slinky_jail_job *job)
{
    char **env = NULL;
    if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || !env)
        return 0;
    char *out = NULL;
    size_t n = 0;
    if (slinky_jail_job_environment(&out, &n, g_spec, job, (const char *const *)env) < 0) {
        slurm_error("slinky_jail: %s", slinky_error_last()->message);
        return -1;
    }
    /* unset what the jail drops (environment.clear), then set every entry */
    size_t nold = 0;
    while (env[nold])
        nold++;
    char **old = calloc(nold + 1, sizeof(char *));
    for (size_t i = 0; old && i < nold; i++)
        old[i] = strndup(env[i], strcspn(env[i], "="));
    for (size_t i = 0; old && i < nold; i++) {
        bool keep = false;
        size_t k = strlen(old[i] ? old[i] : "");
        for (const char *e = out; old[i] && e && *e; e += strlen(e) + 1)
            keep |= !strncmp(e, old[i], k) && e[k] == '=';
        if (old[i] && !keep)
            spank_unsetenv(sp, old[i]);
    }
    for (size_t i = 0; old && i < nold; i++)
        free(old[i]);
    free(old);
    int rc = 0;
    for (char *e = out; *e; e += strlen(e) + 1) {
        char *eq = strchr(e, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (spank_setenv(sp, e, eq + 1, 1) != ESPANK_SUCCESS)
            rc = -1;
        *eq = '=';
    }
    slinky_free(out);
    return rc;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!spank_remote(sp))
        return 0;
    if (load_spec() < 0)
        return -1;
    slinky_jail_job job;
    char id[32], user[256], gpus[1024];
    if (job_facts(sp, &job, id, sizeof(id), user, sizeof(user)) < 0)
        return -1;
    uint32_t stepid = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS) {
        slurm_error("slinky_jail: job %s: no step id", id);
        return -1;
    }
    step_gpus(sp, stepid, gpus, sizeof(gpus));
    job.gpus = gpus;
    if (apply_env(sp, &job) < 0)
        return -1;
    /* A batch step execs the script slurmd wrote into its spool folder: make that
     * folder visible (read-only) in the jail at the same path. */
    slinky_jail_spec *spec = g_spec, *copy = NULL;
    int argc = 0;
    char **argv = NULL;
    if (stepid == SLURM_BATCH_SCRIPT &&
        spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS && argc > 0 &&
        argv[0][0] == '/') {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s", argv[0]);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir)
            *slash = '\0';
        if (slinky_jail_spec_new_copy(&copy, g_spec) < 0 ||
            slinky_jail_spec_add_bind(copy, dir, dir, true) < 0) {
            slurm_error("slinky_jail: job %s: batch script folder: %s", id,
                        slinky_error_last()->message);
            slinky_jail_spec_free(copy);
            return -1;
        }
        spec = copy;
    }
    int rc = slinky_jail_enter(spec, &job,
                               SLINKY_JAIL_ENTER_KEEP_IDENTITY | SLINKY_JAIL_ENTER_NO_PIDNS |
                                   SLINKY_JAIL_ENTER_KEEP_ENV);
    if (rc < 0)
        slurm_error("slinky_jail: job %s: cannot enter the jail: %s", id,
                    slinky_error_last()->message);
    slinky_jail_spec_free(copy);
    return rc < 0 ? -1 : 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    if (parse_args(ac, av) < 0 || load_spec() < 0)
        return -1;
    uint32_t jobid = 0;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS)
        return -1;
    char id[32];
    snprintf(id, sizeof(id), "%u", jobid);
    if (slinky_jail_cleanup(g_spec, id) < 0) {
        slurm_error("slinky_jail: job %s: scratch cleanup: %s", id,
                    slinky_error_last()->message);
        return -1;
    }
    return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    slinky_jail_spec_free(g_spec);
    g_spec = NULL;
    return 0;
}
