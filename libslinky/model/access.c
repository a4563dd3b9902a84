/* model: paths, schema lookup and typed access by path. */
#include <stdlib.h>
#include <string.h>

#include "doc/doc_internal.h"
#include "model/internal.h"

void slinky_model__path_dispose(slinky_model__path *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->steps[i].key);
    free(p->steps);
    p->steps = NULL;
    p->n = 0;
}

static int push_step(slinky_model__path *p, char *key, size_t index)
{
    slinky_model__step *s = slinky__realloc(p->steps, (p->n + 1) * sizeof(*s));
    if (!s) {
        free(key);
        return SLINKY_ENOMEM;
    }
    p->steps = s;
    s[p->n].key = key;
    s[p->n].index = index;
    p->n++;
    return 0;
}

/* The doc module's path grammar (slinky_doc__path_next), with each step's key copied. */
int slinky_model__path_parse(slinky_model__path *out, const char *path)
{
    slinky_model__path p = {NULL, 0};
    if (!path || !*path)
        return slinky__error_set(SLINKY_EINVALID, "model: empty path");
    char *buf = slinky__malloc(strlen(path) + 1);
    if (!buf)
        return SLINKY_ENOMEM;
    const char *s = path;
    slinky_doc__seg seg;
    int r, rc = 0;
    for (int first = 1; rc == 0 && (r = slinky_doc__path_next(&s, &seg, buf, first)) != 0; first = 0) {
        if (r < 0) {
            rc = slinky__error_set(SLINKY_EINVALID, "model: bad path \"%s\"", path);
        } else if (seg.is_index) {
            rc = push_step(&p, NULL, seg.index);
        } else {
            char *key = slinky__strndup(seg.key, seg.keylen);
            rc = key ? push_step(&p, key, 0) : SLINKY_ENOMEM;
        }
    }
    free(buf);
    if (rc) {
        slinky_model__path_dispose(&p);
        return rc;
    }
    *out = p;
    return 0;
}

static bool node_is_free_form(const slinky_model__node *n)
{
    return n->type == SLINKY_MODEL__T_ANY ||
           (n->type == SLINKY_MODEL__T_OBJECT && n->n_children == 0);
}

const slinky_model__node *slinky_model__schema_at(const slinky_model__kind_info *k,
                                                  const slinky_model__path *p, bool *free_form)
{
    const slinky_model__node *n = &slinky_model__nodes[k->root];
    *free_form = false;
    for (size_t i = 0; i < p->n; i++) {
        if (node_is_free_form(n)) {
            *free_form = true;
            return n;
        }
        const slinky_model__step *s = &p->steps[i];
        if (s->key) {
            const slinky_model__node *c = NULL;
            for (int j = 0; j < n->n_children; j++) {
                int ci = n->first_child + j;
                const slinky_model__node *cc = &slinky_model__nodes[ci];
                if (ci != n->items && ci != n->addl && strcmp(cc->name, s->key) == 0) {
                    c = cc;
                    break;
                }
            }
            if (!c && n->addl >= 0)
                c = &slinky_model__nodes[n->addl];
            if (!c) {
                if (n->flags & SLINKY_MODEL__F_PRESERVE) {
                    *free_form = true;
                    return n;
                }
                return NULL;
            }
            n = c;
        } else {
            if (n->type != SLINKY_MODEL__T_ARRAY || n->items < 0)
                return NULL;
            n = &slinky_model__nodes[n->items];
        }
    }
    return n;
}

SLINKY_API bool slinky_model_path_is_known(slinky_model_kind kind, const char *path)
{
    const slinky_model__kind_info *k = slinky_model__kind_info_of(kind);
    slinky_model__path p;
    bool ff;
    if (!k || slinky_model__path_parse(&p, path))
        return false;
    bool ok = slinky_model__schema_at(k, &p, &ff) != NULL;
    slinky_model__path_dispose(&p);
    return ok;
}

static slinky_doc_value *doc_lookup(slinky_doc_value *v, const slinky_model__path *p)
{
    for (size_t i = 0; v && i < p->n; i++) {
        if (p->steps[i].key)
            v = slinky_doc_value_get(v, p->steps[i].key);
        else
            v = slinky_doc_value_at(v, p->steps[i].index);
    }
    return v;
}

