/* Stored objects: immutable, reference counted, compact JSON (types.h). */
#include "types.h"

#include <string.h>

as_obj *as_obj_ref(as_obj *o)
{
    if (o)
        atomic_fetch_add(&o->refs, 1);
    return o;
}

void as_obj_unref(as_obj *o)
{
    if (!o || atomic_fetch_sub(&o->refs, 1) != 1)
        return;
    free(o->ns);
    free(o->name);
    free(o->uid);
    slinky_free(o->json);
    slinky_doc_free(o->labels);
    free(o);
}

int as_obj_new(as_obj **out, const slinky_doc_value *doc, uint64_t rv)
{
    as_obj *o = as_calloc(1, sizeof(*o));
    if (!o)
        return SLINKY_ENOMEM;
    atomic_init(&o->refs, 1);
    o->rv = rv;
    const slinky_doc_value *md = slinky_doc_value_get(doc, "metadata");
    o->ns = as_strdup(slinky_doc_value_path_string(md, "namespace", ""));
    o->name = as_strdup(slinky_doc_value_path_string(md, "name", ""));
    o->uid = as_strdup(slinky_doc_value_path_string(md, "uid", ""));
    int rc = slinky_doc_value_dump_json(&o->json, &o->json_len, doc, SLINKY_DOC_DUMP_COMPACT);
    if (!rc) {
        const slinky_doc_value *labels = slinky_doc_value_get(md, "labels");
        if (labels && slinky_doc_value_type(labels) == SLINKY_DOC_OBJECT)
            rc = slinky_doc_new_copy(&o->labels, labels);
    }
    if (!rc && (!o->ns || !o->name || !o->uid))
        rc = SLINKY_ENOMEM;
    if (rc) {
        as_obj_unref(o);
        return rc;
    }
    *out = o;
    return 0;
}

int as_obj_doc(slinky_doc **out, const as_obj *o)
{
    return slinky_doc_parse_json(out, o->json, o->json_len);
}
