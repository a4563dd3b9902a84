/* NodeSet status from the real Slurm: node counts by state, as upstream reports them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operator.h"

typedef struct counts {
    int64_t replicas, idle, allocated, down, drain;
} counts;

/* Does the comma-separated feature list contain `name`? */
static bool has_feature(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* Count the Slurm nodes of a NodeSet (feature = NodeSet name) by state. */
static int count_nodes(counts *c, const char *conf_path, const char *nodeset)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "SLURM_CONF='%s' sinfo -h -N -o '%%N|%%T|%%f' 2>/dev/null",
             conf_path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024], last[256] = "";
    memset(c, 0, sizeof(*c));
    while (fgets(line, sizeof(line), p)) {
        line[strcspn(line, "\n")] = '\0';
        char *state = strchr(line, '|');
        char *feat = state ? strchr(state + 1, '|') : NULL;
        if (!feat)
            continue;
        *state++ = '\0';
        *feat++ = '\0';
        if (!has_feature(feat, nodeset) || !strcmp(line, last))
            continue; /* sinfo -N repeats a node once per partition */
        snprintf(last, sizeof(last), "%s", line);
        c->replicas++;
        if (strstr(state, "drain") || strstr(state, "DRAIN"))
            c->drain++;
        else if (strstr(state, "down") || strstr(state, "DOWN"))
            c->down++;
        else if (strstr(state, "idle") || strstr(state, "IDLE"))
            c->idle++;
        else if (strstr(state, "alloc") || strstr(state, "ALLOC") || strstr(state, "mix") ||
                 strstr(state, "MIX"))
            c->allocated++;
    }
    return pclose(p) == 0 ? 0 : -1;
}

static void put_int(slinky_doc_value *status, const char *key, int64_t v)
{
    slinky_doc_value_object_set_int(status, key, v);
}

void op_update_nodeset_status(op_state *st, const slinky_doc_value *nodesets, const char *conf_path)
{
    for (size_t i = 0; i < slinky_doc_value_size(nodesets); i++) {
        const slinky_doc_value *ns_obj = slinky_doc_value_at(nodesets, i);
        const char *name = slinky_doc_value_path_string(ns_obj, "metadata.name", "");
        const char *ns = slinky_doc_value_path_string(ns_obj, "metadata.namespace", "");
        counts c;
        if (count_nodes(&c, conf_path, name) < 0) {
            fprintf(stderr, "slinky-operator: NodeSet %s/%s status: sinfo failed\n", ns, name);
            continue;
        }
        slinky_doc *obj = NULL;
        if (slinky_kube_get(&obj, st->client, &op_res_nodesets, ns, name, NULL) < 0)
            continue;
        slinky_doc_value *root = slinky_doc_root(obj), *status = NULL;
        slinky_doc *before = NULL;
        slinky_doc_new_copy(&before, slinky_doc_value_get(root, "status"));
        if (slinky_doc_value_object_put(&status, root, "status") == 0) {
            if (slinky_doc_value_type(status) != SLINKY_DOC_OBJECT)
                slinky_doc_value_set_object(status);
            int64_t ready = c.idle + c.allocated;
            put_int(status, "desired", slinky_doc_value_path_int(root, "spec.replicas", 1));
            put_int(status, "replicas", c.replicas);
            put_int(status, "updatedReplicas", c.replicas);
            put_int(status, "readyReplicas", ready);
            put_int(status, "availableReplicas", ready);
            put_int(status, "unavailableReplicas", c.replicas - ready);
            put_int(status, "slurmIdle", c.idle);
            put_int(status, "slurmAllocated", c.allocated);
            put_int(status, "slurmDown", c.down);
            put_int(status, "slurmDrain", c.drain);
            put_int(status, "observedGeneration",
                    slinky_doc_value_path_int(root, "metadata.generation", 0));
            /* required by the schema: the revision hash and the pods' selector */
            slinky_model_object *m = NULL;
            char *hash = NULL, selector[600];
            if (slinky_model_object_new_from_value(&m, root) == 0 &&
                slinky_model_object_spec_hash(&hash, m) == 0)
                slinky_doc_value_object_set_string(status, "nodeSetHash", hash);
            slinky_free(hash);
            slinky_model_object_free(m);
            snprintf(selector, sizeof(selector),
                     "app.kubernetes.io/name=slurmd,app.kubernetes.io/instance=%s", name);
            slinky_doc_value_object_set_string(status, "selector", selector);
            if ((!before || !slinky_doc_value_equal(slinky_doc_root(before), status)) &&
                slinky_kube_update_status(NULL, st->client, &op_res_nodesets, ns, root, NULL) < 0)
                fprintf(stderr, "slinky-operator: NodeSet %s/%s status: %s\n", ns, name,
                        slinky_error_last()->message);
        }
        slinky_doc_free(before);
        slinky_doc_free(obj);
    }
}