/* Resolve path against schema and document. *node NULL-able when free-form. */
static int resolve(const slinky_model__node **node, slinky_doc_value **val, bool *free_form,
                   const slinky_model_object *o, const char *path)
{
    slinky_model__path p;
    int rc;
    if (!o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL object");
    if ((rc = slinky_model__path_parse(&p, path)))
        return rc;
    const slinky_model__node *n = slinky_model__schema_at(o->info, &p, free_form);
    if (!n) {
        slinky_model__path_dispose(&p);
        return slinky__error_set(SLINKY_EINVALID, "%s: %s: not a field of the %s schema",
                                 o->info->name, path, o->info->name);
    }
    *node = n;
    *val = doc_lookup(slinky_model__root(o), &p);
    slinky_model__path_dispose(&p);
    return 0;
}

static const char *type_word(int t)
{
    switch (t) {
    case SLINKY_MODEL__T_OBJECT: return "object";
    case SLINKY_MODEL__T_ARRAY: return "array";
    case SLINKY_MODEL__T_STRING: return "string";
    case SLINKY_MODEL__T_INTEGER: return "integer";
    case SLINKY_MODEL__T_BOOLEAN: return "boolean";
    case SLINKY_MODEL__T_INTSTR: return "int-or-string";
    default: return "any";
    }
}

/* Schema allows a scalar of doc type dt at node n? */
static bool schema_allows(const slinky_model__node *n, bool free_form, slinky_doc_type dt)
{
    if (free_form || n->type == SLINKY_MODEL__T_ANY)
        return true;
    switch (dt) {
    case SLINKY_DOC_STRING:
        return n->type == SLINKY_MODEL__T_STRING || n->type == SLINKY_MODEL__T_INTSTR;
    case SLINKY_DOC_INT:
        return n->type == SLINKY_MODEL__T_INTEGER || n->type == SLINKY_MODEL__T_INTSTR;
    case SLINKY_DOC_BOOL:
        return n->type == SLINKY_MODEL__T_BOOLEAN;
    default:
        return true;
    }
}

static int get_typed(const slinky_doc_value **out, const slinky_model_object *o,
                     const char *path, slinky_doc_type dt)
{
    const slinky_model__node *n = NULL;
    slinky_doc_value *v = NULL;
    bool ff = false;
    int rc = resolve(&n, &v, &ff, o, path);
    if (rc)
        return rc;
    if (dt != SLINKY_DOC_NULL && !schema_allows(n, ff, dt))
        return slinky__error_set(SLINKY_EINVALID, "%s: %s is of type %s, not %s", o->info->name,
                                 path, type_word(n->type), slinky_doc_type_name(dt));
    if (!v || slinky_doc_value_is_null(v))
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: %s is not set", o->info->name, path);
    if (dt != SLINKY_DOC_NULL && slinky_doc_value_type(v) != dt &&
        !(dt == SLINKY_DOC_INT && slinky_doc_value_type(v) == SLINKY_DOC_DOUBLE &&
          (double)slinky_doc_value_get_int(v) == slinky_doc_value_get_double(v)))
        return slinky__error_set(SLINKY_EINVALID, "%s: %s holds a %s, not a %s", o->info->name,
                                 path, slinky_doc_type_name(slinky_doc_value_type(v)),
                                 slinky_doc_type_name(dt));
    *out = v;
    return 0;
}

SLINKY_API bool slinky_model_has(const slinky_model_object *o, const char *path)
{
    const slinky_model__node *n = NULL;
    slinky_doc_value *v = NULL;
    bool ff = false;
    if (!o || !path)
        return false;
    if (resolve(&n, &v, &ff, o, path)) {
        slinky_error_clear();
        return false;
    }
    return v && !slinky_doc_value_is_null(v);
}

SLINKY_API slinky_status slinky_model_get_string(const char **out, const slinky_model_object *o,
                                                 const char *path)
{
    const slinky_doc_value *v;
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = get_typed(&v, o, path, SLINKY_DOC_STRING);
    if (!rc)
        *out = slinky_doc_value_get_string(v);
    return rc;
}

SLINKY_API slinky_status slinky_model_get_int(int64_t *out, const slinky_model_object *o,
                                              const char *path)
{
    const slinky_doc_value *v;
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = get_typed(&v, o, path, SLINKY_DOC_INT);
    if (!rc)
        *out = slinky_doc_value_get_int(v);
    return rc;
}

SLINKY_API slinky_status slinky_model_get_bool(bool *out, const slinky_model_object *o,
                                               const char *path)
{
    const slinky_doc_value *v;
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = get_typed(&v, o, path, SLINKY_DOC_BOOL);
    if (!rc)
        *out = slinky_doc_value_get_bool(v);
    return rc;
}

SLINKY_API slinky_status slinky_model_get_value(const slinky_doc_value **out,
                                                const slinky_model_object *o, const char *path)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    return get_typed(out, o, path, SLINKY_DOC_NULL);
}

