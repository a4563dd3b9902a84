/* URL paths to (group, version, namespace, resource, name, subresource). */
#include "pure.h"

#include <string.h>

void as_route_dispose(as_route *r)
{
    free(r->storage);
    memset(r, 0, sizeof(*r));
}

int as_route_parse(as_route *out, const char *path)
{
    as_route r = {0};
    const char *parts[12];
    size_t n = 0;
    r.storage = as_strdup(path);
    if (!r.storage)
        return AS_ROUTE_NONE;
    char *save = NULL;
    for (char *t = strtok_r(r.storage, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (n == AS_ARRAY_SIZE(parts))
            goto none;
        parts[n++] = t;
    }
    size_t i;
    int kind = AS_ROUTE_NONE;
    if (n >= 1 && strcmp(parts[0], "api") == 0) {
        if (n == 1) {
            kind = AS_ROUTE_API;
            goto done;
        }
        r.group = "";
        r.version = parts[1];
        if (n == 2) {
            kind = AS_ROUTE_API_V1;
            goto done;
        }
        i = 2;
    } else if (n >= 1 && strcmp(parts[0], "apis") == 0) {
        if (n == 1) {
            kind = AS_ROUTE_APIS;
            goto done;
        }
        r.group = parts[1];
        if (n == 2) {
            kind = AS_ROUTE_APIS_GROUP;
            goto done;
        }
        r.version = parts[2];
        if (n == 3) {
            kind = AS_ROUTE_APIS_GV;
            goto done;
        }
        i = 3;
    } else {
        goto none;
    }
    /* resource part */
    {
        const char **p = parts + i;
        size_t m = n - i;
        if (m >= 2 && strcmp(p[0], "namespaces") == 0) {
            if (m > 2 && strcmp(p[2], "status") != 0 && strcmp(p[2], "finalize") != 0) {
                r.ns = p[1];
                p += 2;
                m -= 2;
            }
        }
        if (m < 1 || m > 3)
            goto none;
        r.resource = p[0];
        r.name = m >= 2 ? p[1] : NULL;
        r.sub = m == 3 ? p[2] : NULL;
        kind = AS_ROUTE_RESOURCE;
    }
done:
    *out = r;
    return kind;
none:
    free(r.storage);
    memset(out, 0, sizeof(*out));
    return AS_ROUTE_NONE;
}

/* Kubernetes version priority: GA > beta > alpha, higher numbers first, then others by name */
static void version_key(const char *v, int *kind, long *major, long *minor)
{
    char *end = NULL;
    *kind = 0;
    *major = *minor = 0;
    if (v[0] != 'v' || v[1] < '0' || v[1] > '9')
        return;
    *major = strtol(v + 1, &end, 10);
    if (!*end) {
        *kind = 3;
    } else if (!strncmp(end, "beta", 4) || !strncmp(end, "alpha", 5)) {
        bool beta = end[0] == 'b';
        char *e2 = NULL;
        *minor = strtol(end + (beta ? 4 : 5), &e2, 10);
        if (!*e2 && e2 != end + (beta ? 4 : 5))
            *kind = beta ? 2 : 1;
    }
}

int as_version_priority_cmp(const char *a, const char *b)
{
    int ka, kb;
    long ma, mb, na, nb;
    version_key(a, &ka, &ma, &na);
    version_key(b, &kb, &mb, &nb);
    if (ka != kb)
        return kb - ka;
    if (ka == 0)
        return strcmp(a, b);
    if (ma != mb)
        return mb > ma ? 1 : -1;
    if (na != nb)
        return nb > na ? 1 : -1;
    return 0;
}
