/* slinkyctl model: parse, default, validate and hash Slinky resources. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "slinky.h"

static int usage(FILE *f)
{
    fprintf(f, "usage: slinkyctl model validate FILE [OLD_FILE]\n"
               "       slinkyctl model default [--crd-only] [--json] FILE\n"
               "       slinkyctl model hash FILE\n"
               "       slinkyctl model get FILE PATH\n\n"
               "validate  print every problem (path: message); with OLD_FILE validate an update\n"
               "          from OLD_FILE to FILE (immutable fields). Exit 1 when there are errors.\n"
               "default   print FILE with the CRD and operator defaults applied\n"
               "hash      print the spec hash (SHA-256 of the canonical spec)\n"
               "get       print the value at a schema path (e.g. spec.replicas)\n");
    return f == stdout ? 0 : 2;
}

static slinky_model_object *load(const char *path)
{
    slinky_model_object *o = NULL;
    if (slinky_model_object_load_file(&o, path) < 0) {
        fprintf(stderr, "slinkyctl model: %s\n", slinky_error_last()->message);
        return NULL;
    }
    return o;
}

static int cmd_validate(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        return usage(stderr);
    slinky_model_object *o = load(argv[1]), *old = NULL;
    slinky_model_problems *p = NULL;
    int rc = 1;
    if (!o || (argc == 3 && !(old = load(argv[2]))))
        goto done;
    if ((old ? slinky_model_validate_update(&p, old, o) : slinky_model_validate(&p, o)) < 0) {
        fprintf(stderr, "slinkyctl model: %s\n", slinky_error_last()->message);
        goto done;
    }
    for (size_t i = 0; i < slinky_model_problems_count(p); i++)
        printf("%s: %s: %s\n",
               slinky_model_problems_get_severity(p, i) == SLINKY_MODEL_ERROR ? "error" : "warning",
               slinky_model_problems_get_path(p, i), slinky_model_problems_get_message(p, i));
    rc = slinky_model_problems_error_count(p) ? 1 : 0;
    if (!rc)
        printf("%s %s: valid\n", slinky_model_kind_name(slinky_model_object_get_kind(o)),
               slinky_model_object_get_name(o) ? slinky_model_object_get_name(o) : "");
done:
    slinky_model_problems_free(p);
    slinky_model_object_free(o);
    slinky_model_object_free(old);
    return rc;
}

static int cmd_default(int argc, char **argv)
{
    unsigned flags = SLINKY_MODEL_DEFAULT_ALL;
    bool json = false;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--crd-only"))
            flags = SLINKY_MODEL_DEFAULT_CRD;
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!file)
            file = argv[i];
        else
            return usage(stderr);
    }
    if (!file)
        return usage(stderr);
    slinky_model_object *o = load(file);
    char *out = NULL;
    int rc = 1;
    if (o && slinky_model_object_apply_defaults(o, flags) == 0 &&
        (json ? slinky_model_object_dump_json(&out, NULL, o, SLINKY_DOC_DUMP_PRETTY)
              : slinky_model_object_dump_yaml(&out, NULL, o)) == 0) {
        fputs(out, stdout);
        if (json)
            putchar('\n');
        rc = 0;
    } else if (o) {
        fprintf(stderr, "slinkyctl model: %s\n", slinky_error_last()->message);
    }
    slinky_free(out);
    slinky_model_object_free(o);
    return rc;
}

static int cmd_hash(int argc, char **argv)
{
    if (argc != 2)
        return usage(stderr);
    slinky_model_object *o = load(argv[1]);
    char *h = NULL;
    int rc = 1;
    if (o && slinky_model_object_spec_hash(&h, o) == 0) {
        printf("%s\n", h);
        rc = 0;
    } else if (o) {
        fprintf(stderr, "slinkyctl model: %s\n", slinky_error_last()->message);
    }
    slinky_free(h);
    slinky_model_object_free(o);
    return rc;
}

static int cmd_get(int argc, char **argv)
{
    if (argc != 3)
        return usage(stderr);
    slinky_model_object *o = load(argv[1]);
    const slinky_doc_value *v = NULL;
    char *out = NULL;
    int rc = 1;
    if (o && slinky_model_get_value(&v, o, argv[2]) == 0 &&
        slinky_doc_value_dump_json(&out, NULL, v, SLINKY_DOC_DUMP_PRETTY) == 0) {
        printf("%s\n", out);
        rc = 0;
    } else if (o) {
        fprintf(stderr, "slinkyctl model: %s\n", slinky_error_last()->message);
    }
    slinky_free(out);
    slinky_model_object_free(o);
    return rc;
}

int slinkyctl_cmd_model(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
        return usage(stdout);
    if (!strcmp(argv[1], "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "default"))
        return cmd_default(argc - 1, argv + 1);
    if (!strcmp(argv[1], "hash"))
        return cmd_hash(argc - 1, argv + 1);
    if (!strcmp(argv[1], "get"))
        return cmd_get(argc - 1, argv + 1);
    fprintf(stderr, "slinkyctl model: unknown subcommand '%s'\n", argv[1]);
    return 2;
}
