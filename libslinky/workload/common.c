/* workload: the object set, object skeletons, labels, owner references,
 * hashes, strategic merges and input lookups shared by every builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"
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
        const char *n = slinky_model_object_get_name(o);
        if (o && slinky_model_object_get_kind(o) == kind && n && !strcmp(n, name) &&
            same_ns(slinky_model_object_get_namespace(o), namespace_)) {
            *out = o;
            return 0;
        }
    }
    const char *kn = slinky_model_kind_name(kind);
    return slinky__error_set(SLINKY_ENOTFOUND, "workload: no %s %s%s%s in the input",
                             kn ? kn : "object", namespace_ && *namespace_ ? namespace_ : "",
                             namespace_ && *namespace_ ? "/" : "", name);
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
    slinky_model__sha256_hex(out, data, len);
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
        slinky_model__sha256_hex(out, b.data, b.len);
    slinky__buf_dispose(&b);
    return rc;
}

int slinky_workload__value_hash(char out[65], const slinky_doc_value *v)
{
    char *json = NULL;
    size_t len = 0;
    int rc = slinky_doc_value_dump_json(&json, &len, v, SLINKY_DOC_DUMP_SORT_KEYS);
    if (rc)
        return rc;
    slinky_model__sha256_hex(out, json, len);
    slinky_free(json);
    return 0;
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

static int merge_list(slinky_doc_value *base, const slinky_doc_value *patch, const char *mkey,
                      slinky_workload__smp_type elem)
{
    int rc = 0;
    if (slinky_doc_value_type(base) != SLINKY_DOC_ARRAY)
        return slinky_doc_value_set_copy(base, patch);
    size_t nb = slinky_doc_value_size(base);
    for (size_t i = 0; i < slinky_doc_value_size(patch) && !rc; i++) {
        const slinky_doc_value *p = slinky_doc_value_at(patch, i);
        const slinky_doc_value *pk = slinky_doc_value_get(p, mkey);
        slinky_doc_value *match = NULL;
        for (size_t j = 0; pk && j < nb && !match; j++) {
            slinky_doc_value *b = slinky_doc_value_at(base, j);
            if (slinky_doc_value_equal(slinky_doc_value_get(b, mkey), pk))
                match = b;
        }
        if (match) {
            rc = merge_value(match, p, elem, false);
        } else {
            slinky_doc_value *slot = NULL;
            if (!(rc = slinky_doc_value_array_append(&slot, base)))
                rc = slinky_doc_value_set_copy(slot, p);
        }
    }
    return rc;
}

static int merge_value(slinky_doc_value *base, const slinky_doc_value *patch,
                       slinky_workload__smp_type type, bool top)
{
    if (slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT ||
        slinky_doc_value_type(base) != SLINKY_DOC_OBJECT)
        return slinky_doc_value_set_copy(base, patch);
    int rc = 0;
    for (size_t i = 0; i < slinky_doc_value_size(patch) && !rc; i++) {
        const char *k = slinky_doc_value_key_at(patch, i);
        const slinky_doc_value *pv = slinky_doc_value_member_at(patch, i);
        /* removeEmpty: only the patch's maps are pruned, not list elements. */
        if (top && is_empty(pv))
            continue;
        if (slinky_doc_value_type(pv) == SLINKY_DOC_NULL) {
            slinky_doc_value_object_remove(base, k);
            continue;
        }
        slinky_doc_value *bv = slinky_doc_value_get(base, k);
        if (!bv) {
            slinky_doc_value *slot = NULL;
            if ((rc = slinky_doc_value_object_put(&slot, base, k)))
                break;
            /* a map patched in is pruned of empty members too (removeEmpty) */
            if (top && slinky_doc_value_type(pv) == SLINKY_DOC_OBJECT &&
                !(rc = slinky_doc_value_set_object(slot)))
                rc = merge_value(slot, pv, SLINKY_WL_SMP_OBJECT, true);
            else
                rc = slinky_doc_value_set_copy(slot, pv);
            continue;
        }
        slinky_workload__smp_type elem;
        const char *mkey = list_key(type, k, &elem);
        if (slinky_doc_value_type(pv) == SLINKY_DOC_ARRAY && mkey)
            rc = merge_list(bv, pv, mkey, elem);
        else if (slinky_doc_value_type(pv) == SLINKY_DOC_OBJECT)
            rc = merge_value(bv, pv, SLINKY_WL_SMP_OBJECT, top);
        else
            rc = slinky_doc_value_set_copy(bv, pv);
    }
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
