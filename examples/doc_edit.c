/*
 * doc_edit: read a Kubernetes manifest, read and change fields by path, and
 * print it as JSON and as YAML.
 *
 *   doc_edit DATA_DIR      (reads DATA_DIR/controller.yaml)
 *
 * Build: cc doc_edit.c $(pkg-config --cflags --libs libslinky)
 */
#include <stdio.h>
#include <string.h>

#include <slinky.h>

static int fail(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "doc_edit: %s: %s (%s)\n", what, e->message, slinky_error_name(e->code));
    return 1;
}

int main(int argc, char **argv)
{
    char path[4096];
    slinky_doc *doc = NULL;
    slinky_doc_value *v = NULL;
    char *json = NULL, *yaml = NULL;
    int rc = 1;

    if (argc != 2) {
        fprintf(stderr, "usage: doc_edit DATA_DIR\n");
        return 2;
    }
    snprintf(path, sizeof(path), "%s/controller.yaml", argv[1]);
    if (slinky_doc_load_file(&doc, path) < 0)
        return fail("load");

    slinky_doc_value *root = slinky_doc_root(doc);
    printf("kind=%s cluster=%s\n", slinky_doc_value_path_string(root, "kind", "?"),
           slinky_doc_value_path_string(root, "spec.clusterName", "?"));

    if (slinky_doc_value_path_put(&v, root, "metadata.labels[\"app.kubernetes.io/name\"]") < 0 ||
        slinky_doc_value_set_string(v, "slurmctld") < 0) {
        fail("edit");
        goto out;
    }
    if (slinky_doc_value_dump_json(&json, NULL, root, SLINKY_DOC_DUMP_COMPACT) < 0 ||
        slinky_doc_value_dump_yaml(&yaml, NULL, root, 0) < 0) {
        fail("dump");
        goto out;
    }
    printf("%s\n---\n%s", json, yaml);
    rc = strstr(json, "\"app.kubernetes.io/name\":\"slurmctld\"") ? 0 : 1;
out:
    slinky_free(json);
    slinky_free(yaml);
    slinky_doc_free(doc);
    return rc;
}
