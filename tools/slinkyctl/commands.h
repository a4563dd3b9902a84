/* slinkyctl subcommands, declared from the command table (commands.def).
 * Each lives in cmd_<file>.c and is optional (weak): a command whose file
 * is not built is listed as "not built". */
#ifndef SLINKYCTL_COMMANDS_H
#define SLINKYCTL_COMMANDS_H

/* Each returns the process exit code: 0 ok, 1 failure, 2 usage error (some
 * commands document more). argv[0] is the command's name. */
typedef int (*slinkyctl_cmd_fn)(int argc, char **argv);

#define SLINKYCTL_INIT 1u /* slinky_global_init() first */
#define SLINKYCTL_KUBE 2u /* takes --kubeconfig, --context, -n, -A, -l, -o, -w */

#define SLINKYCTL_WEAK __attribute__((weak))
#define SLINKYCTL_COMMAND(name, file, modules, flags, help, words)                                 \
    int slinkyctl_cmd_##name(int argc, char **argv) SLINKYCTL_WEAK;
#include "commands.def"
#undef SLINKYCTL_COMMAND

/* conf set/unset/get on a live Controller's spec.extraConf (controller_conf.c);
 * argv[0] is "set", "unset" or "get". */
int slinkyctl_conf_controller(int argc, char **argv) SLINKYCTL_WEAK;

#include <stdbool.h>
#include <stdio.h>

#include "slinky.h"

/* The operator's checks on a Controller document (its Controller validation and
 * the static check of the slurm.conf it renders with its NodeSets and Accounting,
 * fetched from the cluster); findings are written to `out`. True when it passes.
 * (controller_conf.c; for slinkyctl edit and apply.) */
bool slinkyctl_controller_check(FILE *out, slinky_kube_client *c, const char *ns,
                                const slinky_doc_value *ctl, unsigned version) SLINKYCTL_WEAK;

#endif
