/* Ledger benchmarks: per-add cost vs history length; replay vs useradd. */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slinky.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_ledger: %s: %s\n", what, slinky_error_last()->message);
    exit(1);
}

static char *tmpdir(void)
{
    char *d = strdup("/var/tmp/bench-ledger.XXXXXX");
    if (!mkdtemp(d)) {
        perror("mkdtemp");
        exit(1);
    }
    return d;
}

static void rmrf(const char *d)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", d);
}

static slinky_ledger *new_ledger(const char *dir, bool fsync)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/ledger.git", dir);
    slinky_ledger *l = NULL;
    if (slinky_ledger_init(&l, path, NULL) < 0)
        die("init");
    if (!fsync) /* the library turns it on at open; the bench may measure without the disk */
        git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 0);
    return l;
}

static double add_user(slinky_ledger *l, int i)
{
    char name[32];
    snprintf(name, sizeof(name), "user%05d", i);
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_ADD;
    ev.name = name;
    ev.actor = "bench";
    double t = now();
    if (slinky_ledger_append(NULL, l, &ev) < 0)
        die("append");
    return now() - t;
}

/* Cost of add #k = median of the 21 adds k-10..k+10 (single adds are noisy). */
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double around(const double *c, int n, int k)
{
    double w[21];
    int m = 0;
    for (int i = k - 10; i <= k + 10; i++)
        if (i >= 1 && i <= n)
            w[m++] = c[i];
    qsort(w, (size_t)m, sizeof(double), cmpd);
    return w[m / 2];
}

static int bench_adds(int n, bool fsync)
{
    char *dir = tmpdir();
    slinky_ledger *l = new_ledger(dir, fsync);
    double *cost = calloc((size_t)n + 12, sizeof(double));
    double t0 = now();
    for (int i = 1; i <= n + 10; i++)
        cost[i] = add_user(l, i);
    double total = now() - t0;
    printf("ledger adds: %d user adds (fsync %s), total %.1f s, %.2f ms/add\n", n,
           fsync ? "on" : "off", total, total * 1000 / (n + 10));
    double c100 = around(cost, n + 10, 100);
    printf("  add #%-6d %8.3f ms (median of adds %d..%d)\n", 100, c100 * 1000, 90, 110);
    for (int k = 1000; k <= n; k += 1000) {
        double c = around(cost, n + 10, k);
        printf("  add #%-6d %8.3f ms  ratio to #100: %.2f\n", k, c * 1000, c / c100);
    }
    double last = around(cost, n + 10, n);
    printf("RESULT adds: #%d costs %.2fx #100 (target <= 2.0): %s\n", n, last / c100,
           last / c100 <= 2.0 ? "PASS" : "FAIL");
    printf("BENCH measure=ledger.add-%d-vs-add-100 ours=%.3fms peer=add#100:%.3fms ratio=%.2f "
           "target=ratio<=1.5\n", n, last * 1e3, c100 * 1e3, last / c100);
    size_t events = 0;
    double tv = now();
    if (slinky_ledger_verify(&events, NULL, l) < 0)
        die("verify");
    printf("  verify of %zu events: %.1f s\n", events, now() - tv);
    slinky_ledger_free(l);
    free(cost);
    rmrf(dir);
    free(dir);
    return 0;
}

