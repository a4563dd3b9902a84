/* slinky-ledger-keys [--ledger PATH] USER
 * AuthorizedKeysCommand for sshd: prints USER's keys from the identity ledger
 * (nothing for unknown, disabled or deleted users). Exit 0 with keys printed,
 * 1 on failure (sshd then offers no keys), 2 on usage errors. A run that takes
 * longer than KEYS_DEADLINE seconds is ended by SIGALRM before it printed
 * anything (keys are written only after the whole lookup succeeded), well
 * within sshd's LoginGraceTime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky.h"

#define KEYS_DEADLINE 10

int main(int argc, char **argv)
{
    const char *path = getenv("SLINKY_LEDGER");
    const char *user = NULL;
    if (!path || !*path)
        path = "/var/lib/slinky/ledger";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ledger") && i + 1 < argc) {
            path = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: slinky-ledger-keys [--ledger PATH] USER\n"
                   "Print USER's SSH public keys from the identity ledger (for sshd's\n"
                   "AuthorizedKeysCommand). Ledger: --ledger, $SLINKY_LEDGER or "
                   "/var/lib/slinky/ledger.\n");
            return 0;
        } else if (!user && argv[i][0] != '-') {
            user = argv[i];
        } else {
            fprintf(stderr, "slinky-ledger-keys: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!user) {
        fprintf(stderr, "usage: slinky-ledger-keys [--ledger PATH] USER\n");
        return 2;
    }
    alarm(KEYS_DEADLINE); /* default action: terminate, nothing printed */
    if (slinky_global_init() < 0)
        return 1;
    slinky_ledger *l = NULL;
    char *keys = NULL;
    int rc = 0;
    if (slinky_ledger_open(&l, path) < 0 || slinky_ledger_keys(&keys, l, user) < 0) {
        fprintf(stderr, "slinky-ledger-keys: %s\n", slinky_error_last()->message);
        rc = 1;
    } else {
        fputs(keys, stdout);
    }
    slinky_free(keys);
    slinky_ledger_free(l);
    slinky_global_shutdown();
    return rc;
}
