/*
 * /metrics in the Prometheus text format (handle.h): requests by verb,
 * group, resource and code, a latency histogram by verb, open watches, the
 * objects stored per resource and the write-ahead log. http.c records every
 * request; the counters are process-wide (one server per process).
 */
#include "handle.h"

#include <stdio.h>
#include <string.h>

#define MAX_SERIES 512
static const double k_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define N_BUCKETS (sizeof(k_buckets) / sizeof(k_buckets[0]))
static const char *const k_verbs[] = {"get", "list", "watch", "create", "update", "patch",
                                      "delete", "deletecollection", "other"};
#define N_VERBS (sizeof(k_verbs) / sizeof(k_verbs[0]))

typedef struct series {
    char verb[20], group[64], resource[64];
    int code;
    unsigned long long count;
} series;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static series g_series[MAX_SERIES];
static size_t g_n;
static unsigned long long g_overflow;
static unsigned long long g_bucket[N_VERBS][N_BUCKETS + 1];
static double g_sum[N_VERBS];
static unsigned long long g_count[N_VERBS];
static long g_watches;

/* kube-apiserver's verb of a request */
static const char *verb_of(const char *method, const as_route *r, bool watch)
{
    if (!strcmp(method, "GET"))
        return watch ? "watch" : r->name ? "get" : "list";
    if (!strcmp(method, "POST"))
        return "create";
    if (!strcmp(method, "PUT"))
        return "update";
    if (!strcmp(method, "PATCH"))
        return "patch";
    if (!strcmp(method, "DELETE"))
        return r->name ? "delete" : "deletecollection";
    return "other";
}

static size_t verb_index(const char *verb)
{
    for (size_t i = 0; i < N_VERBS; i++)
        if (!strcmp(k_verbs[i], verb))
            return i;
    return N_VERBS - 1;
}

void as_metrics_record(const char *method, const char *path, bool watch, int code,
                       double seconds)
{
    as_route r;
    bool resource = as_route_parse(&r, path) == AS_ROUTE_RESOURCE;
    const char *verb = resource ? verb_of(method, &r, watch) : "other";
    char res[64] = "", grp[64] = "";
    if (resource) {
        snprintf(res, sizeof(res), "%s%s%s", r.resource, r.sub ? "/" : "", r.sub ? r.sub : "");
        snprintf(grp, sizeof(grp), "%s", r.group);
    }
    as_route_dispose(&r);
    size_t vi = verb_index(verb);
    pthread_mutex_lock(&g_lock);
    series *s = NULL;
    for (size_t i = 0; i < g_n && !s; i++)
        if (g_series[i].code == code && !strcmp(g_series[i].verb, verb) &&
            !strcmp(g_series[i].resource, res) && !strcmp(g_series[i].group, grp))
            s = &g_series[i];
    if (!s && g_n < MAX_SERIES) {
        s = &g_series[g_n++];
        snprintf(s->verb, sizeof(s->verb), "%s", verb);
        snprintf(s->group, sizeof(s->group), "%s", grp);
        snprintf(s->resource, sizeof(s->resource), "%s", res);
        s->code = code;
    }
    if (s)
        s->count++;
    else
        g_overflow++;
    size_t b = 0;
    while (b < N_BUCKETS && seconds > k_buckets[b])
        b++;
    g_bucket[vi][b]++;
    g_sum[vi] += seconds;
    g_count[vi]++;
    pthread_mutex_unlock(&g_lock);
}

void as_metrics_watch(int delta)
{
    pthread_mutex_lock(&g_lock);
    g_watches += delta;
    pthread_mutex_unlock(&g_lock);
}

/* a label value: backslash, quote and newline escaped */
static void label(as_buf *b, const char *v)
{
    as_buf_putc(b, '"');
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            as_buf_putc(b, '\\');
        if (*v == '\n') {
            as_buf_puts(b, "\\n");
            continue;
        }
        as_buf_putc(b, *v);
    }
    as_buf_putc(b, '"');
}

