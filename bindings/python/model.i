/* model module bindings (owned by the model module).
 *
 * Python works with plain dicts: resources cross the boundary as JSON text
 * (slinky/model.py turns it into dicts), so no doc values or object handles
 * need wrapping. Each helper parses its input (JSON or YAML) with the model,
 * so parse errors and unknown kinds raise slinky.ParseError/InvalidError. */
%{
#include "slinky/model.h"

static slinky_status slinky_model_py__load(slinky_model_object **o, const char *data,
                                           size_t len)
{
    return slinky_model_object_parse(o, data, len);
}

static slinky_status slinky_model_py__problems_json(char **json_out,
                                                    const slinky_model_problems *p)
{
    slinky_doc *d = NULL;
    slinky_status rc = slinky_doc_new(&d);
    slinky_doc_value *root = d ? slinky_doc_root(d) : NULL;
    if (!rc)
        rc = slinky_doc_value_set_array(root);
    for (size_t i = 0; !rc && i < slinky_model_problems_count(p); i++) {
        slinky_doc_value *e = NULL;
        if (!(rc = slinky_doc_value_array_append(&e, root)) && !(rc = slinky_doc_value_set_object(e)) &&
            !(rc = slinky_doc_value_object_set_string(
                  e, "severity",
                  slinky_model_problems_get_severity(p, i) == SLINKY_MODEL_ERROR ? "error" : "warning")) &&
            !(rc = slinky_doc_value_object_set_string(e, "path", slinky_model_problems_get_path(p, i))))
            rc = slinky_doc_value_object_set_string(e, "message", slinky_model_problems_get_message(p, i));
    }
    if (!rc)
        rc = slinky_doc_value_dump_json(json_out, NULL, root, 0);
    slinky_doc_free(d);
    return rc;
}
%}

%inline %{
/* Parse (JSON or YAML) and return the resource as JSON. */
slinky_status slinky_model_py_normalize(char **json_out, const char *data, size_t len)
{
    slinky_model_object *o = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_object_dump_json(json_out, NULL, o, 0);
    slinky_model_object_free(o);
    return rc;
}

/* Parse and serialize as YAML. */
slinky_status slinky_model_py_dump_yaml(char **yaml_out, const char *data, size_t len)
{
    slinky_model_object *o = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_object_dump_yaml(yaml_out, NULL, o);
    slinky_model_object_free(o);
    return rc;
}

/* Validate; JSON list of {severity, path, message}. */
slinky_status slinky_model_py_validate(char **json_out, const char *data, size_t len)
{
    slinky_model_object *o = NULL;
    slinky_model_problems *p = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_validate(&p, o);
    if (!rc)
        rc = slinky_model_py__problems_json(json_out, p);
    slinky_model_problems_free(p);
    slinky_model_object_free(o);
    return rc;
}

/* Validate an update from old_text to new_text (JSON or YAML each). */
slinky_status slinky_model_py_validate_update(char **json_out, const char *old_text,
                                              const char *new_text)
{
    slinky_model_object *a = NULL, *b = NULL;
    slinky_model_problems *p = NULL;
    slinky_status rc = slinky_model_py__load(&a, old_text, strlen(old_text));
    if (!rc)
        rc = slinky_model_py__load(&b, new_text, strlen(new_text));
    if (!rc)
        rc = slinky_model_validate_update(&p, a, b);
    if (!rc)
        rc = slinky_model_py__problems_json(json_out, p);
    slinky_model_problems_free(p);
    slinky_model_object_free(a);
    slinky_model_object_free(b);
    return rc;
}

/* Apply defaults (SLINKY_MODEL_DEFAULT_* flags); the result as JSON. */
slinky_status slinky_model_py_default(char **json_out, const char *data, size_t len,
                                      unsigned int flags)
{
    slinky_model_object *o = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_object_apply_defaults(o, flags);
    if (!rc)
        rc = slinky_model_object_dump_json(json_out, NULL, o, 0);
    slinky_model_object_free(o);
    return rc;
}

/* The spec hash. */
slinky_status slinky_model_py_spec_hash(char **out, const char *data, size_t len)
{
    slinky_model_object *o = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_object_spec_hash(out, o);
    slinky_model_object_free(o);
    return rc;
}

/* The value at a schema path, as JSON (NotFoundError when unset). */
slinky_status slinky_model_py_get(char **json_out, const char *data, size_t len,
                                  const char *path)
{
    slinky_model_object *o = NULL;
    const slinky_doc_value *v = NULL;
    slinky_status rc = slinky_model_py__load(&o, data, len);
    if (!rc)
        rc = slinky_model_get_value(&v, o, path);
    if (!rc)
        rc = slinky_doc_value_dump_json(json_out, NULL, v, 0);
    slinky_model_object_free(o);
    return rc;
}
%}

/* A few direct functions of slinky/model.h (kinds cross as int). */
%apply int { slinky_model_kind };
slinky_status slinky_model_crd_dump(char **yaml_out, const char *kind);
slinky_model_kind slinky_model_kind_lookup(const char *name);
const char *slinky_model_kind_name(slinky_model_kind kind);
bool slinky_model_path_is_known(slinky_model_kind kind, const char *path);
