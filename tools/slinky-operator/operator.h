/*
 * slinky-operator internals: one reconcile of a Controller.
 *
 * The operator keeps, per Controller, the slurm.conf it last applied in
 * `slurm_dir`/etc/slurm.conf. A reconcile renders the wanted file from the
 * Controller, its NodeSets and its Accounting, checks it statically and with
 * the real Slurm, and when it differs: writes the ConfigMap
 * `<controller>-config` (key slurm.conf), installs the file and applies the
 * semantic diff by its class (scontrol reconfigure, or the restart command).
 * A broken config is never installed: the old file stays and the Controller
 * gets condition ConfigApplied=False with the reason and message.
 */
#ifndef SLINKY_OPERATOR_H
#define SLINKY_OPERATOR_H

#include <pthread.h>
#include <slinky.h>

typedef struct op_options {
    const char *namespace_;    /* namespace watched */
    const char *slurm_dir;     /* local_dir of the local profile */
    unsigned slurm_version;    /* target version (e.g. 2205) */
    const char *restart_cmd;   /* /bin/sh -c command; env SLINKY_CHANGE_CLASS, SLURM_CONF */
    const char *munge_socket;  /* AuthInfo socket for local munged */
    int slurmctld_port, slurmd_port, slurmdbd_port;
    bool validate;             /* run the real-Slurm validation before installing */
    const char *field_manager; /* "slinky-operator" */
} op_options;

typedef struct op_state {
    op_options o;
    slinky_kube_client *client;
    slinky_kube_informer *controllers, *nodesets, *accountings;
    slinky_kube_workqueue *queue;
    pthread_mutex_t lock;
    unsigned reconciles, applied, rejected; /* counters (under lock) */
} op_state;

/* -v N / --quiet from the command line: -1 errors only, 0 default, more is chattier. */
extern int op_verbosity;

extern const slinky_kube_resource op_res_controllers, op_res_nodesets, op_res_accountings,
    op_res_configmaps, op_res_events;

/* Reconcile the Controller `key` ("ns/name"). */
slinky_kube_result op_reconcile(long *requeue_after_ms, const char *key, void *payload);

/*
 * Install `new_text` as the slurm.conf at `path` and apply it against the
 * running daemons: diff old vs new, NONE -> nothing, RECONFIGURE -> scontrol
 * reconfigure, restart classes -> restart_cmd. On failure the old file is put
 * back. *class_out gets the diff class, *summary_out the rendered diff.
 */
slinky_status op_install_and_apply(slinky_conf_change_class *class_out, char **summary_out,
                                   const op_options *o, const char *path, const char *new_text);

/*
 * Write the key Secrets the Controller references (jwtHs256KeyRef/jwtKeyRef ->
 * etc/jwt.key, slurmKeyRef -> etc/slurm.key) under slurm_dir, mode 0600.
 * On failure msg names the field and the Secret.
 */
slinky_status op_write_keys(char *msg, size_t msglen, op_state *st, const slinky_doc_value *ctl);

/*
 * Report each NodeSet's Slurm nodes (those with the NodeSet's feature) in its
 * status: desired, replicas, ready/available, slurmIdle/Allocated/Down/Drain.
 * Written only when something changed. Best effort.
 */
void op_update_nodeset_status(op_state *st, const slinky_doc_value *nodesets,
                              const char *conf_path);

/* Message of the last op_install_and_apply failure on this thread. */
const char *op_last_error(void);

#endif