int as_metrics_render(as_server *s, as_resp *resp)
{
    as_buf *b = &resp->body;
    as_buf_clear(b);
    pthread_mutex_lock(&g_lock);
    as_buf_puts(b, "# HELP apiserver_request_total Counter of apiserver requests broken out by "
                   "verb, group, resource and HTTP response code.\n"
                   "# TYPE apiserver_request_total counter\n");
    for (size_t i = 0; i < g_n; i++) {
        const series *x = &g_series[i];
        as_buf_puts(b, "apiserver_request_total{code=");
        char code[16];
        snprintf(code, sizeof(code), "%d", x->code);
        label(b, code);
        as_buf_puts(b, ",group=");
        label(b, x->group);
        as_buf_puts(b, ",resource=");
        label(b, x->resource);
        as_buf_puts(b, ",verb=");
        label(b, x->verb);
        as_buf_printf(b, "} %llu\n", x->count);
    }
    as_buf_printf(b, "# HELP apiserver_request_series_dropped_total Requests not counted by "
                     "apiserver_request_total (too many series).\n"
                     "# TYPE apiserver_request_series_dropped_total counter\n"
                     "apiserver_request_series_dropped_total %llu\n",
                  g_overflow);
    as_buf_puts(b, "# HELP apiserver_request_duration_seconds Response latency distribution in "
                   "seconds for each verb.\n"
                   "# TYPE apiserver_request_duration_seconds histogram\n");
    for (size_t v = 0; v < N_VERBS; v++) {
        if (!g_count[v])
            continue;
        unsigned long long cum = 0;
        for (size_t k = 0; k <= N_BUCKETS; k++) {
            cum += g_bucket[v][k];
            if (k < N_BUCKETS)
                as_buf_printf(b, "apiserver_request_duration_seconds_bucket{verb=\"%s\",le=\"%g\"} "
                                 "%llu\n",
                              k_verbs[v], k_buckets[k], cum);
            else
                as_buf_printf(b, "apiserver_request_duration_seconds_bucket{verb=\"%s\",le=\"+Inf\"}"
                                 " %llu\n",
                              k_verbs[v], cum);
        }
        as_buf_printf(b, "apiserver_request_duration_seconds_sum{verb=\"%s\"} %.6f\n"
                         "apiserver_request_duration_seconds_count{verb=\"%s\"} %llu\n",
                      k_verbs[v], g_sum[v], k_verbs[v], g_count[v]);
    }
    as_buf_printf(b, "# HELP apiserver_watches Watch streams open now.\n"
                     "# TYPE apiserver_watches gauge\n"
                     "apiserver_watches %ld\n",
                  g_watches);
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_lock(&s->lock);
    as_buf_puts(b, "# HELP apiserver_storage_objects Number of stored objects per resource.\n"
                   "# TYPE apiserver_storage_objects gauge\n");
    for (const as_rtype *rt = s->types; rt; rt = rt->next) {
        if (rt->removed)
            continue;
        char name[200];
        snprintf(name, sizeof(name), "%s%s%s", rt->plural, *rt->group ? "." : "", rt->group);
        as_buf_puts(b, "apiserver_storage_objects{resource=");
        label(b, name);
        as_buf_printf(b, "} %zu\n", rt->n_items);
    }
    as_buf_printf(b, "# HELP apiserver_wal_bytes Bytes in the write-ahead log since the last "
                     "snapshot (0 without --data-dir).\n"
                     "# TYPE apiserver_wal_bytes gauge\n"
                     "apiserver_wal_bytes %zu\n"
                     "# HELP apiserver_wal_compactions_total Snapshots written while serving.\n"
                     "# TYPE apiserver_wal_compactions_total counter\n"
                     "apiserver_wal_compactions_total %lu\n"
                     "# HELP apiserver_resource_version The last resourceVersion assigned.\n"
                     "# TYPE apiserver_resource_version gauge\n"
                     "apiserver_resource_version %llu\n",
                  s->wal_fd >= 0 ? s->wal_bytes : 0, s->compactions,
                  (unsigned long long)s->rv);
    pthread_mutex_unlock(&s->lock);
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    return b->failed ? SLINKY_ENOMEM : 0;
}
