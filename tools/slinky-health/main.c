/*
 * slinky-health: node, storage and fabric checks (see health.h, config.c).
 *
 *   slinky-health [run] [--node N] [--check C] [flags]   run the checks, print a table
 *   slinky-health check-config [--config F]              parse the config only
 *
 * With no arguments it behaves as Slurm's HealthCheckProgram: the config from
 * SLINKY_HEALTH_CONFIG (default /etc/slinky/health.conf), the node from
 * SLURMD_NODENAME or the host name, Slurm reached as `slinkyctl slurm` does
 * (SLINKY_SLURM_URL, SLINKY_SLURM_TOKEN_FILE...). With a slurmrestd, the node
 * checks compare against what slurmd registered and the node is drained or
 * resumed (react.c); without one, node checks are skipped and nothing is
 * changed. --check runs one check (by name or kind): it may drain, never
 * resumes (the other checks did not run).
 *
 * Exit: 0 no failure; 1 a check failed or timed out; 2 usage or config error
 * (nothing ran); 3 Slurm could not be read or changed.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slinky.h>

#include "conn.h"
#include "health.h"
#include "react.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slinky-health [run] [flags]   |   slinky-health check-config [--config FILE]\n"
            "  --config FILE      checks, one per line [SLINKY_HEALTH_CONFIG, default "
            "/etc/slinky/health.conf]\n"
            "  --node NAME        the Slurm node this is [SLURMD_NODENAME, default the host name]\n"
            "  --check NAME       run only this check (its name or kind); drains, never resumes\n"
            "  --results-dir DIR  write DIR/<node>.tsv for slinky-exporter --health-dir\n"
            "  --no-react         never drain or resume\n"
            "  --url URL, --user NAME, --token-file FILE, --timeout MS, --api-version V   "
            "slurmrestd, as slinky-exporter\n"
            "  --help, --version\n"
            "exit: 0 no failure, 1 a check failed/timed out, 2 usage or config error, 3 Slurm call "
            "failed\n");
}

static int write_results(const char *dir, const char *node, const config *cfg, const result *res)
{
    char tmp[4096], path[4096];
    snprintf(path, sizeof(path), "%s/%s.tsv", dir, node);
    snprintf(tmp, sizeof(tmp), "%s/.%s.tsv.%ld", dir, node, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "slinky-health: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# check\tresult\tvalue\tlimit\tduration_s\ttime\tdetail\n");
    long now = (long)time(NULL);
    for (size_t i = 0; i < cfg->n; i++) {
        char v[40] = "";
        if (!isnan(res[i].value))
            snprintf(v, sizeof(v), "%.9g", res[i].value);
        fprintf(f, "%s\t%s\t%s\t%s\t%.6f\t%ld\t%s\n", cfg->v[i].name, result_name(res[i].kind), v,
                res[i].limit_text, res[i].duration_s, now, res[i].detail);
    }
    if (fclose(f) || rename(tmp, path)) {
        fprintf(stderr, "slinky-health: %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"config", 1, 0, 'c'},      {"node", 1, 0, 'n'},     {"check", 1, 0, 'k'},
        {"results-dir", 1, 0, 'r'}, {"no-react", 0, 0, 'N'}, CONN_LONG_OPTIONS,
        {"help", 0, 0, 'h'},        {"version", 0, 0, 'V'},  {0, 0, 0, 0}};
    const char *cmd = "run";
    if (argc > 1 && argv[1][0] != '-') {
        cmd = argv[1];
        argv++;
        argc--;
        if (strcmp(cmd, "run") && strcmp(cmd, "check-config")) {
            fprintf(stderr, "slinky-health: unknown command '%s'\n", cmd);
            usage(stderr);
            return 2;
        }
    }
    conn_flags cf = {0};
    const char *cfg_file = getenv("SLINKY_HEALTH_CONFIG"), *node = getenv("SLURMD_NODENAME"),
               *only = NULL, *results_dir = NULL;
    bool no_react = false;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        int cr = conn_flag(&cf, c, optarg, "slinky-health");
        if (cr < 0)
            return 2;
        if (cr > 0)
            continue;
        switch (c) {
        case 'c':
            cfg_file = optarg;
            break;
        case 'n':
            node = optarg;
            break;
        case 'k':
            only = optarg;
            break;
        case 'r':
            results_dir = optarg;
            break;
        case 'N':
            no_react = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("slinky-health %s\n", slinky_version(NULL, NULL, NULL));
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slinky-health: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (cfg_file == NULL || *cfg_file == '\0')
        cfg_file = "/etc/slinky/health.conf";
    config cfg;
    if (config_load(&cfg, cfg_file))
        return 2;
    if (!strcmp(cmd, "check-config")) {
        printf("%s: %zu checks\n", cfg_file, cfg.n);
        config_dispose(&cfg);
        return 0;
    }
    if (only) {
        size_t k = 0;
        for (size_t i = 0; i < cfg.n; i++)
            if (!strcmp(cfg.v[i].name, only) || !strcmp(check_kind_name(cfg.v[i].kind), only))
                cfg.v[k++] = cfg.v[i];
        if (k == 0) {
            fprintf(stderr, "slinky-health: --check %s: no such check in %s\n", only, cfg_file);
            config_dispose(&cfg);
            return 2;
        }
        cfg.n = k;
    }
    char host[256];
    if (node == NULL || *node == '\0') {
        if (gethostname(host, sizeof(host)))
            snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        host[strcspn(host, ".")] = '\0';
        node = host;
    }
    if (slinky_global_init()) {
        fprintf(stderr, "slinky-health: %s\n", slinky_error_last()->message);
        config_dispose(&cfg);
        return 3;
    }
    int rc = 0;
    slinky_slurm_client *cl = NULL;
    node_facts facts = {0};
    const char *url_env = getenv("SLINKY_SLURM_URL");
    if (cf.url || (url_env && *url_env)) {
        rc = conn_open(&cl, &cf, "slinky-health");
        if (rc) {
            rc = rc == 2 ? 2 : 3;
            goto out;
        }
        slinky_slurm_nodes *l = NULL;
        if (slinky_slurm_node_get(&l, cl, node) == 0) {
            const slinky_slurm_node *n = slinky_slurm_nodes_at(l, 0);
            facts.known = true;
            facts.cpus = n->cpus;
            facts.real_memory_mb = n->real_memory;
        } else {
            fprintf(stderr, "slinky-health: node %s: %s\n", node, slinky_error_last()->message);
            rc = 3;
        }
        slinky_slurm_nodes_free(l);
    }
    result *res = calloc(cfg.n, sizeof(*res));
    if (res == NULL) {
        rc = 3;
        goto out;
    }
    bool failed = false;
    printf("%-28s %-8s %-14s %-14s %s\n", "CHECK", "RESULT", "VALUE", "LIMIT", "DETAIL");
    for (size_t i = 0; i < cfg.n; i++) {
        check_run_guarded(&cfg.v[i], &facts, &res[i]);
        failed |= res[i].kind == R_FAIL || res[i].kind == R_TIMEOUT;
        printf("%-28s %-8s %-14s %-14s %s\n", cfg.v[i].name, result_name(res[i].kind),
               res[i].value_text, res[i].limit_text, res[i].detail);
    }
    if (results_dir && write_results(results_dir, node, &cfg, res))
        rc = 3;
    if (cl && facts.known && !no_react) {
        char said[512];
        result *view = res;
        if (only && !failed) {
            printf("%s: --check ran one check: no resume\n", node);
        } else if (react(cl, node, &cfg, view, said, sizeof(said))) {
            fprintf(stderr, "slinky-health: %s\n", said);
            rc = 3;
        } else {
            printf("%s\n", said);
        }
    }
    if (!rc && failed)
        rc = 1;
    free(res);
out:
    slinky_slurm_client_free(cl);
    slinky_global_shutdown();
    config_dispose(&cfg);
    return rc;
}
