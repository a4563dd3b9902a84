/*
 * slinky-exporter: Slurm metrics for Prometheus over slurmrestd (the slurm
 * client), no slurmctld openmetrics plugin needed. See collect.h for the
 * families and the label bounds, dashboards/README.md for the list.
 *
 * Exit codes: 0 ok; 1 runtime failure (cannot listen; --once: a call failed);
 * 2 usage.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slinky.h>

#include "collect.h"
#include "conn.h"
#include "serve.h"

#include <microhttpd.h>

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: slinky-exporter [flags]\n"
        "  --url URL          slurmrestd base URL [SLINKY_SLURM_URL]\n"
        "  --user NAME        X-SLURM-USER-NAME [SLINKY_SLURM_USER, default slurm]\n"
        "  --token-file FILE  JWT file, re-read when it changes [SLINKY_SLURM_TOKEN_FILE; else "
        "SLURM_JWT]\n"
        "  --timeout MS       per-call timeout (default 10000)\n"
        "  --api-version V    insist on this data-parser version (v0.0.42; refused if not offered) "
        "[SLINKY_SLURM_API_VERSION]\n"
        "  --listen ADDR:PORT where /metrics is served (default 127.0.0.1:9341; port 0: any)\n"
        "  --port-file FILE   write the bound port there once listening\n"
        "  --max-users N      users with their own label; the rest are user=\"other\" (default "
        "50)\n"
        "  --health-dir DIR   slinky-health result files to export (DIR/<node>.tsv)\n"
        "  --once             print one scrape on stdout and exit (1 when a call failed)\n"
        "  --help, --version\n"
        "exit: 0 ok, 1 runtime failure, 2 usage\n");
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        CONN_LONG_OPTIONS,        {"listen", 1, 0, 'l'},     {"port-file", 1, 0, 'p'},
        {"max-users", 1, 0, 'm'}, {"health-dir", 1, 0, 'H'}, {"once", 0, 0, 'o'},
        {"help", 0, 0, 'h'},      {"version", 0, 0, 'V'},    {0, 0, 0, 0}};
    conn_flags cf = {0};
    const char *listen = "127.0.0.1:9341", *port_file = NULL;
    exporter e = {.max_users = 50};
    bool once = false;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        int cr = conn_flag(&cf, c, optarg, "slinky-exporter");
        if (cr < 0)
            return 2;
        if (cr > 0)
            continue;
        switch (c) {
        case 'l':
            listen = optarg;
            break;
        case 'p':
            port_file = optarg;
            break;
        case 'm':
            e.max_users = (int)strtol(optarg, &end, 10);
            if (*end || *optarg == '\0' || e.max_users < 0 || e.max_users > 100000) {
                fprintf(stderr, "slinky-exporter: --max-users: '%s' is not a number in 0..100000\n",
                        optarg);
                return 2;
            }
            break;
        case 'H':
            e.health_dir = optarg;
            break;
        case 'o':
            once = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("slinky-exporter %s\n", slinky_version(NULL, NULL, NULL));
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slinky-exporter: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    char host[64];
    unsigned port = 0;
    const char *colon = strrchr(listen, ':');
    if (colon == NULL || (size_t)(colon - listen) >= sizeof(host) || colon[1] == '\0' ||
        (port = (unsigned)strtoul(colon + 1, &end, 10), *end) || port > 65535) {
        fprintf(stderr, "slinky-exporter: --listen: '%s' is not ADDR:PORT\n", listen);
        return 2;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);

    if (slinky_global_init()) {
        fprintf(stderr, "slinky-exporter: %s\n", slinky_error_last()->message);
        return 1;
    }
    int rc = conn_open(&e.client, &cf, "slinky-exporter");
    if (rc) {
        slinky_global_shutdown();
        return rc;
    }
    pthread_mutex_init(&e.mu, NULL);
    if (once) {
        mbuf b = {0};
        int failed = exporter_scrape(&e, &b);
        if (b.data)
            fwrite(b.data, 1, b.len, stdout);
        if (failed)
            fprintf(stderr, "slinky-exporter: %d call(s) failed; last error: %s\n", failed,
                    slinky_error_last()->message);
        rc = failed || b.failed ? 1 : 0;
        mbuf_dispose(&b);
    } else {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set, NULL); /* the server's thread inherits the mask */
        unsigned bound = 0;
        struct MHD_Daemon *d = serve_start(&e, host, port, &bound);
        if (d == NULL) {
            rc = 1;
        } else {
            fprintf(stderr, "slinky-exporter: serving http://%s:%u/metrics\n", host, bound);
            if (port_file) {
                FILE *f = fopen(port_file, "w");
                if (f) {
                    fprintf(f, "%u\n", bound);
                    fclose(f);
                }
            }
            int sig = 0;
            sigwait(&set, &sig);
            MHD_stop_daemon(d);
        }
    }
    pthread_mutex_destroy(&e.mu);
    slinky_slurm_client_free(e.client);
    slinky_global_shutdown();
    return rc;
}
