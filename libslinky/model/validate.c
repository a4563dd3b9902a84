/* model: problem lists and schema validation (types, enums, required,
 * limits, patterns, formats, x-kubernetes-validations). */
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doc/doc_internal.h"
#include "model/internal.h"

typedef struct problem {
    slinky_model_severity severity;
    char *path;
    char *message;
} problem;

struct slinky_model_problems {
    problem *items;
    size_t n;
};

SLINKY_API slinky_status slinky_model_problems_new(slinky_model_problems **out)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    slinky_model_problems *p = slinky__calloc(1, sizeof(*p));
    if (!p)
        return SLINKY_ENOMEM;
    *out = p;
    return 0;
}

SLINKY_API void slinky_model_problems_free(slinky_model_problems *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].path);
        free(p->items[i].message);
    }
    free(p->items);
    free(p);
}

int slinky_model__problems_add(slinky_model_problems *p, slinky_model_severity s,
                               const char *path, const char *fmt, ...)
{
    va_list ap;
    slinky__buf b = SLINKY__BUF_INIT;
    va_start(ap, fmt);
    slinky__buf_vprintf(&b, fmt, ap);
    va_end(ap);
    char *msg = b.failed ? NULL : slinky__buf_detach(&b, NULL);
    char *pa = slinky__strdup(path ? path : "");
    problem *items = (msg && pa) ? slinky__realloc(p->items, (p->n + 1) * sizeof(*items)) : NULL;
    if (!items) {
        slinky__buf_dispose(&b);
        free(msg);
        free(pa);
        return slinky__error_oom();
    }
    p->items = items;
    items[p->n].severity = s;
    items[p->n].path = pa;
    items[p->n].message = msg;
    p->n++;
    return 0;
}

SLINKY_API size_t slinky_model_problems_count(const slinky_model_problems *p)
{
    return p ? p->n : 0;
}

SLINKY_API size_t slinky_model_problems_error_count(const slinky_model_problems *p)
{
    size_t n = 0;
    for (size_t i = 0; p && i < p->n; i++)
        n += p->items[i].severity == SLINKY_MODEL_ERROR;
    return n;
}

SLINKY_API const char *slinky_model_problems_get_path(const slinky_model_problems *p, size_t i)
{
    return (p && i < p->n) ? p->items[i].path : NULL;
}

SLINKY_API const char *slinky_model_problems_get_message(const slinky_model_problems *p,
                                                         size_t i)
{
    return (p && i < p->n) ? p->items[i].message : NULL;
}

SLINKY_API slinky_model_severity slinky_model_problems_get_severity(
    const slinky_model_problems *p, size_t i)
{
    return (p && i < p->n) ? p->items[i].severity : SLINKY_MODEL_ERROR;
}

SLINKY_API bool slinky_model_problems_has(const slinky_model_problems *p, const char *path,
                                          const char *text)
{
    for (size_t i = 0; p && path && i < p->n; i++)
        if (strcmp(p->items[i].path, path) == 0 && (!text || strstr(p->items[i].message, text)))
            return true;
    return false;
}

SLINKY_API slinky_status slinky_model_problems_dump(char **out, const slinky_model_problems *p)
{
    slinky__buf b = SLINKY__BUF_INIT;
    if (!out || !p)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    for (size_t i = 0; i < p->n; i++)
        slinky__buf_printf(&b, "%s: %s: %s\n",
                           p->items[i].severity == SLINKY_MODEL_ERROR ? "error" : "warning",
                           p->items[i].path, p->items[i].message);
    return slinky__buf_finish(out, NULL, &b);
}

/* ---- schema walk ----------------------------------------------------- */

typedef struct vctx {
    slinky_model_problems *p;
    int rc; /* sticky ENOMEM */
} vctx;

#define ADD(ctx, sev, path, ...)                                                              \
    do {                                                                                      \
        if (!(ctx)->rc)                                                                       \
            (ctx)->rc = slinky_model__problems_add((ctx)->p, (sev), (path), __VA_ARGS__);     \
    } while (0)

