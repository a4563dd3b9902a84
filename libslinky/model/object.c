/* model objects: kinds, create, parse, serialize, copy, compare. */
#include <stdlib.h>
#include <string.h>

#include "doc/doc_internal.h"
#include "model/internal.h"

const slinky_model__kind_info *slinky_model__kind_info_of(slinky_model_kind kind)
{
    for (size_t i = 0; i < slinky_model__n_kinds; i++)
        if (slinky_model__kinds[i].kind == kind)
            return &slinky_model__kinds[i];
    return NULL;
}

const slinky_model__node *slinky_model__child(const slinky_model__node *n, const char *name)
{
    if (!n)
        return NULL;
    for (int i = 0; i < n->n_children; i++) {
        const slinky_model__node *c = &slinky_model__nodes[n->first_child + i];
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

slinky_doc_value *slinky_model__root(const slinky_model_object *o)
{
    return slinky_doc_root(o->doc);
}

SLINKY_API const char *slinky_model_kind_name(slinky_model_kind kind)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    return k ? k->name : NULL;
}

SLINKY_API const char *slinky_model_kind_api_version(slinky_model_kind kind)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    return k ? k->api_version : NULL;
}

SLINKY_API const char *slinky_model_kind_plural(slinky_model_kind kind)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    return k ? k->plural : NULL;
}

SLINKY_API slinky_model_kind slinky_model_kind_lookup(const char *name)
{
    if (!name)
        return SLINKY_MODEL_KIND_UNKNOWN;
    for (size_t i = 0; i < slinky_model__n_kinds; i++) {
        const slinky_model__kind_info *k = &slinky_model__kinds[i];
        if (!slinky__strcasecmp(name, k->name) || !slinky__strcasecmp(name, k->plural) ||
            !slinky__strcasecmp(name, k->singular))
            return k->kind;
    }
    for (size_t i = 0; i < slinky_model__n_kinds; i++) {
        const slinky_model__kind_info *k = &slinky_model__kinds[i];
        for (const char *const *s = k->short_names; s && *s; s++)
            if (!slinky__strcasecmp(name, *s))
                return k->kind;
    }
    return SLINKY_MODEL_KIND_UNKNOWN;
}

SLINKY_API const char *slinky_model_crd_file_name(slinky_model_kind kind)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    return k ? k->crd_file : NULL;
}

static int wrap(slinky_model_object **out, slinky_doc *doc, const slinky_model__kind_info *k)
{
    slinky_model_object *o = slinky__calloc(1, sizeof(*o));
    if (!o) {
        slinky_doc_free(doc);
        return SLINKY_ENOMEM;
    }
    o->doc = doc;
    o->info = k;
    *out = o;
    return 0;
}

SLINKY_API slinky_status slinky_model_object_new(slinky_model_object **out, slinky_model_kind kind,
                                                 const char *namespace_, const char *name)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    if (!out || !k)
        return slinky__error_set(SLINKY_EINVALID, "model: unknown kind %d", (int)kind);
    slinky_doc *doc = NULL;
    int rc = slinky_doc_new(&doc);
    if (rc)
        return rc;
    slinky_doc_value *root = slinky_doc_root(doc), *meta = NULL;
    if ((rc = slinky_doc_value_set_object(root)) ||
        (rc = slinky_doc_value_object_set_string(root, "apiVersion", k->api_version)) ||
        (rc = slinky_doc_value_object_set_string(root, "kind", k->name)) ||
        (rc = slinky_doc_value_object_put(&meta, root, "metadata")) ||
        (rc = slinky_doc_value_set_object(meta)))
        goto fail;
    if (name && (rc = slinky_doc_value_object_set_string(meta, "name", name)))
        goto fail;
    if (namespace_ && (rc = slinky_doc_value_object_set_string(meta, "namespace", namespace_)))
        goto fail;
    if (slinky_model__child(&slinky_model__nodes[k->root], "spec")) {
        slinky_doc_value *spec = NULL;
        if ((rc = slinky_doc_value_object_put(&spec, root, "spec")) ||
            (rc = slinky_doc_value_set_object(spec)))
            goto fail;
    }
    return wrap(out, doc, k);
fail:
    slinky_doc_free(doc);
    return rc;
}

/* Identify the kind of a value; EINVALID naming what was found. */

static const slinky_model__kind_info *identify_kind(const slinky_doc_value *v, int *rc)
{
    if (slinky_doc_value_type(v) != SLINKY_DOC_OBJECT) {
        *rc = slinky__error_set(SLINKY_EINVALID, "model: expected an object, got %s",
                                slinky_doc_type_name(slinky_doc_value_type(v)));
        return NULL;
    }
    const char *api = slinky_doc_value_get_string(slinky_doc_value_get(v, "apiVersion"));
    const char *kind = slinky_doc_value_get_string(slinky_doc_value_get(v, "kind"));
    if (!kind) {
        *rc = slinky__error_set(SLINKY_EINVALID, "model: kind: Required value");
        return NULL;
    }
    if (!api) {
        *rc = slinky__error_set(SLINKY_EINVALID, "model: apiVersion: Required value");
        return NULL;
    }
    for (size_t i = 0; i < slinky_model__n_kinds; i++) {
        const slinky_model__kind_info *k = &slinky_model__kinds[i];
        if (strcmp(k->name, kind) == 0) {
            if (strcmp(k->api_version, api) != 0) {
                *rc = slinky__error_set(SLINKY_EINVALID,
                                        "model: apiVersion: %s is not served for kind %s "
                                        "(expected %s)", api, kind, k->api_version);
                return NULL;
            }
            return k;
        }
    }
    *rc = slinky__error_set(SLINKY_EINVALID, "model: kind: unknown kind \"%s\" (apiVersion %s)",
                            kind, api);
    return NULL;
}

