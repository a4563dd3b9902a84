/* JSONPath for printer columns and HumanDuration ages (pure.h). */
#include "pure.h"

#include <stdio.h>
#include <string.h>

void as_human_duration(char *buf, size_t len, long long secs)
{
    if (secs < -1) {
        snprintf(buf, len, "<invalid>");
        return;
    }
    if (secs < 0)
        secs = 0;
    long long minutes = secs / 60, hours = secs / 3600;
    if (secs < 120)
        snprintf(buf, len, "%llds", secs);
    else if (minutes < 10)
        secs % 60 ? snprintf(buf, len, "%lldm%llds", minutes, secs % 60)
                  : snprintf(buf, len, "%lldm", minutes);
    else if (minutes < 180)
        snprintf(buf, len, "%lldm", minutes);
    else if (hours < 8)
        minutes % 60 ? snprintf(buf, len, "%lldh%lldm", hours, minutes % 60)
                     : snprintf(buf, len, "%lldh", hours);
    else if (hours < 48)
        snprintf(buf, len, "%lldh", hours);
    else if (hours < 24 * 8)
        hours % 24 ? snprintf(buf, len, "%lldd%lldh", hours / 24, hours % 24)
                   : snprintf(buf, len, "%lldd", hours / 24);
    else if (hours < 24 * 365 * 2)
        snprintf(buf, len, "%lldd", hours / 24);
    else if (hours < 24 * 365 * 8)
        (hours / 24) % 365 ? snprintf(buf, len, "%lldy%lldd", hours / 24 / 365, (hours / 24) % 365)
                           : snprintf(buf, len, "%lldy", hours / 24 / 365);
    else
        snprintf(buf, len, "%lldy", hours / 24 / 365);
}

/* minimal JSONPath over a doc value */
const slinky_doc_value *as_jsonpath(const slinky_doc_value *v, const char *path)
{
    const char *p = path;
    if (*p == '{')
        p++;
    while (v && *p && *p != '}') {
        if (*p == '.') {
            p++;
            const char *s = p;
            while (*p && *p != '.' && *p != '[' && *p != '}')
                p++;
            if (p == s)
                continue;
            char key[256];
            size_t n = (size_t)(p - s) < sizeof(key) - 1 ? (size_t)(p - s) : sizeof(key) - 1;
            memcpy(key, s, n);
            key[n] = '\0';
            v = slinky_doc_value_get(v, key);
        } else if (*p == '[') {
            const char *end = strchr(p, ']');
            if (!end)
                return NULL;
            if (p[1] == '?') {
                /* [?(@.key=="value")] */
                char key[128] = "", val[256] = "";
                if (sscanf(p, "[?(@.%127[^=!]==\"%255[^\"]\")]", key, val) != 2 &&
                    sscanf(p, "[?(@.%127[^=!]=='%255[^']')]", key, val) != 2)
                    return NULL;
                end = strstr(p, ")]");
                if (!end)
                    return NULL;
                end++;
                const slinky_doc_value *found = NULL;
                for (size_t i = 0; i < slinky_doc_value_size(v) && !found; i++) {
                    const slinky_doc_value *e = slinky_doc_value_at(v, i);
                    const char *s = slinky_doc_value_path_string(e, key, NULL);
                    if (s && strcmp(s, val) == 0)
                        found = e;
                }
                v = found;
            } else if (p[1] == '*') {
                v = slinky_doc_value_at(v, 0);
            } else {
                v = slinky_doc_value_at(v, (size_t)strtoul(p + 1, NULL, 10));
            }
            p = end + 1;
        } else {
            return NULL;
        }
    }
    return v;
}
