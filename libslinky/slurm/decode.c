/*
 * slurm: decoding replies into typed results. Strings point into the parsed
 * reply, which the result keeps; values that must be built (arrays joined
 * into "a,b") are kept beside it. Both the v0.0.38 shapes (plain numbers,
 * "features": "a,b", "state": "idle" + "state_flags") and the v0.0.40+ ones
 * ({set, infinite, number}, arrays) are read.
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "slurm_internal.h"

void slinky_slurm__list_dispose(slinky_slurm__list *l)
{
    free(l->items);
    for (size_t i = 0; i < l->nstrs; i++)
        free(l->strs[i]);
    free(l->strs);
    slinky_doc_free(l->doc);
    memset(l, 0, sizeof(*l));
}

const char *slinky_slurm__str(const slinky_doc_value *o, const char *key)
{
    slinky_doc_value *v = slinky_doc_value_get(o, key);
    return slinky_doc_value_type(v) == SLINKY_DOC_STRING ? slinky_doc_value_get_string(v) : "";
}

int64_t slinky_slurm__num(const slinky_doc_value *o, const char *key)
{
    slinky_doc_value *v = slinky_doc_value_get(o, key);
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_INT:
        return slinky_doc_value_get_int(v);
    case SLINKY_DOC_DOUBLE:
        return (int64_t)slinky_doc_value_get_double(v);
    case SLINKY_DOC_OBJECT:
        if (slinky_doc_value_path_bool(v, "infinite", false))
            return INT64_MAX;
        if (!slinky_doc_value_path_bool(v, "set", false))
            return 0;
        return slinky_doc_value_path_int(v, "number", 0);
    default:
        return 0;
    }
}

char *slinky_slurm__keep(slinky_slurm__list *l, char *s)
{
    if (s == NULL)
        return NULL;
    if (l->nstrs == l->strs_cap) {
        size_t n = l->strs_cap ? l->strs_cap * 2 : 16;
        char **p = slinky__realloc(l->strs, n * sizeof(*p));
        if (p == NULL) {
            free(s);
            return NULL;
        }
        l->strs = p;
        l->strs_cap = n;
    }
    l->strs[l->nstrs++] = s;
    return s;
}

const char *slinky_slurm__joined(slinky_slurm__list *l, const slinky_doc_value *o, const char *key,
                                 const char *sep)
{
    slinky_doc_value *v = slinky_doc_value_get(o, key);
    if (slinky_doc_value_type(v) == SLINKY_DOC_STRING)
        return slinky_doc_value_get_string(v);
    size_t n = slinky_doc_value_type(v) == SLINKY_DOC_ARRAY ? slinky_doc_value_size(v) : 0;
    if (n == 0)
        return "";
    if (n == 1 && slinky_doc_value_type(slinky_doc_value_at(v, 0)) == SLINKY_DOC_STRING)
        return slinky_doc_value_get_string(slinky_doc_value_at(v, 0));
    slinky__buf b = SLINKY__BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i)
            slinky__buf_puts(&b, sep);
        slinky__buf_puts(&b, slinky_doc_value_get_string(slinky_doc_value_at(v, i)));
    }
    char *s = NULL;
    if (slinky__buf_finish(&s, NULL, &b))
        return NULL;
    return slinky_slurm__keep(l, s);
}

int slinky_slurm__put_csv(slinky_doc_value *o, const char *key, const char *csv)
{
    slinky_doc_value *arr = NULL;
    int err = slinky_doc_value_object_put(&arr, o, key);
    if (err == 0)
        err = slinky_doc_value_set_array(arr);
    for (const char *p = csv; err == 0 && p && *p;) {
        size_t n = strcspn(p, ",");
        slinky_doc_value *v = NULL;
        if (n && (err = slinky_doc_value_array_append(&v, arr)) == 0)
            err = slinky_doc_value_set_string_len(v, p, n);
        p += n;
        if (*p)
            p++;
    }
    return err;
}

char *slinky_slurm__rel(const char *prefix, const char *name)
{
    char *e = curl_easy_escape(NULL, name, 0);
    char *rel = e ? slinky__sprintf("%s/%s", prefix, e) : NULL;
    curl_free(e);
    if (rel == NULL)
        slinky__error_oom();
    return rel;
}
