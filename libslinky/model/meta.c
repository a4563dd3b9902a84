/* model: ObjectMeta accessors, owner references, status conditions. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/internal.h"

static const char *meta_string(const slinky_model_object *o, const char *key)
{
    if (!o)
        return NULL;
    return slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(slinky_model__root(o), "metadata"), key));
}

SLINKY_API const char *slinky_model_object_get_name(const slinky_model_object *o)
{
    return meta_string(o, "name");
}

SLINKY_API const char *slinky_model_object_get_namespace(const slinky_model_object *o)
{
    return meta_string(o, "namespace");
}

SLINKY_API const char *slinky_model_object_get_uid(const slinky_model_object *o)
{
    return meta_string(o, "uid");
}

SLINKY_API const char *slinky_model_object_get_resource_version(const slinky_model_object *o)
{
    return meta_string(o, "resourceVersion");
}

SLINKY_API slinky_status slinky_model_object_get_generation(int64_t *out,
                                                            const slinky_model_object *o)
{
    return slinky_model_get_int(out, o, "metadata.generation");
}

static int meta_map_get(const char **out, const slinky_model_object *o, const char *map,
                        const char *key)
{
    if (!out || !o || !key)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    const slinky_doc_value *m =
        slinky_doc_value_get(slinky_doc_value_get(slinky_model__root(o), "metadata"), map);
    const char *s = slinky_doc_value_get_string(slinky_doc_value_get(m, key));
    if (!s)
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: metadata.%s[\"%s\"] is not set",
                                 o->info->name, map, key);
    *out = s;
    return 0;
}

SLINKY_API slinky_status slinky_model_object_get_label(const char **out,
                                                       const slinky_model_object *o,
                                                       const char *key)
{
    return meta_map_get(out, o, "labels", key);
}

SLINKY_API slinky_status slinky_model_object_get_annotation(const char **out,
                                                            const slinky_model_object *o,
                                                            const char *key)
{
    return meta_map_get(out, o, "annotations", key);
}

static int object_child(slinky_doc_value **out, slinky_doc_value *v, const char *key)
{
    slinky_doc_value *c = NULL;
    int rc;
    if (slinky_doc_value_is_null(v) && (rc = slinky_doc_value_set_object(v)))
        return rc;
    if ((rc = slinky_doc_value_object_put(&c, v, key)))
        return rc;
    if (slinky_doc_value_is_null(c) && (rc = slinky_doc_value_set_object(c)))
        return rc;
    if (slinky_doc_value_type(c) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "model: %s is not an object", key);
    *out = c;
    return 0;
}

static int meta_set(slinky_model_object *o, const char *map, const char *key, const char *value)
{
    slinky_doc_value *meta, *m;
    int rc;
    if (!o || !key)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    if ((rc = object_child(&meta, slinky_model__root(o), "metadata")))
        return rc;
    if (!map) {
        if (!value) {
            rc = slinky_doc_value_object_remove(meta, key);
            return rc == SLINKY_ENOTFOUND ? (slinky_error_clear(), 0) : rc;
        }
        return slinky_doc_value_object_set_string(meta, key, value);
    }
    if (!value) {
        m = slinky_doc_value_get(meta, map);
        if (!m || slinky_doc_value_type(m) != SLINKY_DOC_OBJECT)
            return 0;
        rc = slinky_doc_value_object_remove(m, key);
        return rc == SLINKY_ENOTFOUND ? (slinky_error_clear(), 0) : rc;
    }
    if ((rc = object_child(&m, meta, map)))
        return rc;
    return slinky_doc_value_object_set_string(m, key, value);
}

SLINKY_API slinky_status slinky_model_object_set_name(slinky_model_object *o, const char *name)
{
    return meta_set(o, NULL, "name", name);
}

SLINKY_API slinky_status slinky_model_object_set_namespace(slinky_model_object *o,
                                                           const char *namespace_)
{
    return meta_set(o, NULL, "namespace", namespace_);
}

SLINKY_API slinky_status slinky_model_object_set_label(slinky_model_object *o, const char *key,
                                                       const char *value)
{
    return meta_set(o, "labels", key, value);
}

SLINKY_API slinky_status slinky_model_object_set_annotation(slinky_model_object *o,
                                                            const char *key, const char *value)
{
    return meta_set(o, "annotations", key, value);
}

/* ---- owner references ------------------------------------------------- */

