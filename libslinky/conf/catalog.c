/* conf: the key catalogue per Slurm version and the restart table. */
#include <stdlib.h>
#include <string.h>

#include "conf/catalog.h"
#include "conf/conf_internal.h"

unsigned int slinky_conf__version(unsigned int v)
{
    return v ? v : SLINKY_CONF_SLURM_25_05;
}

/*
 * Keys the 22.05 parser accepts that its man page does not list (checked
 * with `SLURM_CONF=f scontrol show hostnames x` on 22.05.8), and the keys
 * later versions add that upstream Slinky renders or documents.
 */
typedef struct extra_key {
    int kind;
    const char *scope;
    const char *name;
    unsigned int since; /* first version that has it */
} extra_key;

static const extra_key extra_keys[] = {
    {SLINKY_CONF_KIND_SLURM, "global", "ControlMachine", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "ControlAddr", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "BackupController", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "BackupAddr", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "FastSchedule", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "KillOnBadExit", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "JobCredentialPrivateKey", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "JobCredentialPublicCertificate", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "AccountingStorageLoc", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "AccountingStorageUser", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "SallocDefaultCommand", 0},
    {SLINKY_CONF_KIND_SLURM, "global", "PropagatePrioProcess", 0},
    {SLINKY_CONF_KIND_SLURM, "NodeName", "Feature", 0},
    {SLINKY_CONF_KIND_SLURM, "PartitionName", "Shared", 0},
    {SLINKY_CONF_KIND_SLURM, "PartitionName", "Priority", 0},
    /* 23.x / 24.x */
    {SLINKY_CONF_KIND_SLURM, "global", "SuspendExcStates", 2302},
    {SLINKY_CONF_KIND_SLURM, "global", "DataParserParameters", 2411},
    {SLINKY_CONF_KIND_SLURM, "global", "HashPlugin", 2405},
    {SLINKY_CONF_KIND_SLURM, "global", "MaxBatchRequeue", 2405},
    {SLINKY_CONF_KIND_SLURM, "NodeName", "RestrictedCoresPerGPU", 2411},
    {SLINKY_CONF_KIND_SLURM, "NodeName", "Topology", 2505},
    {SLINKY_CONF_KIND_SLURM, "PartitionName", "Topology", 2505},
    /* 25.05 */
    {SLINKY_CONF_KIND_SLURM, "global", "MetricsType", 2505},
    {SLINKY_CONF_KIND_SLURM, "global", "CertmgrType", 2505},
    {SLINKY_CONF_KIND_SLURM, "global", "CertmgrParameters", 2505},
    {SLINKY_CONF_KIND_SLURM, "global", "TLSType", 2505},
    {SLINKY_CONF_KIND_SLURM, "global", "TLSParameters", 2505},
    /* job_container.conf (job_container_tmpfs man page is not installed) */
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "AutoBasePath", 0},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "BasePath", 0},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "Dirs", 0},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "EntireStepInNS", 2302},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "InitScript", 0},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "NodeName", 0},
    {SLINKY_CONF_KIND_JOB_CONTAINER, "global", "Shared", 2302},
    /* gres.conf record keys */
    {SLINKY_CONF_KIND_GRES, "global", "NodeName", 0},
};

static int key_cmp(int kind, const char *scope, const char *name, const slinky_conf__key *k)
{
    if (kind != k->kind)
        return kind < k->kind ? -1 : 1;
    int c = strcmp(scope, k->scope);
    if (c)
        return c;
    return slinky_conf__icmp(name, k->name);
}

static int kind_rank(int kind)
{
    /* the generator sorts SLURM, CGROUP, GRES, SLURMDBD as 0..3 == enum values */
    return kind;
}

