/*
 * YAML reader on top of libyaml's event parser: multi-document streams,
 * anchors and aliases (expanded as copies, with limits on nesting and on
 * the number of copied nodes), merge keys and go-yaml v2 scalar typing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

#include "doc/doc_internal.h"

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

typedef struct anchor {
    char *name;
    slinky_doc_value *v;
    size_t nodes;
    size_t height;
} anchor;

typedef struct yctx {
    slinky_doc__builder b;
    anchor *anchors;
    size_t n_anchors, cap_anchors;
    size_t alias_nodes, alias_limit;
} yctx;

static int err_at(const yaml_mark_t *m, int code, const char *msg)
{
    return slinky__error_set_pos(code, (int)m->line + 1, (int)m->column + 1, "invalid YAML: %s",
                                 msg);
}

static void measure(const slinky_doc_value *v, size_t *nodes, size_t *height)
{
    size_t n = 1, h = 0;
    if (v->type == SLINKY_DOC_ARRAY || v->type == SLINKY_DOC_OBJECT) {
        uint32_t cnt = v->type == SLINKY_DOC_ARRAY ? v->u.arr.n : v->u.obj.n;
        for (uint32_t i = 0; i < cnt; i++) {
            const slinky_doc_value *c =
                v->type == SLINKY_DOC_ARRAY ? v->u.arr.items[i] : v->u.obj.m[i].value;
            size_t cn, ch;
            measure(c, &cn, &ch);
            n += cn;
            if (ch > h)
                h = ch;
        }
        h++;
    }
    *nodes = n;
    *height = h;
}

static void anchors_clear(yctx *c)
{
    for (size_t i = 0; i < c->n_anchors; i++)
        free(c->anchors[i].name);
    c->n_anchors = 0;
}

static int anchor_register(yctx *c, const char *name, slinky_doc_value *v)
{
    size_t nodes, height;
    measure(v, &nodes, &height);
    for (size_t i = 0; i < c->n_anchors; i++) {
        if (strcmp(c->anchors[i].name, name) == 0) {
            c->anchors[i].v = v;
            c->anchors[i].nodes = nodes;
            c->anchors[i].height = height;
            return 0;
        }
    }
    if (slinky__array_room(&c->anchors, &c->cap_anchors, c->n_anchors, sizeof(*c->anchors), 16))
        return SLINKY_ENOMEM;
    char *n = slinky__strdup(name);
    if (!n)
        return SLINKY_ENOMEM;
    anchor *a = &c->anchors[c->n_anchors++];
    a->name = n;
    a->v = v;
    a->nodes = nodes;
    a->height = height;
    return 0;
}

static const anchor *anchor_find(yctx *c, const char *name)
{
    for (size_t i = c->n_anchors; i > 0; i--) {
        if (strcmp(c->anchors[i - 1].name, name) == 0)
            return &c->anchors[i - 1];
    }
    return NULL;
}

static bool tag_is(const unsigned char *tag, const char *suffix)
{
    size_t pl = sizeof(YAML_TAG_PREFIX) - 1;
    return tag && strncmp((const char *)tag, YAML_TAG_PREFIX, pl) == 0 &&
           strcmp((const char *)tag + pl, suffix) == 0;
}

static int scalar_value(slinky_doc_value *v, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const unsigned char *tag = ev->data.scalar.tag;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    int resolve;
    if (!tag)
        resolve = plain;
    else if (strcmp((const char *)tag, "!") == 0 || tag_is(tag, "str") || tag_is(tag, "binary"))
        resolve = 0;
    else if (tag_is(tag, "null") || tag_is(tag, "bool") || tag_is(tag, "int") ||
             tag_is(tag, "float"))
        resolve = 1;
    else
        resolve = plain;
    if (!resolve)
        return slinky_doc__set_str(v, s, len);
    int rc = slinky_doc__yaml_resolve(v, s, len);
    if (rc == 0 && tag_is(tag, "float") && v->type == SLINKY_DOC_INT) {
        char num[24];
        size_t n = slinky_doc__format_int(num, v->u.i);
        rc = slinky_doc__set_number(v, (double)v->u.i, num, n);
    }
    return rc;
}

/* Text of a scalar value used as a mapping key (alias keys). */
static int key_text(slinky_doc *doc, const slinky_doc_value *v, const char **key, size_t *len)
{
    char num[40];
    const char *t;
    size_t n;
    switch (v->type) {
    case SLINKY_DOC_STRING:
        *key = v->u.str.s;
        *len = v->u.str.len;
        return 0;
    case SLINKY_DOC_NULL:
        t = "null";
        n = 4;
        break;
    case SLINKY_DOC_BOOL:
        t = v->u.b ? "true" : "false";
        n = strlen(t);
        break;
    case SLINKY_DOC_INT:
        n = slinky_doc__format_int(num, v->u.i);
        t = num;
        break;
    case SLINKY_DOC_DOUBLE:
        if (v->u.num.text) {
            t = v->u.num.text;
            n = strlen(t);
        } else {
            n = slinky_doc__format_double(num, sizeof(num), v->u.num.d);
            t = num;
        }
        break;
    default:
        return -1;
    }
    char *p = slinky_doc__strdup(doc, t, n);
    if (!p)
        return SLINKY_ENOMEM;
    *key = p;
    *len = n;
    return 0;
}