SLINKY_API size_t slinky_model_get_count(const slinky_model_object *o, const char *path)
{
    const slinky_doc_value *v = NULL;
    if (!o || !path || get_typed(&v, o, path, SLINKY_DOC_NULL)) {
        slinky_error_clear();
        return 0;
    }
    return slinky_doc_value_type(v) == SLINKY_DOC_ARRAY ? slinky_doc_value_size(v) : 0;
}

/* Find or create the value at path (parents become objects). */
static int put(slinky_doc_value **out, slinky_model_object *o, const char *path,
               slinky_doc_type dt)
{
    const slinky_model__node *n = NULL;
    slinky_doc_value *v = NULL;
    bool ff = false;
    slinky_model__path p;
    int rc = resolve(&n, &v, &ff, o, path);
    if (rc)
        return rc;
    if (dt != SLINKY_DOC_NULL && !schema_allows(n, ff, dt))
        return slinky__error_set(SLINKY_EINVALID, "%s: %s is of type %s, not %s", o->info->name,
                                 path, type_word(n->type), slinky_doc_type_name(dt));
    if (v) {
        *out = v;
        return 0;
    }
    if ((rc = slinky_model__path_parse(&p, path)))
        return rc;
    v = slinky_model__root(o);
    for (size_t i = 0; i < p.n; i++) {
        slinky_doc_value *next = NULL;
        if (p.steps[i].key) {
            if (slinky_doc_value_is_null(v) && (rc = slinky_doc_value_set_object(v)))
                break;
            if (slinky_doc_value_type(v) != SLINKY_DOC_OBJECT) {
                rc = slinky__error_set(SLINKY_EINVALID, "%s: %s: a parent is a %s, not an object",
                                       o->info->name, path,
                                       slinky_doc_type_name(slinky_doc_value_type(v)));
                break;
            }
            if ((rc = slinky_doc_value_object_put(&next, v, p.steps[i].key)))
                break;
        } else {
            next = slinky_doc_value_at(v, p.steps[i].index);
            if (!next) {
                rc = slinky__error_set(SLINKY_ENOTFOUND, "%s: %s: no such array element",
                                       o->info->name, path);
                break;
            }
        }
        v = next;
    }
    slinky_model__path_dispose(&p);
    if (!rc)
        *out = v;
    return rc;
}

SLINKY_API slinky_status slinky_model_set_string(slinky_model_object *o, const char *path,
                                                 const char *value)
{
    slinky_doc_value *v;
    if (!o || !path || !value)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = put(&v, o, path, SLINKY_DOC_STRING);
    return rc ? rc : slinky_doc_value_set_string(v, value);
}

SLINKY_API slinky_status slinky_model_set_int(slinky_model_object *o, const char *path,
                                              int64_t value)
{
    slinky_doc_value *v;
    if (!o || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = put(&v, o, path, SLINKY_DOC_INT);
    return rc ? rc : slinky_doc_value_set_int(v, value);
}

SLINKY_API slinky_status slinky_model_set_bool(slinky_model_object *o, const char *path,
                                               bool value)
{
    slinky_doc_value *v;
    if (!o || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = put(&v, o, path, SLINKY_DOC_BOOL);
    return rc ? rc : slinky_doc_value_set_bool(v, value);
}

SLINKY_API slinky_status slinky_model_set_value(slinky_model_object *o, const char *path,
                                                const slinky_doc_value *value)
{
    slinky_doc_value *v;
    if (!o || !path || !value)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = put(&v, o, path, SLINKY_DOC_NULL);
    return rc ? rc : slinky_doc_value_set_copy(v, value);
}

SLINKY_API slinky_status slinky_model_unset(slinky_model_object *o, const char *path)
{
    slinky_model__path p;
    const slinky_model__node *n = NULL;
    slinky_doc_value *v = NULL;
    bool ff = false;
    if (!o || !path)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = resolve(&n, &v, &ff, o, path);
    if (rc)
        return rc;
    if (!v)
        return slinky__error_set(SLINKY_ENOTFOUND, "%s: %s is not set", o->info->name, path);
    if ((rc = slinky_model__path_parse(&p, path)))
        return rc;
    slinky_model__path parent = {p.steps, p.n - 1};
    slinky_doc_value *pv = doc_lookup(slinky_model__root(o), &parent);
    const slinky_model__step *last = &p.steps[p.n - 1];
    rc = last->key ? slinky_doc_value_object_remove(pv, last->key)
                   : slinky_doc_value_array_remove(pv, last->index);
    slinky_model__path_dispose(&p);
    return rc;
}

/* ---- helpers for the generated per-kind accessors ------------------------ */

static int check_kind(const slinky_model_object *o, slinky_model_kind k)
{
    if (!o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL object");
    if (o->info->kind != k)
        return slinky__error_set(SLINKY_EINVALID, "model: the object is a %s, not a %s",
                                 o->info->name, slinky_model_kind_name(k));
    return 0;
}

bool slinky_model__k_has(const slinky_model_object *o, slinky_model_kind k, const char *path)
{
    return o && o->info->kind == k && slinky_model_has(o, path);
}

int slinky_model__k_get_string(const char **out, const slinky_model_object *o,
                               slinky_model_kind k, const char *path)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_get_string(out, o, path);
}

int slinky_model__k_get_int(int64_t *out, const slinky_model_object *o, slinky_model_kind k,
                            const char *path)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_get_int(out, o, path);
}

int slinky_model__k_get_bool(bool *out, const slinky_model_object *o, slinky_model_kind k,
                             const char *path)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_get_bool(out, o, path);
}

