/*
 * Strategic merge patch for the built-in kinds: a JSON merge patch whose lists
 * of objects with a known merge key (containers by name, ports by
 * containerPort/port, volumeMounts by mountPath, ownerReferences by uid,
 * conditions by type, ...) are merged element by element, metadata.finalizers
 * merged as a set, with the directives $patch (replace/delete/merge),
 * $retainKeys, $deleteFromPrimitiveList/<field> and $setElementOrder/<field>
 * (order is kept as stored; the directive is dropped).
 */
#include "pure.h"

#include <string.h>

static const struct {
    const char *field, *key;
} k_merge_keys[] = {
    {"containers", "name"},       {"initContainers", "name"}, {"ephemeralContainers", "name"},
    {"env", "name"},              {"volumes", "name"},        {"volumeMounts", "mountPath"},
    {"imagePullSecrets", "name"}, {"ownerReferences", "uid"}, {"conditions", "type"},
    {"hostAliases", "ip"},        {"volumeDevices", "devicePath"},
    {"topologySpreadConstraints", "topologyKey"}, {"resourceClaims", "name"},
};

static const char *merge_key(const char *field, const slinky_doc_value *patch_list)
{
    for (size_t i = 0; i < AS_ARRAY_SIZE(k_merge_keys); i++)
        if (!strcmp(field, k_merge_keys[i].field))
            return k_merge_keys[i].key;
    if (!strcmp(field, "ports")) {
        /* container ports merge on containerPort, service ports on port */
        const slinky_doc_value *e = slinky_doc_value_at(patch_list, 0);
        return slinky_doc_value_get(e, "containerPort") ? "containerPort" : "port";
    }
    return NULL;
}

static bool primitive_set(const char *field)
{
    return !strcmp(field, "finalizers");
}

/* copy of v without $-directives (objects only, recursively) */
static int set_clean(slinky_doc_value *dst, const slinky_doc_value *src)
{
    int rc = slinky_doc_value_set_copy(dst, src);
    if (rc || slinky_doc_value_type(dst) != SLINKY_DOC_OBJECT)
        return rc;
    for (size_t i = 0; i < slinky_doc_value_size(dst);) {
        const char *k = slinky_doc_value_key_at(dst, i);
        if (k[0] == '$') {
            slinky_doc_value_object_remove(dst, k);
            continue;
        }
        i++;
    }
    return 0;
}

static bool key_equal(const slinky_doc_value *a, const slinky_doc_value *b, const char *key)
{
    const slinky_doc_value *x = slinky_doc_value_get(a, key), *y = slinky_doc_value_get(b, key);
    return x && y && slinky_doc_value_equal(x, y);
}

static int merge_obj(slinky_doc_value *target, const slinky_doc_value *patch);