static int bench_replay(int n, int m)
{
    if (m <= 0 || m > n)
        m = n;
    char *dir = tmpdir();
    slinky_ledger *l = new_ledger(dir, false);
    for (int i = 1; i <= n; i++)
        add_user(l, i);
    char root[4300], prefix[4300], cmd[9000];
    snprintf(root, sizeof(root), "%s/root", dir);
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    o.sinks = SLINKY_LEDGER_SINK_POSIX;
    o.posix_root = root;
    char *plan = NULL;
    double t = now();
    if (slinky_ledger_replay(&plan, l, &o) < 0)
        die("replay");
    double tr = now() - t;
    slinky_free(plan);
    /* the peer: one useradd per user into a prefix with the same starting files */
    snprintf(prefix, sizeof(prefix), "%s/prefix", dir);
    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s/etc' && cd '%s/etc' && : > passwd && : > group && : > shadow && : > "
             "gshadow && chmod 640 shadow gshadow",
             prefix, prefix);
    if (system(cmd) != 0)
        die("prefix");
    t = now();
    for (int i = 1; i <= m; i++) { /* m of the n users, the time scaled to n */
        snprintf(cmd, sizeof(cmd),
                 "useradd --prefix '%s' -M -U -u %d -s /bin/bash user%05d 2>/dev/null", prefix,
                 65535 + i, i);
        if (system(cmd) != 0) {
            fprintf(stderr, "useradd %d failed\n", i);
            return 1;
        }
    }
    double tu = (now() - t) * n / m;
    if (m < n)
        printf("useradd --prefix: timed for %d of the %d users, scaled\n", m, n);
    snprintf(cmd, sizeof(cmd), "wc -l < '%s/etc/passwd'; wc -l < '%s/etc/passwd'", root, prefix);
    printf("replay: %d users into POSIX files: %.3f s; %d x useradd --prefix: %.2f s\n", n, tr, n,
           tu);
    fflush(stdout);
    if (system(cmd) != 0)
        die("wc");
    printf("RESULT replay: %.0fx faster than useradd (target >= 50x): %s\n", tu / tr,
           tu / tr >= 50 ? "PASS" : "FAIL");
    /* the fairer peer: one `newusers` batch of the same users into a fresh root. In a bare
     * root its PAM password step fails (no PAM modules there; exit 1): passwd, group,
     * shadow and the homes are written first, which the line count below confirms. */
    char nroot[4300];
    snprintf(nroot, sizeof(nroot), "%s/nroot", dir);
    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s/etc' '%s/home' && cd '%s/etc' && : > passwd && : > group && "
             ": > shadow && : > gshadow && chmod 640 shadow gshadow",
             nroot, nroot, nroot);
    if (system(cmd) != 0)
        die("newusers root");
    snprintf(cmd, sizeof(cmd), "%s/users.txt", nroot);
    FILE *uf = fopen(cmd, "w");
    if (!uf)
        die("newusers input");
    for (int i = 1; i <= n; i++)
        fprintf(uf, "user%05d:x:%d:%d::/home/user%05d:/bin/bash\n", i, 65535 + i, 65535 + i, i);
    fclose(uf);
    snprintf(cmd, sizeof(cmd), "newusers --root '%s' /users.txt >/dev/null 2>&1", nroot);
    t = now();
    int nrc = system(cmd);
    double tn = now() - t;
    snprintf(cmd, sizeof(cmd), "test $(wc -l < '%s/etc/passwd') -eq %d", nroot, n);
    if (system(cmd) != 0) {
        fprintf(stderr, "newusers did not write %d users (status %d)\n", n, nrc);
        return 1;
    }
    printf("replay vs one newusers batch of %d users: %.3f s (%.0fx)\n", n, tn, tn / tr);
    printf("BENCH measure=ledger.replay-%d-users-vs-useradd ours=%.1fms peer=useradd--prefix:%.0fms "
           "ratio=%.0f target=ratio>=500\n", n, tr * 1e3, tu * 1e3, tu / tr);
    printf("BENCH measure=ledger.replay-%d-users-vs-newusers ours=%.1fms peer=newusers:%.0fms "
           "ratio=%.1f target=ratio>=20\n", n, tr * 1e3, tn * 1e3, tn / tr);
    slinky_ledger_free(l);
    rmrf(dir);
    free(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "adds") && strcmp(argv[1], "replay"))) {
        fprintf(stderr, "usage: bench_ledger adds [N] [--fsync] | replay [N [M]]\n");
        return 2;
    }
    slinky_global_init();
    int rc;
    if (!strcmp(argv[1], "adds")) {
        int n = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 10000;
        bool fsync = argc > 2 && !strcmp(argv[argc - 1], "--fsync");
        rc = bench_adds(n < 1000 ? 1000 : n, fsync);
    } else {
        rc = bench_replay(argc > 2 ? atoi(argv[2]) : 1000, argc > 3 ? atoi(argv[3]) : 0);
    }
    slinky_global_shutdown();
    return rc;
}
