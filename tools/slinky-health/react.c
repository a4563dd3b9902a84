/*
 * react: what a pass does to the node in Slurm. A failure (fail or timeout)
 * drains it with "slinky-health: <check>: <value> (limit <threshold>)"; a
 * node drained with any other reason (an admin's) is left as it is. A pass
 * with no failure resumes the node only when its drain reason starts with
 * "slinky-health:".
 */
#include "react.h"

#include <stdio.h>
#include <string.h>

#define PREFIX "slinky-health:"

int react(slinky_slurm_client *cl, const char *node, const config *cfg, const result *res,
          char *said, size_t said_len)
{
    slinky_slurm_nodes *l = NULL;
    if (slinky_slurm_node_get(&l, cl, node)) {
        snprintf(said, said_len, "cannot read node %s: %s", node, slinky_error_last()->message);
        return -1;
    }
    const slinky_slurm_node *n = slinky_slurm_nodes_at(l, 0);
    bool drain = slinky_slurm_node_is_draining(n);
    bool ours = !strncmp(n->reason, PREFIX, strlen(PREFIX));
    const check *bad = NULL;
    const result *br = NULL;
    for (size_t i = 0; i < cfg->n && !bad; i++)
        if (res[i].kind == R_FAIL || res[i].kind == R_TIMEOUT) {
            bad = &cfg->v[i];
            br = &res[i];
        }
    int rc = 0;
    if (bad) {
        char reason[320];
        snprintf(reason, sizeof(reason), PREFIX " %s: %s (limit %s)", bad->name, br->value_text,
                 br->limit_text[0] ? br->limit_text : "-");
        if (drain && !ours) {
            snprintf(said, said_len, "node %s already drained by someone else (\"%s\"): left alone",
                     node, n->reason);
        } else if (drain && !strcmp(n->reason, reason)) {
            snprintf(said, said_len, "node %s stays drained: %s", node, reason);
        } else if (slinky_slurm_node_drain(cl, node, reason)) {
            snprintf(said, said_len, "drain %s failed: %s", node, slinky_error_last()->message);
            rc = -1;
        } else {
            snprintf(said, said_len, "drained %s: %s", node, reason);
        }
    } else if (drain && ours) {
        if (slinky_slurm_node_resume(cl, node)) {
            snprintf(said, said_len, "resume %s failed: %s", node, slinky_error_last()->message);
            rc = -1;
        } else {
            snprintf(said, said_len, "resumed %s (was \"%s\")", node, n->reason);
        }
    } else if (drain) {
        snprintf(said, said_len, "node %s drained by someone else (\"%s\"): left alone", node,
                 n->reason);
    } else {
        snprintf(said, said_len, "node %s healthy", node);
    }
    slinky_slurm_nodes_free(l);
    return rc;
}
