/*
 * RFC 7386 JSON merge patch: apply and create.
 */
#include "doc/doc_internal.h"

static int apply(slinky_doc_value *target, const slinky_doc_value *patch)
{
    if (patch->type != SLINKY_DOC_OBJECT) {
        slinky_doc_value *c = slinky_doc__copy(target->doc, patch);
        if (!c)
            return SLINKY_ENOMEM;
        *target = *c;
        return 0;
    }
    if (target->type != SLINKY_DOC_OBJECT)
        slinky_doc_value_set_object(target);
    for (uint32_t i = 0; i < patch->u.obj.n; i++) {
        const slinky_doc__member *m = &patch->u.obj.m[i];
        long at = slinky_doc__find(target, m->key, m->keylen);
        if (m->value->type == SLINKY_DOC_NULL) {
            if (at >= 0) {
                memmove(&target->u.obj.m[at], &target->u.obj.m[at + 1],
                        (target->u.obj.n - (size_t)at - 1) * sizeof(slinky_doc__member));
                target->u.obj.n--;
            }
            continue;
        }
        slinky_doc_value *slot;
        if (at >= 0) {
            slot = target->u.obj.m[at].value;
        } else {
            slot = slinky_doc__object_append(target, m->key, m->keylen);
            if (!slot)
                return SLINKY_ENOMEM;
        }
        int rc = apply(slot, m->value);
        if (rc < 0)
            return rc;
    }
    return 0;
}

slinky_status slinky_doc_merge_patch_apply(slinky_doc_value *target,
                                           const slinky_doc_value *patch)
{
    if (!target || !patch)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_merge_patch_apply: NULL argument");
    if (patch->doc != target->doc)
        return apply(target, patch);
    /* the patch may lie inside the target: work from a copy */
    slinky_doc *tmp;
    int rc = slinky_doc_new_copy(&tmp, patch);
    if (rc < 0)
        return rc;
    rc = apply(target, tmp->root);
    slinky_doc_free(tmp);
    return rc;
}

/* A null reachable through objects only (a merge patch would read it as "delete"). */
static bool has_object_null(const slinky_doc_value *v)
{
    if (v->type == SLINKY_DOC_NULL)
        return true;
    if (v->type != SLINKY_DOC_OBJECT)
        return false;
    for (uint32_t i = 0; i < v->u.obj.n; i++) {
        if (has_object_null(v->u.obj.m[i].value))
            return true;
    }
    return false;
}

static int diff(slinky_doc_value *out, const slinky_doc_value *from, const slinky_doc_value *to,
                const char *where)
{
    if (from->type != SLINKY_DOC_OBJECT || to->type != SLINKY_DOC_OBJECT) {
        if (to->type == SLINKY_DOC_OBJECT && has_object_null(to))
            return slinky__error_set(SLINKY_EINVALID,
                                     "merge patch cannot set a member to null (at %s)", where);
        slinky_doc_value *c = slinky_doc__copy(out->doc, to);
        if (!c)
            return SLINKY_ENOMEM;
        *out = *c;
        return 0;
    }
    slinky_doc_value_set_object(out);
    for (uint32_t i = 0; i < from->u.obj.n; i++) {
        const slinky_doc__member *m = &from->u.obj.m[i];
        if (slinky_doc__find(to, m->key, m->keylen) < 0) {
            if (!slinky_doc__object_append(out, m->key, m->keylen))
                return SLINKY_ENOMEM;
        }
    }
    for (uint32_t i = 0; i < to->u.obj.n; i++) {
        const slinky_doc__member *m = &to->u.obj.m[i];
        long at = slinky_doc__find(from, m->key, m->keylen);
        if (m->value->type == SLINKY_DOC_NULL)
            return slinky__error_set(SLINKY_EINVALID,
                                     "merge patch cannot set member \"%s\" to null", m->key);
        if (at >= 0 && slinky_doc_value_equal(from->u.obj.m[at].value, m->value))
            continue;
        slinky_doc_value *slot = slinky_doc__object_append(out, m->key, m->keylen);
        if (!slot)
            return SLINKY_ENOMEM;
        const slinky_doc_value *base = at >= 0 ? from->u.obj.m[at].value : NULL;
        int rc;
        if (base)
            rc = diff(slot, base, m->value, m->key);
        else if (has_object_null(m->value))
            rc = slinky__error_set(SLINKY_EINVALID,
                                   "merge patch cannot set a member to null (under \"%s\")",
                                   m->key);
        else
            rc = slinky_doc_value_set_copy(slot, m->value);
        if (rc < 0)
            return rc;
    }
    return 0;
}

slinky_status slinky_doc_merge_patch_create(slinky_doc **out, const slinky_doc_value *from,
                                            const slinky_doc_value *to)
{
    if (!out || !from || !to)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_merge_patch_create: NULL argument");
    slinky_doc *doc;
    int rc = slinky_doc__create(&doc, 0);
    if (rc < 0)
        return rc;
    rc = diff(doc->root, from, to, "the root");
    if (rc < 0) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}
