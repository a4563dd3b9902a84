/*
 * bench_kube_load KUBECONFIG NAMESPACE COUNT NODESET.yaml: create COUNT
 * NodeSets named nodeset-NNNNN from the example, with 4 threads on one client.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

static const slinky_kube_resource NODESETS = {"slinky.slurm.net", "v1beta1", "nodesets", true};
static slinky_kube_client *client;
static slinky_doc *example;
static const char *ns;
static int count;
static atomic_int next_index, failures;

static void *loader(void *p)
{
    (void)p;
    slinky_doc *d = NULL;
    if (slinky_doc_new_copy(&d, slinky_doc_root(example)) != 0)
        return NULL;
    slinky_doc_value *meta = slinky_doc_value_path(slinky_doc_root(d), "metadata");
    for (;;) {
        int i = atomic_fetch_add(&next_index, 1);
        if (i >= count)
            break;
        char name[64];
        snprintf(name, sizeof(name), "nodeset-%05d", i);
        slinky_doc_value_object_set_string(meta, "name", name);
        slinky_doc_value_object_set_string(meta, "namespace", ns);
        int err = slinky_kube_create(NULL, client, &NODESETS, ns, slinky_doc_root(d), NULL);
        if (err != 0 && err != SLINKY_EEXISTS) {
            fprintf(stderr, "create %s: %s\n", name, slinky_error_last()->message);
            atomic_fetch_add(&failures, 1);
        }
    }
    slinky_doc_free(d);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_kube_load KUBECONFIG NAMESPACE COUNT NODESET.yaml\n");
        return 2;
    }
    slinky_global_init();
    slinky_kube_config_options co = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    co.kubeconfig = argv[1];
    slinky_kube_config *cfg = NULL;
    if (slinky_kube_config_load(&cfg, &co) != 0 || slinky_kube_client_new(&client, cfg, NULL) != 0 ||
        slinky_doc_load_file(&example, argv[4]) != 0) {
        fprintf(stderr, "bench_kube_load: %s\n", slinky_error_last()->message);
        return 1;
    }
    ns = argv[2];
    count = atoi(argv[3]);
    /* the namespace */
    const slinky_kube_resource nsr = {"", "v1", "namespaces", false};
    char json[256];
    snprintf(json, sizeof(json), "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", ns);
    slinky_doc *nd = NULL;
    slinky_doc_parse_json(&nd, json, strlen(json));
    slinky_kube_create(NULL, client, &nsr, NULL, slinky_doc_root(nd), NULL);
    slinky_doc_free(nd);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, loader, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    slinky_doc_free(example);
    slinky_kube_client_free(client);
    slinky_kube_config_free(cfg);
    slinky_global_shutdown();
    return atomic_load(&failures) ? 1 : 0;
}
