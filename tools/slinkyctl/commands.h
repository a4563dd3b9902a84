/* slinkyctl subcommands. Each lives in cmd_<name>.c and is optional (weak). */
#ifndef SLINKYCTL_COMMANDS_H
#define SLINKYCTL_COMMANDS_H

/* Each returns the process exit code: 0 ok, 1 failure, 2 usage error. */
typedef int (*slinkyctl_cmd_fn)(int argc, char **argv);

#define SLINKYCTL_WEAK __attribute__((weak))
int slinkyctl_cmd_crd(int argc, char **argv) SLINKYCTL_WEAK;      /* model: print CRDs */
int slinkyctl_cmd_model(int argc, char **argv) SLINKYCTL_WEAK;    /* model: validate/default */
int slinkyctl_cmd_conf(int argc, char **argv) SLINKYCTL_WEAK;     /* conf: set/get/render/diff/check */
int slinkyctl_cmd_ledger(int argc, char **argv) SLINKYCTL_WEAK;   /* ledger: replay/verify/... */
int slinkyctl_cmd_jail(int argc, char **argv) SLINKYCTL_WEAK;     /* jail: render/validate */
int slinkyctl_cmd_kube(int argc, char **argv) SLINKYCTL_WEAK;     /* kube: get/list/watch */
int slinkyctl_cmd_slurm(int argc, char **argv) SLINKYCTL_WEAK;    /* slurm: slurmrestd client */
int slinkyctl_cmd_render(int argc, char **argv) SLINKYCTL_WEAK;   /* workload: resources -> objects */
int slinkyctl_cmd_health(int argc, char **argv) SLINKYCTL_WEAK;   /* health: slinky-health run/status */

/* conf set/unset/get on a live Controller's spec.extraConf (controller_conf.c);
 * argv[0] is "set", "unset" or "get". */
int slinkyctl_conf_controller(int argc, char **argv) SLINKYCTL_WEAK;

#endif
