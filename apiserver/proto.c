/*
 * A minimal decoder for Kubernetes protobuf request bodies
 * (application/vnd.kubernetes.protobuf), which kubectl's typed subcommands
 * send: `kubectl create namespace|configmap|secret`. The envelope is
 * "k8s\0" + runtime.Unknown{typeMeta, raw}; the object is decoded into JSON
 * for Namespace, ConfigMap, Secret, ServiceAccount and TokenRequest (`kubectl
 * create token`: audiences, expirationSeconds) (ObjectMeta with name,
 * generateName, namespace, labels, annotations, ownerReferences,
 * finalizers). Other kinds are refused with 415 by the caller.
 */
#include "pure.h"

#include <string.h>

typedef struct pb {
    const unsigned char *p, *end;
} pb;

static int varint(pb *b, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (b->p >= b->end)
            return -1;
        unsigned char c = *b->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* next field: number, wire type, and for wire type 2 the bytes */
static int next(pb *b, unsigned *field, unsigned *wt, pb *sub, uint64_t *num)
{
    uint64_t key;
    if (varint(b, &key))
        return -1;
    *field = (unsigned)(key >> 3);
    *wt = (unsigned)(key & 7);
    switch (*wt) {
    case 0:
        return varint(b, num);
    case 1:
        if (b->end - b->p < 8)
            return -1;
        b->p += 8;
        return 0;
    case 5:
        if (b->end - b->p < 4)
            return -1;
        b->p += 4;
        return 0;
    case 2: {
        uint64_t len;
        if (varint(b, &len) || (uint64_t)(b->end - b->p) < len)
            return -1;
        sub->p = b->p;
        sub->end = b->p + len;
        b->p += len;
        return 0;
    }
    default:
        return -1;
    }
}

static int set_str(slinky_doc_value *obj, const char *key, const pb *s)
{
    slinky_doc_value *v = NULL;
    int rc = slinky_doc_value_object_put(&v, obj, key);
    return rc ? rc : slinky_doc_value_set_string_len(v, (const char *)s->p, (size_t)(s->end - s->p));
}

/* map<string,string|bytes> entry {1: key, 2: value} */
static int map_entry(slinky_doc_value *obj, const char *key, pb *entry, bool bytes)
{
    slinky_doc_value *m = NULL;
    int rc = slinky_doc_value_object_put(&m, obj, key);
    if (rc)
        return rc;
    if (slinky_doc_value_type(m) != SLINKY_DOC_OBJECT)
        slinky_doc_value_set_object(m);
    pb k = {NULL, NULL}, v = {(const unsigned char *)"", (const unsigned char *)""}, s;
    unsigned f, wt;
    uint64_t num;
    while (entry->p < entry->end) {
        if (next(entry, &f, &wt, &s, &num))
            return -1;
        if (f == 1 && wt == 2)
            k = s;
        else if (f == 2 && wt == 2)
            v = s;
    }
    if (!k.p)
        return -1;
    char *kk = as_strndup((const char *)k.p, (size_t)(k.end - k.p));
    if (!kk)
        return SLINKY_ENOMEM;
    slinky_doc_value *e = NULL;
    rc = slinky_doc_value_object_put(&e, m, kk);
    free(kk);
    if (rc)
        return rc;
    if (bytes) {
        char *enc = as_base64(v.p, (size_t)(v.end - v.p), false);
        rc = enc ? slinky_doc_value_set_string(e, enc) : SLINKY_ENOMEM;
        free(enc);
        return rc;
    }
    return slinky_doc_value_set_string_len(e, (const char *)v.p, (size_t)(v.end - v.p));
}

static int append_str(slinky_doc_value *obj, const char *key, const pb *s)
{
    slinky_doc_value *arr = NULL, *e = NULL;
    int rc = slinky_doc_value_object_put(&arr, obj, key);
    if (rc)
        return rc;
    if (slinky_doc_value_type(arr) != SLINKY_DOC_ARRAY)
        slinky_doc_value_set_array(arr);
    rc = slinky_doc_value_array_append(&e, arr);
    return rc ? rc : slinky_doc_value_set_string_len(e, (const char *)s->p, (size_t)(s->end - s->p));
}

static int owner_ref(slinky_doc_value *md, pb *m)
{
    slinky_doc_value *arr = NULL, *o = NULL;
    int rc = slinky_doc_value_object_put(&arr, md, "ownerReferences");
    if (rc)
        return rc;
    if (slinky_doc_value_type(arr) != SLINKY_DOC_ARRAY)
        slinky_doc_value_set_array(arr);
    slinky_doc_value_array_append(&o, arr);
    slinky_doc_value_set_object(o);
    unsigned f, wt;
    uint64_t num;
    pb s;
    while (m->p < m->end) {
        if (next(m, &f, &wt, &s, &num))
            return -1;
        static const char *const names[] = {NULL, "kind", NULL, "name", "uid", "apiVersion"};
        if (wt == 2 && f < 6 && names[f])
            set_str(o, names[f], &s);
        else if (wt == 0 && f == 6)
            slinky_doc_value_object_set_bool(o, "controller", num != 0);
        else if (wt == 0 && f == 7)
            slinky_doc_value_object_set_bool(o, "blockOwnerDeletion", num != 0);
    }
    return 0;
}

static int object_meta(slinky_doc_value *root, pb *m)
{
    slinky_doc_value *md = NULL;
    int rc = slinky_doc_value_object_put(&md, root, "metadata");
    if (rc)
        return rc;
    slinky_doc_value_set_object(md);
    unsigned f, wt;
    uint64_t num;
    pb s;
    while (m->p < m->end) {
        if (next(m, &f, &wt, &s, &num))
            return -1;
        if (wt != 2 || (s.p == s.end && f <= 3))
            continue; /* gogo-protobuf writes empty strings too */
        switch (f) {
        case 1:
            rc = set_str(md, "name", &s);
            break;
        case 2:
            rc = set_str(md, "generateName", &s);
            break;
        case 3:
            rc = set_str(md, "namespace", &s);
            break;
        case 11:
            rc = map_entry(md, "labels", &s, false);
            break;
        case 12:
            rc = map_entry(md, "annotations", &s, false);
            break;
        case 13:
            rc = owner_ref(md, &s);
            break;
        case 14:
            rc = append_str(md, "finalizers", &s);
            break;
        default:
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* the spec of a Namespace (finalizers: 1) or a TokenRequest (audiences: 1, expirationSeconds: 4) */
static int decode_spec(slinky_doc_value *root, pb *s, int k)
{
    slinky_doc_value *spec = NULL;
    int rc = slinky_doc_value_object_put(&spec, root, "spec");
    if (!rc)
        rc = slinky_doc_value_set_object(spec);
    pb e;
    unsigned f, wt;
    uint64_t num;
    while (!rc && s->p < s->end) {
        if (next(s, &f, &wt, &e, &num))
            return -1;
        if (f == 1 && wt == 2)
            rc = append_str(spec, k == 1 ? "finalizers" : "audiences", &e);
        else if (k == 5 && f == 4 && wt == 0)
            rc = slinky_doc_value_object_set_int(spec, "expirationSeconds", (int64_t)num);
    }
    return rc;
}

int as_proto_decode(slinky_doc **out, const char *data, size_t len)
{
    if (len < 4 || memcmp(data, "k8s\0", 4) != 0)
        return slinky_error_set(SLINKY_EPARSE, "not a Kubernetes protobuf envelope");
    pb b = {(const unsigned char *)data + 4, (const unsigned char *)data + len};
    pb tm = {NULL, NULL}, raw = {NULL, NULL}, s;
    unsigned f, wt;
    uint64_t num;
    while (b.p < b.end) {
        if (next(&b, &f, &wt, &s, &num))
            return slinky_error_set(SLINKY_EPARSE, "malformed protobuf envelope");
        if (f == 1 && wt == 2)
            tm = s;
        else if (f == 2 && wt == 2)
            raw = s;
    }
    char api[128] = "", kind[128] = "";
    while (tm.p && tm.p < tm.end) {
        if (next(&tm, &f, &wt, &s, &num) || wt != 2)
            break;
        size_t n = (size_t)(s.end - s.p);
        char *dst = f == 1 ? api : f == 2 ? kind : NULL;
        if (dst && n < 128) {
            memcpy(dst, s.p, n);
            dst[n] = '\0';
        }
    }
    int k = !strcmp(kind, "Namespace")        ? 1
            : !strcmp(kind, "ConfigMap")      ? 2
            : !strcmp(kind, "Secret")         ? 3
            : !strcmp(kind, "ServiceAccount") ? 4
            : !strcmp(kind, "TokenRequest")   ? 5
                                              : 0;
    if (!k || !raw.p)
        return slinky_error_set(SLINKY_EUNSUPPORTED, "protobuf bodies of kind %s are not supported",
                                 kind);
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc)
        return rc;
    slinky_doc_value *root = slinky_doc_root(d);
    slinky_doc_value_set_object(root);
    slinky_doc_value_object_set_string(root, "apiVersion", api);
    slinky_doc_value_object_set_string(root, "kind", kind);
    while (!rc && raw.p < raw.end) {
        if (next(&raw, &f, &wt, &s, &num)) {
            rc = -1;
            break;
        }
        if (f == 1 && wt == 2) {
            rc = object_meta(root, &s);
        } else if ((k == 1 || k == 5) && f == 2 && wt == 2) {
            rc = decode_spec(root, &s, k);
        } else if ((k == 2 || k == 3) && f == 2 && wt == 2) {
            rc = map_entry(root, "data", &s, k == 3);
        } else if (k == 2 && f == 3 && wt == 2) {
            rc = map_entry(root, "binaryData", &s, true);
        } else if (k == 3 && f == 3 && wt == 2) {
            if (s.p != s.end)
                rc = set_str(root, "type", &s);
        } else if (k == 3 && f == 4 && wt == 2) {
            rc = map_entry(root, "stringData", &s, false);
        } else if (((k == 2 && f == 4) || (k == 3 && f == 5)) && wt == 0) {
            rc = slinky_doc_value_object_set_bool(root, "immutable", num != 0);
        } else if (k == 4 && f == 4 && wt == 0) {
            rc = slinky_doc_value_object_set_bool(root, "automountServiceAccountToken", num != 0);
        }
    }
    if (rc) {
        slinky_doc_free(d);
        return rc < 0 && rc != SLINKY_ENOMEM
                   ? slinky_error_set(SLINKY_EPARSE, "malformed protobuf %s", kind)
                   : rc;
    }
    *out = d;
    return 0;
}
