/*
 * RFC 6902 JSON patch: atomic apply (on a copy that is swapped in at the
 * end) and create (a member-by-member, element-by-element diff).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

typedef struct opctx {
    size_t index;
    const char *op;
    const char *path;
} opctx;

static int op_fail(const opctx *o, int code, const char *fmt, ...) SLINKY_PRINTF(3, 4);

static int op_fail(const opctx *o, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return slinky__error_set(code, "JSON patch operation %zu (%s \"%s\"): %s", o->index,
                             o->op ? o->op : "?", o->path ? o->path : "", msg);
}

/* Map errors of the pointer helpers into the operation's message. */
static int parent_of(const opctx *o, slinky_doc_value **parent, char **last,
                     slinky_doc_value *root, const char *path)
{
    int rc = slinky_doc__pointer_parent(parent, last, root, path);
    if (rc < 0)
        return op_fail(o, rc, "%s", slinky_error_last()->message);
    return 0;
}

static int do_add(const opctx *o, slinky_doc_value *root, const char *path, slinky_doc_value *val)
{
    slinky_doc_value *parent;
    char *last;
    int rc = parent_of(o, &parent, &last, root, path);
    if (rc < 0)
        return rc;
    if (!parent) {
        *root = *val;
        return 0;
    }
    size_t klen = strlen(last);
    if (parent->type == SLINKY_DOC_OBJECT) {
        long at = slinky_doc__find(parent, last, klen);
        if (at >= 0) {
            *parent->u.obj.m[at].value = *val;
        } else {
            slinky_doc_value *slot = slinky_doc__object_append(parent, last, klen);
            if (!slot)
                rc = SLINKY_ENOMEM;
            else
                *slot = *val;
        }
    } else if (parent->type == SLINKY_DOC_ARRAY) {
        long idx = strcmp(last, "-") == 0 ? (long)parent->u.arr.n : slinky_doc__pointer_index(last);
        if (idx < 0) {
            rc = op_fail(o, SLINKY_EINVALID, "\"%s\" is not an array index", last);
        } else if ((size_t)idx > parent->u.arr.n) {
            rc = op_fail(o, SLINKY_ENOTFOUND, "array index %ld is beyond the end (size %u)", idx,
                         (unsigned)parent->u.arr.n);
        } else {
            slinky_doc_value *slot;
            rc = slinky_doc_value_array_insert(&slot, parent, (size_t)idx);
            if (rc == 0)
                *slot = *val;
        }
    } else {
        rc = op_fail(o, SLINKY_ENOTFOUND, "cannot add a member to a %s",
                     slinky_doc_type_name((slinky_doc_type)parent->type));
    }
    free(last);
    return rc;
}

static int do_remove(const opctx *o, slinky_doc_value *root, const char *path)
{
    slinky_doc_value *parent;
    char *last;
    int rc = parent_of(o, &parent, &last, root, path);
    if (rc < 0)
        return rc;
    if (!parent)
        return op_fail(o, SLINKY_EINVALID, "cannot remove the whole document");
    size_t klen = strlen(last);
    if (parent->type == SLINKY_DOC_OBJECT) {
        long at = slinky_doc__find(parent, last, klen);
        if (at < 0) {
            rc = op_fail(o, SLINKY_ENOTFOUND, "path does not exist");
        } else {
            memmove(&parent->u.obj.m[at], &parent->u.obj.m[at + 1],
                    (parent->u.obj.n - (size_t)at - 1) * sizeof(slinky_doc__member));
            parent->u.obj.n--;
        }
    } else if (parent->type == SLINKY_DOC_ARRAY) {
        long idx = slinky_doc__pointer_index(last);
        if (idx < 0 || (size_t)idx >= parent->u.arr.n)
            rc = op_fail(o, SLINKY_ENOTFOUND, "path does not exist");
        else
            rc = slinky_doc_value_array_remove(parent, (size_t)idx);
    } else {
        rc = op_fail(o, SLINKY_ENOTFOUND, "path does not exist");
    }
    free(last);
    return rc;
}

static const char *member_string(const slinky_doc_value *op, const char *name)
{
    const slinky_doc_value *v = slinky_doc_value_get(op, name);
    return v && v->type == SLINKY_DOC_STRING ? v->u.str.s : NULL;
}

