/*
 * config: one check per line, "KIND key=value ...", '#' starts a comment,
 * values may be "double quoted". Every line is checked before anything runs:
 * an unknown check or key, a missing required key or a malformed threshold is
 * refused as "FILE:LINE: ...".
 *
 *   storage_free    path=/tmp min_free=10G warn_free=20%   (size: K M G T P, base 1024, or %)
 *   storage_inodes  path=/tmp min_free=1000                (count or %)
 *   storage_latency path=/tmp max=50ms warn=10ms           (duration: us ms s m)
 *   fabric_tcp      target=127.0.0.1:6817 max=100ms
 *   exec            name=site command="/usr/bin/true" timeout=5s
 * Every check takes name= and timeout= (default 10s).
 */
#include "health.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum type { T_NONE, T_SIZE, T_COUNT, T_DURATION, T_NUMBER };

static const struct {
    const char *name;
    const char *keys; /* allowed keys beyond name, timeout */
    const char *required;
    enum type fail_type; /* of the threshold keys */
    const char *fail_key, *warn_key;
} kinds[K_COUNT] = {
    [K_NODE_CPUS] = {"node_cpus", "", "", T_NONE, NULL, NULL},
    [K_NODE_MEMORY] = {"node_memory", "", "", T_NONE, NULL, NULL},
    [K_NODE_GPUS] = {"node_gpus", " count ", "count", T_COUNT, "count", NULL},
    [K_NODE_LOAD] = {"node_load", " max warn ", "max", T_NUMBER, "max", "warn"},
    [K_STORAGE_MOUNTED] = {"storage_mounted", " path ", "path", T_NONE, NULL, NULL},
    [K_STORAGE_WRITABLE] = {"storage_writable", " path ", "path", T_NONE, NULL, NULL},
    [K_STORAGE_FREE] = {"storage_free", " path min_free warn_free ", "path min_free", T_SIZE,
                        "min_free", "warn_free"},
    [K_STORAGE_INODES] = {"storage_inodes", " path min_free warn_free ", "path min_free", T_COUNT,
                          "min_free", "warn_free"},
    [K_STORAGE_LATENCY] = {"storage_latency", " path max warn ", "path max", T_DURATION, "max",
                           "warn"},
    [K_FABRIC_IB] = {"fabric_ib", " min_rate ", "", T_NUMBER, "min_rate", NULL},
    [K_FABRIC_TCP] = {"fabric_tcp", " target max warn ", "target", T_DURATION, "max", "warn"},
    [K_EXEC] = {"exec", " command ", "command", T_NONE, NULL, NULL},
};

const char *check_kind_name(check_kind k)
{
    return kinds[k].name;
}

/* parse a threshold of `t` into th; false when malformed */
static bool parse_threshold(threshold *th, enum type t, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0 || !isfinite(v))
        return false;
    th->percent = false;
    if (!strcmp(end, "%") && (t == T_SIZE || t == T_COUNT)) {
        if (v > 100)
            return false;
        th->percent = true;
        v /= 100;
    } else if (t == T_SIZE) {
        static const char suf[] = "KMGTP";
        const char *p = *end ? strchr(suf, toupper((unsigned char)*end)) : NULL;
        if (*end && (p == NULL || (end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))))
            return false;
        for (const char *q = suf; p && q <= p; q++)
            v *= 1024;
    } else if (t == T_DURATION) {
        if (!strcmp(end, "us"))
            v /= 1000;
        else if (!strcmp(end, "s"))
            v *= 1000;
        else if (!strcmp(end, "m"))
            v *= 60000;
        else if (strcmp(end, "ms"))
            return false; /* a unit is required */
    } else if (*end) {
        return false;
    }
    if (t == T_COUNT && !th->percent && v != floor(v))
        return false;
    th->set = true;
    th->v = v;
    snprintf(th->text, sizeof(th->text), "%s", s);
    return true;
}

