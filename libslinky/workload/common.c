/* workload: the object set, object skeletons, labels, owner references,
 * hashes, strategic merges and input lookups shared by every builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "workload/workload_internal.h"

/* ------------------------------------------------------------ the set */

SLINKY_API slinky_status slinky_workload_new(slinky_workload **out)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    slinky_workload *w = slinky__calloc(1, sizeof(*w));
    if (!w)
        return SLINKY_ENOMEM;
    *out = w;
    return 0;
}

SLINKY_API void slinky_workload_clear(slinky_workload *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->count; i++)
        slinky_doc_free(w->docs[i]);
    w->count = 0;
}

SLINKY_API void slinky_workload_free(slinky_workload *w)
{
    if (!w)
        return;
    slinky_workload_clear(w);
    free(w->docs);
    free(w);
}

SLINKY_API size_t slinky_workload_count(const slinky_workload *w)
{
    return w ? w->count : 0;
}

SLINKY_API slinky_doc *slinky_workload_at(const slinky_workload *w, size_t i)
{
    return w && i < w->count ? w->docs[i] : NULL;
}

static const char *at_path(const slinky_workload *w, size_t i, const char *path)
{
    slinky_doc *d = slinky_workload_at(w, i);
    return d ? slinky_doc_value_path_string(slinky_doc_root(d), path, NULL) : NULL;
}

SLINKY_API const char *slinky_workload_kind_at(const slinky_workload *w, size_t i)
{
    return at_path(w, i, "kind");
}

SLINKY_API const char *slinky_workload_api_version_at(const slinky_workload *w, size_t i)
{
    return at_path(w, i, "apiVersion");
}

SLINKY_API const char *slinky_workload_name_at(const slinky_workload *w, size_t i)
{
    return at_path(w, i, "metadata.name");
}

SLINKY_API const char *slinky_workload_namespace_at(const slinky_workload *w, size_t i)
{
    return at_path(w, i, "metadata.namespace");
}

SLINKY_API slinky_status slinky_workload_find(slinky_doc **out, const slinky_workload *w,
                                              const char *kind, const char *name)
{
    if (!out || !w || !name)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    for (size_t i = 0; i < w->count; i++) {
        const char *k = slinky_workload_kind_at(w, i), *n = slinky_workload_name_at(w, i);
        if ((!kind || (k && !strcmp(k, kind))) && n && !strcmp(n, name)) {
            *out = w->docs[i];
            return 0;
        }
    }
    return slinky__error_set(SLINKY_ENOTFOUND, "workload: no %s named \"%s\" in the set",
                             kind ? kind : "object", name);
}

int slinky_workload__push(slinky_workload *w, slinky_doc *doc)
{
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        slinky_doc **d = slinky__realloc(w->docs, cap * sizeof(*d));
        if (!d) {
            slinky_doc_free(doc);
            return SLINKY_ENOMEM;
        }
        w->docs = d;
        w->cap = cap;
    }
    w->docs[w->count++] = doc;
    return 0;
}

int slinky_workload__push_done(slinky_workload *w, slinky_doc *doc, int rc)
{
    if (rc) {
        slinky_doc_free(doc);
        return rc;
    }
    return slinky_workload__push(w, doc);
}

int slinky_workload__commit(slinky_workload *into, slinky_workload *tmp, int rc)
{
    if (!rc)
        rc = slinky_workload_splice(into, tmp);
    slinky_workload_clear(tmp);
    free(tmp->docs);
    tmp->docs = NULL;
    tmp->cap = 0;
    return rc;
}

SLINKY_API slinky_status slinky_workload_add(slinky_workload *w, slinky_doc *doc)
{
    if (!w || !doc) {
        slinky_doc_free(doc);
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    }
    const slinky_doc_value *r = slinky_doc_root(doc);
    const char *miss = !slinky_doc_value_path_string(r, "apiVersion", NULL) ? "apiVersion"
                       : !slinky_doc_value_path_string(r, "kind", NULL)     ? "kind"
                       : !slinky_doc_value_path_string(r, "metadata.name", NULL)
                           ? "metadata.name"
                           : NULL;
    if (miss) {
        slinky_doc_free(doc);
        return slinky__error_set(SLINKY_EINVALID, "workload: added object has no %s", miss);
    }
    return slinky_workload__push(w, doc);
}

SLINKY_API slinky_status slinky_workload_splice(slinky_workload *w, slinky_workload *from)
{
    if (!w || !from)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if (w->count + from->count > w->cap) {
        size_t cap = w->cap ? w->cap : 16;
        while (cap < w->count + from->count)
            cap *= 2;
        slinky_doc **d = slinky__realloc(w->docs, cap * sizeof(*d));
        if (!d)
            return SLINKY_ENOMEM;
        w->docs = d;
        w->cap = cap;
    }
    memcpy(w->docs + w->count, from->docs, from->count * sizeof(*from->docs));
    w->count += from->count;
    from->count = 0;
    return 0;
}

SLINKY_API slinky_status slinky_workload_dump_yaml(char **out, size_t *len_out,
                                                   const slinky_workload *w)
{
    if (!out || !w)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    for (size_t i = 0; i < w->count; i++) {
        char *y = NULL;
        size_t n = 0;
        int rc = slinky_doc_value_dump_yaml(&y, &n, slinky_doc_root(w->docs[i]), 0);
        if (rc) {
            slinky__buf_dispose(&b);
            return rc;
        }
        slinky__buf_puts(&b, "---\n");
        slinky__buf_put(&b, y, n);
        slinky_free(y);
    }
    return slinky__buf_finish(out, len_out, &b);
}

SLINKY_API slinky_status slinky_workload_dump_json(char **out, size_t *len_out,
                                                   const slinky_workload *w, unsigned flags)
{
    if (!out || !w)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    slinky_doc *list = NULL;
    slinky_doc_value *root, *items = NULL;
    int rc = slinky_doc_new(&list);
    if (rc)
        return rc;
    root = slinky_doc_root(list);
    if ((rc = slinky_doc_value_set_object(root)) ||
        (rc = slinky_doc_value_object_set_string(root, "apiVersion", "v1")) ||
        (rc = slinky_doc_value_object_set_string(root, "kind", "List")) ||
        (rc = slinky_workload__arr(&items, root, "items")))
        goto done;
    for (size_t i = 0; i < w->count && !rc; i++) {
        slinky_doc_value *slot = NULL;
        if (!(rc = slinky_doc_value_array_append(&slot, items)))
            rc = slinky_doc_value_set_copy(slot, slinky_doc_root(w->docs[i]));
    }
    if (!rc)
        rc = slinky_doc_value_dump_json(out, len_out, root, flags);
done:
    slinky_doc_free(list);
    return rc;
}

