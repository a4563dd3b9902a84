/* kube: string map, clocks, RFC 3339 times, base64, randomness. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube_internal.h"

/* ---------------------------------------------------------------- map */

static size_t map_hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

void *slinky_kube__map_get(const slinky_kube__map *m, const char *key)
{
    if (m->nbuckets == 0)
        return NULL;
    for (slinky_kube__map_entry *e = m->buckets[map_hash(key) % m->nbuckets]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->value;
    return NULL;
}

static int map_grow(slinky_kube__map *m)
{
    size_t n = m->nbuckets ? m->nbuckets * 2 : 64;
    slinky_kube__map_entry **b = slinky__calloc(n, sizeof(*b));
    if (b == NULL)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < m->nbuckets; i++) {
        slinky_kube__map_entry *e = m->buckets[i];
        while (e) {
            slinky_kube__map_entry *next = e->next;
            size_t h = map_hash(e->key) % n;
            e->next = b[h];
            b[h] = e;
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
    return 0;
}

int slinky_kube__map_put(slinky_kube__map *m, const char *key, void *value, void **old_out)
{
    if (old_out)
        *old_out = NULL;
    if (m->nbuckets) {
        for (slinky_kube__map_entry *e = m->buckets[map_hash(key) % m->nbuckets]; e;
             e = e->next) {
            if (strcmp(e->key, key) == 0) {
                if (old_out)
                    *old_out = e->value;
                e->value = value;
                return 0;
            }
        }
    }
    if (m->count + 1 > m->nbuckets * 3 / 4 && map_grow(m) != 0)
        return SLINKY_ENOMEM;
    slinky_kube__map_entry *e = slinky__malloc(sizeof(*e));
    if (e == NULL)
        return SLINKY_ENOMEM;
    e->key = slinky__strdup(key);
    if (e->key == NULL) {
        free(e);
        return SLINKY_ENOMEM;
    }
    e->value = value;
    size_t h = map_hash(key) % m->nbuckets;
    e->next = m->buckets[h];
    m->buckets[h] = e;
    m->count++;
    return 0;
}

void *slinky_kube__map_remove(slinky_kube__map *m, const char *key)
{
    if (m->nbuckets == 0)
        return NULL;
    slinky_kube__map_entry **pp = &m->buckets[map_hash(key) % m->nbuckets];
    for (; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            slinky_kube__map_entry *e = *pp;
            void *v = e->value;
            *pp = e->next;
            free(e->key);
            free(e);
            m->count--;
            return v;
        }
    }
    return NULL;
}

void slinky_kube__map_dispose(slinky_kube__map *m, void (*free_value)(void *))
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        slinky_kube__map_entry *e = m->buckets[i];
        while (e) {
            slinky_kube__map_entry *next = e->next;
            if (free_value)
                free_value(e->value);
            free(e->key);
            free(e);
            e = next;
        }
    }
    free(m->buckets);
    memset(m, 0, sizeof(*m));
}

void slinky_kube__map_foreach(const slinky_kube__map *m,
                              void (*cb)(const char *key, void *value, void *p), void *p)
{
    for (size_t i = 0; i < m->nbuckets; i++)
        for (slinky_kube__map_entry *e = m->buckets[i]; e; e = e->next)
            cb(e->key, e->value, p);
}

/* ---------------------------------------------------------------- time */

int64_t slinky_kube__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t slinky_kube__wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void slinky_kube__sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void slinky_kube__abstime(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int64_t slinky_kube__parse_rfc3339(const char *s)
{
    if (s == NULL || strlen(s) < 20)
        return -1;
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        se < 0 || se > 60 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
        s[13] != ':' || s[16] != ':')
        return -1;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    long off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh = digits(p + 1, 2), om = (p[3] == ':') ? digits(p + 4, 2) : -1;
        if (oh < 0 || om < 0)
            return -1;
        off = (oh * 60L + om) * 60L * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p != '\0')
        return -1;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    return (int64_t)timegm(&tm) - off;
}

void slinky_kube__format_microtime(char *buf, size_t n, int64_t wall_ms)
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[24];
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, n, "%s.%06ldZ", base, (long)(wall_ms % 1000) * 1000L);
}

double slinky_kube__rand01(void)
{
    static _Thread_local unsigned long long state;
    if (state == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        state = ((unsigned long long)ts.tv_nsec << 16) ^ (unsigned long long)(uintptr_t)&ts ^
                0x9E3779B97F4A7C15ULL;
    }
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* ---------------------------------------------------------------- base64 */

int slinky_kube__base64_decode(char **out, size_t *len_out, const char *in, const char *what)
{
    int rc = slinky_base64_decode(out, len_out, in, SLINKY_BASE64_DEFAULT);
    if (rc == SLINKY_EINVALID)
        slinky__error_prefix("%s: ", what);
    return rc;
}