bool slinky_conf_key_is_known(slinky_conf_kind kind, const char *scope, const char *key,
                              unsigned int slurm_version)
{
    if (!key || !*key)
        return false;
    if (!scope)
        scope = "global";
    unsigned int v = slinky_conf__version(slurm_version);
    size_t lo = 0, hi = slinky_conf__keys_2205_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_cmp(kind_rank((int)kind), scope, key, &slinky_conf__keys_2205[mid]);
        if (c == 0)
            return true;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(extra_keys); i++) {
        const extra_key *e = &extra_keys[i];
        if (e->kind == (int)kind && !strcmp(e->scope, scope) && v >= e->since &&
            !slinky__strcasecmp(e->name, key))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- change classes */

const char *slinky_conf_change_class_name(slinky_conf_change_class klass)
{
    switch (klass) {
    case SLINKY_CONF_CLASS_NONE: return "none";
    case SLINKY_CONF_CLASS_RECONFIGURE: return "reconfigure";
    case SLINKY_CONF_CLASS_RESTART_SLURMCTLD: return "restart-slurmctld";
    case SLINKY_CONF_CLASS_RESTART_ALL: return "restart-all";
    case SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE: return "fatal-on-reconfigure";
    }
    return "unknown";
}

/* What was measured on the real daemons (notes section 6 and 16). */
typedef struct measured {
    const char *key;
    unsigned int until; /* applies to versions <= until (0: all) */
    slinky_conf_change_class klass;
    const char *reason;
} measured;

static const measured measured_table[] = {
    {"MaxNodeCount", 2305, SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE,
     "measured on 22.05: reconfigure kills slurmctld (\"fatal: MaxNodeCount has changed ... "
     "slurmctld must be restarted\")"},
    {"CredType", 0, SLINKY_CONF_CLASS_RESTART_ALL,
     "measured: reconfigure refuses it (\"CredType change requires restart of all Slurm "
     "daemons to take effect\")"},
    {"SlurmctldPort", 0, SLINKY_CONF_CLASS_RESTART_SLURMCTLD,
     "measured: reconfigure accepts it but slurmctld keeps listening on the old port"},
    {"AccountingStorageEnforce", 0, SLINKY_CONF_CLASS_RESTART_SLURMCTLD,
     "measured: reconfigure shows the new value but the old enforcement stays in effect"},
    {"SelectType", 0, SLINKY_CONF_CLASS_RESTART_ALL,
     "measured: reconfigure refuses it (\"SelectType change requires restart of the slurmctld "
     "daemon to take effect\")"},
    {"ClusterName", 0, SLINKY_CONF_CLASS_RESTART_SLURMCTLD,
     "measured: a new ClusterName needs a restart and the clustername state file removed"},
};

slinky_conf_change_class slinky_conf_key_change_class(const char **reason_out, const char *key,
                                                      const char *option,
                                                      unsigned int slurm_version)
{
    unsigned int v = slinky_conf__version(slurm_version);
    const char *reason = "slurm.conf(5): changes take effect on \"scontrol reconfigure\" unless "
                         "otherwise noted";
    slinky_conf_change_class k = SLINKY_CONF_CLASS_RECONFIGURE;
    if (!key)
        return SLINKY_CONF_CLASS_NONE;
    if (!option || !*option) {
        for (size_t i = 0; i < SLINKY__ARRAY_SIZE(measured_table); i++) {
            const measured *m = &measured_table[i];
            if (!slinky__strcasecmp(m->key, key) && (m->until == 0 || v <= m->until)) {
                if (reason_out)
                    *reason_out = m->reason;
                return m->klass;
            }
        }
    }
    for (size_t i = 0; i < slinky_conf__restarts_2205_count; i++) {
        const slinky_conf__restart *r = &slinky_conf__restarts_2205[i];
        if (r->kind != SLINKY_CONF_KIND_SLURM || strcmp(r->scope, "global") ||
            slinky__strcasecmp(r->name, key))
            continue;
        if ((option && *option) ? slinky__strcasecmp(r->option, option) != 0 : r->option[0] != 0)
            continue;
        k = (slinky_conf_change_class)r->klass;
        reason = r->sentence;
        break;
    }
    if (reason_out)
        *reason_out = reason;
    return k;
}
