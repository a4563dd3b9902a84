/*
 * Deep equality of values (member order ignored, int 1 == double 1.0).
 */
#include <math.h>
#include <stdlib.h>

#include "doc/doc_internal.h"

static bool int_eq_double(int64_t i, double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return false;
    if (d != floor(d))
        return false;
    return (int64_t)d == i;
}

static bool objects_equal(const slinky_doc_value *a, const slinky_doc_value *b)
{
    uint32_t n = a->u.obj.n;
    if (n <= 32) {
        for (uint32_t i = 0; i < n; i++) {
            const slinky_doc__member *m = &a->u.obj.m[i];
            long j = slinky_doc__find(b, m->key, m->keylen);
            if (j < 0 || !slinky_doc_value_equal(m->value, b->u.obj.m[j].value))
                return false;
        }
        return true;
    }
    uint32_t *oa = slinky_doc__sorted_members(a);
    uint32_t *ob = oa ? slinky_doc__sorted_members(b) : NULL;
    bool eq = oa && ob;
    for (uint32_t i = 0; eq && i < n; i++) {
        const slinky_doc__member *ma = &a->u.obj.m[oa[i]];
        const slinky_doc__member *mb = &b->u.obj.m[ob[i]];
        eq = ma->keylen == mb->keylen && memcmp(ma->key, mb->key, ma->keylen) == 0 &&
             slinky_doc_value_equal(ma->value, mb->value);
    }
    free(oa);
    free(ob);
    return eq;
}

bool slinky_doc_value_equal(const slinky_doc_value *a, const slinky_doc_value *b)
{
    if (!a || !b)
        return a == b;
    if (a == b)
        return true;
    if (a->type != b->type) {
        if (a->type == SLINKY_DOC_INT && b->type == SLINKY_DOC_DOUBLE)
            return int_eq_double(a->u.i, b->u.num.d);
        if (a->type == SLINKY_DOC_DOUBLE && b->type == SLINKY_DOC_INT)
            return int_eq_double(b->u.i, a->u.num.d);
        return false;
    }
    switch (a->type) {
    case SLINKY_DOC_NULL:
        return true;
    case SLINKY_DOC_BOOL:
        return a->u.b == b->u.b;
    case SLINKY_DOC_INT:
        return a->u.i == b->u.i;
    case SLINKY_DOC_DOUBLE:
        /* NaN (only from YAML .nan) equals itself so that round trips compare equal */
        return a->u.num.d == b->u.num.d || (isnan(a->u.num.d) && isnan(b->u.num.d));
    case SLINKY_DOC_STRING:
        return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
    case SLINKY_DOC_ARRAY:
        if (a->u.arr.n != b->u.arr.n)
            return false;
        for (uint32_t i = 0; i < a->u.arr.n; i++) {
            if (!slinky_doc_value_equal(a->u.arr.items[i], b->u.arr.items[i]))
                return false;
        }
        return true;
    case SLINKY_DOC_OBJECT:
        if (a->u.obj.n != b->u.obj.n)
            return false;
        return objects_equal(a, b);
    }
    return false;
}
