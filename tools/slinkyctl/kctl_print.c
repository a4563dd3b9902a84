/*
 * slinkyctl output formats. Tables follow kubectl: upper-case headers,
 * columns padded to the widest cell plus three spaces (at least six wide),
 * an empty cell for a missing field, AGE as a human duration. Custom resources use
 * their CRD's additionalPrinterColumns (priority > 0 only with -o wide);
 * built-in kinds get kubectl's usual columns.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kctl.h"

typedef struct column {
    char *name, *path, *type; /* path: JSONPath, or "#age", "#ready", ... */
    int priority;
} column;

struct kctl_printer {
    kctl_format fmt;
    char *tmpl; /* jsonpath */
    kctl_kind kind;
    bool namespace_column, show_kind;
    column *cols;
    size_t ncols;
    int *widths; /* watch: the widths of the first table */
    bool header_done;
};

static void add_col(kctl_printer *p, const char *name, const char *path, const char *type,
                    int priority)
{
    column *nc = realloc(p->cols, (p->ncols + 1) * sizeof(*nc));
    if (!nc)
        return;
    p->cols = nc;
    char *up = strdup(name);
    for (char *c = up; c && *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    nc[p->ncols++] = (column){up, strdup(path), strdup(type), priority};
}

/* kubectl's columns for the built-in kinds (NAME first, AGE last unless noted). */
static const struct {
    const char *group, *plural, *cols; /* "HEADER=path[=wide]|..." */
} builtin[] = {
    {"", "namespaces", "STATUS=.status.phase"},
    {"", "configmaps", "DATA=#data"},
    {"", "secrets", "TYPE=.type|DATA=#data"},
    {"", "pods", "READY=#ready|STATUS=.status.phase|RESTARTS=#restarts|@AGE|IP=.status.podIP=wide|"
                 "NODE=.spec.nodeName=wide"},
    {"", "services", "TYPE=.spec.type|CLUSTER-IP=.spec.clusterIP"},
    {"", "events", "!LAST SEEN=#lastseen|TYPE=.type|REASON=.reason|OBJECT=#object|MESSAGE=.message"},
    {"coordination.k8s.io", "leases", "HOLDER=.spec.holderIdentity"},
    {"apps", "statefulsets", "READY=#replicas"},
    {"apps", "deployments", "READY=#replicas|UP-TO-DATE=.status.updatedReplicas|"
                            "AVAILABLE=.status.availableReplicas"},
    {"apiextensions.k8s.io", "customresourcedefinitions", "!NAME=.metadata.name|CREATED AT=.metadata.creationTimestamp"},
};

static void builtin_columns(kctl_printer *p, const char *spec)
{
    bool own = spec && spec[0] == '!'; /* the spec lists every column */
    if (!own)
        add_col(p, "NAME", ".metadata.name", "string", 0);
    bool age_done = false;
    char *copy = strdup(spec ? spec + own : "");
    char *save = NULL;
    for (char *c = strtok_r(copy, "|", &save); c; c = strtok_r(NULL, "|", &save)) {
        if (!strcmp(c, "@AGE")) {
            add_col(p, "AGE", "#age", "string", 0);
            age_done = true;
            continue;
        }
        char *eq = strchr(c, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char *wide = strstr(eq + 1, "=wide");
        if (wide)
            *wide = '\0';
        add_col(p, c, eq + 1, "string", wide ? 1 : 0);
    }
    free(copy);
    if (!own && !age_done)
        add_col(p, "AGE", "#age", "string", 0);
}

static void crd_columns(kctl_printer *p, kctl *k)
{
    char path[512];
    snprintf(path, sizeof(path), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/%s.%s",
             p->kind.plural, p->kind.group);
    slinky_doc *d = kctl_get_json(k, path);
    add_col(p, "NAME", ".metadata.name", "string", 0);
    const slinky_doc_value *vers = d ? slinky_doc_value_path(slinky_doc_root(d), "spec.versions")
                                     : NULL;
    const slinky_doc_value *cols = NULL;
    for (size_t i = 0; i < slinky_doc_value_size(vers); i++) {
        const slinky_doc_value *v = slinky_doc_value_at(vers, i);
        if (!strcmp(slinky_doc_value_path_string(v, "name", ""), p->kind.version))
            cols = slinky_doc_value_get(v, "additionalPrinterColumns");
    }
    for (size_t i = 0; i < slinky_doc_value_size(cols); i++) {
        const slinky_doc_value *c = slinky_doc_value_at(cols, i);
        add_col(p, slinky_doc_value_path_string(c, "name", "?"),
                slinky_doc_value_path_string(c, "jsonPath", ""),
                slinky_doc_value_path_string(c, "type", "string"),
                (int)slinky_doc_value_path_int(c, "priority", 0));
    }
    if (!cols) /* a CRD without printer columns: kubectl shows AGE */
        add_col(p, "AGE", "#age", "string", 0);
    slinky_doc_free(d);
}

int kctl_printer_new(kctl_printer **out, kctl *k, const kctl_kind *kk, const char *output)
{
    kctl_printer *p = calloc(1, sizeof(*p));
    if (!p)
        return 1;
    p->kind = *kk;
    const char *o = output ? output : "table";
    if (!strcmp(o, "table") || !strcmp(o, "wide"))
        p->fmt = !strcmp(o, "wide") ? KCTL_WIDE : KCTL_TABLE;
    else if (!strcmp(o, "json"))
        p->fmt = KCTL_JSON;
    else if (!strcmp(o, "yaml"))
        p->fmt = KCTL_YAML;
    else if (!strcmp(o, "name"))
        p->fmt = KCTL_NAME;
    else if (!strncmp(o, "jsonpath=", 9) || !strncmp(o, "jsonpath-as-json=", 17)) {
        p->fmt = KCTL_JSONPATH;
        p->tmpl = strdup(strchr(o, '=') + 1);
    } else {
        fprintf(stderr, "slinkyctl: unknown output format '%s' (table, wide, json, yaml, name, "
                        "jsonpath=TEMPLATE)\n", o);
        free(p);
        return 2;
    }
    p->namespace_column = k->o.all_namespaces && kk->namespaced;
    if (p->fmt == KCTL_TABLE || p->fmt == KCTL_WIDE) {
        const char *spec = NULL;
        bool found = false;
        for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
            if (!strcmp(builtin[i].group, kk->group) && !strcmp(builtin[i].plural, kk->plural)) {
                spec = builtin[i].cols;
                found = true;
            }
        if (!found && kk->group[0] && strchr(kk->group, '.') && strcmp(kk->group, "apps") &&
            !strstr(kk->group, "k8s.io"))
            crd_columns(p, k);
        else
            builtin_columns(p, spec);
    }
    *out = p;
    return 0;
}

void kctl_printer_free(kctl_printer *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ncols; i++) {
        free(p->cols[i].name);
        free(p->cols[i].path);
        free(p->cols[i].type);
    }
    free(p->cols);
    free(p->widths);
    free(p->tmpl);
    free(p);
}

kctl_format kctl_printer_format(const kctl_printer *p)
{
    return p->fmt;
}

/* ---------------------------------------------------------------- ages */

void kctl_age(char *buf, size_t len, const char *ts)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!ts || !*ts || !strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm)) {
        snprintf(buf, len, "<unknown>");
        return;
    }
    long long s = (long long)(time(NULL) - timegm(&tm));
    long long m = s / 60, h = s / 3600, d = h / 24, y = d / 365;
    if (s < -1)
        snprintf(buf, len, "<invalid>");
    else if (s < 0)
        snprintf(buf, len, "0s");
    else if (s < 120)
        snprintf(buf, len, "%llds", s);
    else if (m < 10)
        snprintf(buf, len, s % 60 ? "%lldm%llds" : "%lldm", m, s % 60);
    else if (m < 180)
        snprintf(buf, len, "%lldm", m);
    else if (h < 8)
        snprintf(buf, len, m % 60 ? "%lldh%lldm" : "%lldh", h, m % 60);
    else if (h < 48)
        snprintf(buf, len, "%lldh", h);
    else if (h < 24 * 8)
        snprintf(buf, len, h % 24 ? "%lldd%lldh" : "%lldd", d, h % 24);
    else if (d < 365 * 2)
        snprintf(buf, len, "%lldd", d);
    else if (d < 365 * 8)
        snprintf(buf, len, d % 365 ? "%lldy%lldd" : "%lldy", y, d % 365);
    else
        snprintf(buf, len, "%lldy", y);
}