/* ------------------------------------------------------------ input */

SLINKY_API slinky_status slinky_workload_input_init(slinky_workload_input *in,
                                                    unsigned int version)
{
    if (!in || version != SLINKY_WORKLOAD_INPUT_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "workload: unknown input version %u", version);
    slinky_workload_input d = SLINKY_WORKLOAD_INPUT_INIT;
    *in = d;
    return 0;
}

int slinky_workload__input_check(const slinky_workload_input *in)
{
    if (!in)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL input");
    if (in->version != SLINKY_WORKLOAD_INPUT_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "workload: unknown input version %u",
                                 in->version);
    if (in->object_count && !in->objects)
        return slinky__error_set(SLINKY_EINVALID, "workload: input objects is NULL");
    return 0;
}

static bool same_ns(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

SLINKY_API slinky_status slinky_workload_input_find(const slinky_model_object **out,
                                                    const slinky_workload_input *in,
                                                    slinky_model_kind kind,
                                                    const char *namespace_, const char *name)
{
    int rc;
    if (!out || !name)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if ((rc = slinky_workload__input_check(in)))
        return rc;
    for (size_t i = 0; i < in->object_count; i++) {
        const slinky_model_object *o = in->objects[i];
        if (!o || slinky_model_object_get_kind(o) != kind)
            continue;
        const char *n = slinky_model_object_get_name(o);
        if (n && !strcmp(n, name) && same_ns(slinky_model_object_get_namespace(o), namespace_)) {
            *out = o;
            return 0;
        }
    }
    const char *kn = slinky_model_kind_name(kind);
    return slinky__error_set(SLINKY_ENOTFOUND, "workload: no %s %s%s%s in the input",
                             kn ? kn : "object", namespace_ && *namespace_ ? namespace_ : "",
                             namespace_ && *namespace_ ? "/" : "", name);
}

int slinky_workload__builder_args(const void *out, const slinky_model_object *o,
                                  const slinky_workload_input *in, slinky_model_kind kind)
{
    int rc;
    if (!out || !o)
        return slinky__error_set(SLINKY_EINVALID, "workload: NULL argument");
    if ((rc = slinky_workload__input_check(in)))
        return rc;
    if (slinky_model_object_get_kind(o) != kind)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s is not a %s",
                                 slinky_workload__describe(o), slinky_model_kind_name(kind));
    return 0;
}

int slinky_workload__hand_out(slinky_doc **out, slinky_doc *doc, int rc)
{
    if (rc) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

const char *slinky_workload__describe(const slinky_model_object *o)
{
    static _Thread_local char buf[512];
    const char *k = slinky_model_kind_name(slinky_model_object_get_kind(o));
    const char *ns = slinky_model_object_get_namespace(o);
    const char *n = slinky_model_object_get_name(o);
    snprintf(buf, sizeof(buf), "%s %s%s%s", k ? k : "object", ns && *ns ? ns : "",
             ns && *ns ? "/" : "", n ? n : "(no name)");
    return buf;
}

int slinky_workload__ref(const slinky_model_object **out, const slinky_workload_input *in,
                         const slinky_model_object *from, const char *field,
                         slinky_model_kind kind, const char *name)
{
    if (!name || !*name)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s: %s: name is empty",
                                 slinky_workload__describe(from), field);
    if (!slinky_workload_input_find(out, in, kind, slinky_model_object_get_namespace(from),
                                    name))
        return 0;
    const char *kn = slinky_model_kind_name(kind);
    return slinky__error_set(SLINKY_ENOTFOUND, "workload: %s: %s: no %s \"%s\" in the input",
                             slinky_workload__describe(from), field, kn ? kn : "object", name);
}

int slinky_workload__secret_value(char **out, size_t *len_out, const slinky_workload_input *in,
                                  const slinky_model_object *from, const char *field,
                                  const char *name, const char *key)
{
    const slinky_model_object *s = NULL;
    int rc = slinky_workload__ref(&s, in, from, field, SLINKY_MODEL_KIND_SECRET, name);
    if (rc)
        return rc;
    const slinky_doc_value *root = slinky_model_object_get_value(s);
    const char *b64 = slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(root, "data"), key ? key : ""));
    const slinky_doc_value *sv =
        slinky_doc_value_get(slinky_doc_value_get(root, "stringData"), key ? key : "");
    char *dec = NULL;
    size_t n = 0;
    if (slinky_doc_value_get_string(sv)) {
        n = slinky_doc_value_get_string_len(sv);
        if (!(dec = slinky__strndup(slinky_doc_value_get_string(sv), n)))
            return SLINKY_ENOMEM;
    } else if (b64) {
        char *d = NULL;
        if ((rc = slinky_base64_decode(&d, &n, b64, 0)))
            return slinky__error_set(SLINKY_EINVALID, "workload: %s: %s: Secret %s key %s is not base64",
                                     slinky_workload__describe(from), field, name, key);
        dec = slinky__strndup(d, n);
        slinky_free(d);
        if (!dec)
            return SLINKY_ENOMEM;
    } else {
        return slinky__error_set(SLINKY_ENOTFOUND, "workload: %s: %s: Secret \"%s\" has no key \"%s\"",
                                 slinky_workload__describe(from), field, name, key ? key : "");
    }
    *out = dec;
    if (len_out)
        *len_out = n;
    return 0;
}

int slinky_workload__check_line_value(const slinky_model_object *from, const char *field,
                                      const char *value, size_t len)
{
    for (size_t i = 0; value && i < len; i++) {
        const char *what = value[i] == '\n' ? "a newline"
                           : value[i] == '\r' ? "a carriage return"
                           : value[i] == '\0' ? "a NUL byte"
                           : value[i] == '#'  ? "'#'"
                                              : NULL;
        if (what)
            return slinky__error_set(SLINKY_EINVALID,
                                     "workload: %s: %s: %s at offset %zu would break the "
                                     "Slurm config line",
                                     slinky_workload__describe(from), field, what, i);
    }
    return 0;
}

