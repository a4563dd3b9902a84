/* kube: percent-encoding, resource paths, label selectors. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

int slinky_kube__buf_escape(slinky__buf *b, const char *s, bool path_segment)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (unreserved(*p) || (path_segment && (*p == ':' || *p == '@'))) {
            slinky__buf_putc(b, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            slinky__buf_put(b, e, 3);
        }
    }
    return b->failed ? SLINKY_ENOMEM : 0;
}

void slinky_kube__query_add(slinky__buf *b, bool *first, const char *name, const char *value)
{
    if (value == NULL)
        return;
    slinky__buf_putc(b, *first ? '?' : '&');
    *first = false;
    slinky__buf_puts(b, name);
    slinky__buf_putc(b, '=');
    slinky_kube__buf_escape(b, value, false);
}

void slinky_kube__query_add_long(slinky__buf *b, bool *first, const char *name, long value)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%ld", value);
    slinky_kube__query_add(b, first, name, tmp);
}

slinky_status slinky_kube_query_escape(char **out, const char *value)
{
    if (out == NULL || value == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_query_escape: NULL argument");
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    slinky_kube__buf_escape(&b, value, false);
    return slinky__buf_finish(out, NULL, &b);
}

static int check_segment(const char *what, const char *s)
{
    if (s == NULL || *s == '\0')
        return slinky__error_set(SLINKY_EINVALID, "resource %s is empty", what);
    if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strchr(s, '/') != NULL)
        return slinky__error_set(SLINKY_EINVALID, "resource %s \"%s\" may not be '.', '..' or contain '/'",
                                 what, s);
    return 0;
}

slinky_status slinky_kube_path(char **out, const slinky_kube_resource *r, const char *ns,
                               const char *name, const char *subresource)
{
    if (out == NULL || r == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_path: NULL argument");
    int err;
    if ((err = check_segment("version", r->version)) != 0 ||
        (err = check_segment("plural", r->resource)) != 0)
        return err;
    if (r->group && *r->group && (err = check_segment("group", r->group)) != 0)
        return err;
    if (name && (err = check_segment("name", name)) != 0)
        return err;
    if (subresource && (err = check_segment("subresource", subresource)) != 0)
        return err;
    if (r->namespaced && ns && *ns && (err = check_segment("namespace", ns)) != 0)
        return err;
    slinky__buf b = SLINKY__BUF_INIT;
    if (r->group && *r->group) {
        slinky__buf_puts(&b, "/apis/");
        slinky_kube__buf_escape(&b, r->group, true);
        slinky__buf_putc(&b, '/');
    } else {
        slinky__buf_puts(&b, "/api/");
    }
    slinky_kube__buf_escape(&b, r->version, true);
    if (r->namespaced && ns && *ns) {
        slinky__buf_puts(&b, "/namespaces/");
        slinky_kube__buf_escape(&b, ns, true);
    }
    slinky__buf_putc(&b, '/');
    slinky_kube__buf_escape(&b, r->resource, true);
    if (name) {
        slinky__buf_putc(&b, '/');
        slinky_kube__buf_escape(&b, name, true);
        if (subresource) {
            slinky__buf_putc(&b, '/');
            slinky_kube__buf_escape(&b, subresource, true);
        }
    }
    return slinky__buf_finish(out, NULL, &b);
}

/* ---------------------------------------------------------------- selectors */

typedef struct sel_lexer {
    const char *p;
    const char *sel;
} sel_lexer;

static void skip_ws(sel_lexer *lx)
{
    while (*lx->p == ' ' || *lx->p == '\t')
        lx->p++;
}

static bool key_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.' || c == '/';
}

/* Read a key or value token into buf. Returns its length. */
static size_t read_word(sel_lexer *lx, char *buf, size_t n)
{
    skip_ws(lx);
    size_t i = 0;
    while (key_char(*lx->p)) {
        if (i + 1 < n)
            buf[i++] = *lx->p;
        lx->p++;
    }
    buf[i] = '\0';
    return i;
}

static int sel_error(sel_lexer *lx, const char *what)
{
    return slinky__error_set(SLINKY_EINVALID, "label selector \"%s\": %s at offset %zu", lx->sel,
                             what, (size_t)(lx->p - lx->sel));
}

slinky_status slinky_kube_selector_matches(bool *out, const char *selector,
                                           const slinky_doc_value *labels)
{
    if (out == NULL || selector == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_selector_matches: NULL argument");
    sel_lexer lx = {selector, selector};
    bool match = true;
    char key[320], val[320];
    skip_ws(&lx);
    if (*lx.p == '\0') {
        *out = true;
        return 0;
    }
    for (;;) {
        bool negate = false;
        skip_ws(&lx);
        if (*lx.p == '!') {
            negate = true;
            lx.p++;
        }
        if (read_word(&lx, key, sizeof(key)) == 0)
            return sel_error(&lx, "expected a label key");
        const char *have = slinky_doc_value_get_string(slinky_doc_value_get(labels, key));
        skip_ws(&lx);
        bool term;
        if (negate) {
            term = have == NULL;
        } else if (*lx.p == '=' || (*lx.p == '!' && lx.p[1] == '=')) {
            bool ne = *lx.p == '!';
            lx.p += ne ? 2 : 1;
            if (!ne && *lx.p == '=')
                lx.p++;
            read_word(&lx, val, sizeof(val));
            term = ne ? (have == NULL || strcmp(have, val) != 0) : (have && strcmp(have, val) == 0);
        } else if (strncmp(lx.p, "in", 2) == 0 || strncmp(lx.p, "notin", 5) == 0) {
            bool notin = lx.p[0] == 'n';
            lx.p += notin ? 5 : 2;
            skip_ws(&lx);
            if (*lx.p != '(')
                return sel_error(&lx, "expected '('");
            lx.p++;
            bool found = false;
            for (;;) {
                read_word(&lx, val, sizeof(val));
                if (have && strcmp(have, val) == 0)
                    found = true;
                skip_ws(&lx);
                if (*lx.p == ',') {
                    lx.p++;
                    continue;
                }
                if (*lx.p == ')') {
                    lx.p++;
                    break;
                }
                return sel_error(&lx, "expected ',' or ')'");
            }
            term = notin ? !found : found;
        } else {
            term = have != NULL; /* exists */
        }
        match = match && term;
        skip_ws(&lx);
        if (*lx.p == '\0')
            break;
        if (*lx.p != ',')
            return sel_error(&lx, "expected ','");
        lx.p++;
    }
    *out = match;
    return 0;
}

slinky_status slinky_kube_object_key(char **out, const slinky_doc_value *obj)
{
    if (out == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_object_key: NULL argument");
    const char *ns = slinky_doc_value_path_string(obj, "metadata.namespace", "");
    const char *name = slinky_doc_value_path_string(obj, "metadata.name", "");
    if (*name == '\0')
        return slinky__error_set(SLINKY_EINVALID, "object has no metadata.name");
    char *k = *ns ? slinky__sprintf("%s/%s", ns, name) : slinky__strdup(name);
    if (k == NULL)
        return SLINKY_ENOMEM;
    *out = k;
    return 0;
}