/* ---------------------------------------------------------------- cells */

static char *computed(const char *what, const slinky_doc_value *o)
{
    char tmp[256];
    if (!strcmp(what, "#age")) {
        kctl_age(tmp, sizeof(tmp), slinky_doc_value_path_string(o, "metadata.creationTimestamp", NULL));
    } else if (!strcmp(what, "#data")) {
        snprintf(tmp, sizeof(tmp), "%zu", slinky_doc_value_size(slinky_doc_value_get(o, "data")) +
                                              slinky_doc_value_size(slinky_doc_value_get(o, "binaryData")));
    } else if (!strcmp(what, "#ready") || !strcmp(what, "#restarts")) {
        const slinky_doc_value *cs = slinky_doc_value_path(o, "status.containerStatuses");
        long long ready = 0, restarts = 0;
        for (size_t i = 0; i < slinky_doc_value_size(cs); i++) {
            ready += slinky_doc_value_path_bool(slinky_doc_value_at(cs, i), "ready", false);
            restarts += slinky_doc_value_path_int(slinky_doc_value_at(cs, i), "restartCount", 0);
        }
        if (!strcmp(what, "#ready"))
            snprintf(tmp, sizeof(tmp), "%lld/%zu", ready,
                     slinky_doc_value_size(slinky_doc_value_path(o, "spec.containers")));
        else
            snprintf(tmp, sizeof(tmp), "%lld", restarts);
    } else if (!strcmp(what, "#replicas")) {
        snprintf(tmp, sizeof(tmp), "%lld/%lld",
                 (long long)slinky_doc_value_path_int(o, "status.readyReplicas", 0),
                 (long long)slinky_doc_value_path_int(o, "spec.replicas", 1));
    } else if (!strcmp(what, "#lastseen")) {
        const char *ts = slinky_doc_value_path_string(o, "lastTimestamp", NULL);
        if (!ts)
            ts = slinky_doc_value_path_string(o, "eventTime", NULL);
        if (!ts)
            ts = slinky_doc_value_path_string(o, "metadata.creationTimestamp", "");
        kctl_age(tmp, sizeof(tmp), ts);
    } else if (!strcmp(what, "#object")) {
        int n = snprintf(tmp, sizeof(tmp), "%s/%s",
                         slinky_doc_value_path_string(o, "involvedObject.kind", ""),
                         slinky_doc_value_path_string(o, "involvedObject.name", ""));
        for (int i = 0; i < n && tmp[i] != '/'; i++)
            tmp[i] = (char)(tmp[i] >= 'A' && tmp[i] <= 'Z' ? tmp[i] + 32 : tmp[i]);
    } else {
        tmp[0] = '\0';
    }
    return strdup(tmp);
}

