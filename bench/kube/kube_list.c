/*
 * bench_kube_list KUBECONFIG NAMESPACE [LIMIT]: list every NodeSet with
 * slinky_kube_list_stream (decoded while it arrives, one item at a time),
 * read each item's name and replicas, print the count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

static const slinky_kube_resource NODESETS = {"slinky.slurm.net", "v1beta1", "nodesets", true};

typedef struct stats {
    long items;
    long replicas;
    size_t name_bytes;
} stats;

static slinky_status on_item(slinky_doc *item, void *p)
{
    stats *s = p;
    const slinky_doc_value *root = slinky_doc_root(item);
    s->items++;
    s->replicas += (long)slinky_doc_value_path_int(root, "spec.replicas", 0);
    s->name_bytes += strlen(slinky_doc_value_path_string(root, "metadata.name", ""));
    slinky_doc_free(item);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_kube_list KUBECONFIG NAMESPACE [LIMIT]\n");
        return 2;
    }
    slinky_global_init();
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    co.kubeconfig = argv[1];
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    if (slinky_kube_config_load(&cfg, &co) != 0 || slinky_kube_client_new(&c, cfg, NULL) != 0) {
        fprintf(stderr, "bench_kube_list: %s\n", slinky_error_last()->message);
        return 1;
    }
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.limit = argc > 3 ? atol(argv[3]) : 0;
    stats s = {0};
    char *rv = NULL;
    if (slinky_kube_list_stream(&rv, c, &NODESETS, argv[2], &lo, on_item, &s) != 0) {
        fprintf(stderr, "bench_kube_list: %s\n", slinky_error_last()->message);
        return 1;
    }
    printf("items=%ld replicas=%ld rv=%s\n", s.items, s.replicas, rv);
    slinky_free(rv);
    slinky_kube_client_free(c);
    slinky_kube_config_free(cfg);
    slinky_global_shutdown();
    return 0;
}