static size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Translate the CRD's ECMA pattern for POSIX ERE: `\n` -> newline. */
static bool pattern_match(const char *pattern, const char *s, int *rc)
{
    char *pat = slinky__malloc(strlen(pattern) + 1);
    regex_t re;
    bool ok = true;
    if (!pat) {
        *rc = SLINKY_ENOMEM;
        return true;
    }
    size_t j = 0;
    for (size_t i = 0; pattern[i]; i++) {
        if (pattern[i] == '\\' && pattern[i + 1] == 'n') {
            pat[j++] = '\n';
            i++;
        } else {
            pat[j++] = pattern[i];
        }
    }
    pat[j] = '\0';
    if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0) {
        ok = regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
    }
    free(pat);
    return ok;
}

static bool digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* RFC 3339 date-time. */
static bool is_date_time(const char *s)
{
    if (strlen(s) < 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
        !digits(s + 8, 2) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) || s[16] != ':' ||
        !digits(s + 17, 2))
        return false;
    int mon = (s[5] - '0') * 10 + s[6] - '0', day = (s[8] - '0') * 10 + s[9] - '0';
    int hh = (s[11] - '0') * 10 + s[12] - '0', mm = (s[14] - '0') * 10 + s[15] - '0';
    int ss = (s[17] - '0') * 10 + s[18] - '0';
    if (mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60)
        return false;
    s += 19;
    if (*s == '.') {
        s++;
        if (!digits(s, 1))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if ((*s == 'Z' || *s == 'z') && !s[1])
        return true;
    return (*s == '+' || *s == '-') && digits(s + 1, 2) && s[3] == ':' && digits(s + 4, 2) &&
           !s[6];
}

static bool is_base64(const char *s, size_t len)
{
    size_t pad = 0;
    if (len % 4)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '+' || c == '/'))
            return false;
    }
    return pad <= 2;
}

static void walk(vctx *ctx, const slinky_doc_value *v, const slinky_model__node *n,
                 const char *path);

static void check_string(vctx *ctx, const char *s, size_t len, const slinky_model__node *n,
                         const char *path)
{
    if (n->enums) {
        bool found = false;
        for (const char *const *e = n->enums; *e; e++)
            found = found || strcmp(*e, s) == 0;
        if (!found) {
            slinky__buf b = SLINKY__BUF_INIT;
            for (const char *const *e = n->enums; *e; e++)
                slinky__buf_printf(&b, "%s\"%s\"", e == n->enums ? "" : ", ", *e);
            ADD(ctx, SLINKY_MODEL_ERROR, path, "Unsupported value: \"%s\": supported values: %s",
                s, b.data ? b.data : "");
            slinky__buf_dispose(&b);
        }
    }
    size_t chars = utf8_chars(s, len);
    if ((n->flags & SLINKY_MODEL__F_HAS_MIN_LEN) && (int64_t)chars < n->min_length)
        ADD(ctx, SLINKY_MODEL_ERROR, path,
            "Invalid value: \"%s\": should be at least %lld chars long", s,
            (long long)n->min_length);
    if ((n->flags & SLINKY_MODEL__F_HAS_MAX_LEN) && (int64_t)chars > n->max_length)
        ADD(ctx, SLINKY_MODEL_ERROR, path, "Too long: may not be more than %lld bytes",
            (long long)n->max_length);
    if (n->pattern && !pattern_match(n->pattern, s, &ctx->rc))
        ADD(ctx, SLINKY_MODEL_ERROR, path, "Invalid value: \"%s\": should match '%s'", s,
            n->pattern);
    if (n->format && strcmp(n->format, "date-time") == 0 && !is_date_time(s))
        ADD(ctx, SLINKY_MODEL_ERROR, path,
            "Invalid value: \"%s\": must be a date-time (RFC 3339, e.g. 2006-01-02T15:04:05Z)",
            s);
    if (n->format && strcmp(n->format, "byte") == 0 && !is_base64(s, len))
        ADD(ctx, SLINKY_MODEL_ERROR, path, "Invalid value: must be base64-encoded bytes");
}

