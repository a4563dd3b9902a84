/*
 * health_results: slinky-health's result files (DIR/<node>.tsv, one line per
 * check: check, result, value, threshold, duration_s, unix time, detail; tab
 * separated, written by `slinky-health --results-dir DIR`) as slinky_health_*
 * families. Labels: node (file name) and check (configured names): bounded by
 * the cluster and the config.
 */
#include "collect.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    char node[128], check[128], result[16];
    double value, duration, time;
} row;

static int by_node_check(const void *a, const void *b)
{
    const row *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    return c ? c : strcmp(x->check, y->check);
}

static double num(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return (*s == '\0' || end == s) ? NAN : v;
}

static int read_rows(row **out, size_t *n_out, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    row *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || len - 4 >= sizeof(v->node) || strcmp(de->d_name + len - 4, ".tsv") ||
            de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        char line[1024];
        while (fgets(line, sizeof(line), f)) {
            line[strcspn(line, "\n")] = '\0';
            char *col[7] = {0};
            char *p = line;
            int k = 0;
            for (; k < 7 && p; k++) {
                col[k] = p;
                p = strchr(p, '\t');
                if (p)
                    *p++ = '\0';
            }
            if (k < 6 || col[0][0] == '#' || col[0][0] == '\0')
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                row *nv = realloc(v, cap * sizeof(*v));
                if (nv == NULL) {
                    fclose(f);
                    closedir(d);
                    free(v);
                    return -1;
                }
                v = nv;
            }
            row *r = &v[n++];
            snprintf(r->node, sizeof(r->node), "%.*s", (int)(len - 4), de->d_name);
            snprintf(r->check, sizeof(r->check), "%s", col[0]);
            snprintf(r->result, sizeof(r->result), "%s", col[1]);
            r->value = num(col[2]);
            r->duration = num(col[4]);
            r->time = num(col[5]);
        }
        fclose(f);
    }
    closedir(d);
    qsort(v, n, sizeof(*v), by_node_check);
    *out = v;
    *n_out = n;
    return 0;
}

int health_results_collect(mbuf *b, const char *dir)
{
    row *v = NULL;
    size_t n = 0;
    if (read_rows(&v, &n, dir))
        return -1;
    static const struct {
        const char *name, *help;
        int what;
    } fam[] = {
        {"slinky_health_check_ok",
         "1 when the node's last run of the check passed, warned or was skipped; 0 on fail or "
         "timeout.",
         0},
        {"slinky_health_check_result",
         "The last result of the check on the node (pass, warn, fail, skip, timeout), always 1.",
         1},
        {"slinky_health_check_value",
         "The value the check measured (its unit is in the check's name; NaN when none).", 2},
        {"slinky_health_check_duration_seconds", "How long the check took.", 3},
        {"slinky_health_check_last_run_timestamp_seconds", "When the check last ran (Unix time).",
         4},
    };
    for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
        mbuf_family(b, fam[k].name, "gauge", fam[k].help);
        for (size_t i = 0; i < n; i++) {
            const row *r = &v[i];
            const char *l[] = {
                "node",    r->node, "check", r->check, fam[k].what == 1 ? "result" : NULL,
                r->result, NULL};
            double x = fam[k].what == 0
                           ? (strcmp(r->result, "fail") && strcmp(r->result, "timeout"))
                       : fam[k].what == 1 ? 1
                       : fam[k].what == 2 ? r->value
                       : fam[k].what == 3 ? r->duration
                                          : r->time;
            mbuf_sample(b, fam[k].name, l, x);
        }
    }
    free(v);
    return 0;
}