/* ------------------------------------------------------------ doc helpers */

int slinky_workload__obj(slinky_doc_value **out, slinky_doc_value *obj, const char *key)
{
    slinky_doc_value *c = NULL;
    int rc = slinky_doc_value_object_put(&c, obj, key);
    if (!rc && slinky_doc_value_type(c) != SLINKY_DOC_OBJECT)
        rc = slinky_doc_value_set_object(c);
    if (!rc && out)
        *out = c;
    return rc;
}

int slinky_workload__arr(slinky_doc_value **out, slinky_doc_value *obj, const char *key)
{
    slinky_doc_value *c = NULL;
    int rc = slinky_doc_value_object_put(&c, obj, key);
    if (!rc && slinky_doc_value_type(c) != SLINKY_DOC_ARRAY)
        rc = slinky_doc_value_set_array(c);
    if (!rc && out)
        *out = c;
    return rc;
}

int slinky_workload__push_obj(slinky_doc_value **out, slinky_doc_value *arr)
{
    slinky_doc_value *c = NULL;
    int rc = slinky_doc_value_array_append(&c, arr);
    if (!rc)
        rc = slinky_doc_value_set_object(c);
    if (!rc && out)
        *out = c;
    return rc;
}

int slinky_workload__push_str(slinky_doc_value *arr, const char *s)
{
    slinky_doc_value *c = NULL;
    int rc = slinky_doc_value_array_append(&c, arr);
    return rc ? rc : slinky_doc_value_set_string(c, s);
}

/* ------------------------------------------------------------ skeleton */

int slinky_workload__object_new(slinky_doc **out, slinky_doc_value **root_out,
                                slinky_doc_value **meta_out, const char *api_version,
                                const char *kind, const char *namespace_, const char *name)
{
    slinky_doc *doc = NULL;
    slinky_doc_value *root, *meta = NULL;
    int rc = slinky_doc_new(&doc);
    if (rc)
        return rc;
    root = slinky_doc_root(doc);
    if ((rc = slinky_doc_value_set_object(root)) ||
        (rc = slinky_doc_value_object_set_string(root, "apiVersion", api_version)) ||
        (rc = slinky_doc_value_object_set_string(root, "kind", kind)) ||
        (rc = slinky_workload__obj(&meta, root, "metadata")) ||
        (rc = slinky_doc_value_object_set_string(meta, "name", name ? name : "")) ||
        (namespace_ && *namespace_ &&
         (rc = slinky_doc_value_object_set_string(meta, "namespace", namespace_)))) {
        slinky_doc_free(doc);
        return rc;
    }
    *out = doc;
    if (root_out)
        *root_out = root;
    if (meta_out)
        *meta_out = meta;
    return 0;
}

int slinky_workload__map_copy(slinky_doc_value *meta, const char *field,
                              const slinky_doc_value *src)
{
    if (slinky_doc_value_type(src) != SLINKY_DOC_OBJECT)
        return 0;
    slinky_doc_value *m = NULL;
    int rc = slinky_workload__obj(&m, meta, field);
    for (size_t i = 0; !rc && i < slinky_doc_value_size(src); i++) {
        const char *s = slinky_doc_value_get_string(slinky_doc_value_member_at(src, i));
        if (s)
            rc = slinky_doc_value_object_set_string(m, slinky_doc_value_key_at(src, i), s);
    }
    return rc;
}

int slinky_workload__map_put(slinky_doc_value *meta, const char *field, const char *key,
                             const char *value)
{
    slinky_doc_value *m = NULL;
    int rc = slinky_workload__obj(&m, meta, field);
    return rc ? rc : slinky_doc_value_object_set_string(m, key, value);
}

int slinky_workload__labels(slinky_doc_value *map, const char *app, const char *instance,
                            const char *component)
{
    int rc;
    if ((rc = slinky_doc_value_object_set_string(map, SLINKY_WL_LABEL_APP, app)) ||
        (rc = slinky_doc_value_object_set_string(map, SLINKY_WL_LABEL_INSTANCE, instance)))
        return rc;
    return component ? slinky_doc_value_object_set_string(map, SLINKY_WL_LABEL_COMPONENT, component)
                     : 0;
}

void slinky_workload__meta_prune(slinky_doc_value *meta)
{
    static const char *const fields[] = {"labels", "annotations"};
    for (size_t i = 0; i < 2; i++) {
        slinky_doc_value *m = slinky_doc_value_get(meta, fields[i]);
        if (m && slinky_doc_value_size(m) == 0)
            slinky_doc_value_object_remove(meta, fields[i]);
    }
}

int slinky_workload__set_controller_ref(slinky_doc_value *meta, const slinky_model_object *owner)
{
    const char *uid = slinky_model_object_get_uid(owner);
    const char *name = slinky_model_object_get_name(owner);
    if (!uid || !*uid || !name || !*name)
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: metadata.uid is required for the owner reference",
                                 slinky_workload__describe(owner));
    slinky_doc_value *refs = NULL, *r = NULL;
    int rc;
    if ((rc = slinky_workload__arr(&refs, meta, "ownerReferences")) ||
        (rc = slinky_workload__push_obj(&r, refs)) ||
        (rc = slinky_doc_value_object_set_string(
             r, "apiVersion", slinky_model_kind_api_version(slinky_model_object_get_kind(owner)))) ||
        (rc = slinky_doc_value_object_set_string(
             r, "kind", slinky_model_kind_name(slinky_model_object_get_kind(owner)))) ||
        (rc = slinky_doc_value_object_set_string(r, "name", name)) ||
        (rc = slinky_doc_value_object_set_string(r, "uid", uid)) ||
        (rc = slinky_doc_value_object_set_bool(r, "controller", true)))
        return rc;
    return slinky_doc_value_object_set_bool(r, "blockOwnerDeletion", true);
}

/* ------------------------------------------------------------ hashes */

