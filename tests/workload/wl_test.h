/*
 * Helpers for the workload builder tests (test_common, test_controller,
 * test_nodeset, test_restapi, test_accounting): a cluster parsed from a
 * YAML stream, the input over it, and path getters on built objects.
 */
#ifndef WL_TEST_H
#define WL_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

#define WL_MAX 64

typedef struct wl_cluster {
    slinky_model_object *objs[WL_MAX];
    size_t n;
    slinky_workload_input in;
    slinky_workload *w;
} wl_cluster;

/* Parse every document of `yaml` into the cluster (appending). */
static inline void wl_add(wl_cluster *c, const char *yaml)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_yaml_all(&d, yaml, strlen(yaml)))
        fail_msg("parse: %s", slinky_error_last()->message);
    const slinky_doc_value *r = slinky_doc_root(d);
    for (size_t i = 0; i < slinky_doc_value_size(r); i++) {
        assert_true(c->n < WL_MAX);
        if (slinky_model_object_new_from_value(&c->objs[c->n], slinky_doc_value_at(r, i)))
            fail_msg("object %zu: %s", i, slinky_error_last()->message);
        c->n++;
    }
    slinky_doc_free(d);
    assert_int_equal(slinky_workload_input_init(&c->in, SLINKY_WORKLOAD_INPUT_VERSION), 0);
    c->in.objects = (const slinky_model_object *const *)c->objs;
    c->in.object_count = c->n;
    if (!c->w)
        assert_int_equal(slinky_workload_new(&c->w), 0);
}

static inline void wl_free(wl_cluster *c)
{
    for (size_t i = 0; i < c->n; i++)
        slinky_model_object_free(c->objs[i]);
    slinky_workload_free(c->w);
    memset(c, 0, sizeof(*c));
}

/* The first input object of `kind` named `name`. */
static inline slinky_model_object *wl_obj(wl_cluster *c, slinky_model_kind kind, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (slinky_model_object_get_kind(c->objs[i]) == kind &&
            !strcmp(slinky_model_object_get_name(c->objs[i]), name))
            return c->objs[i];
    fail_msg("no input object %s", name);
    return NULL;
}

/* The built object of `kind` named `name` (root value). */
static inline const slinky_doc_value *wl_built(wl_cluster *c, const char *kind, const char *name)
{
    slinky_doc *d = NULL;
    if (slinky_workload_find(&d, c->w, kind, name))
        fail_msg("%s", slinky_error_last()->message);
    return slinky_doc_root(d);
}

static inline const char *wl_str(const slinky_doc_value *v, const char *path)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    if (!x)
        fail_msg("missing %s", path);
    if (slinky_doc_value_type(x) != SLINKY_DOC_STRING)
        fail_msg("%s is not a string", path);
    return slinky_doc_value_get_string(x);
}

static inline int64_t wl_int(const slinky_doc_value *v, const char *path)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    if (!x || slinky_doc_value_type(x) != SLINKY_DOC_INT)
        fail_msg("%s is not an integer", path);
    return slinky_doc_value_get_int(x);
}

static inline bool wl_bool(const slinky_doc_value *v, const char *path)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    if (!x || slinky_doc_value_type(x) != SLINKY_DOC_BOOL)
        fail_msg("%s is not a boolean", path);
    return slinky_doc_value_get_bool(x);
}

static inline size_t wl_size(const slinky_doc_value *v, const char *path)
{
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    if (!x)
        fail_msg("missing %s", path);
    return slinky_doc_value_size(x);
}

static inline bool wl_has(const slinky_doc_value *v, const char *path)
{
    return slinky_doc_value_path(v, path) != NULL;
}

/* Compare a value with JSON text (deep equality, member order ignored). */
static inline void wl_json_eq(const slinky_doc_value *v, const char *path, const char *json)
{
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, json, strlen(json)))
        fail_msg("bad expected JSON for %s: %s", path, slinky_error_last()->message);
    const slinky_doc_value *x = slinky_doc_value_path(v, path);
    if (!slinky_doc_value_equal(x, slinky_doc_root(d))) {
        char *got = NULL;
        slinky_doc_value_dump_json(&got, NULL, x, SLINKY_DOC_DUMP_SORT_KEYS);
        fail_msg("%s:\n  got  %s\n  want %s", path, got ? got : "(none)", json);
    }
    slinky_doc_free(d);
}

/* The container named `name` in a pod spec list (e.g. "spec.template.spec.containers"). */
static inline const slinky_doc_value *wl_container(const slinky_doc_value *v, const char *list,
                                                   const char *name)
{
    const slinky_doc_value *l = slinky_doc_value_path(v, list);
    for (size_t i = 0; i < slinky_doc_value_size(l); i++)
        if (!strcmp(slinky_doc_value_path_string(slinky_doc_value_at(l, i), "name", ""), name))
            return slinky_doc_value_at(l, i);
    fail_msg("no container %s in %s", name, list);
    return NULL;
}

/* The Secrets every example cluster references (values are base64). */
#define WL_SECRETS(ns)                                                                      \
    "---\napiVersion: v1\nkind: Secret\nmetadata: {name: slurm-key, namespace: " ns "}\n"     \
    "data: {slurm.key: a2V5LWJ5dGVz}\n"                                                    \
    "---\napiVersion: v1\nkind: Secret\nmetadata: {name: jwt-key, namespace: " ns "}\n"       \
    "data: {jwt.key: and0LWJ5dGVz}\n"

#endif
