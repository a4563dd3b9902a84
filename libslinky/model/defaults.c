/* model: CRD and operator defaults, canonical spec, equality and hash. */
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"

static bool subtree_materializes(const slinky_model__node *n)
{
    if (n->flags & SLINKY_MODEL__F_MATERIALIZE)
        return true;
    if (n->type != SLINKY_MODEL__T_OBJECT)
        return false;
    for (int i = 0; i < n->n_children; i++) {
        int ci = n->first_child + i;
        if (ci != n->items && ci != n->addl && subtree_materializes(&slinky_model__nodes[ci]))
            return true;
    }
    return false;
}

static int set_default(slinky_doc_value *v, const char *json)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_json(&d, json, strlen(json));
    if (rc)
        return rc;
    rc = slinky_doc_value_set_copy(v, slinky_doc_root(d));
    slinky_doc_free(d);
    return rc;
}

int slinky_model__default_value(slinky_doc_value *v, const slinky_model__node *n,
                                bool materialize)
{
    int rc;
    if (n->type == SLINKY_MODEL__T_ARRAY && n->items >= 0 &&
        slinky_doc_value_type(v) == SLINKY_DOC_ARRAY) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            if ((rc = slinky_model__default_value(slinky_doc_value_at(v, i),
                                                  &slinky_model__nodes[n->items], materialize)))
                return rc;
        return 0;
    }
    if (n->type != SLINKY_MODEL__T_OBJECT || slinky_doc_value_type(v) != SLINKY_DOC_OBJECT)
        return 0;
    for (int i = 0; i < n->n_children; i++) {
        int ci = n->first_child + i;
        if (ci == n->items || ci == n->addl)
            continue;
        const slinky_model__node *c = &slinky_model__nodes[ci];
        slinky_doc_value *mv = slinky_doc_value_get(v, c->name);
        bool absent = !mv || (slinky_doc_value_is_null(mv) && !(c->flags & SLINKY_MODEL__F_NULLABLE));
        if (absent && c->default_json) {
            if (!mv && (rc = slinky_doc_value_object_put(&mv, v, c->name)))
                return rc;
            if ((rc = set_default(mv, c->default_json)))
                return rc;
        } else if (absent && materialize && c->type == SLINKY_MODEL__T_OBJECT &&
                   subtree_materializes(c)) {
            if (!mv && (rc = slinky_doc_value_object_put(&mv, v, c->name)))
                return rc;
            if ((rc = slinky_doc_value_set_object(mv)))
                return rc;
        }
        if (mv && (rc = slinky_model__default_value(mv, c, materialize)))
            return rc;
    }
    if (n->addl >= 0) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            if ((rc = slinky_model__default_value(slinky_doc_value_member_at(v, i),
                                                  &slinky_model__nodes[n->addl], materialize)))
                return rc;
    }
    return 0;
}