static int fill_owner_ref(slinky_doc_value *v, const slinky_model_object *owner, bool controller)
{
    const char *name = slinky_model_object_get_name(owner);
    const char *uid = slinky_model_object_get_uid(owner);
    int rc;
    if (!name || !*name || !uid || !*uid)
        return slinky__error_set(SLINKY_EINVALID,
                                 "model: an owner reference needs the owner's name and uid");
    if ((rc = slinky_doc_value_set_object(v)) ||
        (rc = slinky_doc_value_object_set_string(v, "apiVersion", owner->info->api_version)) ||
        (rc = slinky_doc_value_object_set_string(v, "kind", owner->info->name)) ||
        (rc = slinky_doc_value_object_set_string(v, "name", name)) ||
        (rc = slinky_doc_value_object_set_string(v, "uid", uid)) ||
        (rc = slinky_doc_value_object_set_bool(v, "controller", controller)) ||
        (rc = slinky_doc_value_object_set_bool(v, "blockOwnerDeletion", true)))
        return rc;
    return 0;
}

SLINKY_API slinky_status slinky_model_owner_reference_new(slinky_doc **out,
                                                          const slinky_model_object *owner,
                                                          bool controller)
{
    slinky_doc *doc = NULL;
    if (!out || !owner)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = slinky_doc_new(&doc);
    if (!rc && !(rc = fill_owner_ref(slinky_doc_root(doc), owner, controller))) {
        *out = doc;
        return 0;
    }
    slinky_doc_free(doc);
    return rc;
}

SLINKY_API slinky_status slinky_model_object_set_owner(slinky_model_object *o,
                                                       const slinky_model_object *owner,
                                                       bool controller)
{
    slinky_doc *ref = NULL;
    slinky_doc_value *meta, *refs = NULL, *slot = NULL;
    if (!o || !owner)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = slinky_model_owner_reference_new(&ref, owner, controller);
    if (rc)
        return rc;
    const char *uid = slinky_model_object_get_uid(owner);
    if ((rc = object_child(&meta, slinky_model__root(o), "metadata")) ||
        (rc = slinky_doc_value_object_put(&refs, meta, "ownerReferences")))
        goto done;
    if (slinky_doc_value_is_null(refs) && (rc = slinky_doc_value_set_array(refs)))
        goto done;
    if (slinky_doc_value_type(refs) != SLINKY_DOC_ARRAY) {
        rc = slinky__error_set(SLINKY_EINVALID, "model: metadata.ownerReferences is not an array");
        goto done;
    }
    for (size_t i = 0; i < slinky_doc_value_size(refs); i++) {
        slinky_doc_value *r = slinky_doc_value_at(refs, i);
        const char *ruid = slinky_doc_value_path_string(r, "uid", "");
        if (strcmp(ruid, uid) == 0)
            slot = r;
        else if (controller && slinky_doc_value_path_bool(r, "controller", false)) {
            rc = slinky__error_set(SLINKY_ECONFLICT,
                                   "model: %s is already controlled by %s %s",
                                   slinky_model_object_get_name(o) ? slinky_model_object_get_name(o) : "object",
                                   slinky_doc_value_path_string(r, "kind", "?"),
                                   slinky_doc_value_path_string(r, "name", "?"));
            goto done;
        }
    }
    if (!slot && (rc = slinky_doc_value_array_append(&slot, refs)))
        goto done;
    rc = slinky_doc_value_set_copy(slot, slinky_doc_root(ref));
done:
    slinky_doc_free(ref);
    return rc;
}

SLINKY_API bool slinky_model_object_is_owned_by(const slinky_model_object *o,
                                                const slinky_model_object *owner)
{
    if (!o || !owner || !slinky_model_object_get_uid(owner))
        return false;
    const slinky_doc_value *refs = slinky_doc_value_path(slinky_model__root(o),
                                                         "metadata.ownerReferences");
    const char *uid = slinky_model_object_get_uid(owner);
    for (size_t i = 0; i < slinky_doc_value_size(refs); i++)
        if (strcmp(slinky_doc_value_path_string(slinky_doc_value_at(refs, i), "uid", ""), uid) == 0)
            return true;
    return false;
}

/* ---- conditions ----------------------------------------------------------- */

static slinky_doc_value *find_condition(const slinky_model_object *o, const char *type,
                                        size_t *index)
{
    const slinky_doc_value *conds =
        slinky_doc_value_path(slinky_model__root(o), "status.conditions");
    for (size_t i = 0; i < slinky_doc_value_size(conds); i++) {
        slinky_doc_value *c = slinky_doc_value_at(conds, i);
        const char *t = slinky_doc_value_get_string(slinky_doc_value_get(c, "type"));
        if (t && strcmp(t, type) == 0) {
            if (index)
                *index = i;
            return c;
        }
    }
    return NULL;
}