void slinky_workload__sha256_hex(char out[65], const void *data, size_t len)
{
    unsigned char h[32];
    static const char hex[] = "0123456789abcdef";
    if (gnutls_hash_fast(GNUTLS_DIG_SHA256, len ? data : "", len, h) < 0) {
        out[0] = '\0'; /* cannot happen for SHA-256 with GnuTLS 3 */
        return;
    }
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[h[i] >> 4];
        out[2 * i + 1] = hex[h[i] & 15];
    }
    out[64] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int slinky_workload__checksum_map(char out[65], const slinky_doc_value *data, bool base64)
{
    out[0] = '\0';
    size_t n = slinky_doc_value_type(data) == SLINKY_DOC_OBJECT ? slinky_doc_value_size(data) : 0;
    if (!n)
        return 0;
    const char **keys = slinky__calloc(n, sizeof(*keys));
    if (!keys)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++)
        keys[i] = slinky_doc_value_key_at(data, i);
    qsort(keys, n, sizeof(*keys), cmp_str);
    slinky__buf b = SLINKY__BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const slinky_doc_value *v = slinky_doc_value_get(data, keys[i]);
        const char *s = slinky_doc_value_get_string(v);
        if (!s)
            continue;
        if (base64) {
            char *d = NULL;
            size_t dn = 0;
            if ((rc = slinky_base64_decode(&d, &dn, s, 0)))
                break;
            slinky__buf_put(&b, d, dn);
            slinky_free(d);
        } else {
            slinky__buf_put(&b, s, slinky_doc_value_get_string_len(v));
        }
    }
    free(keys);
    if (!rc && b.failed)
        rc = slinky__error_oom();
    if (!rc && b.len)
        slinky_workload__sha256_hex(out, b.data, b.len);
    slinky__buf_dispose(&b);
    return rc;
}

/* FNV-1a 64 over 8-byte words (then the tail bytes): 8 times fewer multiplies than bytewise. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h ^= w;
        h *= 1099511628211ull;
    }
    for (; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

typedef struct keyed {
    const char *key;
    const slinky_doc_value *v;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

/* The value walked in canonical order (object keys sorted): a type byte, then lengths and bytes. */
static int fnv_value(uint64_t *h, const slinky_doc_value *v)
{
    unsigned char t = (unsigned char)slinky_doc_value_type(v);
    *h = fnv(*h, &t, 1);
    size_t n = slinky_doc_value_size(v);
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_BOOL:
        t = slinky_doc_value_get_bool(v);
        *h = fnv(*h, &t, 1);
        return 0;
    case SLINKY_DOC_INT: {
        int64_t i = slinky_doc_value_get_int(v);
        *h = fnv(*h, &i, sizeof(i));
        return 0;
    }
    case SLINKY_DOC_DOUBLE: {
        double d = slinky_doc_value_get_double(v);
        *h = fnv(*h, &d, sizeof(d));
        return 0;
    }
    case SLINKY_DOC_STRING: {
        size_t len = slinky_doc_value_get_string_len(v);
        *h = fnv(fnv(*h, &len, sizeof(len)), slinky_doc_value_get_string(v), len);
        return 0;
    }
    case SLINKY_DOC_ARRAY: {
        *h = fnv(*h, &n, sizeof(n));
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++)
            rc = fnv_value(h, slinky_doc_value_at(v, i));
        return rc;
    }
    case SLINKY_DOC_OBJECT: {
        keyed stack[32], *k = n <= 32 ? stack : slinky__calloc(n, sizeof(*k));
        if (!k)
            return SLINKY_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            k[i].key = slinky_doc_value_key_at(v, i);
            k[i].v = slinky_doc_value_member_at(v, i);
        }
        qsort(k, n, sizeof(*k), cmp_keyed);
        *h = fnv(*h, &n, sizeof(n));
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            size_t len = strlen(k[i].key);
            *h = fnv(fnv(*h, &len, sizeof(len)), k[i].key, len);
            rc = fnv_value(h, k[i].v);
        }
        if (k != stack)
            free(k);
        return rc;
    }
    default:
        return 0;
    }
}

int slinky_workload__value_fnv(char out[17], const slinky_doc_value *v)
{
    uint64_t h = 14695981039346656037ull;
    int rc = fnv_value(&h, v);
    if (!rc)
        snprintf(out, 17, "%016llx", (unsigned long long)h);
    return rc;
}

/* ------------------------------------------------------------ strategic merge */

/* Go's reflect zero value test on a decoded JSON value (removeEmpty). */
static bool is_empty(const slinky_doc_value *v)
{
    switch (slinky_doc_value_type(v)) {
    case SLINKY_DOC_NULL: return true;
    case SLINKY_DOC_BOOL: return !slinky_doc_value_get_bool(v);
    case SLINKY_DOC_INT: return slinky_doc_value_get_int(v) == 0;
    case SLINKY_DOC_DOUBLE: return slinky_doc_value_get_double(v) == 0;
    case SLINKY_DOC_STRING: return slinky_doc_value_get_string_len(v) == 0;
    default: return slinky_doc_value_size(v) == 0;
    }
}

/* The merge key and element type of list `key` inside a value of `type`;
 * NULL merge key: replace the list. */
static const char *list_key(slinky_workload__smp_type type, const char *key,
                            slinky_workload__smp_type *elem)
{
    *elem = SLINKY_WL_SMP_OBJECT;
    switch (type) {
    case SLINKY_WL_SMP_POD_SPEC:
        if (!strcmp(key, "containers") || !strcmp(key, "initContainers") ||
            !strcmp(key, "ephemeralContainers")) {
            *elem = SLINKY_WL_SMP_CONTAINER;
            return "name";
        }
        if (!strcmp(key, "volumes") || !strcmp(key, "imagePullSecrets") ||
            !strcmp(key, "resourceClaims"))
            return "name";
        if (!strcmp(key, "hostAliases"))
            return "ip";
        if (!strcmp(key, "topologySpreadConstraints"))
            return "topologyKey";
        return NULL;
    case SLINKY_WL_SMP_CONTAINER:
        if (!strcmp(key, "env"))
            return "name";
        if (!strcmp(key, "ports"))
            return "containerPort";
        if (!strcmp(key, "volumeMounts"))
            return "mountPath";
        if (!strcmp(key, "volumeDevices"))
            return "devicePath";
        if (!strcmp(key, "resizePolicy"))
            return "resourceName";
        return NULL;
    case SLINKY_WL_SMP_SERVICE_SPEC:
        if (!strcmp(key, "ports"))
            return "port";
        return NULL;
    default:
        return NULL;
    }
}

