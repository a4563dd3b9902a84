/*
 * model_validate: check a Slinky resource as the API server and the admission
 * webhook would, then print it with the CRD and operator defaults applied.
 *
 *   model_validate DATA_DIR      (reads DATA_DIR/controller.yaml)
 */
#include <stdio.h>

#include <slinky.h>

int main(int argc, char **argv)
{
    char path[4096];
    if (argc != 2)
        return fprintf(stderr, "usage: model_validate DATA_DIR\n"), 2;
    snprintf(path, sizeof(path), "%s/controller.yaml", argv[1]);
    slinky_doc *doc = NULL;
    slinky_model_object *obj = NULL;
    slinky_model_problems *problems = NULL;
    char *report = NULL;
    int rc = 1;
    if (slinky_doc_load_file(&doc, path) < 0 ||
        slinky_model_object_new_from_value(&obj, slinky_doc_root(doc)) < 0 ||
        slinky_model_validate(&problems, obj) < 0 ||
        slinky_model_problems_dump(&report, problems) < 0) {
        fprintf(stderr, "model_validate: %s\n", slinky_error_last()->message);
        goto out;
    }
    printf("%zu error(s), %zu problem(s)%s%s", slinky_model_problems_error_count(problems),
           slinky_model_problems_count(problems), *report ? ":\n" : "\n", report);
    rc = slinky_model_problems_error_count(problems) ? 1 : 0;
out:
    slinky_free(report);
    slinky_model_problems_free(problems);
    slinky_model_object_free(obj);
    slinky_doc_free(doc);
    return rc;
}
