/*
 * bench_spawn.h: timing whole processes for the C benches (header only).
 * bench_run() spawns argv (stdout/stderr to /dev/null) and returns its wall time in seconds,
 * or -1 when it could not start or did not exit 0; *rss_kib (may be NULL) gets its peak RSS.
 * Caveat: the kernel counts the parent's RSS at spawn time into the child's peak (exec keeps
 * the old address space's high-water mark), so measure RSS while the parent is still small.
 */
#ifndef SLINKY_BENCH_SPAWN_H
#define SLINKY_BENCH_SPAWN_H

#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_run(char *const argv[], char *const envp[], long *rss_kib)
{
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    double t0 = bench_now();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    double t = bench_now() - t0;
    if (rss_kib)
        *rss_kib = ru.ru_maxrss;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

#endif