static int apply_one(slinky_doc_value *root, const slinky_doc_value *op, size_t index)
{
    opctx o = {index, NULL, NULL};
    if (!op || op->type != SLINKY_DOC_OBJECT)
        return op_fail(&o, SLINKY_EINVALID, "an operation must be an object");
    o.op = member_string(op, "op");
    o.path = member_string(op, "path");
    if (!o.op)
        return op_fail(&o, SLINKY_EINVALID, "missing or non-string \"op\"");
    if (!o.path)
        return op_fail(&o, SLINKY_EINVALID, "missing or non-string \"path\"");
    const slinky_doc_value *value = slinky_doc_value_get(op, "value");
    const char *from = member_string(op, "from");
    slinky_doc *doc = root->doc;
    int is_add = strcmp(o.op, "add") == 0, is_replace = strcmp(o.op, "replace") == 0;
    int is_test = strcmp(o.op, "test") == 0;
    if (is_add || is_replace || is_test) {
        if (!value)
            return op_fail(&o, SLINKY_EINVALID, "missing \"value\"");
        if (is_test) {
            const slinky_doc_value *t = slinky_doc_value_pointer(root, o.path);
            if (!t)
                return op_fail(&o, SLINKY_ENOTFOUND, "path does not exist");
            if (!slinky_doc_value_equal(t, value))
                return op_fail(&o, SLINKY_ECONFLICT, "test failed: values differ");
            return 0;
        }
        slinky_doc_value *c = slinky_doc__copy(doc, value);
        if (!c)
            return SLINKY_ENOMEM;
        if (is_add)
            return do_add(&o, root, o.path, c);
        slinky_doc_value *t = slinky_doc_value_pointer(root, o.path);
        if (!t)
            return op_fail(&o, SLINKY_ENOTFOUND, "path does not exist");
        *t = *c;
        return 0;
    }
    if (strcmp(o.op, "remove") == 0)
        return do_remove(&o, root, o.path);
    int is_move = strcmp(o.op, "move") == 0;
    if (is_move || strcmp(o.op, "copy") == 0) {
        if (!from)
            return op_fail(&o, SLINKY_EINVALID, "missing or non-string \"from\"");
        const slinky_doc_value *src = slinky_doc_value_pointer(root, from);
        if (!src)
            return op_fail(&o, SLINKY_ENOTFOUND, "\"from\" path \"%s\" does not exist", from);
        size_t fl = strlen(from);
        if (is_move && strncmp(o.path, from, fl) == 0 && o.path[fl] == '/')
            return op_fail(&o, SLINKY_EINVALID, "cannot move a value into one of its children");
        if (is_move && strcmp(o.path, from) == 0)
            return 0;
        slinky_doc_value *c = slinky_doc__copy(doc, src);
        if (!c)
            return SLINKY_ENOMEM;
        if (is_move) {
            int rc = do_remove(&o, root, from);
            if (rc < 0)
                return rc;
        }
        return do_add(&o, root, o.path, c);
    }
    return op_fail(&o, SLINKY_EINVALID, "unknown operation \"%s\"", o.op);
}

slinky_status slinky_doc_json_patch_apply(slinky_doc_value *target, const slinky_doc_value *patch)
{
    if (!target || !patch)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_json_patch_apply: NULL argument");
    if (patch->type != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EINVALID, "a JSON patch must be an array, not a %s",
                                 slinky_doc_type_name((slinky_doc_type)patch->type));
    slinky_doc *work;
    int rc = slinky_doc_new_copy(&work, target);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < patch->u.arr.n && rc == 0; i++)
        rc = apply_one(work->root, patch->u.arr.items[i], i);
    if (rc == 0)
        rc = slinky_doc_value_set_copy(target, work->root);
    slinky_doc_free(work);
    return rc;
}

/* ------------------------------------------------------------------ create */

static int emit_op(slinky_doc_value *ops, const char *op, const char *path,
                   const slinky_doc_value *value)
{
    slinky_doc_value *o;
    int rc = slinky_doc_value_array_append(&o, ops);
    if (rc == 0)
        rc = slinky_doc_value_set_object(o);
    if (rc == 0)
        rc = slinky_doc_value_object_set_string(o, "op", op);
    if (rc == 0)
        rc = slinky_doc_value_object_set_string(o, "path", path);
    if (rc == 0 && value)
        rc = slinky_doc_value_object_set(o, "value", value);
    return rc;
}

