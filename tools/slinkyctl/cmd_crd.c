/* slinkyctl crd: print the Slinky CustomResourceDefinitions (model module). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "slinky.h"

int slinkyctl_cmd_crd(int argc, char **argv)
{
    const char *kind = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: slinkyctl crd [KIND]\n\n"
                   "Print the CustomResourceDefinition of KIND (Kind, plural, singular or short\n"
                   "name: controller, nodesets, nss, slurmdbd, ...) or, without KIND, all six\n"
                   "Slinky CRDs as one YAML stream, ready for `kubectl apply -f -`.\n"
                   "  --list   list the kinds and their CRD file names\n");
            return 0;
        }
        if (!strcmp(argv[i], "--list")) {
            for (int k = SLINKY_MODEL_KIND_CONTROLLER; k <= SLINKY_MODEL_KIND_TOKEN; k++)
                printf("%-11s %-11s %s\n", slinky_model_kind_name((slinky_model_kind)k),
                       slinky_model_kind_plural((slinky_model_kind)k),
                       slinky_model_crd_file_name((slinky_model_kind)k));
            return 0;
        }
        if (argv[i][0] == '-' || kind) {
            fprintf(stderr, "slinkyctl crd: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
        kind = argv[i];
    }
    char *yaml = NULL;
    if (slinky_model_crd_dump(&yaml, kind) < 0) {
        fprintf(stderr, "slinkyctl crd: %s\n", slinky_error_last()->message);
        return 1;
    }
    fputs(yaml, stdout);
    slinky_free(yaml);
    return 0;
}
