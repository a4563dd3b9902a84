/* List/watch filters: namespace, labelSelector, fieldSelector (request.h). */
#include "request.h"

#include <stdio.h>
#include <string.h>

int as_filter_init(as_filter *f, const as_req *req, const char *ns, as_resp *resp)
{
    memset(f, 0, sizeof(*f));
    f->ns = ns && *ns ? ns : NULL;
    if (as_selector_parse_labels(&f->labels, as_req_query(req, "labelSelector")) != 0) {
        as_resp_status(resp, 400, "BadRequest", slinky_error_last()->message, NULL);
        return 400;
    }
    const char *fs = as_req_query(req, "fieldSelector");
    if (fs && *fs) {
        if (as_selector_parse_fields(&f->fields, fs) != 0) {
            as_resp_status(resp, 400, "BadRequest", slinky_error_last()->message, NULL);
            as_selector_dispose(&f->labels);
            return 400;
        }
        f->has_fields = f->fields.n > 0;
    }
    return 0;
}

void as_filter_dispose(as_filter *f)
{
    as_selector_dispose(&f->labels);
    as_selector_dispose(&f->fields);
}

typedef struct field_ctx {
    const as_obj *o;
    slinky_doc *doc;
    char num[64];
} field_ctx;

static const char *field_lookup(const char *key, void *payload)
{
    field_ctx *c = payload;
    if (strcmp(key, "metadata.name") == 0)
        return c->o->name;
    if (strcmp(key, "metadata.namespace") == 0)
        return c->o->ns;
    if (!c->doc && as_obj_doc(&c->doc, c->o) != 0)
        return NULL;
    const slinky_doc_value *v = slinky_doc_value_path(slinky_doc_root(c->doc), key);
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_STRING:
        return slinky_doc_value_get_string(v);
    case SLINKY_DOC_INT:
        snprintf(c->num, sizeof(c->num), "%lld", (long long)slinky_doc_value_get_int(v));
        return c->num;
    case SLINKY_DOC_BOOL:
        return slinky_doc_value_get_bool(v) ? "true" : "false";
    default:
        return "";
    }
}

bool as_filter_match(const as_filter *f, const as_obj *o)
{
    if (f->ns && strcmp(o->ns, f->ns) != 0)
        return false;
    if (f->labels.n &&
        !as_selector_matches_labels(&f->labels, o->labels ? slinky_doc_root(o->labels) : NULL))
        return false;
    if (f->has_fields) {
        field_ctx c = {o, NULL, {0}};
        bool m = as_selector_matches(&f->fields, field_lookup, &c);
        slinky_doc_free(c.doc);
        return m;
    }
    return true;
}