static int merge_value(slinky_doc_value *base, const slinky_doc_value *patch,
                       slinky_workload__smp_type type, bool top);

/* Index of the element of `list` (the first n) whose merge key equals key's, or -1. */
static long key_index(const slinky_doc_value *list, size_t n, const char *mkey,
                      const slinky_doc_value *key)
{
    for (size_t j = 0; key && j < n; j++)
        if (slinky_doc_value_equal(slinky_doc_value_get(slinky_doc_value_at(list, j), mkey), key))
            return (long)j;
    return -1;
}

/*
 * The order strategic merge gives a merged list (apimachinery's
 * normalizeElementOrder + mergeSortedSlice): the elements not in the patch
 * (server order) interleaved with the patch's elements (patch order), an
 * element of each compared by their places in the original list; where one
 * of them is new, the one not in the patch goes first. order[i] receives the
 * index into `merged` of the i-th element.
 */
static void smp_order(size_t *order, const slinky_doc_value *merged, size_t nb,
                      const slinky_doc_value *patch, const char *mkey)
{
    size_t n = slinky_doc_value_size(merged), np = slinky_doc_value_size(patch);
    size_t *left = order + n, *right = order + 2 * n, nl = 0, nr = 0;
    for (size_t i = 0; i < n; i++) /* server-only, in server order */
        if (key_index(patch, np, mkey,
                      slinky_doc_value_get(slinky_doc_value_at(merged, i), mkey)) < 0)
            left[nl++] = i;
    for (size_t i = 0; i < np; i++) { /* patch elements, in patch order, each key once */
        const slinky_doc_value *key = slinky_doc_value_get(slinky_doc_value_at(patch, i), mkey);
        long m = key_index(merged, n, mkey, key);
        if (m >= 0 && key_index(patch, i, mkey, key) < 0)
            right[nr++] = (size_t)m;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < nl || j < nr) {
        if (j >= nr || (i < nl && !(left[i] < nb && right[j] < nb && left[i] > right[j])))
            order[k++] = left[i++];
        else
            order[k++] = right[j++];
    }
}

static int merge_list(slinky_doc_value *base, const slinky_doc_value *patch, const char *mkey,
                      slinky_workload__smp_type elem)
{
    int rc = 0;
    if (slinky_doc_value_type(base) != SLINKY_DOC_ARRAY)
        return slinky_doc_value_set_copy(base, patch);
    size_t nb = slinky_doc_value_size(base);
    for (size_t i = 0; i < slinky_doc_value_size(patch) && !rc; i++) {
        const slinky_doc_value *p = slinky_doc_value_at(patch, i);
        /* a key the patch repeats merges into the element made for its first one */
        long m = key_index(base, slinky_doc_value_size(base), mkey, slinky_doc_value_get(p, mkey));
        if (m >= 0) {
            rc = merge_value(slinky_doc_value_at(base, (size_t)m), p, elem, false);
        } else {
            slinky_doc_value *slot = NULL;
            if (!(rc = slinky_doc_value_array_append(&slot, base)))
                rc = slinky_doc_value_set_copy(slot, p);
        }
    }
    size_t n = slinky_doc_value_size(base);
    if (rc || n < 2)
        return rc;
    size_t *order = slinky__calloc(3 * n, sizeof(*order));
    if (!order)
        return SLINKY_ENOMEM;
    smp_order(order, base, nb, patch, mkey);
    bool same = true;
    for (size_t i = 0; i < n && same; i++)
        same = order[i] == i;
    if (!same) { /* rebuild the list in that order */
        slinky_doc *tmp = NULL;
        if (!(rc = slinky_doc_new_copy(&tmp, base)) && !(rc = slinky_doc_value_set_array(base)))
            for (size_t i = 0; i < n && !rc; i++) {
                slinky_doc_value *slot = NULL;
                if (!(rc = slinky_doc_value_array_append(&slot, base)))
                    rc = slinky_doc_value_set_copy(slot, slinky_doc_value_at(slinky_doc_root(tmp), order[i]));
            }
        slinky_doc_free(tmp);
    }
    free(order);
    return rc;
}

/* Merge patch member k into base (removeEmpty applied on maps when top). */
static int merge_member(slinky_doc_value *base, const char *k, const slinky_doc_value *pv,
                        slinky_workload__smp_type type, bool top)
{
    /* removeEmpty: only the patch's maps are pruned, not list elements. */
    if (top && is_empty(pv))
        return 0;
    if (slinky_doc_value_type(pv) == SLINKY_DOC_NULL) {
        if (slinky_doc_value_get(base, k))
            slinky_doc_value_object_remove(base, k);
        return 0;
    }
    slinky_doc_value *bv = slinky_doc_value_get(base, k);
    slinky_workload__smp_type elem;
    const char *mkey = list_key(type, k, &elem);
    int rc;
    if (!bv) {
        if ((rc = slinky_doc_value_object_put(&bv, base, k)))
            return rc;
        /* a map patched in is pruned of empty members too (removeEmpty) */
        if (top && slinky_doc_value_type(pv) == SLINKY_DOC_OBJECT &&
            !(rc = slinky_doc_value_set_object(bv)))
            return merge_value(bv, pv, SLINKY_WL_SMP_OBJECT, true);
        return rc ? rc : slinky_doc_value_set_copy(bv, pv);
    }
    if (slinky_doc_value_type(pv) == SLINKY_DOC_ARRAY && mkey)
        return merge_list(bv, pv, mkey, elem);
    if (slinky_doc_value_type(pv) == SLINKY_DOC_OBJECT)
        return merge_value(bv, pv, SLINKY_WL_SMP_OBJECT, top);
    return slinky_doc_value_set_copy(bv, pv);
}

static int merge_value(slinky_doc_value *base, const slinky_doc_value *patch,
                       slinky_workload__smp_type type, bool top)
{
    if (slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT ||
        slinky_doc_value_type(base) != SLINKY_DOC_OBJECT)
        return slinky_doc_value_set_copy(base, patch);
    int rc = 0;
    for (size_t i = 0; i < slinky_doc_value_size(patch) && !rc; i++)
        rc = merge_member(base, slinky_doc_value_key_at(patch, i),
                          slinky_doc_value_member_at(patch, i), type, top);
    return rc;
}