static int merge_list(slinky_doc_value *target, const slinky_doc_value *patch, const char *field)
{
    const char *key = merge_key(field, patch);
    if (primitive_set(field) && slinky_doc_value_type(target) == SLINKY_DOC_ARRAY) {
        for (size_t i = 0; i < slinky_doc_value_size(patch); i++) {
            const slinky_doc_value *p = slinky_doc_value_at(patch, i);
            bool seen = false;
            for (size_t j = 0; j < slinky_doc_value_size(target) && !seen; j++)
                seen = slinky_doc_value_equal(slinky_doc_value_at(target, j), p);
            if (!seen) {
                slinky_doc_value *e = NULL;
                int rc = slinky_doc_value_array_append(&e, target);
                if (rc || (rc = slinky_doc_value_set_copy(e, p)))
                    return rc;
            }
        }
        return 0;
    }
    if (!key || slinky_doc_value_type(target) != SLINKY_DOC_ARRAY) {
        /* replace (dropping $patch: delete elements) */
        int rc = slinky_doc_value_set_array(target);
        for (size_t i = 0; !rc && i < slinky_doc_value_size(patch); i++) {
            const slinky_doc_value *p = slinky_doc_value_at(patch, i);
            if (!strcmp(slinky_doc_value_path_string(p, "$patch", ""), "delete"))
                continue;
            slinky_doc_value *e = NULL;
            rc = slinky_doc_value_array_append(&e, target);
            if (!rc)
                rc = set_clean(e, p);
        }
        return rc;
    }
    /* a list-level {"$patch": "replace"} element replaces the whole list */
    for (size_t i = 0; i < slinky_doc_value_size(patch); i++)
        if (!strcmp(slinky_doc_value_path_string(slinky_doc_value_at(patch, i), "$patch", ""),
                    "replace")) {
            int rc = slinky_doc_value_set_array(target);
            for (size_t j = 0; !rc && j < slinky_doc_value_size(patch); j++) {
                const slinky_doc_value *p = slinky_doc_value_at(patch, j);
                if (slinky_doc_value_get(p, "$patch"))
                    continue;
                slinky_doc_value *e = NULL;
                rc = slinky_doc_value_array_append(&e, target);
                if (!rc)
                    rc = set_clean(e, p);
            }
            return rc;
        }
    for (size_t i = 0; i < slinky_doc_value_size(patch); i++) {
        const slinky_doc_value *p = slinky_doc_value_at(patch, i);
        if (slinky_doc_value_type(p) != SLINKY_DOC_OBJECT || !slinky_doc_value_get(p, key))
            return slinky_error_set(SLINKY_EINVALID,
                                     "map: %s does not contain declared merge key: %s", field,
                                     key);
        size_t j, n = slinky_doc_value_size(target);
        for (j = 0; j < n; j++)
            if (key_equal(slinky_doc_value_at(target, j), p, key))
                break;
        bool del = !strcmp(slinky_doc_value_path_string(p, "$patch", ""), "delete");
        if (del) {
            if (j < n)
                slinky_doc_value_array_remove(target, j);
            continue;
        }
        int rc;
        if (j < n) {
            rc = merge_obj(slinky_doc_value_at(target, j), p);
        } else {
            slinky_doc_value *e = NULL;
            rc = slinky_doc_value_array_append(&e, target);
            if (!rc)
                rc = set_clean(e, p);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int merge_obj(slinky_doc_value *target, const slinky_doc_value *patch)
{
    int rc = 0;
    if (slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT)
        return slinky_doc_value_set_copy(target, patch);
    const char *directive = slinky_doc_value_path_string(patch, "$patch", "");
    if (!strcmp(directive, "replace") || slinky_doc_value_type(target) != SLINKY_DOC_OBJECT) {
        return set_clean(target, patch);
    }
    if (!strcmp(directive, "delete"))
        return slinky_doc_value_set_object(target);
    for (size_t i = 0; !rc && i < slinky_doc_value_size(patch); i++) {
        const char *k = slinky_doc_value_key_at(patch, i);
        const slinky_doc_value *pv = slinky_doc_value_member_at(patch, i);
        if (!strncmp(k, "$deleteFromPrimitiveList/", 25)) {
            slinky_doc_value *list = slinky_doc_value_get(target, k + 25);
            for (size_t j = slinky_doc_value_size(list); j-- > 0;)
                for (size_t m = 0; m < slinky_doc_value_size(pv); m++)
                    if (slinky_doc_value_equal(slinky_doc_value_at(list, j),
                                               slinky_doc_value_at(pv, m))) {
                        slinky_doc_value_array_remove(list, j);
                        break;
                    }
            continue;
        }
        if (k[0] == '$')
            continue;
        if (slinky_doc_value_is_null(pv)) {
            if (slinky_doc_value_get(target, k))
                slinky_doc_value_object_remove(target, k);
            continue;
        }
        slinky_doc_value *tv = NULL;
        bool existed = slinky_doc_value_get(target, k) != NULL;
        rc = slinky_doc_value_object_put(&tv, target, k);
        if (rc)
            break;
        if (slinky_doc_value_type(pv) == SLINKY_DOC_ARRAY && existed)
            rc = merge_list(tv, pv, k);
        else if (slinky_doc_value_type(pv) == SLINKY_DOC_OBJECT && existed)
            rc = merge_obj(tv, pv);
        else if (slinky_doc_value_type(pv) == SLINKY_DOC_ARRAY)
            rc = merge_list(tv, pv, k);
        else
            rc = set_clean(tv, pv);
    }
    const slinky_doc_value *retain = slinky_doc_value_get(patch, "$retainKeys");
    if (!rc && retain) {
        for (size_t i = 0; i < slinky_doc_value_size(target);) {
            const char *k = slinky_doc_value_key_at(target, i);
            bool keep = false;
            for (size_t j = 0; j < slinky_doc_value_size(retain) && !keep; j++)
                keep = !strcmp(k, slinky_doc_value_get_string(slinky_doc_value_at(retain, j))
                                      ? slinky_doc_value_get_string(slinky_doc_value_at(retain, j))
                                      : "");
            if (!keep) {
                slinky_doc_value_object_remove(target, k);
                continue;
            }
            i++;
        }
    }
    return rc;
}

int as_strategic_merge(slinky_doc_value *target, const slinky_doc_value *patch)
{
    if (slinky_doc_value_type(patch) != SLINKY_DOC_OBJECT)
        return slinky_error_set(SLINKY_EINVALID, "a strategic merge patch must be an object");
    slinky_doc *copy = NULL;
    int rc = slinky_doc_new_copy(&copy, target);
    if (rc)
        return rc;
    rc = merge_obj(slinky_doc_root(copy), patch);
    if (!rc)
        rc = slinky_doc_value_set_copy(target, slinky_doc_root(copy));
    slinky_doc_free(copy);
    return rc;
}
