/*
 * conf_render_diff: render slurm.conf from Slinky resources (a Controller, its
 * NodeSet and Accounting in one YAML file), change one key, and print the
 * semantic diff with what each change takes (reconfigure or a restart).
 *
 *   conf_render_diff DATA_DIR      (reads DATA_DIR/demo-cluster.yaml)
 */
#include <stdio.h>
#include <string.h>

#include <slinky.h>

int main(int argc, char **argv)
{
    char path[4096];
    if (argc != 2)
        return fprintf(stderr, "usage: conf_render_diff DATA_DIR\n"), 2;
    snprintf(path, sizeof(path), "%s/demo-cluster.yaml", argv[1]);

    slinky_doc *docs = NULL;
    slinky_model_object *objs[16] = {NULL};
    slinky_conf_models *models = NULL;
    size_t nobj = 0;
    slinky_conf *old_conf = NULL, *new_conf = NULL;
    slinky_conf_diff *diff = NULL;
    char *text = NULL, *report = NULL;
    int rc = 1;
    FILE *f = fopen(path, "rb"); /* a stream of documents: parse_yaml_all gives an array */
    char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f)
        fclose(f);
    if (slinky_doc_parse_yaml_all(&docs, buf, n) < 0)
        goto out;

    /* every document as a typed resource: the Controller, its NodeSets, Accounting */
    const slinky_model_object *ctl = NULL;
    for (size_t i = 0; i < slinky_doc_value_size(slinky_doc_root(docs)) && nobj < 16; i++) {
        const slinky_doc_value *o = slinky_doc_value_at(slinky_doc_root(docs), i);
        /* other kinds in the stream (a Namespace...) are not the model's */
        if (slinky_model_kind_lookup(slinky_doc_value_path_string(o, "kind", "")) ==
            SLINKY_MODEL_KIND_UNKNOWN)
            continue;
        if (slinky_model_object_new_from_value(&objs[nobj], o) < 0)
            goto out;
        if (slinky_model_object_get_kind(objs[nobj]) == SLINKY_MODEL_KIND_CONTROLLER)
            ctl = objs[nobj];
        nobj++;
    }

    /* slurm.conf as the operator renders it (the schema's defaults applied) */
    if (slinky_conf_models_new(&models, ctl, (const slinky_model_object *const *)objs, nobj) < 0 ||
        slinky_conf_render_slurm(&text, slinky_conf_models_cluster(models), NULL) < 0 ||
        slinky_conf_parse(&old_conf, text, strlen(text), "slurm.conf", NULL) < 0 ||
        slinky_conf_parse(&new_conf, text, strlen(text), "slurm.conf", NULL) < 0)
        goto out;
    printf("rendered slurm.conf: %zu lines, ClusterName=%s\n", slinky_conf_line_count(old_conf),
           slinky_conf_get(old_conf, "ClusterName"));

    /* the edit an admin makes, then what it takes to apply it */
    if (slinky_conf_set(new_conf, "MinJobAge", "300") < 0 ||
        slinky_conf_set(new_conf, "SlurmctldPort", "7817") < 0 ||
        slinky_conf_diff_new(&diff, old_conf, new_conf, SLINKY_CONF_SLURM_22_05) < 0 ||
        slinky_conf_diff_render(&report, diff) < 0)
        goto out;
    fputs(report, stdout);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "conf_render_diff: %s\n", slinky_error_last()->message);
    slinky_free(report);
    slinky_conf_diff_free(diff);
    slinky_conf_free(old_conf);
    slinky_conf_free(new_conf);
    slinky_free(text);
    slinky_conf_models_free(models);
    for (size_t i = 0; i < nobj; i++)
        slinky_model_object_free(objs[i]);
    slinky_doc_free(docs);
    return rc;
}
