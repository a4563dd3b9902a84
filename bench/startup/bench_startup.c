/*
 * bench_startup: what a tool costs to start, above /bin/true.
 *
 * Runs, interleaved round by round (so a loaded machine slows all alike), N times each:
 *   /bin/true | slinkyctl version | slinkyctl conf check FILE (a 10-line slurm.conf)
 *   | scontrol --version (Slurm's client, when installed; SLURM_CONF=the same file)
 * each timed from posix_spawn to waitpid, and prints the medians and, per command, the
 * median minus /bin/true's, as BENCH result lines (target: at most 2 ms above /bin/true).
 * usage: bench_startup [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench_spawn.h"

extern char **environ;

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n < 3)
        n = 3;
    char dir[] = "/tmp/bench-startup.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256];
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fputs("ClusterName=bench\nSlurmctldHost=localhost\nAuthType=auth/munge\n"
          "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
          "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
          "NodeName=DEFAULT CPUs=4 RealMemory=4000 State=UNKNOWN\n"
          "NodeName=node[1-4]\nPartitionName=debug Nodes=node[1-4] Default=YES\n", f);
    fclose(f);
    setenv("SLURM_CONF", path, 1); /* scontrol reads a configuration even for --version */
    char *cmds[][7] = {
        {"/bin/true", NULL},
        {(char *)SLINKYCTL_PATH, "version", NULL},
        {(char *)SLINKYCTL_PATH, "conf", "check", "-V", "22.05", NULL},
        {"/usr/bin/scontrol", "--version", NULL},
    };
    cmds[2][5] = path;
    const char *names[] = {"/bin/true", "slinkyctl version", "slinkyctl conf check (10 lines)",
                           "scontrol --version"};
    enum { K = 4 };
    int have_sc = access(cmds[3][0], X_OK) == 0;
    double *t[K];
    for (int k = 0; k < K; k++)
        t[k] = calloc((size_t)n, sizeof(double));
    for (int k = 0; k < K; k++) /* warm the page cache; fail early */
        if ((k < 3 || have_sc) && bench_run(cmds[k], environ, NULL) < 0) {
            fprintf(stderr, "bench_startup: %s failed\n", names[k]);
            unlink(path);
            rmdir(dir);
            return 1;
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < K; k++)
            t[k][i] = k < 3 || have_sc ? bench_run(cmds[k], environ, NULL) : 0;
    double med[K];
    for (int k = 0; k < K; k++) {
        qsort(t[k], (size_t)n, sizeof(double), bench_cmp_double);
        med[k] = t[k][n / 2] * 1e3;
    }
    printf("start-up, %d interleaved runs each, median wall time (spawn to exit):\n", n);
    for (int k = 0; k < K; k++)
        if (k < 3 || have_sc)
            printf("  %-34s %6.3f ms  (+%.3f ms over /bin/true)\n", names[k], med[k],
                   med[k] - med[0]);
    char peer[64] = "-";
    if (have_sc)
        snprintf(peer, sizeof(peer), "scontrol--version:%.3fms", med[3] - med[0]);
    printf("BENCH measure=startup.slinkyctl-version ours=%.3fms peer=%s ratio=- "
           "target=ours<=2\n", med[1] - med[0], peer);
    printf("BENCH measure=startup.slinkyctl-conf-check-10-lines ours=%.3fms peer=%s ratio=- "
           "target=ours<=2\n", med[2] - med[0], peer);
    unlink(path);
    rmdir(dir);
    for (int k = 0; k < K; k++)
        free(t[k]);
    return 0;
}
