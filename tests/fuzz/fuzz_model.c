/* libFuzzer target: model parsing (JSON and YAML) and everything done with a
 * parsed object: validate, defaults, serialize and re-parse (must be equal),
 * spec hash, typed and generic access. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

static void exercise(slinky_model_object *o)
{
    slinky_model_problems *p = NULL;
    slinky_model_object *copy = NULL, *back = NULL;
    char *json = NULL, *yaml = NULL, *hash = NULL;
    const char *s = NULL;
    int64_t n = 0;

    if (slinky_model_validate(&p, o) == 0) {
        for (size_t i = 0; i < slinky_model_problems_count(p); i++)
            if (!slinky_model_problems_get_path(p, i) || !slinky_model_problems_get_message(p, i))
                abort();
        slinky_model_problems_free(p);
    }
    if (slinky_model_object_copy(&copy, o) == 0) {
        if (!slinky_model_object_equal(copy, o))
            abort();
        if (slinky_model_object_apply_defaults(copy, SLINKY_MODEL_DEFAULT_ALL) == 0 &&
            slinky_model_validate_update(&p, o, copy) == 0)
            slinky_model_problems_free(p);
        slinky_model_object_free(copy);
    }
    if (slinky_model_object_dump_json(&json, NULL, o, 0) == 0) {
        if (slinky_model_object_parse_json(&back, json, strlen(json)) != 0)
            abort(); /* our own output must parse */
        if (!slinky_model_object_equal(back, o))
            abort();
        slinky_model_object_free(back);
        slinky_free(json);
    }
    if (slinky_model_object_dump_yaml(&yaml, NULL, o) == 0) {
        if (slinky_model_object_parse_yaml(&back, yaml, strlen(yaml)) == 0)
            slinky_model_object_free(back);
        slinky_free(yaml);
    }
    if (slinky_model_object_spec_hash(&hash, o) == 0)
        slinky_free(hash);
    (void)slinky_model_get_string(&s, o, "spec.clusterName");
    (void)slinky_model_get_int(&n, o, "spec.replicas");
    (void)slinky_model_nodeset_get_replicas(&n, o);
    (void)slinky_model_controller_get_config_file_refs_name(&s, o, 0);
    (void)slinky_model_condition_set(o, "Ready", "True", "Fuzz", "m", 1, "2025-01-01T00:00:00Z");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_model_object *o = NULL;
    if (slinky_model_object_parse_json(&o, (const char *)data, size) == 0) {
        exercise(o);
        slinky_model_object_free(o);
    }
    if (slinky_model_object_parse_yaml(&o, (const char *)data, size) == 0) {
        exercise(o);
        slinky_model_object_free(o);
    }
    return 0;
}
