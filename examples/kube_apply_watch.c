/*
 * kube_apply_watch: server-side apply every resource of a YAML file, then
 * list the NodeSets and watch them for a few seconds.
 *
 *   kube_apply_watch DATA_DIR    (applies DATA_DIR/demo-cluster.yaml; the
 *                                 cluster is $KUBECONFIG's, as kubectl finds it)
 */
#include <stdio.h>
#include <stdlib.h>

#include <slinky.h>

int main(int argc, char **argv)
{
    char path[4096];
    if (argc != 2)
        return fprintf(stderr, "usage: kube_apply_watch DATA_DIR\n"), 2;
    if (!getenv("KUBECONFIG")) {
        printf("kube_apply_watch: no KUBECONFIG: nothing to talk to\n");
        return 0;
    }
    snprintf(path, sizeof(path), "%s/demo-cluster.yaml", argv[1]);
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    slinky_kube_watch *w = NULL;
    slinky_doc *docs = NULL, *list = NULL;
    char text[65536];
    int rc = 1;
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof(text), f) : 0;
    if (f)
        fclose(f);
    if (slinky_global_init() < 0 || slinky_kube_config_load(&cfg, NULL) < 0 ||
        slinky_kube_client_new(&c, cfg, NULL) < 0 || slinky_doc_parse_yaml_all(&docs, text, n) < 0)
        goto out;

    slinky_kube_patch_options po;
    slinky_kube_patch_options_init(&po, SLINKY_KUBE_PATCH_OPTIONS_VERSION);
    po.field_manager = "kube-apply-watch";
    for (size_t i = 0; i < slinky_doc_value_size(slinky_doc_root(docs)); i++) {
        const slinky_doc_value *o = slinky_doc_value_at(slinky_doc_root(docs), i);
        slinky_kube_resource r;
        if (slinky_kube_resource_for_kind(&r, slinky_doc_value_path_string(o, "apiVersion", ""),
                                          slinky_doc_value_path_string(o, "kind", "")) < 0 ||
            slinky_kube_patch(NULL, c, &r, slinky_doc_value_path_string(o, "metadata.namespace", NULL),
                              slinky_doc_value_path_string(o, "metadata.name", ""),
                              SLINKY_KUBE_PATCH_APPLY, o, &po) < 0)
            goto out;
        printf("applied %s/%s\n", r.resource, slinky_doc_value_path_string(o, "metadata.name", ""));
    }

    slinky_kube_resource nodesets;
    slinky_kube_resource_lookup(&nodesets, "nodesets");
    if (slinky_kube_list(&list, c, &nodesets, "slurm", NULL) < 0)
        goto out;
    const slinky_doc_value *items = slinky_doc_value_get(slinky_doc_root(list), "items");
    for (size_t i = 0; i < slinky_doc_value_size(items); i++)
        printf("NodeSet %s: %lld replicas\n",
               slinky_doc_value_path_string(slinky_doc_value_at(items, i), "metadata.name", ""),
               (long long)slinky_doc_value_path_int(slinky_doc_value_at(items, i), "spec.replicas", 0));

    /* changes after the list: start at its resourceVersion */
    slinky_kube_watch_options wo;
    slinky_kube_watch_options_init(&wo, SLINKY_KUBE_WATCH_OPTIONS_VERSION);
    wo.resource_version = slinky_doc_value_path_string(slinky_doc_root(list), "metadata.resourceVersion", NULL);
    wo.hide_bookmarks = true;
    if (slinky_kube_watch_new(&w, c, &nodesets, "slurm", &wo) < 0)
        goto out;
    for (;;) {
        slinky_kube_event_type type;
        slinky_doc *obj = NULL;
        slinky_status s = slinky_kube_watch_next(&type, &obj, w, 2000);
        if (s == SLINKY_ETIMEOUT)
            break; /* quiet for 2 s: done */
        if (s < 0)
            goto out;
        printf("%s %s\n", slinky_kube_event_type_name(type),
               slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.name", ""));
        slinky_doc_free(obj);
    }
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "kube_apply_watch: %s\n", slinky_error_last()->message);
    slinky_kube_watch_free(w);
    slinky_doc_free(list);
    slinky_doc_free(docs);
    slinky_kube_client_free(c);
    slinky_kube_config_free(cfg);
    slinky_global_shutdown();
    return rc;
}
