/*
 * fuzz_hostlist: hostlist expansion and compression.
 * Property: for hosts made of [A-Za-z0-9._-], expand(compress(hosts)) == hosts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/conf.h"
#include "slinky/error.h"

static int plain(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 512)
        return 0;
    char *expr = malloc(size + 1);
    if (!expr)
        return 0;
    memcpy(expr, data, size);
    expr[size] = '\0';
    char **v = NULL;
    size_t n = 0;
    if (slinky_conf_hostlist_expand(&v, &n, expr) == 0) {
        int all_plain = 1;
        for (size_t i = 0; i < n && all_plain; i++)
            all_plain = plain(v[i]) && v[i][0];
        char *c = NULL;
        if (all_plain && slinky_conf_hostlist_compress(&c, (const char *const *)v, n) == 0) {
            char **w = NULL;
            size_t m = 0;
            if (slinky_conf_hostlist_expand(&w, &m, c) != 0 || m != n)
                __builtin_trap();
            for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], w[i]) != 0)
                    __builtin_trap();
            slinky_conf_strv_free(w, m);
        }
        slinky_free(c);
        slinky_conf_strv_free(v, n);
    }
    free(expr);
    slinky_error_clear();
    return 0;
}