int slinky_workload__smp(slinky_doc_value *base, const slinky_doc_value *patch,
                         slinky_workload__smp_type type)
{
    if (!patch || slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT)
        return 0;
    if (slinky_doc_value_type(base) != SLINKY_DOC_OBJECT) {
        int rc = slinky_doc_value_set_object(base);
        if (rc)
            return rc;
    }
    return merge_value(base, patch, type, true);
}

int slinky_workload__append_all(slinky_doc_value *dst, const slinky_doc_value *src)
{
    int rc = 0;
    for (size_t i = 0; i < slinky_doc_value_size(src) && !rc; i++) {
        slinky_doc_value *slot = NULL;
        if (!(rc = slinky_doc_value_array_append(&slot, dst)))
            rc = slinky_doc_value_set_copy(slot, slinky_doc_value_at(src, i));
    }
    return rc;
}

/* ------------------------------------------------------------ pod templates */

int slinky_workload__merge_pod_spec(slinky_doc_value *spec, const slinky_doc_value *user)
{
    if (slinky_doc_value_type(user) != SLINKY_DOC_OBJECT)
        return 0;
    static const char *const lists[] = {"containers", "initContainers"};
    int rc = 0;
    for (size_t i = 0; i < 2 && !rc; i++) {
        const slinky_doc_value *u = slinky_doc_value_get(user, lists[i]);
        if (slinky_doc_value_size(u) == 0 || slinky_doc_value_type(u) != SLINKY_DOC_ARRAY)
            continue;
        slinky_doc_value *dst = NULL;
        if (!(rc = slinky_workload__arr(&dst, spec, lists[i])))
            rc = slinky_workload__append_all(dst, u);
    }
    /* merge the rest (the two lists are done) */
    for (size_t i = 0; i < slinky_doc_value_size(user) && !rc; i++) {
        const char *k = slinky_doc_value_key_at(user, i);
        if (strcmp(k, "containers") && strcmp(k, "initContainers"))
            rc = merge_member(spec, k, slinky_doc_value_member_at(user, i),
                              SLINKY_WL_SMP_POD_SPEC, true);
    }
    return rc;
}

static const char *const probe_handlers[] = {"exec", "httpGet", "tcpSocket", "grpc"};

int slinky_workload__merge_container(slinky_doc_value *c, const slinky_doc_value *user)
{
    if (slinky_doc_value_type(user) != SLINKY_DOC_OBJECT)
        return 0;
    int rc = 0;
    const slinky_doc_value *uargs = slinky_doc_value_get(user, "args");
    if (slinky_doc_value_size(uargs) && slinky_doc_value_type(uargs) == SLINKY_DOC_ARRAY) {
        slinky_doc_value *args = NULL;
        if ((rc = slinky_workload__arr(&args, c, "args")) ||
            (rc = slinky_workload__append_all(args, uargs)))
            return rc;
    }
    static const char *const probes[] = {"livenessProbe", "readinessProbe", "startupProbe"};
    for (size_t i = 0; i < 3; i++) {
        const slinky_doc_value *up = slinky_doc_value_get(user, probes[i]);
        slinky_doc_value *bp = slinky_doc_value_get(c, probes[i]);
        if (slinky_doc_value_type(up) != SLINKY_DOC_OBJECT || !bp)
            continue;
        /* ProbeHandler replaced: the base loses its handler, the user's comes in below. */
        for (size_t h = 0; h < SLINKY__ARRAY_SIZE(probe_handlers); h++)
            if (slinky_doc_value_get(bp, probe_handlers[h]))
                slinky_doc_value_object_remove(bp, probe_handlers[h]);
        for (size_t h = 0; h < SLINKY__ARRAY_SIZE(probe_handlers) && !rc; h++) {
            const slinky_doc_value *uh = slinky_doc_value_get(up, probe_handlers[h]);
            if (uh)
                rc = slinky_doc_value_object_set(bp, probe_handlers[h], uh);
        }
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < slinky_doc_value_size(user) && !rc; i++) {
        const char *k = slinky_doc_value_key_at(user, i);
        if (strcmp(k, "args"))
            rc = merge_member(c, k, slinky_doc_value_member_at(user, i), SLINKY_WL_SMP_CONTAINER,
                              true);
    }
    return rc;
}

/* ------------------------------------------------------------ services */

int slinky_workload__service_spec(slinky_doc_value *root, const slinky_doc_value *user_spec,
                                  const slinky_doc_value *selector,
                                  const slinky_workload__port *port, bool headless,
                                  const slinky_model_object *from, const char *field)
{
    slinky_doc_value *spec = NULL, *ports = NULL, *p = NULL, *sel = NULL;
    int rc;
    if ((rc = slinky_workload__obj(&spec, root, "spec")))
        return rc;
    if (slinky_doc_value_type(user_spec) == SLINKY_DOC_OBJECT &&
        (rc = slinky_doc_value_set_copy(spec, user_spec)))
        return rc;
    if (slinky_doc_value_get(spec, "externalIPs"))
        slinky_doc_value_object_remove(spec, "externalIPs");
    if ((rc = slinky_workload__arr(&ports, spec, "ports")) ||
        (rc = slinky_workload__push_obj(&p, ports)) ||
        (rc = slinky_doc_value_object_set_string(p, "name", port->name)) ||
        (rc = slinky_doc_value_object_set_string(p, "protocol", "TCP")) ||
        (rc = slinky_doc_value_object_set_int(p, "port", port->port)) ||
        (rc = slinky_doc_value_object_set_string(p, "targetPort", port->name)) ||
        (port->node_port && (rc = slinky_doc_value_object_set_int(p, "nodePort", port->node_port))))
        return rc;
    size_t n = slinky_doc_value_size(ports);
    for (size_t i = 0; n > 1 && i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const slinky_doc_value *a = slinky_doc_value_at(ports, i), *b = slinky_doc_value_at(ports, j);
            const char *an = slinky_doc_value_path_string(a, "name", "");
            if (!strcmp(an, slinky_doc_value_path_string(b, "name", "")))
                return slinky__error_set(SLINKY_EINVALID,
                                         "workload: %s: %s.ports: port name '%s' is already "
                                         "taken by another port",
                                         slinky_workload__describe(from), field, an);
            int64_t ap = slinky_doc_value_path_int(a, "port", 0);
            if (ap == slinky_doc_value_path_int(b, "port", -1))
                return slinky__error_set(SLINKY_EINVALID,
                                         "workload: %s: %s.ports: port number '%lld' is already "
                                         "taken by another port",
                                         slinky_workload__describe(from), field, (long long)ap);
        }
    if ((rc = slinky_workload__obj(&sel, spec, "selector")))
        return rc;
    for (size_t i = 0; i < slinky_doc_value_size(selector) && !rc; i++)
        rc = slinky_doc_value_object_set(sel, slinky_doc_value_key_at(selector, i),
                                         slinky_doc_value_member_at(selector, i));
    if (!rc && headless) {
        if (!(rc = slinky_doc_value_object_set_string(spec, "clusterIP", "None")))
            rc = slinky_doc_value_object_set_bool(spec, "publishNotReadyAddresses", true);
    }
    return rc;
}

