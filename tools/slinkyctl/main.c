/* slinkyctl: the admin CLI over libslinky. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "slinky.h"

struct command {
    const char *name;
    slinkyctl_cmd_fn fn;
    const char *help;
    bool global_init; /* needs libcurl/libgit2 (about 15 ms at start-up) */
};

static void usage(FILE *f, const struct command *cmds, size_t n)
{
    fprintf(f, "usage: slinkyctl COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-10s %s%s\n", cmds[i].name, cmds[i].help,
                cmds[i].fn ? "" : " (not built)");
    fprintf(f, "  %-10s %s\n", "version", "print the library version");
    fprintf(f, "\n'slinkyctl COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
    const struct command cmds[] = {
        {"crd", slinkyctl_cmd_crd, "print the Slinky CustomResourceDefinitions", false},
        {"model", slinkyctl_cmd_model, "parse, default and validate Slinky resources", false},
        {"conf", slinkyctl_cmd_conf, "slurm.conf: set, get, render, diff, check", false},
        {"ledger", slinkyctl_cmd_ledger, "identity ledger: show, verify, replay, export", true},
        {"jail", slinkyctl_cmd_jail, "job jail specs: validate, render", false},
        {"kube", slinkyctl_cmd_kube, "talk to a Kubernetes API server", true},
        {"slurm", slinkyctl_cmd_slurm, "Slurm through slurmrestd: ping, nodes, drain, jobs", false},
        {"render", slinkyctl_cmd_render, "every Kubernetes object of Slinky resources (--diff: vs live)", false},
        {"health", slinkyctl_cmd_health, "node health checks: run, status (slinky-health)", false},
    };
    size_t n = sizeof(cmds) / sizeof(cmds[0]);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout, cmds, n);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("slinkyctl %s\n", slinky_version(NULL, NULL, NULL));
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(argv[1], cmds[i].name) != 0)
            continue;
        if (!cmds[i].fn) {
            fprintf(stderr, "slinkyctl: command '%s' is not built into this binary\n", argv[1]);
            return 2;
        }
        if (cmds[i].global_init && slinky_global_init() < 0) {
            fprintf(stderr, "slinkyctl: %s\n", slinky_error_last()->message);
            return 1;
        }
        int rc = cmds[i].fn(argc - 1, argv + 1);
        if (cmds[i].global_init)
            slinky_global_shutdown();
        return rc;
    }
    fprintf(stderr, "slinkyctl: unknown command '%s'\n", argv[1]);
    usage(stderr, cmds, n);
    return 2;
}