/* next token of "k=v" / "k=\"v v\"" into key/val; false at the end; -1 on a syntax error */
static int next_kv(char **pp, char **key, char **val)
{
    char *p = *pp;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0' || *p == '#')
        return 0;
    *key = p;
    while (*p && *p != '=' && !isspace((unsigned char)*p))
        p++;
    if (*p != '=')
        return -1;
    *p++ = '\0';
    if (*p == '"') {
        *val = ++p;
        while (*p && *p != '"')
            p++;
        if (*p != '"')
            return -1;
        *p++ = '\0';
    } else {
        *val = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    *pp = p;
    return 1;
}

static bool has_word(const char *list, const char *w)
{
    char pat[64];
    snprintf(pat, sizeof(pat), " %s ", w);
    char l[128];
    snprintf(l, sizeof(l), " %s ", list);
    return strstr(l, pat) != NULL;
}

static int parse_line(check *c, char *line, const char *file, int lineno)
{
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    char *kw = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = '\0';
    int k = 0;
    while (k < K_COUNT && strcmp(kinds[k].name, kw))
        k++;
    if (k == K_COUNT) {
        fprintf(stderr, "%s:%d: unknown check '%s' (known:", file, lineno, kw);
        for (int i = 0; i < K_COUNT; i++)
            fprintf(stderr, " %s", kinds[i].name);
        fprintf(stderr, ")\n");
        return -1;
    }
    memset(c, 0, sizeof(*c));
    c->kind = (check_kind)k;
    c->line = lineno;
    c->timeout_ms = 10000;
    char name[96] = "";
    char *key, *val;
    int rc;
    while ((rc = next_kv(&p, &key, &val)) == 1) {
        if (!strcmp(key, "name")) {
            if (*val == '\0' || strlen(val) >= sizeof(name) || strpbrk(val, " \t\"\\")) {
                fprintf(stderr, "%s:%d: %s: name: '%s' is empty, too long or has spaces/quotes\n",
                        file, lineno, kw, val);
                return -1;
            }
            snprintf(name, sizeof(name), "%s", val);
        } else if (!strcmp(key, "timeout")) {
            threshold t = {0};
            if (!parse_threshold(&t, T_DURATION, val) || t.v <= 0) {
                fprintf(stderr, "%s:%d: %s: timeout: malformed duration '%s' (e.g. 500ms, 5s)\n",
                        file, lineno, kw, val);
                return -1;
            }
            c->timeout_ms = t.v;
        } else if (!has_word(kinds[k].keys, key)) {
            fprintf(stderr, "%s:%d: %s: unknown key '%s' (known: name timeout%s)\n", file, lineno,
                    kw, key, kinds[k].keys);
            return -1;
        } else if (!strcmp(key, "path") || !strcmp(key, "target") || !strcmp(key, "command")) {
            if (*val == '\0' || strlen(val) >= sizeof(c->path)) {
                fprintf(stderr, "%s:%d: %s: %s: empty or too long\n", file, lineno, kw, key);
                return -1;
            }
            if (!strcmp(key, "target") && strrchr(val, ':') == NULL) {
                fprintf(stderr, "%s:%d: %s: target: '%s' is not HOST:PORT\n", file, lineno, kw,
                        val);
                return -1;
            }
            snprintf(c->path, sizeof(c->path), "%s", val);
        } else {
            threshold *th = !strcmp(key, kinds[k].fail_key) ? &c->fail_at : &c->warn_at;
            if (!parse_threshold(th, kinds[k].fail_type, val)) {
                static const char *const ex[] = {"", "a size such as 10G or 5%",
                                                 "a count such as 1000 or 5%",
                                                 "a duration such as 50ms or 2s", "a number"};
                fprintf(stderr, "%s:%d: %s: %s: malformed threshold '%s' (want %s)\n", file, lineno,
                        kw, key, val, ex[kinds[k].fail_type]);
                return -1;
            }
        }
    }
    if (rc < 0) {
        fprintf(stderr, "%s:%d: %s: expected key=value (or key=\"value\") near '%s'\n", file,
                lineno, kw, p);
        return -1;
    }
    /* required keys */
    char req[64];
    snprintf(req, sizeof(req), "%s", kinds[k].required);
    for (char *w = strtok(req, " "); w; w = strtok(NULL, " ")) {
        bool ok = !strcmp(w, "path") || !strcmp(w, "target") || !strcmp(w, "command")
                      ? c->path[0] != '\0'
                      : c->fail_at.set;
        if (!ok) {
            fprintf(stderr, "%s:%d: %s: missing %s=\n", file, lineno, kw, w);
            return -1;
        }
    }
    if (name[0])
        snprintf(c->name, sizeof(c->name), "%s", name);
    else if (c->path[0] && c->kind != K_EXEC)
        snprintf(c->name, sizeof(c->name), "%s:%.80s", kw, c->path);
    else
        snprintf(c->name, sizeof(c->name), "%s", kw);
    return 0;
}

int config_load(config *out, const char *file)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", file, strerror(errno));
        return -1;
    }
    config c = {0};
    size_t cap = 0;
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        if (strchr(line, '\n') == NULL && !feof(f)) {
            fprintf(stderr, "%s:%d: line longer than %zu characters\n", file, lineno,
                    sizeof(line) - 2);
            rc = -1;
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        if (c.n == cap) {
            cap = cap ? cap * 2 : 16;
            check *v = realloc(c.v, cap * sizeof(*v));
            if (v == NULL) {
                rc = -1;
                break;
            }
            c.v = v;
        }
        if (parse_line(&c.v[c.n], p, file, lineno)) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < c.n; i++)
            if (!strcmp(c.v[i].name, c.v[c.n].name)) {
                fprintf(stderr,
                        "%s:%d: check '%s' is already defined on line %d (give one a name=)\n",
                        file, lineno, c.v[c.n].name, c.v[i].line);
                rc = -1;
            }
        if (rc)
            break;
        c.n++;
    }
    fclose(f);
    if (rc) {
        free(c.v);
        return -1;
    }
    *out = c;
    return 0;
}

void config_dispose(config *c)
{
    free(c->v);
    memset(c, 0, sizeof(*c));
}
