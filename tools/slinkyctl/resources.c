/* slinkyctl: resources from files as model objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"

static int read_all(char **out, size_t *len, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return -1;
    size_t cap = 65536, n = 0, r;
    char *s = malloc(cap + 1);
    while (s && (r = fread(s + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *ns = realloc(s, (cap *= 2) + 1);
            if (!ns)
                free(s);
            s = ns;
        }
    }
    if (f != stdin)
        fclose(f);
    if (!s)
        return -1;
    s[n] = '\0';
    *out = s;
    *len = n;
    return 0;
}

static int add(slinkyctl_resources *r, const slinky_doc_value *v, const char *path,
               const char *prog)
{
    if (slinky_doc_value_type(v) == SLINKY_DOC_ARRAY) {
        for (size_t i = 0; i < slinky_doc_value_size(v); i++)
            if (add(r, slinky_doc_value_at(v, i), path, prog))
                return 1;
        return 0;
    }
    const char *kind = slinky_doc_value_path_string(v, "kind", "");
    if (!strcmp(kind, "List") || (strlen(kind) > 4 && !strcmp(kind + strlen(kind) - 4, "List") &&
                                  slinky_doc_value_get(v, "items")))
        return add(r, slinky_doc_value_get(v, "items"), path, prog);
    if (slinky_model_kind_lookup(kind) == SLINKY_MODEL_KIND_UNKNOWN) {
        r->skipped++;
        return 0;
    }
    slinky_model_object *o = NULL;
    if (slinky_model_object_new_from_value(&o, v)) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, slinky_error_last()->message);
        return 1;
    }
    slinky_model_object **a = realloc(r->objs, (r->n + 1) * sizeof(*a));
    if (!a) {
        slinky_model_object_free(o);
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    r->objs = a;
    a[r->n++] = o;
    return 0;
}

int slinkyctl_resources_load(slinkyctl_resources *r, const char *path, const char *prog)
{
    char *text = NULL;
    size_t len = 0;
    if (read_all(&text, &len, path) < 0) {
        fprintf(stderr, "%s: %s: ", prog, path);
        perror(NULL);
        return 1;
    }
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_yaml_all(&d, text, len);
    free(text);
    if (rc) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, slinky_error_last()->message);
        return 1;
    }
    rc = add(r, slinky_doc_root(d), path, prog);
    slinky_doc_free(d);
    return rc;
}

void slinkyctl_resources_free(slinkyctl_resources *r)
{
    for (size_t i = 0; i < r->n; i++)
        slinky_model_object_free(r->objs[i]);
    free(r->objs);
    memset(r, 0, sizeof(*r));
}

const slinky_model_object *slinkyctl_resources_first(const slinkyctl_resources *r,
                                                     slinky_model_kind kind)
{
    for (size_t i = 0; i < r->n; i++)
        if (slinky_model_object_get_kind(r->objs[i]) == kind)
            return r->objs[i];
    return NULL;
}
