/*
 * ledger_user: create an identity ledger, record a user with an SSH key, and
 * replay the ledger into a folder as passwd/group/authorized_keys files.
 *
 *   ledger_user DATA_DIR      (DATA_DIR unused: works in a temporary folder)
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slinky.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char dir[] = "/tmp/ledger-example-XXXXXX", path[4200], line[512];
    slinky_ledger *l = NULL;
    char *result = NULL, *plan = NULL;
    int rc = 1;
    if (!mkdtemp(dir) || slinky_global_init() < 0)
        return 1;
    snprintf(path, sizeof(path), "%s/ledger.git", dir);

    slinky_ledger_event add, key;
    slinky_ledger_event_init(&add, SLINKY_LEDGER_EVENT_VERSION);
    slinky_ledger_event_init(&key, SLINKY_LEDGER_EVENT_VERSION);
    add.kind = SLINKY_LEDGER_USER_ADD;
    add.name = "alice";
    add.gecos = "Alice Example";
    key.kind = SLINKY_LEDGER_KEY_ADD;
    key.name = "alice";
    key.tag = "laptop";
    key.key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop";
    if (slinky_ledger_init(&l, path, NULL) < 0 || slinky_ledger_append(&result, l, &add) < 0 ||
        slinky_ledger_append(NULL, l, &key) < 0)
        goto out;
    printf("recorded: %s\n", result);

    slinky_ledger_replay_options ro;
    slinky_ledger_replay_options_init(&ro, SLINKY_LEDGER_REPLAY_OPTIONS_VERSION);
    snprintf(path, sizeof(path), "%s/root", dir);
    ro.sinks = SLINKY_LEDGER_SINK_POSIX;
    ro.posix_root = path;
    if (slinky_ledger_replay(&plan, l, &ro) < 0)
        goto out;
    printf("replay:\n%s", plan);
    snprintf(path, sizeof(path), "%s/root/etc/passwd", dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "alice:", 6))
            printf("passwd: %s", line);
    if (f)
        fclose(f);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "ledger_user: %s\n", slinky_error_last()->message);
    slinky_free(plan);
    slinky_free(result);
    slinky_ledger_free(l);
    slinky_global_shutdown();
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    return system(path) == 0 ? rc : 1;
}
