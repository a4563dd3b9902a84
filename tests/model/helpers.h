/* Shared helpers for the model tests (header-only). */
#ifndef SLINKY_TESTS_MODEL_HELPERS_H
#define SLINKY_TESTS_MODEL_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

/* $SLINKY_SHARED_DIR/upstream/slinky/<rel> (malloc'd). */
static inline char *upstream_path(const char *rel)
{
    const char *shared = getenv("SLINKY_SHARED_DIR");
    char *p = NULL;
    if (!shared)
        shared = "../shared";
    if (asprintf(&p, "%s/upstream/slinky/%s", shared, rel) < 0)
        return NULL;
    return p;
}

/* Parse a YAML/JSON literal into a model object; fails the test on error. */
static inline slinky_model_object *obj_from(const char *text)
{
    slinky_model_object *o = NULL;
    int rc = slinky_model_object_parse(&o, text, strlen(text));
    if (rc)
        fprintf(stderr, "parse failed: %s\n", slinky_error_last()->message);
    return rc ? NULL : o;
}

static inline void print_problems(const slinky_model_problems *p)
{
    char *s = NULL;
    if (slinky_model_problems_dump(&s, p) == 0 && *s)
        fprintf(stderr, "%s", s);
    slinky_free(s);
}

#endif