int slinky_workload__owner_service(slinky_workload *w, const slinky_model_object *owner,
                                   const char *name, const char *app, int64_t def_port,
                                   slinky_workload__meta_fn meta_fn, const char *sel_key,
                                   const char *sel_value)
{
    const slinky_doc_value *svc =
        slinky_doc_value_path(slinky_model_object_get_value(owner), "spec.service");
    slinky_doc *doc = NULL, *sel = NULL;
    slinky_doc_value *root, *meta;
    int rc;
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "Service",
                                          slinky_model_object_get_namespace(owner), name)) ||
        (rc = meta_fn(meta, owner, slinky_doc_value_get(svc, "metadata"))) ||
        (rc = slinky_doc_new(&sel)) || (rc = slinky_doc_value_set_object(slinky_doc_root(sel))) ||
        (rc = slinky_workload__labels(slinky_doc_root(sel), app,
                                      slinky_model_object_get_name(owner), NULL)) ||
        (sel_key && (rc = slinky_doc_value_object_set_string(slinky_doc_root(sel), sel_key, sel_value))))
        goto done;
    slinky_workload__meta_prune(meta);
    int64_t port = slinky_doc_value_path_int(svc, "port", 0);
    slinky_workload__port p = {app, port ? port : def_port,
                               slinky_doc_value_path_int(svc, "nodePort", 0)};
    if (!(rc = slinky_workload__service_spec(root, slinky_doc_value_get(svc, "spec"),
                                             slinky_doc_root(sel), &p, false, owner,
                                             "spec.service.spec")))
        rc = slinky_workload__set_controller_ref(meta, owner);
done:
    slinky_doc_free(sel);
    return slinky_workload__push_done(w, doc, rc);
}

/* ------------------------------------------------------------ quantities */

int slinky_workload__quantity(int64_t *out, const slinky_doc_value *q)
{
    *out = 0;
    if (!q || slinky_doc_value_is_null(q))
        return 0;
    if (slinky_doc_value_type(q) == SLINKY_DOC_INT) {
        *out = slinky_doc_value_get_int(q);
        return 0;
    }
    const char *s = slinky_doc_value_get_string(q);
    char buf[64];
    if (!s && slinky_doc_value_is_number(q)) {
        snprintf(buf, sizeof(buf), "%.17g", slinky_doc_value_get_double(q));
        s = buf;
    }
    if (!s || !*s)
        return slinky__error_set(SLINKY_EINVALID, "workload: bad resource quantity");
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s)
        return slinky__error_set(SLINKY_EINVALID, "workload: bad resource quantity \"%s\"", s);
    static const struct {
        const char *suffix;
        double mult;
    } sfx[] = {{"", 1},         {"m", 1e-3},     {"k", 1e3},      {"M", 1e6},
               {"G", 1e9},      {"T", 1e12},     {"P", 1e15},     {"E", 1e18},
               {"Ki", 1024.0},  {"Mi", 1048576.0}, {"Gi", 1073741824.0},
               {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
               {"Ei", 1152921504606846976.0}};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(sfx); i++)
        if (!strcmp(end, sfx[i].suffix)) {
            double r = v * sfx[i].mult;
            int64_t iv = (int64_t)r;
            if ((double)iv < r)
                iv++;
            *out = iv;
            return 0;
        }
    return slinky__error_set(SLINKY_EINVALID, "workload: bad resource quantity \"%s\"", s);
}

char *slinky_workload__fqdn(const slinky_workload_input *in, const char *name,
                            const char *namespace_)
{
    const char *domain = in && in->cluster_domain && *in->cluster_domain ? in->cluster_domain
                                                                         : "cluster.local";
    return slinky__sprintf("%s.%s.svc.%s", name, namespace_ ? namespace_ : "", domain);
}

/* ------------------------------------------------------------ pieces */

int slinky_workload__empty_dir(slinky_doc_value *volumes, const char *name, bool memory)
{
    slinky_doc_value *v = NULL, *ed = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&v, volumes)) ||
        (rc = slinky_doc_value_object_set_string(v, "name", name)) ||
        (rc = slinky_workload__obj(&ed, v, "emptyDir")))
        return rc;
    return memory ? slinky_doc_value_object_set_string(ed, "medium", "Memory") : 0;
}

int slinky_workload__mount(slinky_doc_value *mounts, const char *name, const char *path,
                           bool read_only)
{
    slinky_doc_value *m = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&m, mounts)) ||
        (rc = slinky_doc_value_object_set_string(m, "name", name)) ||
        (read_only && (rc = slinky_doc_value_object_set_bool(m, "readOnly", true))))
        return rc;
    return slinky_doc_value_object_set_string(m, "mountPath", path);
}

int slinky_workload__projected(slinky_doc_value **sources, slinky_doc_value *volumes,
                               const char *name, int64_t mode)
{
    slinky_doc_value *v = NULL, *proj = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&v, volumes)) ||
        (rc = slinky_doc_value_object_set_string(v, "name", name)) ||
        (rc = slinky_workload__obj(&proj, v, "projected")) ||
        (rc = slinky_doc_value_object_set_int(proj, "defaultMode", mode)))
        return rc;
    return slinky_workload__arr(sources, proj, "sources");
}