static void check_int(vctx *ctx, int64_t i, const slinky_model__node *n, const char *path)
{
    if ((n->flags & SLINKY_MODEL__F_HAS_MIN) && i < n->minimum)
        ADD(ctx, SLINKY_MODEL_ERROR, path,
            "Invalid value: %lld: should be greater than or equal to %lld", (long long)i,
            (long long)n->minimum);
    if ((n->flags & SLINKY_MODEL__F_HAS_MAX) && i > n->maximum)
        ADD(ctx, SLINKY_MODEL_ERROR, path,
            "Invalid value: %lld: should be less than or equal to %lld", (long long)i,
            (long long)n->maximum);
    if (n->format && strcmp(n->format, "int32") == 0 && (i < INT32_MIN || i > INT32_MAX))
        ADD(ctx, SLINKY_MODEL_ERROR, path, "Invalid value: %lld: must fit in int32",
            (long long)i);
}

static void type_error(vctx *ctx, const slinky_doc_value *v, const char *want, const char *path)
{
    ADD(ctx, SLINKY_MODEL_ERROR, path, "Invalid value: \"%s\": must be of type %s",
        slinky_doc_type_name(slinky_doc_value_type(v)), want);
}

static void walk_object(vctx *ctx, const slinky_doc_value *v, const slinky_model__node *n,
                        const char *path)
{
    for (const char *const *r = n->required; r && *r; r++) {
        const slinky_doc_value *m = slinky_doc_value_get(v, *r);
        if (!m || slinky_doc_value_is_null(m)) {
            char *p = slinky_doc__path_join(path, *r, false);
            if (!p) {
                ctx->rc = SLINKY_ENOMEM;
                return;
            }
            ADD(ctx, SLINKY_MODEL_ERROR, p, "Required value");
            free(p);
        }
    }
    bool free_form = n->n_children == 0;
    for (size_t i = 0; i < slinky_doc_value_size(v) && !ctx->rc; i++) {
        const char *key = slinky_doc_value_key_at(v, i);
        const slinky_doc_value *m = slinky_doc_value_member_at(v, i);
        const slinky_model__node *c = NULL;
        for (int j = 0; j < n->n_children; j++) {
            int ci = n->first_child + j;
            if (ci != n->items && ci != n->addl && strcmp(slinky_model__nodes[ci].name, key) == 0)
                c = &slinky_model__nodes[ci];
        }
        if (!c && n->addl >= 0)
            c = &slinky_model__nodes[n->addl];
        if (!c && (free_form || (n->flags & SLINKY_MODEL__F_PRESERVE)))
            continue;
        char *p = slinky_doc__path_join(path, key, false);
        if (!p) {
            ctx->rc = SLINKY_ENOMEM;
            return;
        }
        if (!c)
            ADD(ctx, SLINKY_MODEL_WARNING, p, "unknown field \"%s\" (kept, but the API server "
                "would drop it)", p);
        else
            walk(ctx, m, c, p);
        free(p);
    }
    for (int r = 0; r < n->n_rules && !ctx->rc; r++) {
        const slinky_model__rule *rule = &slinky_model__rules[n->first_rule + r];
        if (!rule->fn(v))
            ADD(ctx, SLINKY_MODEL_ERROR, path, "Invalid value: \"object\": %s", rule->message);
    }
}

static void walk_array(vctx *ctx, const slinky_doc_value *v, const slinky_model__node *n,
                       const char *path)
{
    for (size_t i = 0; i < slinky_doc_value_size(v) && !ctx->rc; i++) {
        char *p = slinky__sprintf("%s[%zu]", path, i);
        if (!p) {
            ctx->rc = SLINKY_ENOMEM;
            return;
        }
        if (n->items >= 0)
            walk(ctx, slinky_doc_value_at(v, i), &slinky_model__nodes[n->items], p);
        if (n->flags & SLINKY_MODEL__F_LIST_MAP) {
            /* keyed list (conditions by type): keys must be unique */
            const char *key = slinky_doc_value_get_string(
                slinky_doc_value_get(slinky_doc_value_at(v, i), "type"));
            for (size_t j = 0; key && j < i; j++) {
                const char *other = slinky_doc_value_get_string(
                    slinky_doc_value_get(slinky_doc_value_at(v, j), "type"));
                if (other && strcmp(other, key) == 0) {
                    ADD(ctx, SLINKY_MODEL_ERROR, p, "Duplicate value: {\"type\":\"%s\"}", key);
                    break;
                }
            }
        }
        free(p);
    }
}

