/* Label and field selectors, Go-style booleans and name checks. */
#include "pure.h"

#include <ctype.h>
#include <string.h>

static void req_dispose(as_sel_req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->n_values; i++)
        free(r->values[i]);
    free(r->values);
}

void as_selector_dispose(as_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++)
        req_dispose(&sel->reqs[i]);
    free(sel->reqs);
    sel->reqs = NULL;
    sel->n = 0;
}

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

/* A key or value token: stops at space , ( ) = ! */
static char *token(const char **p)
{
    const char *s = *p;
    while (**p && !strchr(" \t,()=!", **p))
        (*p)++;
    if (*p == s)
        return as_strdup("");
    return as_strndup(s, (size_t)(*p - s));
}

static int add_value(as_sel_req *r, char *v)
{
    char **nv = realloc(r->values, (r->n_values + 1) * sizeof(*nv));
    if (!nv) {
        free(v);
        return as_err_oom();
    }
    r->values = nv;
    r->values[r->n_values++] = v;
    return 0;
}

static int push_req(as_selector *sel, as_sel_req *r)
{
    as_sel_req *n = realloc(sel->reqs, (sel->n + 1) * sizeof(*n));
    if (!n) {
        req_dispose(r);
        return as_err_oom();
    }
    sel->reqs = n;
    sel->reqs[sel->n++] = *r;
    return 0;
}

static bool word_at(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && (p[n] == ' ' || p[n] == '\t' || p[n] == '(');
}

static int parse(as_selector *out, const char *text, bool labels)
{
    as_selector sel = {0};
    const char *p = text ? text : "";
    int rc = 0;
    skip_ws(&p);
    while (*p) {
        as_sel_req r = {0};
        skip_ws(&p);
        if (*p == '!') {
            if (!labels) {
                rc = slinky_error_set(SLINKY_EINVALID, "invalid selector: '%s'", text);
                goto fail;
            }
            p++;
            skip_ws(&p);
            r.key = token(&p);
            r.op = AS_SEL_NOT_EXISTS;
        } else {
            r.key = token(&p);
            skip_ws(&p);
            if (*p == '=' && p[1] == '=') {
                r.op = AS_SEL_EQ;
                p += 2;
            } else if (*p == '=') {
                r.op = AS_SEL_EQ;
                p++;
            } else if (*p == '!' && p[1] == '=') {
                r.op = AS_SEL_NE;
                p += 2;
            } else if (labels && word_at(p, "in")) {
                r.op = AS_SEL_IN;
                p += 2;
            } else if (labels && word_at(p, "notin")) {
                r.op = AS_SEL_NOTIN;
                p += 5;
            } else if (*p == ',' || *p == '\0') {
                if (!labels) {
                    rc = slinky_error_set(SLINKY_EINVALID,
                                           "invalid selector: '%s'; can't understand '%s'",
                                           text, r.key ? r.key : "");
                    req_dispose(&r);
                    goto fail;
                }
                r.op = AS_SEL_EXISTS;
            } else {
                req_dispose(&r);
                rc = slinky_error_set(SLINKY_EINVALID,
                                       "unable to parse requirement: found '%c', expected: "
                                       "'=', '!=', '==', 'in', notin'",
                                       *p);
                goto fail;
            }
            if (r.op == AS_SEL_EQ || r.op == AS_SEL_NE) {
                skip_ws(&p);
                rc = add_value(&r, token(&p));
                if (rc)
                    goto fail_req;
            } else if (r.op == AS_SEL_IN || r.op == AS_SEL_NOTIN) {
                skip_ws(&p);
                if (*p != '(') {
                    req_dispose(&r);
                    rc = slinky_error_set(SLINKY_EINVALID,
                                           "unable to parse requirement: found '%s', "
                                           "expected: '('",
                                           p);
                    goto fail;
                }
                p++;
                for (;;) {
                    skip_ws(&p);
                    char *v = token(&p);
                    if (!v) {
                        rc = as_err_oom();
                        goto fail_req;
                    }
                    if (*v)
                        rc = add_value(&r, v);
                    else
                        free(v);
                    if (rc)
                        goto fail_req;
                    skip_ws(&p);
                    if (*p == ',') {
                        p++;
                        continue;
                    }
                    if (*p == ')') {
                        p++;
                        break;
                    }
                    req_dispose(&r);
                    rc = slinky_error_set(SLINKY_EINVALID,
                                           "unable to parse requirement: expected ')' in '%s'",
                                           text);
                    goto fail;
                }
                if (r.n_values == 0) {
                    req_dispose(&r);
                    rc = slinky_error_set(SLINKY_EINVALID,
                                           "for 'in', 'notin' operators, values set can't be "
                                           "empty");
                    goto fail;
                }
            }
        }
        if (!r.key || !*r.key) {
            req_dispose(&r);
            rc = slinky_error_set(SLINKY_EINVALID, "invalid selector '%s': empty key", text);
            goto fail;
        }
        if (labels) {
            const char *why = as_check_label_key(r.key);
            for (size_t i = 0; !why && i < r.n_values; i++)
                why = as_check_label_value(r.values[i]);
            if (why) {
                rc = slinky_error_set(SLINKY_EINVALID, "unable to parse requirement: %s",
                                       why);
                req_dispose(&r);
                goto fail;
            }
        }
        rc = push_req(&sel, &r);
        if (rc)
            goto fail;
        skip_ws(&p);
        if (*p == ',') {
            p++;
            skip_ws(&p);
            if (!*p) {
                rc = slinky_error_set(SLINKY_EINVALID, "invalid selector '%s': trailing ','",
                                       text);
                goto fail;
            }
        } else if (*p) {
            rc = slinky_error_set(SLINKY_EINVALID, "invalid selector '%s': unexpected '%s'",
                                   text, p);
            goto fail;
        }
        continue;
    fail_req:
        req_dispose(&r);
        goto fail;
    }
    *out = sel;
    return 0;
fail:
    as_selector_dispose(&sel);
    return rc;
}

