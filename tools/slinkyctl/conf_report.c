/*
 * The static-check report as an admin reads it: findings sorted by file,
 * line and column; Slurm's internal function names ("_parse_next_key: ")
 * dropped; "did you mean" for an unknown key (a known key one edit away).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_report.h"

typedef struct finding {
    char *file, *msg;
    const char *sev;
    long line, col;
    size_t order;
} finding;

static int by_position(const void *a, const void *b)
{
    const finding *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static bool known_anywhere(slinky_conf_kind kind, const char *key, unsigned version)
{
    static const char *const scopes[] = {"global", "NodeName", "PartitionName", "NodeSet",
                                         "DownNodes", "FrontendName"};
    for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
        if (slinky_conf_key_is_known(kind, scopes[i], key, version))
            return true;
    return false;
}

/* A known key one deletion, transposition, substitution or insertion away. */
bool slinkyctl_conf_suggest(char *out, size_t outlen, slinky_conf_kind kind, const char *key,
                            unsigned version)
{
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(key);
    if (n == 0 || n + 2 > outlen)
        return false;
    for (size_t i = 0; i < n; i++) { /* deletion */
        snprintf(out, outlen, "%.*s%s", (int)i, key, key + i + 1);
        if (known_anywhere(kind, out, version))
            return true;
    }
    for (size_t i = 0; i + 1 < n; i++) { /* transposition */
        snprintf(out, outlen, "%s", key);
        out[i] = key[i + 1];
        out[i + 1] = key[i];
        if (known_anywhere(kind, out, version))
            return true;
    }
    for (size_t i = 0; i <= n; i++) {
        for (const char *a = alpha; *a; a++) {
            char ch = i == 0 || (i < n && isupper((unsigned char)key[i])) ? (char)toupper(*a) : *a;
            if (i < n) { /* substitution */
                snprintf(out, outlen, "%s", key);
                out[i] = ch;
                if (known_anywhere(kind, out, version))
                    return true;
            }
            ch = i == 0 || (i < n && isupper((unsigned char)key[i])) ? (char)toupper(*a) : *a;
            snprintf(out, outlen, "%.*s%c%s", (int)i, key, ch, key + i); /* insertion */
            if (known_anywhere(kind, out, version))
                return true;
        }
    }
    return false;
}

/* Drop a leading "_slurm_function_name: " from a message. */
static const char *strip_function(const char *m)
{
    if (*m != '_')
        return m;
    const char *p = m;
    while (*p == '_' || islower((unsigned char)*p) || isdigit((unsigned char)*p))
        p++;
    return p[0] == ':' && p[1] == ' ' ? p + 2 : m;
}

static char *clean_message(const char *raw, slinky_conf_kind kind, unsigned version)
{
    const char *m = strip_function(raw);
    static const char unknown[] = "Parsing error at unrecognized key: ";
    char buf[1024], alt[256];
    if (!strncmp(m, unknown, sizeof(unknown) - 1)) {
        const char *key = m + sizeof(unknown) - 1;
        if (slinkyctl_conf_suggest(alt, sizeof(alt), kind, key, version))
            snprintf(buf, sizeof(buf), "unknown key %s (did you mean %s?)", key, alt);
        else
            snprintf(buf, sizeof(buf), "unknown key %s", key);
        return strdup(buf);
    }
    return strdup(m);
}

/* "FILE:LINE:COL: SEV: MSG" (FILE may itself hold colons: parse from the right of it). */
static bool parse_line(finding *f, char *s)
{
    char *sev = strstr(s, ": error: ");
    char *w = strstr(s, ": warning: ");
    if (!sev || (w && w < sev))
        sev = w;
    if (!sev)
        return false;
    *sev = '\0';
    f->sev = sev[2] == 'e' ? "error" : "warning";
    f->msg = sev + (sev[2] == 'e' ? 9 : 11);
    char *c2 = strrchr(s, ':');
    if (!c2)
        return false;
    *c2 = '\0';
    char *c1 = strrchr(s, ':');
    if (!c1)
        return false;
    *c1 = '\0';
    f->line = strtol(c1 + 1, NULL, 10);
    f->col = strtol(c2 + 1, NULL, 10);
    f->file = s;
    return true;
}

int slinkyctl_conf_report(FILE *out, const char *report, const slinkyctl_report_map *map)
{
    char *copy = strdup(report ? report : "");
    size_t n = 0, cap = 16;
    finding *v = malloc(cap * sizeof(*v));
    int errors = 0;
    if (!copy || !v) {
        free(copy);
        free(v);
        return -1;
    }
    char *save = NULL;
    for (char *s = strtok_r(copy, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
        finding f = {0};
        char *raw = s;
        if (!parse_line(&f, s)) {
            f.file = (char *)"";
            f.sev = "warning";
            f.msg = raw;
        }
        if (n == cap) {
            finding *nv = realloc(v, (cap *= 2) * sizeof(*v));
            if (!nv)
                break;
            v = nv;
        }
        f.order = n;
        f.msg = clean_message(f.msg, map->kind, map->version);
        v[n++] = f;
    }
    qsort(v, n, sizeof(*v), by_position);
    for (size_t i = 0; i < n; i++) {
        const char *file = v[i].file;
        long line = v[i].line;
        if (map->fragment_name && line >= map->first_line &&
            line < map->first_line + map->line_count) {
            file = map->fragment_name;
            line = line - map->first_line + 1;
        } else if (map->file_name) {
            file = map->file_name;
        }
        if (!strcmp(v[i].sev, "error"))
            errors++;
        if (*file)
            fprintf(out, "%s:%ld:%ld: %s: %s\n", file, line, v[i].col, v[i].sev,
                    v[i].msg ? v[i].msg : "");
        else
            fprintf(out, "%s: %s\n", v[i].sev, v[i].msg ? v[i].msg : "");
        free(v[i].msg);
    }
    free(v);
    free(copy);
    return errors;
}

int slinkyctl_conf_check_text(FILE *out, const char *text, const char *filename,
                              const slinkyctl_report_map *map)
{
    slinky_conf *c = NULL;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = map->kind;
    o.no_includes = true;
    if (slinky_conf_parse(&c, text, strlen(text), filename, &o) < 0) {
        const slinky_error *e = slinky_error_last();
        fprintf(out, "%s:%d:%d: error: %s\n", filename, e->line, e->column, e->message);
        return 1;
    }
    char *report = NULL;
    int rc = slinky_conf_check(&report, c, map->version);
    int errors = rc == SLINKY_ENOMEM ? -1 : slinkyctl_conf_report(out, report, map);
    if (rc == SLINKY_EINVALID && errors == 0) /* an error the report did not carry */
        errors = 1;
    slinky_free(report);
    slinky_conf_free(c);
    return errors;
}

const char *slinkyctl_conf_bad_value(const char *value, size_t len)
{
    if (memchr(value, '\0', len))
        return "a NUL byte";
    if (strchr(value, '\n') || strchr(value, '\r'))
        return "a line break";
    return NULL;
}