static void walk(vctx *ctx, const slinky_doc_value *v, const slinky_model__node *n,
                 const char *path)
{
    slinky_doc_type t = slinky_doc_value_type(v);
    if (ctx->rc || t == SLINKY_DOC_NULL)
        return; /* nulls are pruned by the API server (or allowed: nullable) */
    switch (n->type) {
    case SLINKY_MODEL__T_OBJECT:
        if (t != SLINKY_DOC_OBJECT)
            type_error(ctx, v, "object", path);
        else
            walk_object(ctx, v, n, path);
        break;
    case SLINKY_MODEL__T_ARRAY:
        if (t != SLINKY_DOC_ARRAY)
            type_error(ctx, v, "array", path);
        else
            walk_array(ctx, v, n, path);
        break;
    case SLINKY_MODEL__T_STRING:
        if (t != SLINKY_DOC_STRING)
            type_error(ctx, v, "string", path);
        else
            check_string(ctx, slinky_doc_value_get_string(v), slinky_doc_value_get_string_len(v),
                         n, path);
        break;
    case SLINKY_MODEL__T_INTEGER:
        if (t != SLINKY_DOC_INT)
            type_error(ctx, v, "integer", path);
        else
            check_int(ctx, slinky_doc_value_get_int(v), n, path);
        break;
    case SLINKY_MODEL__T_BOOLEAN:
        if (t != SLINKY_DOC_BOOL)
            type_error(ctx, v, "boolean", path);
        break;
    case SLINKY_MODEL__T_INTSTR:
        if (t == SLINKY_DOC_STRING)
            check_string(ctx, slinky_doc_value_get_string(v), slinky_doc_value_get_string_len(v),
                         n, path);
        else if (t != SLINKY_DOC_INT)
            type_error(ctx, v, "integer or string", path);
        break;
    default:
        break;
    }
}

static bool dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && c != '-' && c != '.')
            return false;
        if ((i == 0 || i == n - 1) && !alnum)
            return false;
    }
    return true;
}

static int validate_into(slinky_model_problems *p, const slinky_model_object *o)
{
    slinky_doc *d = NULL;
    vctx ctx = {p, 0};
    int rc = slinky_doc_new_copy(&d, slinky_model__root(o));
    if (rc)
        return rc;
    slinky_doc_value *root = slinky_doc_root(d);
    const slinky_model__node *rn = &slinky_model__nodes[o->info->root];
    if ((rc = slinky_model__default_value(root, rn, false)))
        goto done;
    const slinky_doc_value *meta = slinky_doc_value_get(root, "metadata");
    const char *name = slinky_doc_value_path_string(meta, "name", NULL);
    if (!name && !slinky_doc_value_path_string(meta, "generateName", NULL))
        ADD(&ctx, SLINKY_MODEL_ERROR, "metadata.name", "Required value: name or generateName is required");
    else if (name && !dns_subdomain(name))
        ADD(&ctx, SLINKY_MODEL_ERROR, "metadata.name",
            "Invalid value: \"%s\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character", name);
    walk(&ctx, root, rn, "");
    if (!ctx.rc)
        ctx.rc = slinky_model__webhook_validate(p, o, root);
    rc = ctx.rc;
done:
    slinky_doc_free(d);
    return rc;
}

SLINKY_API slinky_status slinky_model_validate(slinky_model_problems **out,
                                               const slinky_model_object *o)
{
    slinky_model_problems *p = NULL;
    if (!out || !o)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = slinky_model_problems_new(&p);
    if (!rc)
        rc = validate_into(p, o);
    if (rc) {
        slinky_model_problems_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

SLINKY_API slinky_status slinky_model_validate_update(slinky_model_problems **out,
                                                      const slinky_model_object *old,
                                                      const slinky_model_object *new_)
{
    slinky_model_problems *p = NULL;
    if (!out || !old || !new_)
        return slinky__error_set(SLINKY_EINVALID, "model: NULL argument");
    int rc = slinky_model_problems_new(&p);
    if (!rc)
        rc = validate_into(p, new_);
    if (!rc)
        rc = slinky_model__webhook_validate_update(p, old, new_);
    if (rc) {
        slinky_model_problems_free(p);
        return rc;
    }
    *out = p;
    return 0;
}