static char *cell(const column *c, const slinky_doc_value *o)
{
    if (c->path[0] == '#')
        return computed(c->path, o);
    char *v = kctl_jsonpath_values(c->path, o, ",");
    if (v && *v && !strcmp(c->type, "date") && strcmp(c->name, "CREATED AT")) {
        char tmp[64];
        kctl_age(tmp, sizeof(tmp), v);
        free(v);
        return strdup(tmp);
    }
    return v ? v : strdup(""); /* a missing field: an empty cell, as kubectl shows it */
}

/* "nodeset.slinky.slurm.net/NAME" when several types are listed */
static char *kind_name(const kctl_printer *p, const slinky_doc_value *o)
{
    char ref[300], out[600];
    kctl_kind_ref(ref, sizeof(ref), &p->kind);
    snprintf(out, sizeof(out), "%s/%s", ref, slinky_doc_value_path_string(o, "metadata.name", ""));
    return strdup(out);
}

void kctl_printer_show_kind(kctl_printer *p)
{
    p->show_kind = true;
}

static bool shown(const kctl_printer *p, const column *c)
{
    return c->priority == 0 || p->fmt == KCTL_WIDE;
}

/* rows[r][c]: row 0 is the header */
static int print_table(kctl_printer *p, FILE *f, const slinky_doc_value *const *objs, size_t n,
                       bool header)
{
    size_t nc = p->ncols + (p->namespace_column ? 1 : 0);
    char **cells = calloc((n + 1) * (nc ? nc : 1), sizeof(char *));
    if (!cells)
        return 1;
    for (size_t r = 0; r <= n; r++) {
        size_t c = 0;
        if (p->namespace_column)
            cells[r * nc + c++] = strdup(r == 0 ? "NAMESPACE"
                                                : slinky_doc_value_path_string(objs[r - 1],
                                                                               "metadata.namespace", ""));
        for (size_t i = 0; i < p->ncols; i++, c++)
            cells[r * nc + c] = !shown(p, &p->cols[i]) ? NULL
                                : r == 0               ? strdup(p->cols[i].name)
                                : p->show_kind && i == 0 ? kind_name(p, objs[r - 1])
                                                       : cell(&p->cols[i], objs[r - 1]);
    }
    if (!p->widths) {
        p->widths = calloc(nc ? nc : 1, sizeof(int));
        for (size_t c = 0; p->widths && c < nc; c++)
            for (size_t r = 0; r <= n; r++)
                if (cells[r * nc + c] && (int)strlen(cells[r * nc + c]) + 3 > p->widths[c])
                    p->widths[c] = (int)strlen(cells[r * nc + c]) + 3;
        for (size_t c = 0; p->widths && c < nc; c++)
            if (p->widths[c] < 6)
                p->widths[c] = 6;
    }
    size_t last = 0;
    for (size_t c = 0; c < nc; c++)
        if (cells[c])
            last = c;
    for (size_t r = header ? 0 : 1; r <= n; r++) {
        for (size_t c = 0; c < nc; c++) {
            const char *s = cells[r * nc + c];
            if (!s)
                continue;
            if (c == last)
                fprintf(f, "%s\n", s);
            else
                fprintf(f, "%-*s", p->widths ? p->widths[c] : 6, s);
        }
    }
    for (size_t i = 0; i < (n + 1) * nc; i++)
        free(cells[i]);
    free(cells);
    return 0;
}