int as_selector_parse_labels(as_selector *out, const char *text)
{
    return parse(out, text, true);
}

int as_selector_parse_fields(as_selector *out, const char *text)
{
    return parse(out, text, false);
}

bool as_selector_matches(const as_selector *sel, as_sel_lookup lookup, void *payload)
{
    for (size_t i = 0; i < sel->n; i++) {
        const as_sel_req *r = &sel->reqs[i];
        const char *v = lookup(r->key, payload);
        bool in = false;
        for (size_t j = 0; v && j < r->n_values; j++)
            if (strcmp(v, r->values[j]) == 0)
                in = true;
        switch (r->op) {
        case AS_SEL_EQ:
        case AS_SEL_IN:
            if (!in)
                return false;
            break;
        case AS_SEL_NE:
        case AS_SEL_NOTIN:
            if (in)
                return false;
            break;
        case AS_SEL_EXISTS:
            if (!v)
                return false;
            break;
        case AS_SEL_NOT_EXISTS:
            if (v)
                return false;
            break;
        }
    }
    return true;
}

static const char *label_lookup(const char *key, void *payload)
{
    const slinky_doc_value *labels = payload;
    slinky_doc_value *v = slinky_doc_value_get(labels, key);
    if (!v)
        return NULL;
    const char *s = slinky_doc_value_get_string(v);
    return s ? s : "";
}

bool as_selector_matches_labels(const as_selector *sel, const slinky_doc_value *labels)
{
    return as_selector_matches(sel, label_lookup, (void *)labels);
}

int as_parse_bool(bool *out, const char *text)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    if (!text)
        return slinky_error_set(SLINKY_EINVALID, "invalid boolean: (null)");
    for (size_t i = 0; i < AS_ARRAY_SIZE(yes); i++) {
        if (strcmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return slinky_error_set(SLINKY_EINVALID, "strconv.ParseBool: parsing \"%s\": invalid syntax",
                             text);
}

static bool alnum(char c)
{
    return isalnum((unsigned char)c);
}

/* name part of a qualified name: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, <= 63 */
static const char *check_name_part(const char *s, size_t n)
{
    if (n == 0)
        return "name part must be non-empty";
    if (n > 63)
        return "name part must be no more than 63 characters";
    if (!alnum(s[0]) || !alnum(s[n - 1]))
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
               "start and end with an alphanumeric character";
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return "name part must consist of alphanumeric characters, '-', '_' or '.', and "
                   "must start and end with an alphanumeric character";
    return NULL;
}

const char *as_check_label_key(const char *key)
{
    const char *slash = strchr(key, '/');
    if (slash) {
        size_t plen = (size_t)(slash - key);
        char prefix[254];
        if (plen == 0 || plen > 253)
            return "prefix part must be a DNS subdomain of at most 253 characters";
        memcpy(prefix, key, plen);
        prefix[plen] = '\0';
        if (as_check_dns_subdomain(prefix))
            return "prefix part must be a lowercase RFC 1123 subdomain";
        return check_name_part(slash + 1, strlen(slash + 1));
    }
    return check_name_part(key, strlen(key));
}

const char *as_check_label_value(const char *v)
{
    size_t n = strlen(v);
    if (n == 0)
        return NULL;
    if (n > 63)
        return "must be no more than 63 characters";
    return check_name_part(v, n) ? "a valid label must be an empty string or consist of "
                                   "alphanumeric characters, '-', '_' or '.', and must start "
                                   "and end with an alphanumeric character"
                                 : NULL;
}

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

const char *as_check_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return "must be no more than 63 characters";
    if (!lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        goto bad;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            goto bad;
    return NULL;
bad:
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
           "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
           "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
}

const char *as_check_dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        goto bad;
    if (n > 253)
        return "must be no more than 253 characters";
    const char *p = s;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0 || !lower_alnum(p[0]) || !lower_alnum(p[len - 1]))
            goto bad;
        for (size_t i = 0; i < len; i++)
            if (!lower_alnum(p[i]) && p[i] != '-')
                goto bad;
        if (!dot)
            break;
        p = dot + 1;
        if (!*p)
            goto bad;
    }
    return NULL;
bad:
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}
