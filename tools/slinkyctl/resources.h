/* slinkyctl: Kubernetes/Slinky resources read from files as model objects
 * (conf render, render). */
#ifndef SLINKYCTL_RESOURCES_H
#define SLINKYCTL_RESOURCES_H

#include <stddef.h>

#include "slinky.h"

typedef struct slinkyctl_resources {
    slinky_model_object **objs; /* in file order; kinds the model does not know are skipped */
    size_t n;
    size_t skipped;             /* documents of other kinds */
} slinkyctl_resources;

/*
 * Append every resource of a YAML/JSON file ("-": standard input): each
 * document, the items of a List, the elements of a top-level array. On
 * failure prints "PROG: FILE: message" and returns 1 (r keeps what it had).
 */
int slinkyctl_resources_load(slinkyctl_resources *r, const char *path, const char *prog);
void slinkyctl_resources_free(slinkyctl_resources *r);
/* The first object of `kind`, or NULL. */
const slinky_model_object *slinkyctl_resources_first(const slinkyctl_resources *r,
                                                     slinky_model_kind kind);

#endif