static int has_conditions(const slinky_model_object *o)
{
    const slinky_model__node *st = slinky_model__child(&slinky_model__nodes[o->info->root], "status");
    if (!slinky_model__child(st, "conditions"))
        return slinky__error_set(SLINKY_EINVALID, "model: a %s has no status.conditions",
                                 o->info->name);
    return 0;
}

SLINKY_API slinky_status slinky_model_condition_set(slinky_model_object *o, const char *type,
                                                    const char *status, const char *reason,
                                                    const char *message,
                                                    int64_t observed_generation,
                                                    const char *now)
{
    char nowbuf[32];
    int rc;
    if (!o || !type || !*type || !status || !reason || !*reason)
        return slinky__error_set(SLINKY_EINVALID,
                                 "model: a condition needs a type, a status and a reason");
    if ((rc = has_conditions(o)))
        return rc;
    if (strcmp(status, "True") && strcmp(status, "False") && strcmp(status, "Unknown"))
        return slinky__error_set(SLINKY_EINVALID,
                                 "model: condition status must be True, False or Unknown, not \"%s\"",
                                 status);
    if (!now) {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(nowbuf, sizeof(nowbuf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        now = nowbuf;
    }
    slinky_doc_value *c = find_condition(o, type, NULL);
    if (!c) {
        slinky_doc_value *conds;
        if (!slinky_model_has(o, "status.conditions")) {
            slinky_doc *empty = NULL;
            if ((rc = slinky_doc_new(&empty)))
                return rc;
            if (!(rc = slinky_doc_value_set_array(slinky_doc_root(empty))))
                rc = slinky_model_set_value(o, "status.conditions", slinky_doc_root(empty));
            slinky_doc_free(empty);
            if (rc)
                return rc;
        }
        conds = slinky_doc_value_path(slinky_model__root(o), "status.conditions");
        if (slinky_doc_value_type(conds) != SLINKY_DOC_ARRAY)
            return slinky__error_set(SLINKY_EINVALID, "model: status.conditions is not an array");
        if ((rc = slinky_doc_value_array_append(&c, conds)) ||
            (rc = slinky_doc_value_set_object(c)) ||
            (rc = slinky_doc_value_object_set_string(c, "type", type)))
            return rc;
    }
    const char *old = slinky_doc_value_get_string(slinky_doc_value_get(c, "status"));
    bool changed = !old || strcmp(old, status) != 0 || !slinky_doc_value_get(c, "lastTransitionTime");
    if ((rc = slinky_doc_value_object_set_string(c, "status", status)) ||
        (rc = slinky_doc_value_object_set_string(c, "reason", reason)) ||
        (rc = slinky_doc_value_object_set_string(c, "message", message ? message : "")))
        return rc;
    if (observed_generation >= 0 &&
        (rc = slinky_doc_value_object_set_int(c, "observedGeneration", observed_generation)))
        return rc;
    if (changed && (rc = slinky_doc_value_object_set_string(c, "lastTransitionTime", now)))
        return rc;
    return 0;
}

SLINKY_API slinky_status slinky_model_condition_get(const slinky_doc_value **out,
                                                    const slinky_model_object *o,
                                                    const char *type)
{
    if (!out || !o || !type)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    const slinky_doc_value *c = find_condition(o, type, NULL);
    if (!c)
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: no condition of type %s", o->info->name,
                                 type);
    *out = c;
    return 0;
}

SLINKY_API slinky_status slinky_model_condition_get_status(const char **out,
                                                           const slinky_model_object *o,
                                                           const char *type)
{
    const slinky_doc_value *c;
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = slinky_model_condition_get(&c, o, type);
    if (rc)
        return rc;
    const char *s = slinky_doc_value_get_string(slinky_doc_value_get(c, "status"));
    if (!s)
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: condition %s has no status",
                                 o->info->name, type);
    *out = s;
    return 0;
}

SLINKY_API bool slinky_model_condition_is_true(const slinky_model_object *o, const char *type)
{
    if (!o || !type)
        return false;
    const slinky_doc_value *c = find_condition(o, type, NULL);
    const char *s = slinky_doc_value_get_string(slinky_doc_value_get(c, "status"));
    return s && strcmp(s, "True") == 0;
}

SLINKY_API slinky_status slinky_model_condition_remove(slinky_model_object *o, const char *type)
{
    size_t i = 0;
    if (!o || !type)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    if (!find_condition(o, type, &i))
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: no condition of type %s", o->info->name,
                                 type);
    return slinky_doc_value_array_remove(
        slinky_doc_value_path(slinky_model__root(o), "status.conditions"), i);
}