/* JSON or YAML as kubectl prints them: keys sorted, metadata.managedFields left out. */
static int dump(FILE *f, const slinky_doc_value *v, bool yaml)
{
    char *text = NULL;
    slinky_doc *copy = NULL;
    if (slinky_doc_new_copy(&copy, v) < 0)
        return kctl_fail("output");
    slinky_doc_value *root = slinky_doc_root(copy);
    slinky_doc_value *items = slinky_doc_value_get(root, "items");
    if (slinky_doc_value_path(root, "metadata.managedFields"))
        slinky_doc_value_object_remove(slinky_doc_value_get(root, "metadata"), "managedFields");
    for (size_t i = 0; items && i < slinky_doc_value_size(items); i++) {
        slinky_doc_value *md = slinky_doc_value_get(slinky_doc_value_at(items, i), "metadata");
        if (slinky_doc_value_get(md, "managedFields"))
            slinky_doc_value_object_remove(md, "managedFields");
    }
    int rc = yaml ? slinky_doc_value_dump_yaml(&text, NULL, root, SLINKY_DOC_DUMP_SORT_KEYS)
                  : slinky_doc_value_dump_json(&text, NULL, root,
                                               SLINKY_DOC_DUMP_PRETTY | SLINKY_DOC_DUMP_SORT_KEYS);
    slinky_doc_free(copy);
    if (rc < 0)
        return kctl_fail("output");
    if (yaml) {
        fputs(text, f);
    } else { /* kubectl indents JSON by four spaces: double the library's two */
        for (const char *line = text; *line;) {
            size_t sp = strspn(line, " "), len = strcspn(line, "\n");
            fprintf(f, "%*s%.*s\n", (int)(2 * sp), "", (int)(len - sp), line + sp);
            line += len + (line[len] == '\n');
        }
    }
    slinky_free(text);
    return 0;
}

