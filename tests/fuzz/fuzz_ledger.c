/* libFuzzer target: ledger record parsing.
 * Input: an event JSON line (as in exports and commit messages). Checks that
 * parsing never crashes, and that an accepted event survives the round trip
 * event -> commit message -> event -> JSON unchanged. The same bytes are also
 * fed to the commit-message parser and to the OpenSSH key validator. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/ledger_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    slinky_global_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_ledger__event ev;
    if (slinky_ledger__event_parse(&ev, (const char *)data, size) == 0) {
        if (ev.kind != SLINKY_LEDGER__INIT && slinky_ledger__event_check(&ev) == 0) {
            char *j1 = NULL, *j2 = NULL, *msg = slinky_ledger__event_message(&ev);
            slinky_ledger__event back;
            if (msg && slinky_ledger__event_json(&j1, &ev) == 0 &&
                slinky_ledger__event_from_message(&back, msg) == 0) {
                if (slinky_ledger__event_json(&j2, &back) == 0 && strcmp(j1, j2) != 0)
                    abort(); /* round trip changed the event */
                if (strcmp(back.actor, ev.actor) || strcmp(back.request_id, ev.request_id))
                    abort();
                slinky_ledger__event_dispose(&back);
            } else if (msg) {
                abort(); /* a checked event must parse back from its own message */
            }
            free(j1);
            free(j2);
            free(msg);
        }
        slinky_ledger__event_dispose(&ev);
    }
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    if (slinky_ledger__event_from_message(&ev, s) == 0)
        slinky_ledger__event_dispose(&ev);
    slinky_ledger__ssh_key_check(s);
    free(s);
    return 0;
}
