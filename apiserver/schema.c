/*
 * openAPIV3Schema for custom resources: pruning, defaulting and validation as
 * a structural-schema apiserver does them. Patterns use POSIX extended
 * regular expressions (regcomp REG_EXTENDED) after translating the RE2
 * escapes \d \w \s (and their negations); patterns that still fail to
 * compile (lookarounds do not exist in RE2 either; (?i) flags, \b, lazy
 * quantifiers) are not checked.
 */
#include "pure.h"

#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int as_causes_add(as_causes *c, const char *reason, const char *field, const char *fmt, ...)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        as_cause *n = realloc(c->items, cap * sizeof(*n));
        if (!n)
            return as_err_oom();
        c->items = n;
        c->cap = cap;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    as_cause *x = &c->items[c->n++];
    x->reason = as_strdup(reason);
    x->field = as_strdup(field && *field ? field : "<root>");
    x->message = as_strdup(msg);
    return 0;
}

void as_causes_dispose(as_causes *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].reason);
        free(c->items[i].field);
        free(c->items[i].message);
    }
    free(c->items);
    memset(c, 0, sizeof(*c));
}

static char *child_path(const char *path, const char *key)
{
    if (!path || !*path)
        return as_strdup(key);
    return as_sprintf("%s.%s", path, key);
}

static char *index_path(const char *path, size_t i)
{
    return as_sprintf("%s[%zu]", path ? path : "", i);
}

static bool flag(const slinky_doc_value *schema, const char *key)
{
    return slinky_doc_value_path_bool(schema, key, false);
}

