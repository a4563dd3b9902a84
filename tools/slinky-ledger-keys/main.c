/* slinky-ledger-keys [--ledger PATH] USER
 * AuthorizedKeysCommand for sshd: prints USER's keys from the identity ledger
 * (nothing for unknown, disabled or deleted users). Exit 0 with keys printed,
 * 1 on failure (sshd then offers no keys), 2 on usage errors. A run that takes
 * longer than KEYS_DEADLINE seconds is ended by SIGALRM before it printed
 * anything (keys are written only after the whole lookup succeeded), well
 * within sshd's LoginGraceTime. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky.h"

#define KEYS_DEADLINE 10

#include "../common/cli.h"

#define DEFAULT_LEDGER "/var/lib/slinky/ledger"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--ledger PATH] USER\n"
            "Print USER's SSH public keys from the identity ledger (for sshd's\n"
            "AuthorizedKeysCommand). Ledger: --ledger, $SLINKY_LEDGER or " DEFAULT_LEDGER ".\n"
            "\n"
            "  -l, --ledger PATH  the ledger repository\n" CLI_COMMON_HELP
            "\n" CLI_EXIT_HELP " (sshd then offers no keys); an unknown, disabled or\n"
            "deleted user prints nothing and exits 0.\n",
            cli_prog);
}

int main(int argc, char **argv)
{
    cli_init(argv, "slinky-ledger-keys");
    const char *path = NULL;
    static const struct option lo[] = {{"ledger", required_argument, 0, 'l'},
                                       {"help", no_argument, 0, 'h'},
                                       CLI_LONGOPTS,
                                       {0, 0, 0, 0}};
    int c, orc;
    while ((c = getopt_long(argc, argv, "l:hv:q", lo, NULL)) != -1) {
        switch (c) {
        case 'l': path = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            if ((orc = cli_option(c, optarg, usage)) >= 0)
                return orc;
            break;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    alarm(KEYS_DEADLINE); /* default action: terminate, nothing printed */
    const char *user = argv[optind];
    if (!path)
        path = getenv("SLINKY_LEDGER");
    if (!path || !*path)
        path = DEFAULT_LEDGER;
    if (slinky_global_init() < 0)
        return 1;
    slinky_ledger *l = NULL;
    char *keys = NULL;
    int rc = 0;
    if (slinky_ledger_open(&l, path) < 0 || slinky_ledger_keys(&keys, l, user) < 0) {
        fprintf(stderr, "%s: %s\n", cli_prog, slinky_error_last()->message);
        rc = 1;
    } else {
        fputs(keys, stdout);
    }
    slinky_free(keys);
    slinky_ledger_free(l);
    slinky_global_shutdown();
    return rc;
}