int slinky_model__k_get_value(const slinky_doc_value **out, const slinky_model_object *o,
                              slinky_model_kind k, const char *path)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_get_value(out, o, path);
}

int slinky_model__k_set_string(slinky_model_object *o, slinky_model_kind k, const char *path,
                               const char *value)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_set_string(o, path, value);
}

int slinky_model__k_set_int(slinky_model_object *o, slinky_model_kind k, const char *path,
                            int64_t value)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_set_int(o, path, value);
}

int slinky_model__k_set_bool(slinky_model_object *o, slinky_model_kind k, const char *path,
                             bool value)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_set_bool(o, path, value);
}

int slinky_model__k_set_value(slinky_model_object *o, slinky_model_kind k, const char *path,
                              const slinky_doc_value *value)
{
    int rc = check_kind(o, k);
    return rc ? rc : slinky_model_set_value(o, path, value);
}

size_t slinky_model__k_count(const slinky_model_object *o, slinky_model_kind k,
                             const char *path)
{
    return (o && o->info->kind == k) ? slinky_model_get_count(o, path) : 0;
}

static char *item_path(const char *path, size_t i, const char *leaf)
{
    return leaf ? slinky__sprintf("%s[%zu].%s", path, i, leaf)
                : slinky__sprintf("%s[%zu]", path, i);
}

static int get_item(void *out, slinky_doc_type t, const slinky_model_object *o,
                    slinky_model_kind k, const char *path, size_t i, const char *leaf)
{
    int rc = check_kind(o, k);
    if (rc)
        return rc;
    char *p = item_path(path, i, leaf);
    if (!p)
        return SLINKY_ENOMEM;
    if (t == SLINKY_DOC_STRING)
        rc = slinky_model_get_string(out, o, p);
    else if (t == SLINKY_DOC_INT)
        rc = slinky_model_get_int(out, o, p);
    else
        rc = slinky_model_get_bool(out, o, p);
    free(p);
    return rc;
}

int slinky_model__k_get_item_string(const char **out, const slinky_model_object *o,
                                    slinky_model_kind k, const char *path, size_t i,
                                    const char *leaf)
{
    return get_item((void *)out, SLINKY_DOC_STRING, o, k, path, i, leaf);
}

int slinky_model__k_get_item_int(int64_t *out, const slinky_model_object *o, slinky_model_kind k,
                                 const char *path, size_t i, const char *leaf)
{
    return get_item(out, SLINKY_DOC_INT, o, k, path, i, leaf);
}

int slinky_model__k_get_item_bool(bool *out, const slinky_model_object *o, slinky_model_kind k,
                                  const char *path, size_t i, const char *leaf)
{
    return get_item(out, SLINKY_DOC_BOOL, o, k, path, i, leaf);
}


int slinky_model__k_get_entry(const char **out, const slinky_model_object *o,
                              slinky_model_kind k, const char *path, const char *key)
{
    int rc = check_kind(o, k);
    if (rc)
        return rc;
    if (!key)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL key");
    char *p = slinky_doc__path_join(path, key, true);
    if (!p)
        return SLINKY_ENOMEM;
    rc = slinky_model_get_string(out, o, p);
    free(p);
    return rc;
}

int slinky_model__k_set_entry(slinky_model_object *o, slinky_model_kind k, const char *path,
                              const char *key, const char *value)
{
    int rc = check_kind(o, k);
    if (rc)
        return rc;
    if (!key || !value)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL key or value");
    char *p = slinky_doc__path_join(path, key, true);
    if (!p)
        return SLINKY_ENOMEM;
    rc = slinky_model_set_string(o, p, value);
    free(p);
    return rc;
}