static const slinky_doc_value *prop_schema(const slinky_doc_value *schema, const char *key)
{
    const slinky_doc_value *props = slinky_doc_value_get(schema, "properties");
    const slinky_doc_value *p = props ? slinky_doc_value_get(props, key) : NULL;
    if (p)
        return p;
    const slinky_doc_value *ap = slinky_doc_value_get(schema, "additionalProperties");
    if (slinky_doc_value_type(ap) == SLINKY_DOC_OBJECT)
        return ap;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* pruning                                                            */
/* ------------------------------------------------------------------ */

void as_schema_prune(slinky_doc_value *obj, const slinky_doc_value *schema, bool root,
                     as_causes *unknown, const char *path)
{
    if (!schema)
        return;
    slinky_doc_type t = slinky_doc_value_type(obj);
    if (t == SLINKY_DOC_ARRAY) {
        const slinky_doc_value *items = slinky_doc_value_get(schema, "items");
        for (size_t i = 0; items && i < slinky_doc_value_size(obj); i++) {
            char *p = index_path(path, i);
            as_schema_prune(slinky_doc_value_at(obj, i), items, false, unknown, p);
            free(p);
        }
        return;
    }
    if (t != SLINKY_DOC_OBJECT)
        return;
    bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    bool embedded = flag(schema, "x-kubernetes-embedded-resource");
    const slinky_doc_value *ap = slinky_doc_value_get(schema, "additionalProperties");
    bool ap_any = slinky_doc_value_type(ap) == SLINKY_DOC_BOOL && slinky_doc_value_get_bool(ap);
    for (size_t i = 0; i < slinky_doc_value_size(obj);) {
        const char *key = slinky_doc_value_key_at(obj, i);
        slinky_doc_value *v = slinky_doc_value_member_at(obj, i);
        if ((root || embedded) &&
            (!strcmp(key, "apiVersion") || !strcmp(key, "kind") || !strcmp(key, "metadata"))) {
            i++;
            continue;
        }
        const slinky_doc_value *ps = prop_schema(schema, key);
        if (!ps && !preserve && !ap_any) {
            if (unknown) {
                char *p = child_path(path, key);
                as_causes_add(unknown, "FieldValueInvalid", p, "unknown field");
                free(p);
            }
            slinky_doc_value_object_remove(obj, key);
            continue;
        }
        if (ps && slinky_doc_value_is_null(v) && !flag(ps, "nullable")) {
            slinky_doc_value_object_remove(obj, key);
            continue;
        }
        if (ps) {
            char *p = child_path(path, key);
            as_schema_prune(v, ps, false, unknown, p);
            free(p);
        }
        i++;
    }
}

/* ------------------------------------------------------------------ */
/* defaulting                                                         */
/* ------------------------------------------------------------------ */

int as_schema_default(slinky_doc_value *obj, const slinky_doc_value *schema)
{
    if (!schema)
        return 0;
    slinky_doc_type t = slinky_doc_value_type(obj);
    if (t == SLINKY_DOC_ARRAY) {
        const slinky_doc_value *items = slinky_doc_value_get(schema, "items");
        for (size_t i = 0; items && i < slinky_doc_value_size(obj); i++)
            as_schema_default(slinky_doc_value_at(obj, i), items);
        return 0;
    }
    if (t != SLINKY_DOC_OBJECT)
        return 0;
    const slinky_doc_value *props = slinky_doc_value_get(schema, "properties");
    for (size_t i = 0; i < slinky_doc_value_size(props); i++) {
        const char *key = slinky_doc_value_key_at(props, i);
        const slinky_doc_value *ps = slinky_doc_value_member_at(props, i);
        const slinky_doc_value *def = slinky_doc_value_get(ps, "default");
        if (def && !slinky_doc_value_get(obj, key)) {
            int rc = slinky_doc_value_object_set(obj, key, def);
            if (rc)
                return rc;
        }
    }
    for (size_t i = 0; i < slinky_doc_value_size(obj); i++) {
        const char *key = slinky_doc_value_key_at(obj, i);
        const slinky_doc_value *ps = prop_schema(schema, key);
        if (ps)
            as_schema_default(slinky_doc_value_member_at(obj, i), ps);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* validation                                                         */
/* ------------------------------------------------------------------ */

typedef struct as_re_entry {
    char *pattern;
    regex_t re;
    bool ok;
    struct as_re_entry *next;
} as_re_entry;

static pthread_mutex_t as_re_lock = PTHREAD_MUTEX_INITIALIZER;
static as_re_entry *as_re_cache;

/* RE2 escapes POSIX ERE lacks */
static char *translate(const char *p)
{
    as_buf b = AS_BUF_INIT;
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            const char *rep = NULL;
            switch (p[1]) {
            case 'd':
                rep = "[0-9]";
                break;
            case 'D':
                rep = "[^0-9]";
                break;
            case 'w':
                rep = "[A-Za-z0-9_]";
                break;
            case 'W':
                rep = "[^A-Za-z0-9_]";
                break;
            case 's':
                rep = "[[:space:]]";
                break;
            case 'S':
                rep = "[^[:space:]]";
                break;
            default:
                break;
            }
            if (rep) {
                as_buf_puts(&b, rep);
                p++;
                continue;
            }
            as_buf_putc(&b, p[0]);
            as_buf_putc(&b, p[1]);
            p++;
            continue;
        }
        as_buf_putc(&b, *p);
    }
    return as_buf_detach(&b, NULL);
}

/* 1 match, 0 no match, -1 pattern not supported */
static int as_re_match(const char *pattern, const char *s)
{
    pthread_mutex_lock(&as_re_lock);
    as_re_entry *e = as_re_cache;
    while (e && strcmp(e->pattern, pattern) != 0)
        e = e->next;
    if (!e) {
        e = as_calloc(1, sizeof(*e));
        if (!e) {
            pthread_mutex_unlock(&as_re_lock);
            return -1;
        }
        e->pattern = as_strdup(pattern);
        char *tr = translate(pattern);
        e->ok = tr && regcomp(&e->re, tr, REG_EXTENDED | REG_NOSUB) == 0;
        free(tr);
        e->next = as_re_cache;
        as_re_cache = e;
    }
    pthread_mutex_unlock(&as_re_lock);
    if (!e->ok)
        return -1;
    return regexec(&e->re, s, 0, NULL, 0) == 0 ? 1 : 0;
}

static const char *actual_type(const slinky_doc_value *v)
{
    return slinky_doc_type_name(slinky_doc_value_type(v));
}

static bool type_ok(const char *type, const slinky_doc_value *v)
{
    slinky_doc_type t = slinky_doc_value_type(v);
    if (!strcmp(type, "object"))
        return t == SLINKY_DOC_OBJECT;
    if (!strcmp(type, "array"))
        return t == SLINKY_DOC_ARRAY;
    if (!strcmp(type, "string"))
        return t == SLINKY_DOC_STRING;
    if (!strcmp(type, "boolean"))
        return t == SLINKY_DOC_BOOL;
    if (!strcmp(type, "integer"))
        return t == SLINKY_DOC_INT ||
               (t == SLINKY_DOC_DOUBLE &&
                slinky_doc_value_get_double(v) == (double)(int64_t)slinky_doc_value_get_double(v));
    if (!strcmp(type, "number"))
        return t == SLINKY_DOC_INT || t == SLINKY_DOC_DOUBLE;
    return true;
}

static void value_text(char *buf, size_t len, const slinky_doc_value *v)
{
    char *json = NULL;
    if (slinky_doc_value_type(v) == SLINKY_DOC_OBJECT) {
        snprintf(buf, len, "\"object\"");
        return;
    }
    if (slinky_doc_value_type(v) == SLINKY_DOC_ARRAY) {
        snprintf(buf, len, "\"array\"");
        return;
    }
    if (slinky_doc_value_dump_json(&json, NULL, v, 0) == 0) {
        snprintf(buf, len, "%s", json);
        slinky_free(json);
    } else {
        snprintf(buf, len, "?");
    }
}

static void fmt_num(char *buf, size_t len, const slinky_doc_value *v)
{
    if (slinky_doc_value_type(v) == SLINKY_DOC_INT)
        snprintf(buf, len, "%lld", (long long)slinky_doc_value_get_int(v));
    else
        snprintf(buf, len, "%g", slinky_doc_value_get_double(v));
}

int as_schema_validate(as_causes *c, const slinky_doc_value *obj, const slinky_doc_value *schema,
                       const char *path)
{
    if (!schema)
        return 0;
    const char *field = path && *path ? path : "<root>";
    bool int_or_string = flag(schema, "x-kubernetes-int-or-string");
    slinky_doc_type t = slinky_doc_value_type(obj);
    if (t == SLINKY_DOC_NULL) {
        if (!flag(schema, "nullable") && slinky_doc_value_get(schema, "type"))
            as_causes_add(c, "FieldValueTypeInvalid", field,
                          "Invalid value: \"null\": %s in body must be of type %s: \"null\"",
                          field, slinky_doc_value_path_string(schema, "type", "object"));
        return 0;
    }
    if (int_or_string) {
        if (t != SLINKY_DOC_INT && t != SLINKY_DOC_STRING) {
            as_causes_add(c, "FieldValueTypeInvalid", field,
                          "Invalid value: \"%s\": %s in body must be of type integer or string: "
                          "\"%s\"",
                          actual_type(obj), field, actual_type(obj));
            return 0;
        }
    } else {
        const char *type = slinky_doc_value_path_string(schema, "type", NULL);
        if (type && !type_ok(type, obj)) {
            as_causes_add(c, "FieldValueTypeInvalid", field,
                          "Invalid value: \"%s\": %s in body must be of type %s: \"%s\"",
                          actual_type(obj), field, type, actual_type(obj));
            return 0;
        }
    }
    const slinky_doc_value *en = slinky_doc_value_get(schema, "enum");
    if (en && slinky_doc_value_size(en)) {
        bool found = false;
        for (size_t i = 0; i < slinky_doc_value_size(en) && !found; i++)
            found = slinky_doc_value_equal(slinky_doc_value_at(en, i), obj);
        if (!found) {
            as_buf b = AS_BUF_INIT;
            char vt[256];
            for (size_t i = 0; i < slinky_doc_value_size(en); i++) {
                value_text(vt, sizeof(vt), slinky_doc_value_at(en, i));
                as_buf_printf(&b, "%s%s", i ? ", " : "", vt);
            }
            value_text(vt, sizeof(vt), obj);
            as_causes_add(c, "FieldValueNotSupported", field,
                          "Unsupported value: %s: supported values: %s", vt,
                          b.data ? b.data : "");
            as_buf_dispose(&b);
        }
    }
    if (t == SLINKY_DOC_STRING) {
        const char *s = slinky_doc_value_get_string(obj);
        size_t len = 0;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            if ((*p & 0xc0) != 0x80)
                len++;
        const slinky_doc_value *mx = slinky_doc_value_get(schema, "maxLength");
        const slinky_doc_value *mn = slinky_doc_value_get(schema, "minLength");
        if (mx && (int64_t)len > slinky_doc_value_get_int(mx))
            as_causes_add(c, "FieldValueTooLong", field, "Too long: may not be more than %lld bytes",
                          (long long)slinky_doc_value_get_int(mx));
        if (mn && (int64_t)len < slinky_doc_value_get_int(mn))
            as_causes_add(c, "FieldValueInvalid", field,
                          "Invalid value: \"%s\": %s in body should be at least %lld chars long",
                          s, field, (long long)slinky_doc_value_get_int(mn));
        const char *pat = slinky_doc_value_path_string(schema, "pattern", NULL);
        if (pat && as_re_match(pat, s) == 0)
            as_causes_add(c, "FieldValueInvalid", field,
                          "Invalid value: \"%s\": %s in body should match '%s'", s, field, pat);
    }
    if (t == SLINKY_DOC_INT || t == SLINKY_DOC_DOUBLE) {
        double d = slinky_doc_value_get_double(obj);
        char vt[64], lim[64];
        fmt_num(vt, sizeof(vt), obj);
        const slinky_doc_value *mn = slinky_doc_value_get(schema, "minimum");
        const slinky_doc_value *mx = slinky_doc_value_get(schema, "maximum");
        if (mn) {
            bool ex = flag(schema, "exclusiveMinimum");
            double m = slinky_doc_value_get_double(mn);
            fmt_num(lim, sizeof(lim), mn);
            if (ex ? d <= m : d < m)
                as_causes_add(c, "FieldValueInvalid", field,
                              "Invalid value: %s: %s in body should be greater than %s%s", vt,
                              field, ex ? "" : "or equal to ", lim);
        }
        if (mx) {
            bool ex = flag(schema, "exclusiveMaximum");
            double m = slinky_doc_value_get_double(mx);
            fmt_num(lim, sizeof(lim), mx);
            if (ex ? d >= m : d > m)
                as_causes_add(c, "FieldValueInvalid", field,
                              "Invalid value: %s: %s in body should be less than %s%s", vt, field,
                              ex ? "" : "or equal to ", lim);
        }
    }
    if (t == SLINKY_DOC_ARRAY) {
        size_t n = slinky_doc_value_size(obj);
        const slinky_doc_value *mx = slinky_doc_value_get(schema, "maxItems");
        const slinky_doc_value *mn = slinky_doc_value_get(schema, "minItems");
        if (mx && (int64_t)n > slinky_doc_value_get_int(mx))
            as_causes_add(c, "FieldValueTooMany", field, "Too many: %zu: must have at most %lld items",
                          n, (long long)slinky_doc_value_get_int(mx));
        if (mn && (int64_t)n < slinky_doc_value_get_int(mn))
            as_causes_add(c, "FieldValueInvalid", field,
                          "Invalid value: %zu: %s in body should have at least %lld items", n,
                          field, (long long)slinky_doc_value_get_int(mn));
        const slinky_doc_value *items = slinky_doc_value_get(schema, "items");
        for (size_t i = 0; items && i < n; i++) {
            char *p = index_path(path, i);
            as_schema_validate(c, slinky_doc_value_at(obj, i), items, p);
            free(p);
        }
    }
    if (t == SLINKY_DOC_OBJECT) {
        const slinky_doc_value *req = slinky_doc_value_get(schema, "required");
        for (size_t i = 0; i < slinky_doc_value_size(req); i++) {
            const char *k = slinky_doc_value_get_string(slinky_doc_value_at(req, i));
            if (k && !slinky_doc_value_get(obj, k)) {
                char *p = child_path(path, k);
                as_causes_add(c, "FieldValueRequired", p, "Required value");
                free(p);
            }
        }
        size_t n = slinky_doc_value_size(obj);
        const slinky_doc_value *mx = slinky_doc_value_get(schema, "maxProperties");
        const slinky_doc_value *mn = slinky_doc_value_get(schema, "minProperties");
        if (mx && (int64_t)n > slinky_doc_value_get_int(mx))
            as_causes_add(c, "FieldValueTooMany", field,
                          "Too many: %zu: must have at most %lld items", n,
                          (long long)slinky_doc_value_get_int(mx));
        if (mn && (int64_t)n < slinky_doc_value_get_int(mn))
            as_causes_add(c, "FieldValueInvalid", field,
                          "Invalid value: %zu: %s in body should have at least %lld properties", n,
                          field, (long long)slinky_doc_value_get_int(mn));
        bool root = !path || !*path;
        for (size_t i = 0; i < n; i++) {
            const char *k = slinky_doc_value_key_at(obj, i);
            if (root && (!strcmp(k, "metadata") || !strcmp(k, "apiVersion") || !strcmp(k, "kind")))
                continue;
            const slinky_doc_value *ps = prop_schema(schema, k);
            if (!ps)
                continue;
            char *p = child_path(path, k);
            as_schema_validate(c, slinky_doc_value_member_at(obj, i), ps, p);
            free(p);
        }
    }
    const slinky_doc_value *all = slinky_doc_value_get(schema, "allOf");
    for (size_t i = 0; i < slinky_doc_value_size(all); i++)
        as_schema_validate(c, obj, slinky_doc_value_at(all, i), path);
    static const char *const anyof[] = {"anyOf", "oneOf"};
    for (size_t k = 0; k < 2 && !int_or_string; k++) {
        const slinky_doc_value *any = slinky_doc_value_get(schema, anyof[k]);
        size_t n = slinky_doc_value_size(any), passed = 0;
        for (size_t i = 0; i < n; i++) {
            as_causes tmp = {0};
            as_schema_validate(&tmp, obj, slinky_doc_value_at(any, i), path);
            if (tmp.n == 0)
                passed++;
            as_causes_dispose(&tmp);
        }
        if (n && (k == 0 ? passed == 0 : passed != 1))
            as_causes_add(c, "FieldValueInvalid", field,
                          "Invalid value: %s: %s in body must validate %s schema (%s)",
                          actual_type(obj), field, k == 0 ? "at least one" : "exactly one",
                          anyof[k]);
    }
    return 0;
}
