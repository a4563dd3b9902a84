/*
 * slinkyctl health: node health checks (slinky-health).
 *   slinkyctl health run [ARGS...]              runs slinky-health run ARGS (same flags, table,
 *                                               exit codes: 0 ok, 1 failure, 2 config, 3 Slurm)
 *   slinkyctl health status [--results-dir DIR] the latest results per node from DIR/<node>.tsv
 *                                               (default SLINKY_HEALTH_RESULTS or
 *                                               /var/lib/slinky-health); exit 1 when one failed
 * slinky-health is looked up beside slinkyctl, then in the build tree, then on PATH.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

static void health_usage(FILE *f)
{
    fprintf(
        f,
        "usage: slinkyctl health run [--node N] [--check C] [--config FILE] [slinky-health flags]\n"
        "       slinkyctl health status [--results-dir DIR]\n"
        "exit: run as slinky-health (0 ok, 1 failure, 2 config, 3 Slurm); status 1 when a check "
        "failed\n");
}

static int health_exec(int argc, char **argv)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char **args = calloc((size_t)argc + 2, sizeof(char *));
    if (args == NULL)
        return 1;
    args[0] = "slinky-health";
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        *slash = '\0';
        const char *cands[] = {"%s/slinky-health", "%s/../slinky-health/slinky-health"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(path, sizeof(path), cands[i], self);
            if (access(path, X_OK) == 0)
                execv(path, args);
        }
    }
    execvp("slinky-health", args);
    fprintf(stderr, "slinkyctl health: cannot run slinky-health: %s\n", strerror(errno));
    free(args);
    return 1;
}

static int health_status(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "slinkyctl health status: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int failed = 0, rows = 0;
    long now = (long)time(NULL);
    printf("%-16s %-28s %-8s %-14s %-14s %s\n", "NODE", "CHECK", "RESULT", "VALUE", "LIMIT", "AGE");
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 4, ".tsv"))
            continue;
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        FILE *f = fopen(p, "r");
        char line[1024];
        while (f && fgets(line, sizeof(line), f)) {
            if (line[0] == '#')
                continue;
            line[strcspn(line, "\n")] = '\0';
            char *col[6] = {0}, *s = line;
            for (int k = 0; k < 6 && s; k++) {
                col[k] = s;
                s = strchr(s, '\t');
                if (s)
                    *s++ = '\0';
            }
            if (col[5] == NULL)
                continue;
            failed |= !strcmp(col[1], "fail") || !strcmp(col[1], "timeout");
            rows++;
            printf("%-16.*s %-28s %-8s %-14s %-14s %lds\n", (int)(len - 4), de->d_name, col[0],
                   col[1], col[2], col[3], now - atol(col[5]));
        }
        if (f)
            fclose(f);
    }
    closedir(d);
    if (rows == 0)
        fprintf(stderr, "slinkyctl health status: no results in %s\n", dir);
    return failed ? 1 : 0;
}

int slinkyctl_cmd_health(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        health_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "run"))
        return health_exec(argc - 1, argv + 1);
    if (!strcmp(argv[1], "status")) {
        const char *dir = getenv("SLINKY_HEALTH_RESULTS");
        if (dir == NULL || *dir == '\0')
            dir = "/var/lib/slinky-health";
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "--results-dir") && i + 1 < argc) {
                dir = argv[++i];
            } else {
                fprintf(stderr, "slinkyctl health status: unexpected argument '%s'\n", argv[i]);
                health_usage(stderr);
                return 2;
            }
        }
        return health_status(dir);
    }
    fprintf(stderr, "slinkyctl health: unknown command '%s'\n", argv[1]);
    health_usage(stderr);
    return 2;
}
