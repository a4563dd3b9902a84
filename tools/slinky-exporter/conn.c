/* conn: a slurm client from flags and environment (see conn.h). */
#include "conn.h"

#include <stdio.h>
#include <stdlib.h>

static const char *env_or(const char *v, const char *name)
{
    const char *e = getenv(name);
    return v ? v : (e && *e ? e : NULL);
}

int conn_flag(conn_flags *f, int opt, const char *arg, const char *prog)
{
    char *end;
    switch (opt) {
    case 'u':
        f->url = arg;
        return 1;
    case 'U':
        f->user = arg;
        return 1;
    case 't':
        f->token_file = arg;
        return 1;
    case 'A':
        f->api_version = arg;
        return 1;
    case 'T':
        f->timeout_ms = strtol(arg, &end, 10);
        if (*end || f->timeout_ms <= 0) {
            fprintf(stderr, "%s: --timeout: '%s' is not a positive number of ms\n", prog, arg);
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

int conn_open(slinky_slurm_client **out, conn_flags *f, const char *prog)
{
    f->url = env_or(f->url, "SLINKY_SLURM_URL");
    f->user = env_or(f->user, "SLINKY_SLURM_USER");
    f->token_file = env_or(f->token_file, "SLINKY_SLURM_TOKEN_FILE");
    f->api_version = env_or(f->api_version, "SLINKY_SLURM_API_VERSION");
    if (f->url == NULL) {
        fprintf(stderr, "%s: no slurmrestd URL (--url or SLINKY_SLURM_URL)\n", prog);
        return 2;
    }
    slinky_slurm_client_options co = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    co.user = f->user;
    co.api_version = f->api_version;
    co.timeout_ms = f->timeout_ms > 0 ? f->timeout_ms : 10000;
    co.connect_timeout_ms = co.timeout_ms < 5000 ? co.timeout_ms : 5000;
    if (f->token_file) {
        co.token_file = f->token_file;
    } else {
        co.token = env_or(NULL, "SLURM_JWT");
        if (co.token == NULL) {
            fprintf(stderr, "%s: no JWT (--token-file, SLINKY_SLURM_TOKEN_FILE or SLURM_JWT)\n",
                    prog);
            return 2;
        }
    }
    if (slinky_slurm_client_new(out, f->url, &co)) {
        fprintf(stderr, "%s: %s\n", prog, slinky_error_last()->message);
        return 1;
    }
    return 0;
}