SLINKY_API slinky_status slinky_model_object_new_from_value(slinky_model_object **out,
                                                            const slinky_doc_value *v)
{
    if (!out || !v)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = 0;
    const slinky_model__kind_info *k = identify_kind(v, &rc);
    if (!k)
        return rc;
    slinky_doc *doc = NULL;
    if ((rc = slinky_doc_new_copy(&doc, v)))
        return rc;
    return wrap(out, doc, k);
}

SLINKY_API slinky_status slinky_model_object_new_from_value_kind(slinky_model_object **out,
                                                                 slinky_model_kind kind,
                                                                 const slinky_doc_value *v)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    slinky_doc *doc = NULL;
    int rc;
    if (!out || !v || !k)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument or unknown kind");
    if (slinky_doc_value_type(v) != SLINKY_DOC_OBJECT)
        return slinky__error_set(SLINKY_EINVALID, "model: expected an object, got %s",
                                 slinky_doc_type_name(slinky_doc_value_type(v)));
    if ((rc = slinky_doc_new_copy(&doc, v)))
        return rc;
    slinky_doc_value *root = slinky_doc_root(doc);
    if ((!slinky_doc_value_get(root, "apiVersion") &&
         (rc = slinky_doc_value_object_set_string(root, "apiVersion", k->api_version))) ||
        (!slinky_doc_value_get(root, "kind") &&
         (rc = slinky_doc_value_object_set_string(root, "kind", k->name)))) {
        slinky_doc_free(doc);
        return rc;
    }
    const slinky_model__kind_info *found = identify_kind(root, &rc);
    if (!found) {
        slinky_doc_free(doc);
        return rc;
    }
    if (found != k) {
        slinky_doc_free(doc);
        return slinky__error_set(SLINKY_EINVALID, "model: expected a %s, got a %s", k->name,
                                 found->name);
    }
    return wrap(out, doc, k);
}

static int from_doc(slinky_model_object **out, slinky_doc *doc)
{
    int rc = 0;
    const slinky_model__kind_info *k = identify_kind(slinky_doc_root(doc), &rc);
    if (!k) {
        slinky_doc_free(doc);
        return rc;
    }
    return wrap(out, doc, k);
}

SLINKY_API slinky_status slinky_model_object_parse_json(slinky_model_object **out,
                                                        const char *data, size_t len)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_doc__parse_json(&doc, data ? data : "", len, true);
    if (rc)
        return rc;
    return from_doc(out, doc);
}

SLINKY_API slinky_status slinky_model_object_parse_yaml(slinky_model_object **out,
                                                        const char *data, size_t len)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_doc_parse_yaml(&doc, data ? data : "", len);
    if (rc)
        return rc;
    return from_doc(out, doc);
}

SLINKY_API slinky_status slinky_model_object_parse(slinky_model_object **out, const char *data,
                                                   size_t len)
{
    size_t i = 0;
    while (data && i < len && strchr(" \t\r\n", data[i]))
        i++;
    if (data && i < len && data[i] == '{')
        return slinky_model_object_parse_json(out, data, len);
    return slinky_model_object_parse_yaml(out, data, len);
}

SLINKY_API slinky_status slinky_model_object_load_file(slinky_model_object **out,
                                                       const char *path)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_doc__load_file(&doc, path, true);
    if (rc)
        return rc;
    if ((rc = from_doc(out, doc)))
        slinky__error_prefix("%s: ", path);
    return rc;
}

SLINKY_API void slinky_model_object_free(slinky_model_object *o)
{
    if (!o)
        return;
    slinky_doc_free(o->doc);
    free(o);
}

SLINKY_API slinky_status slinky_model_object_copy(slinky_model_object **out,
                                                  const slinky_model_object *o)
{
    if (!out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_doc_new_copy(&doc, slinky_model__root(o));
    if (rc)
        return rc;
    return wrap(out, doc, o->info);
}

SLINKY_API slinky_model_kind slinky_model_object_get_kind(const slinky_model_object *o)
{
    return o ? o->info->kind : SLINKY_MODEL_KIND_UNKNOWN;
}

SLINKY_API const slinky_doc_value *slinky_model_object_get_value(const slinky_model_object *o)
{
    return o ? slinky_model__root(o) : NULL;
}

SLINKY_API slinky_status slinky_model_object_to_doc(slinky_doc **out,
                                                    const slinky_model_object *o)
{
    if (!out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    return slinky_doc_new_copy(out, slinky_model__root(o));
}

SLINKY_API slinky_status slinky_model_object_dump_json(char **json_out, size_t *len_out,
                                                       const slinky_model_object *o,
                                                       unsigned flags)
{
    if (!json_out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    return slinky_doc_value_dump_json(json_out, len_out, slinky_model__root(o), flags);
}

SLINKY_API slinky_status slinky_model_object_dump_yaml(char **yaml_out, size_t *len_out,
                                                       const slinky_model_object *o)
{
    if (!yaml_out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    return slinky_doc_value_dump_yaml(yaml_out, len_out, slinky_model__root(o), 0);
}

SLINKY_API bool slinky_model_object_equal(const slinky_model_object *a,
                                          const slinky_model_object *b)
{
    if (!a || !b)
        return a == b;
    return slinky_doc_value_equal(slinky_model__root(a), slinky_model__root(b));
}