static bool expecting_key(const yctx *c)
{
    if (!c->b.depth)
        return false;
    const slinky_doc__frame *f = &c->b.frames[c->b.depth - 1];
    return f->is_object && !f->have_key;
}

static void set_key(yctx *c, const char *key, size_t len, unsigned flags, const yaml_mark_t *mark)
{
    slinky_doc__frame *f = &c->b.frames[c->b.depth - 1];
    f->key_pos = mark->line + 1;
    f->key = key;
    f->keylen = len;
    f->key_flags = flags;
    f->have_key = 1;
}

/* Add a finished value, checking merge values. */
static int add_value(yctx *c, slinky_doc_value *v, const yaml_mark_t *mark)
{
    if (c->b.depth) {
        const slinky_doc__frame *f = &c->b.frames[c->b.depth - 1];
        if (f->is_object && (f->key_flags & SLINKY_DOC__ENTRY_MERGE)) {
            int ok = v->type == SLINKY_DOC_OBJECT;
            if (v->type == SLINKY_DOC_ARRAY) {
                ok = 1;
                for (uint32_t i = 0; i < v->u.arr.n; i++) {
                    if (v->u.arr.items[i]->type != SLINKY_DOC_OBJECT)
                        ok = 0;
                }
            }
            if (!ok)
                return err_at(mark, SLINKY_EPARSE,
                              "the value of a merge key (<<) must be a mapping or a list of "
                              "mappings");
        }
    }
    return slinky_doc__builder_add(&c->b, v);
}

static int on_event(yctx *c, yaml_event_t *ev)
{
    slinky_doc *doc = c->b.doc;
    const yaml_mark_t *mark = &ev->start_mark;
    int rc;
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        slinky_doc_value *v = slinky_doc__value_new(doc);
        if (!v)
            return SLINKY_ENOMEM;
        if (expecting_key(c)) {
            const char *s = (const char *)ev->data.scalar.value;
            size_t len = ev->data.scalar.length;
            unsigned flags = 0;
            if ((ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag &&
                 len == 2 && memcmp(s, "<<", 2) == 0) ||
                tag_is(ev->data.scalar.tag, "merge"))
                flags = SLINKY_DOC__ENTRY_MERGE;
            /* keys are names (paths, C strings): a NUL in one is refused, as by the JSON reader */
            if (memchr(s, '\0', len))
                return err_at(mark, SLINKY_EPARSE, "mapping key contains a NUL");
            char *k = slinky_doc__strdup(doc, s, len);
            if (!k)
                return SLINKY_ENOMEM;
            if (ev->data.scalar.anchor) {
                rc = scalar_value(v, ev);
                if (rc == 0)
                    rc = anchor_register(c, (const char *)ev->data.scalar.anchor, v);
                if (rc < 0)
                    return rc;
            }
            set_key(c, k, len, flags, mark);
            return 0;
        }
        rc = scalar_value(v, ev);
        if (rc == 0 && ev->data.scalar.anchor)
            rc = anchor_register(c, (const char *)ev->data.scalar.anchor, v);
        if (rc == 0)
            rc = add_value(c, v, mark);
        return rc;
    }
    case YAML_ALIAS_EVENT: {
        const anchor *a = anchor_find(c, (const char *)ev->data.alias.anchor);
        if (!a) {
            char msg[160];
            snprintf(msg, sizeof(msg), "unknown anchor \"%.100s\"", ev->data.alias.anchor);
            return err_at(mark, SLINKY_EPARSE, msg);
        }
        if (expecting_key(c)) {
            const char *k;
            size_t len;
            rc = key_text(doc, a->v, &k, &len);
            if (rc == -1)
                return err_at(mark, SLINKY_EPARSE, "mapping keys must be scalars");
            if (rc < 0)
                return rc;
            if (memchr(k, '\0', len))
                return err_at(mark, SLINKY_EPARSE, "mapping key contains a NUL");
            set_key(c, k, len, 0, mark);
            return 0;
        }
        if (c->b.depth + a->height > SLINKY_DOC__MAX_DEPTH)
            return err_at(mark, SLINKY_EPARSE, "nesting deeper than 1000 levels");
        c->alias_nodes += a->nodes;
        if (c->alias_nodes > c->alias_limit)
            return err_at(mark, SLINKY_EPARSE, "too many alias expansions");
        slinky_doc_value *v = slinky_doc__copy(doc, a->v);
        if (!v)
            return SLINKY_ENOMEM;
        return add_value(c, v, mark);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (expecting_key(c))
            return err_at(mark, SLINKY_EPARSE, "mapping keys must be scalars");
        if (c->b.depth >= SLINKY_DOC__MAX_DEPTH)
            return err_at(mark, SLINKY_EPARSE, "nesting deeper than 1000 levels");
        rc = slinky_doc__builder_open(&c->b, ev->type == YAML_MAPPING_START_EVENT);
        if (rc < 0)
            return rc;
        const yaml_char_t *an = ev->type == YAML_MAPPING_START_EVENT
                                    ? ev->data.mapping_start.anchor
                                    : ev->data.sequence_start.anchor;
        if (an) {
            char *n = slinky__strdup((const char *)an);
            if (!n)
                return SLINKY_ENOMEM;
            c->b.frames[c->b.depth - 1].anchor = n;
        }
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        slinky_doc__frame *f = &c->b.frames[c->b.depth - 1];
        char *an = f->anchor;
        f->anchor = NULL;
        slinky_doc_value *v;
        rc = slinky_doc__builder_close(&c->b, &v);
        if (rc == 0 && an)
            rc = anchor_register(c, an, v);
        free(an);
        if (rc == 0)
            rc = add_value(c, v, mark);
        return rc;
    }
    default:
        return 0;
    }
}