int slinky_workload__projection(slinky_doc_value *sources, bool secret, const char *name,
                                const char *key, const char *path)
{
    slinky_doc_value *src = NULL, *p = NULL, *items = NULL, *it = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&src, sources)) ||
        (rc = slinky_workload__obj(&p, src, secret ? "secret" : "configMap")) ||
        (rc = slinky_doc_value_object_set_string(p, "name", name ? name : "")))
        return rc;
    if (!path)
        return 0;
    if ((rc = slinky_workload__arr(&items, p, "items")) ||
        (rc = slinky_workload__push_obj(&it, items)) ||
        (rc = slinky_doc_value_object_set_string(it, "key", key ? key : "")))
        return rc;
    return slinky_doc_value_object_set_string(it, "path", path);
}

int slinky_workload__probe(slinky_doc_value *c, const char *field, const char *path,
                           const char *port_name, int64_t port_number,
                           int64_t failure_threshold, int64_t period)
{
    slinky_doc_value *p = NULL, *h = NULL;
    int rc;
    if ((rc = slinky_workload__obj(&p, c, field)) ||
        (rc = slinky_workload__obj(&h, p, path ? "httpGet" : "tcpSocket")))
        return rc;
    if (path && ((rc = slinky_doc_value_object_set_string(h, "path", path)) ||
                 (rc = slinky_doc_value_object_set_string(h, "port", port_name))))
        return rc;
    if (!path && (rc = slinky_doc_value_object_set_int(h, "port", port_number)))
        return rc;
    if (failure_threshold &&
        (rc = slinky_doc_value_object_set_int(p, "failureThreshold", failure_threshold)))
        return rc;
    return period ? slinky_doc_value_object_set_int(p, "periodSeconds", period) : 0;
}

/* The log pipe reader: make the FIFO the daemon logs into and copy it to stdout. */
static const char logfile_script[] =
    "set -eu\n"
    "pipe=\"${SOCKET:-/tmp/logfile.log}\"\n"
    "trap 'exit 0' TERM\n"
    "trap 'exit 1' INT HUP\n"
    "mkdir -p \"$(dirname \"$pipe\")\"\n"
    "[ -p \"$pipe\" ] || { rm -f \"$pipe\"; mkfifo -m 777 \"$pipe\"; }\n"
    "while :; do cat \"$pipe\" || :; sleep 1; done\n";

int slinky_workload__logfile_container(slinky_doc_value *init_containers,
                                       const slinky_doc_value *user, const char *log_path)
{
    slinky_doc_value *c = NULL, *env = NULL, *e = NULL, *cmd = NULL, *mounts = NULL;
    int rc;
    if ((rc = slinky_workload__push_obj(&c, init_containers)) ||
        (rc = slinky_doc_value_object_set_string(c, "name", "logfile")) ||
        (rc = slinky_workload__arr(&env, c, "env")) || (rc = slinky_workload__push_obj(&e, env)) ||
        (rc = slinky_doc_value_object_set_string(e, "name", "SOCKET")) ||
        (rc = slinky_doc_value_object_set_string(e, "value", log_path)) ||
        (rc = slinky_workload__arr(&cmd, c, "command")) ||
        (rc = slinky_workload__push_str(cmd, "sh")) || (rc = slinky_workload__push_str(cmd, "-c")) ||
        (rc = slinky_workload__push_str(cmd, logfile_script)) ||
        (rc = slinky_doc_value_object_set_string(c, "restartPolicy", "Always")) ||
        (rc = slinky_workload__arr(&mounts, c, "volumeMounts")) ||
        (rc = slinky_workload__mount(mounts, SLINKY_WL_LOG_VOLUME, SLINKY_WL_LOG_DIR, false)))
        return rc;
    return slinky_workload__merge_container(c, user);
}

int slinky_workload__run_as(slinky_doc_value *obj, const char *field, int64_t uid, bool fs_group)
{
    slinky_doc_value *sc = NULL;
    int rc;
    if ((rc = slinky_workload__obj(&sc, obj, field)) ||
        (rc = slinky_doc_value_object_set_bool(sc, "runAsNonRoot", true)) ||
        (rc = slinky_doc_value_object_set_int(sc, "runAsUser", uid)) ||
        (rc = slinky_doc_value_object_set_int(sc, "runAsGroup", uid)))
        return rc;
    return fs_group ? slinky_doc_value_object_set_int(sc, "fsGroup", uid) : 0;
}

void slinky_workload__jwt_ref(const char **name, const char **key, const slinky_model_object *o)
{
    const slinky_doc_value *spec = slinky_doc_value_get(slinky_model_object_get_value(o), "spec");
    const slinky_doc_value *ref = slinky_doc_value_get(spec, "jwtKeyRef");
    if (!ref || slinky_doc_value_is_null(ref))
        ref = slinky_doc_value_get(spec, "jwtHs256KeyRef");
    *name = slinky_doc_value_path_string(ref, "name", "");
    *key = slinky_doc_value_path_string(ref, "key", "");
}

static int secret_data_hash(char out[65], const slinky_workload_input *in,
                            const slinky_model_object *o, const char *name)
{
    const slinky_model_object *s = NULL;
    out[0] = '\0';
    if (!name || !*name ||
        slinky_workload_input_find(&s, in, SLINKY_MODEL_KIND_SECRET,
                                   slinky_model_object_get_namespace(o), name))
        return 0; /* upstream: a Secret that is not there hashes as "" */
    return slinky_workload__checksum_map(
        out, slinky_doc_value_get(slinky_model_object_get_value(s), "data"), true);
}

int slinky_workload__auth_hashes(slinky_doc_value *meta, const slinky_workload_input *in,
                                 const slinky_model_object *o)
{
    char h[65];
    const char *jn, *jk;
    int rc;
    const char *sn = slinky_doc_value_path_string(slinky_model_object_get_value(o),
                                                  "spec.slurmKeyRef.name", "");
    slinky_workload__jwt_ref(&jn, &jk, o);
    if ((rc = secret_data_hash(h, in, o, sn)) ||
        (rc = slinky_workload__map_put(meta, "annotations", SLINKY_WL_ANN_SLURM_KEY_HASH, h)) ||
        (rc = secret_data_hash(h, in, o, jn)))
        return rc;
    return slinky_workload__map_put(meta, "annotations", SLINKY_WL_ANN_JWT_KEY_HASH, h);
}
