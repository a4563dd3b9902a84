/*
 * wl_render [--json] FILE...: every object libslinky's workload builders make for the
 * resources in FILEs (YAML streams), as one YAML stream on stdout. Resources
 * without metadata.uid get "uid-<kind>-<name>" (the API server would assign
 * one). --json: one v1 List instead. A test driver for tests/workload/examples.sh (slinkyctl render is the
 * user-facing command).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

#define MAX_OBJS 256

int main(int argc, char **argv)
{
    slinky_model_object *objs[MAX_OBJS];
    size_t n = 0;
    int rc = 1, json = argc > 1 && !strcmp(argv[1], "--json");
    for (int a = 1 + json; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) {
            perror(argv[a]);
            goto done;
        }
        static char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        slinky_doc *d = NULL;
        if (slinky_doc_parse_yaml_all(&d, buf, len)) {
            fprintf(stderr, "%s: %s\n", argv[a], slinky_error_last()->message);
            goto done;
        }
        const slinky_doc_value *r = slinky_doc_root(d);
        for (size_t i = 0; i < slinky_doc_value_size(r) && n < MAX_OBJS; i++) {
            const slinky_doc_value *v = slinky_doc_value_at(r, i);
            if (!slinky_doc_value_path_string(v, "kind", NULL))
                continue; /* e.g. helm values */
            if (slinky_model_object_new_from_value(&objs[n], v)) {
                fprintf(stderr, "%s: %s\n", argv[a], slinky_error_last()->message);
                slinky_doc_free(d);
                goto done;
            }
            if (!slinky_model_object_get_uid(objs[n])) {
                char uid[300];
                snprintf(uid, sizeof uid, "uid-%s-%s",
                         slinky_model_kind_name(slinky_model_object_get_kind(objs[n])),
                         slinky_model_object_get_name(objs[n]));
                slinky_model_set_string(objs[n], "metadata.uid", uid);
            }
            n++;
        }
        slinky_doc_free(d);
    }
    slinky_workload_input in = SLINKY_WORKLOAD_INPUT_INIT;
    in.objects = (const slinky_model_object *const *)objs;
    in.object_count = n;
    slinky_workload *w = NULL;
    char *y = NULL;
    size_t ylen = 0;
    if (slinky_workload_new(&w) || slinky_workload_build_all(w, &in) ||
        (json ? slinky_workload_dump_json(&y, &ylen, w, SLINKY_DOC_DUMP_PRETTY)
              : slinky_workload_dump_yaml(&y, &ylen, w))) {
        fprintf(stderr, "wl_render: %s\n", slinky_error_last()->message);
        slinky_workload_free(w);
        goto done;
    }
    fwrite(y, 1, ylen, stdout);
    slinky_free(y);
    slinky_workload_free(w);
    rc = 0;
done:
    for (size_t i = 0; i < n; i++)
        slinky_model_object_free(objs[i]);
    return rc;
}
