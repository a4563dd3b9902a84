/*
 * bench_slurm_nodes DIR [ITERS]: replay a recorded slurmrestd answer and time
 * the client on it.
 *
 * DIR holds openapi.json and nodes.json, recorded from a real slurmrestd by
 * run_nodes_bench.sh at run time (never committed). A loopback HTTP server
 * (libmicrohttpd) serves those bytes; then, medians of ITERS runs:
 *   in-process: slinky_slurm_nodes_list (transfer + decode into typed nodes)
 *               vs a bare libcurl GET of the same URL into memory (the floor);
 *   processes:  `curl -s -o /dev/null URL` vs this program's --once URL
 *               (a whole process: client, negotiation, list, decode).
 */
#include <microhttpd.h>
#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "slinky.h"

static char *openapi, *nodes;
static size_t openapi_len, nodes_len;

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        *len = (size_t)n;
    }
    return b;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                             const char *version, const char *upload, size_t *upload_len, void **ctx)
{
    (void)cls, (void)method, (void)version, (void)upload, (void)upload_len, (void)ctx;
    bool api = strncmp(url, "/openapi", 8) == 0;
    bool list = strstr(url, "/nodes") != NULL;
    struct MHD_Response *r = MHD_create_response_from_buffer(api ? openapi_len : list ? nodes_len : 2,
                                                             api ? openapi : list ? nodes : (char *)"{}",
                                                             MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(conn, api || list ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, r);
    MHD_destroy_response(r);
    return ret;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* CPU time of finished children (user + system), ms */
static double child_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double self_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return v[n / 2];
}

static int list_once(slinky_slurm_client *c, size_t *count)
{
    slinky_slurm_nodes *l = NULL;
    if (slinky_slurm_nodes_list(&l, c, 0))
        return 1;
    /* touch every node as an operator would */
    size_t drained = 0;
    for (size_t i = 0; i < slinky_slurm_nodes_count(l); i++)
        drained += slinky_slurm_node_is_drained(slinky_slurm_nodes_at(l, i));
    *count = slinky_slurm_nodes_count(l) + drained * 0;
    slinky_slurm_nodes_free(l);
    return 0;
}

static slinky_slurm_client *client(const char *base)
{
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.user = "root";
    o.token = "replayed"; /* the replay server does not check it */
    slinky_slurm_client *c = NULL;
    if (slinky_slurm_client_new(&c, base, &o))
        return NULL;
    return c;
}

static size_t sink(char *d, size_t s, size_t n, void *p)
{
    (void)d;
    *(size_t *)p += s * n;
    return s * n;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--once") == 0) { /* one whole process: argv[2] is the base URL */
        slinky_slurm_client *c = client(argv[2]);
        size_t n = 0;
        int rc = c == NULL || list_once(c, &n) || n == 0;
        slinky_slurm_client_free(c);
        return rc;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: bench_slurm_nodes DIR [ITERS]\n");
        return 2;
    }
    int iters = argc > 2 ? atoi(argv[2]) : 30;
    if (iters < 3 || iters > 1000)
        iters = 30;
    if (!(openapi = slurp(argv[1], "openapi.json", &openapi_len)) || !(nodes = slurp(argv[1], "nodes.json", &nodes_len))) {
        fprintf(stderr, "bench_slurm_nodes: %s/openapi.json and nodes.json are needed\n", argv[1]);
        return 2;
    }
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                                            serve, NULL, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "bench_slurm_nodes: cannot start the replay server\n");
        return 1;
    }
    unsigned port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char base[64], url[128];
    snprintf(base, sizeof(base), "http://127.0.0.1:%u", port);
    snprintf(url, sizeof(url), "%s/slurm/v0.0.42/nodes", base);
    double *a = calloc((size_t)iters, sizeof(double)), *b = calloc((size_t)iters, sizeof(double));
    slinky_slurm_client *c = client(base);
    size_t count = 0;
    if (c == NULL || list_once(c, &count)) { /* negotiation + warm-up */
        fprintf(stderr, "bench_slurm_nodes: %s\n", slinky_error_last()->message);
        return 1;
    }
    CURL *h = curl_easy_init();
    double *ca = calloc((size_t)iters, sizeof(double)), *cb = calloc((size_t)iters, sizeof(double));
    for (int i = 0; i < iters; i++) {
        double c0 = self_cpu_ms(), t0 = now_ms();
        list_once(c, &count);
        a[i] = now_ms() - t0;
        ca[i] = self_cpu_ms() - c0;
        size_t got = 0;
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
        t0 = now_ms();
        curl_easy_perform(h);
        b[i] = now_ms() - t0;
    }
    curl_easy_cleanup(h);
    slinky_slurm_client_free(c);
    double la = median(a, iters), lb = median(b, iters);
    printf("replayed answer: %zu nodes, %zu bytes (recorded from slurmrestd)\n", count, nodes_len);
    printf("in-process  list+decode %.2f ms (CPU %.2f ms, both threads of this process)   libcurl GET floor %.2f ms"
           "   ratio %.2fx\n",
           la, median(ca, iters), lb, la / lb);
    char cmd[512];
    for (int i = 0; i < iters; i++) {
        snprintf(cmd, sizeof(cmd), "exec curl -s -o /dev/null %s", url);
        double c0 = child_cpu_ms(), t0 = now_ms();
        if (system(cmd) != 0)
            return 1;
        b[i] = now_ms() - t0;
        cb[i] = child_cpu_ms() - c0;
        snprintf(cmd, sizeof(cmd), "exec /proc/%d/exe --once %s", (int)getpid(), base);
        c0 = child_cpu_ms();
        t0 = now_ms();
        if (system(cmd) != 0)
            return 1;
        a[i] = now_ms() - t0;
        ca[i] = child_cpu_ms() - c0;
    }
    la = median(a, iters);
    lb = median(b, iters);
    double pa = median(ca, iters), pb = median(cb, iters);
    printf("processes   client+negotiate+list+decode %.2f ms   curl -s -o /dev/null %.2f ms   ratio %.2fx\n", la,
           lb, la / lb);
    printf("            CPU per process (sh + program): %.2f ms vs %.2f ms   ratio %.2fx\n", pa, pb, pa / pb);
    free(ca);
    free(cb);
    MHD_stop_daemon(d);
    free(a);
    free(b);
    free(openapi);
    free(nodes);
    return 0;
}