/* Append "/" + escaped token to the path buffer. */
static int path_push(slinky__buf *p, const char *tok, size_t len)
{
    slinky__buf_putc(p, '/');
    for (size_t i = 0; i < len; i++) {
        if (tok[i] == '~')
            slinky__buf_put(p, "~0", 2);
        else if (tok[i] == '/')
            slinky__buf_put(p, "~1", 2);
        else
            slinky__buf_putc(p, tok[i]);
    }
    return p->failed ? SLINKY_ENOMEM : 0;
}

static void path_pop(slinky__buf *p, size_t len)
{
    p->len = len;
    if (p->data)
        p->data[len] = '\0';
}

static const char *path_str(slinky__buf *p)
{
    return p->data ? p->data : "";
}

static int diff(slinky_doc_value *ops, slinky__buf *path, const slinky_doc_value *from,
                const slinky_doc_value *to)
{
    if (slinky_doc_value_equal(from, to))
        return 0;
    size_t mark = path->len;
    int rc = 0;
    if (from->type == SLINKY_DOC_OBJECT && to->type == SLINKY_DOC_OBJECT) {
        for (uint32_t i = 0; i < from->u.obj.n && rc == 0; i++) {
            const slinky_doc__member *m = &from->u.obj.m[i];
            if (slinky_doc__find(to, m->key, m->keylen) >= 0)
                continue;
            rc = path_push(path, m->key, m->keylen);
            if (rc == 0)
                rc = emit_op(ops, "remove", path_str(path), NULL);
            path_pop(path, mark);
        }
        for (uint32_t i = 0; i < to->u.obj.n && rc == 0; i++) {
            const slinky_doc__member *m = &to->u.obj.m[i];
            long at = slinky_doc__find(from, m->key, m->keylen);
            rc = path_push(path, m->key, m->keylen);
            if (rc == 0) {
                if (at < 0)
                    rc = emit_op(ops, "add", path_str(path), m->value);
                else
                    rc = diff(ops, path, from->u.obj.m[at].value, m->value);
            }
            path_pop(path, mark);
        }
        return rc;
    }
    if (from->type == SLINKY_DOC_ARRAY && to->type == SLINKY_DOC_ARRAY) {
        uint32_t nf = from->u.arr.n, nt = to->u.arr.n;
        uint32_t common = nf < nt ? nf : nt;
        char idx[24];
        for (uint32_t i = 0; i < common && rc == 0; i++) {
            size_t n = slinky_doc__format_int(idx, i);
            rc = path_push(path, idx, n);
            if (rc == 0)
                rc = diff(ops, path, from->u.arr.items[i], to->u.arr.items[i]);
            path_pop(path, mark);
        }
        for (uint32_t i = nf; i > nt && rc == 0; i--) {
            size_t n = slinky_doc__format_int(idx, i - 1);
            rc = path_push(path, idx, n);
            if (rc == 0)
                rc = emit_op(ops, "remove", path_str(path), NULL);
            path_pop(path, mark);
        }
        for (uint32_t i = nf; i < nt && rc == 0; i++) {
            size_t n = slinky_doc__format_int(idx, i);
            rc = path_push(path, idx, n);
            if (rc == 0)
                rc = emit_op(ops, "add", path_str(path), to->u.arr.items[i]);
            path_pop(path, mark);
        }
        return rc;
    }
    return emit_op(ops, "replace", path_str(path), to);
}

slinky_status slinky_doc_json_patch_create(slinky_doc **out, const slinky_doc_value *from,
                                           const slinky_doc_value *to)
{
    if (!out || !from || !to)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_json_patch_create: NULL argument");
    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, 0);
    if (rc < 0)
        return rc;
    slinky_doc_value_set_array(doc->root);
    slinky__buf path = SLINKY__BUF_INIT;
    rc = diff(doc->root, &path, from, to);
    slinky__buf_dispose(&path);
    if (rc < 0) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}