SLINKY_API slinky_status slinky_model_controller_cluster_name(char **out,
                                                              const slinky_model_controller *c)
{
    if (!out || !c)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    if (c->info->kind != SLINKY_MODEL_KIND_CONTROLLER)
        return slinky__error_set(SLINKY_EINVALID, "model: the object is a %s, not a Controller",
                                 c->info->name);
    const char *cn = slinky_doc_value_path_string(slinky_model__root(c), "spec.clusterName", "");
    char *s = *cn ? slinky__strdup(cn)
                  : slinky__sprintf("%s_%s", slinky_model_object_get_namespace(c)
                                                 ? slinky_model_object_get_namespace(c) : "",
                                    slinky_model_object_get_name(c)
                                        ? slinky_model_object_get_name(c) : "");
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

SLINKY_API slinky_status slinky_model_object_apply_defaults(slinky_model_object *o,
                                                            unsigned flags)
{
    int rc;
    if (!o || !(flags & SLINKY_MODEL_DEFAULT_ALL) || (flags & ~(unsigned)SLINKY_MODEL_DEFAULT_ALL))
        return slinky__error_set(SLINKY_EINVALID, "model: bad arguments to apply_defaults");
    bool op = (flags & SLINKY_MODEL_DEFAULT_OPERATOR) != 0;
    /* Work on a copy so that nothing is half-applied on failure. */
    slinky_doc *copy = NULL;
    if ((rc = slinky_doc_new_copy(&copy, slinky_model__root(o))))
        return rc;
    slinky_doc_value *root = slinky_doc_root(copy);
    const slinky_model__node *rn = &slinky_model__nodes[o->info->root];
    if (op && slinky_model__child(rn, "spec") && !slinky_doc_value_get(root, "spec")) {
        slinky_doc_value *spec;
        if ((rc = slinky_doc_value_object_put(&spec, root, "spec")) ||
            (rc = slinky_doc_value_set_object(spec)))
            goto fail;
    }
    if ((rc = slinky_model__default_value(root, rn, op)))
        goto fail;
    if (op && o->info->kind == SLINKY_MODEL_KIND_NODESET) {
        /* rollingUpdate.maxUnavailable (schema default) only for RollingUpdate */
        slinky_doc_value *us = slinky_doc_value_path(root, "spec.updateStrategy"), *ru = NULL;
        const char *type = slinky_doc_value_path_string(us, "type", "");
        if (strcmp(type, "RollingUpdate") == 0 && !slinky_doc_value_get(us, "rollingUpdate")) {
            if ((rc = slinky_doc_value_object_put(&ru, us, "rollingUpdate")) ||
                (rc = slinky_doc_value_set_object(ru)) ||
                (rc = slinky_model__default_value(root, rn, false)))
                goto fail;
        }
    }
    if (op && o->info->kind == SLINKY_MODEL_KIND_CONTROLLER) {
        slinky_doc_value *spec = slinky_doc_value_get(root, "spec");
        const char *cn = slinky_doc_value_path_string(spec, "clusterName", "");
        const char *ns = slinky_doc_value_path_string(root, "metadata.namespace", NULL);
        const char *name = slinky_doc_value_path_string(root, "metadata.name", NULL);
        if (!*cn && ns && name && slinky_doc_value_type(spec) == SLINKY_DOC_OBJECT) {
            char *s = slinky__sprintf("%s_%s", ns, name);
            if (!s) {
                rc = SLINKY_ENOMEM;
                goto fail;
            }
            rc = slinky_doc_value_object_set_string(spec, "clusterName", s);
            free(s);
            if (rc)
                goto fail;
        }
    }
    slinky_doc_free(o->doc);
    o->doc = copy;
    return 0;
fail:
    slinky_doc_free(copy);
    return rc;
}

/* Drop nulls inside objects, recursively. */
static int strip_nulls(slinky_doc_value *v)
{
    int rc;
    if (slinky_doc_value_type(v) == SLINKY_DOC_OBJECT) {
        for (size_t i = slinky_doc_value_size(v); i-- > 0;) {
            slinky_doc_value *m = slinky_doc_value_member_at(v, i);
            if (slinky_doc_value_is_null(m)) {
                char *key = slinky__strdup(slinky_doc_value_key_at(v, i));
                if (!key)
                    return SLINKY_ENOMEM;
                rc = slinky_doc_value_object_remove(v, key);
                free(key);
                if (rc)
                    return rc;
            } else if ((rc = strip_nulls(m))) {
                return rc;
            }
        }
    } else if (slinky_doc_value_type(v) == SLINKY_DOC_ARRAY) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            if ((rc = strip_nulls(slinky_doc_value_at(v, i))))
                return rc;
    }
    return 0;
}

/* The canonical spec: spec (or, for kinds without one, everything but
 * apiVersion/kind/metadata/status), all defaults (CRD and operator) applied,
 * nulls dropped. */
static int canonical_spec(slinky_doc **out, const slinky_model_object *o)
{
    slinky_model_object *c = NULL;
    slinky_doc *d = NULL;
    int rc = slinky_model_object_copy(&c, o);
    if (rc)
        return rc;
    if ((rc = slinky_model_object_apply_defaults(c, SLINKY_MODEL_DEFAULT_ALL)))
        goto done;
    slinky_doc_value *root = slinky_model__root(c);
    if (slinky_model__child(&slinky_model__nodes[o->info->root], "spec")) {
        if ((rc = slinky_doc_new_copy(&d, slinky_doc_value_get(root, "spec"))))
            goto done;
    } else {
        static const char *const drop[] = {"apiVersion", "kind", "metadata", "status"};
        for (size_t i = 0; i < SLINKY__ARRAY_SIZE(drop); i++)
            if (slinky_doc_value_get(root, drop[i]) &&
                (rc = slinky_doc_value_object_remove(root, drop[i])))
                goto done;
        if ((rc = slinky_doc_new_copy(&d, root)))
            goto done;
    }
    if ((rc = strip_nulls(slinky_doc_root(d)))) {
        slinky_doc_free(d);
        goto done;
    }
    *out = d;
done:
    slinky_model_object_free(c);
    return rc;
}

SLINKY_API bool slinky_model_object_spec_equal(const slinky_model_object *a,
                                               const slinky_model_object *b)
{
    slinky_doc *da = NULL, *db = NULL;
    bool eq = false;
    if (!a || !b)
        return a == b;
    if (a->info != b->info)
        return false;
    if (!canonical_spec(&da, a) && !canonical_spec(&db, b))
        eq = slinky_doc_value_equal(slinky_doc_root(da), slinky_doc_root(db));
    slinky_doc_free(da);
    slinky_doc_free(db);
    return eq;
}

SLINKY_API slinky_status slinky_model_object_spec_hash(char **out, const slinky_model_object *o)
{
    slinky_doc *d = NULL;
    char *json = NULL, hex[65];
    size_t len = 0;
    if (!out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = canonical_spec(&d, o);
    if (rc)
        return rc;
    rc = slinky_doc_value_dump_json(&json, &len, slinky_doc_root(d),
                                    SLINKY_DOC_DUMP_COMPACT | SLINKY_DOC_DUMP_SORT_KEYS);
    slinky_doc_free(d);
    if (rc)
        return rc;
    slinky_model__sha256_hex(hex, json, len);
    slinky_free(json);
    char *s = slinky__strdup(hex);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}