static int parse(slinky_doc **out, const char *data, size_t len, int all)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "YAML parse: NULL argument");
    if (!data)
        data = "";
    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, len * 2);
    if (rc < 0)
        return rc;
    yctx c;
    memset(&c, 0, sizeof(c));
    slinky_doc__builder_init(&c.b, doc);
    c.b.unique_keys = 1; /* as kubectl (go-yaml): a mapping key defined twice is an error */
    c.alias_limit = 100000 + 20 * len;

    slinky_doc_value **docs = NULL;
    size_t n_docs = 0, cap_docs = 0;
    slinky_doc_value *first = NULL;

    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        slinky_doc__builder_dispose(&c.b);
        slinky_doc_free(doc);
        return slinky__error_oom();
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    int done = 0;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            char msg[512];
            if (p.error == YAML_MEMORY_ERROR) {
                rc = slinky__error_oom();
                break;
            }
            if (p.context)
                snprintf(msg, sizeof(msg), "%s %s", p.problem ? p.problem : "syntax error",
                         p.context);
            else
                snprintf(msg, sizeof(msg), "%s", p.problem ? p.problem : "syntax error");
            rc = err_at(&p.problem_mark, SLINKY_EPARSE, msg);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            anchors_clear(&c);
            c.b.result = NULL;
            break;
        case YAML_DOCUMENT_END_EVENT: {
            slinky_doc_value *r = c.b.result;
            if (r && r->type != SLINKY_DOC_NULL) {
                if (!all) {
                    first = r;
                    done = 1;
                } else {
                    if ((rc = slinky__array_room(&docs, &cap_docs, n_docs, sizeof(*docs), 8)) < 0)
                        break;
                    docs[n_docs++] = r;
                }
            }
            break;
        }
        default:
            rc = on_event(&c, &ev);
        }
        yaml_event_delete(&ev);
        if (rc < 0)
            break;
    }
    yaml_parser_delete(&p);
    anchors_clear(&c);
    free(c.anchors);
    slinky_doc__builder_dispose(&c.b);
    if (rc == 0 && all) {
        rc = slinky_doc_value_set_array(doc->root);
        for (size_t i = 0; rc == 0 && i < n_docs; i++) {
            slinky_doc_value *slot;
            rc = slinky_doc_value_array_append(&slot, doc->root);
            if (rc == 0)
                *slot = *docs[i];
        }
    } else if (rc == 0 && first) {
        *doc->root = *first;
    }
    free(docs);
    if (rc < 0) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

slinky_status slinky_doc_parse_yaml(slinky_doc **out, const char *data, size_t len)
{
    return parse(out, data, len, 0);
}

slinky_status slinky_doc_parse_yaml_all(slinky_doc **out, const char *data, size_t len)
{
    return parse(out, data, len, 1);
}