/* kubectl prints a List: {"apiVersion":"v1","items":[...],"kind":"List","metadata":{"resourceVersion":""}} */
static int as_list_doc(slinky_doc **out, const slinky_doc_value *items)
{
    slinky_doc *d = NULL;
    slinky_doc_value *root, *v = NULL, *md = NULL;
    if (slinky_doc_new(&d) < 0)
        return 1;
    root = slinky_doc_root(d);
    slinky_doc_value_set_object(root);
    slinky_doc_value_object_set_string(root, "apiVersion", "v1");
    slinky_doc_value_object_put(&v, root, "items");
    if (items)
        slinky_doc_value_set_copy(v, items);
    else
        slinky_doc_value_set_array(v);
    slinky_doc_value_object_set_string(root, "kind", "List");
    slinky_doc_value_object_put(&md, root, "metadata");
    slinky_doc_value_set_object(md);
    slinky_doc_value_object_set_string(md, "resourceVersion", "");
    *out = d;
    return 0;
}

static int print_jsonpath(kctl_printer *p, FILE *f, const slinky_doc_value *v)
{
    char err[256];
    char *s = kctl_jsonpath(p->tmpl, v, err, sizeof(err));
    if (!s) {
        fprintf(stderr, "slinkyctl: error executing jsonpath \"%s\": %s\n", p->tmpl, err);
        return 1;
    }
    fputs(s, f);
    free(s);
    return 0;
}

int kctl_print_items(kctl_printer *p, FILE *f, const slinky_doc_value *items, bool as_list)
{
    size_t n = slinky_doc_value_size(items);
    switch (p->fmt) {
    case KCTL_TABLE:
    case KCTL_WIDE: {
        if (n == 0)
            return 0;
        const slinky_doc_value **objs = calloc(n, sizeof(*objs));
        if (!objs)
            return 1;
        for (size_t i = 0; i < n; i++)
            objs[i] = slinky_doc_value_at(items, i);
        int rc = print_table(p, f, objs, n, true);
        p->header_done = true;
        free(objs);
        return rc;
    }
    case KCTL_NAME: {
        char ref[300];
        kctl_kind_ref(ref, sizeof(ref), &p->kind);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s/%s\n", ref,
                    slinky_doc_value_path_string(slinky_doc_value_at(items, i), "metadata.name", ""));
        return 0;
    }
    default: break;
    }
    if (!as_list) {
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = p->fmt == KCTL_JSONPATH ? print_jsonpath(p, f, slinky_doc_value_at(items, i))
                                         : dump(f, slinky_doc_value_at(items, i), p->fmt == KCTL_YAML);
        return rc;
    }
    slinky_doc *list = NULL;
    if (as_list_doc(&list, items))
        return 1;
    int rc = p->fmt == KCTL_JSONPATH ? print_jsonpath(p, f, slinky_doc_root(list))
                                     : dump(f, slinky_doc_root(list), p->fmt == KCTL_YAML);
    slinky_doc_free(list);
    return rc;
}

int kctl_print_event(kctl_printer *p, FILE *f, const slinky_doc_value *obj)
{
    int rc;
    if (p->fmt == KCTL_TABLE || p->fmt == KCTL_WIDE) {
        rc = print_table(p, f, &obj, 1, !p->header_done);
        p->header_done = true;
    } else if (p->fmt == KCTL_YAML) {
        fputs("---\n", f);
        rc = dump(f, obj, true);
    } else {
        slinky_doc *one = NULL;
        slinky_doc_value *arr;
        if (slinky_doc_new(&one) < 0)
            return 1;
        arr = slinky_doc_root(one);
        slinky_doc_value_set_array(arr);
        slinky_doc_value *e = NULL;
        slinky_doc_value_array_append(&e, arr);
        slinky_doc_value_set_copy(e, obj);
        rc = kctl_print_items(p, f, arr, false);
        slinky_doc_free(one);
    }
    fflush(f);
    return rc;
}
