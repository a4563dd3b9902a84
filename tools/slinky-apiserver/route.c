/* URL paths to (group, version, namespace, resource, name, subresource). */
#include "apiserver.h"

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
    r.storage = slinky__strdup(path);
    if (!r.storage)
        return AS_ROUTE_NONE;
    char *save = NULL;
    for (char *t = strtok_r(r.storage, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (n == SLINKY__ARRAY_SIZE(parts))
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
