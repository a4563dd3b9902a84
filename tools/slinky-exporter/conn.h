/*
 * conn: a slurm client from the command-line flags shared by slinky-exporter
 * and slinky-health (--url, --user, --token-file, --timeout), with the same
 * environment fallbacks as `slinkyctl slurm`: SLINKY_SLURM_URL,
 * SLINKY_SLURM_USER, SLINKY_SLURM_TOKEN_FILE, then SLURM_JWT. --api-version
 * (SLINKY_SLURM_API_VERSION) pins the data-parser version (refused when
 * slurmrestd does not offer it; the OpenAPI description is still read).
 */
#ifndef SLINKY_TOOLS_CONN_H
#define SLINKY_TOOLS_CONN_H

#include <slinky.h>

typedef struct conn_flags {
    const char *url, *user, *token_file, *api_version;
    long timeout_ms;
} conn_flags;

/* the long options conn_flag() takes (for a getopt_long table) */
#define CONN_LONG_OPTIONS                                                                          \
    {"url", 1, 0, 'u'}, {"user", 1, 0, 'U'}, {"token-file", 1, 0, 't'}, {"timeout", 1, 0, 'T'},    \
    {                                                                                              \
        "api-version", 1, 0, 'A'                                                                   \
    }

/* one getopt_long result: 1 taken, 0 not one of ours, -1 bad value (printed as "prog: --flag: why")
 */
int conn_flag(conn_flags *f, int opt, const char *arg, const char *prog);

/* 0, or 2 (usage: nothing to connect with) / 1 (client error) after printing "prog: why" */
int conn_open(slinky_slurm_client **out, conn_flags *f, const char *prog);

#endif
