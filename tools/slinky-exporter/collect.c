/* collect: one scrape of slurmrestd into Prometheus families (see collect.h). */
#include "collect.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const call_names[CALL_COUNT] = {"ping",       "diag", "nodes",
                                                   "partitions", "jobs", "health"};

#define MIB 1048576.0

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lower(char *out, size_t n, const char *in)
{
    size_t i = 0;
    for (; in[i] && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)in[i]);
    out[i] = '\0';
}

/* ------------------------------------------------------------ ping, diag */

static void put_ping(mbuf *b, const slinky_slurm_pings *p, const char *api)
{
    mbuf_family(b, "slinky_slurm_info", "gauge",
                "Slurm release and slurmrestd data-parser version in use (always 1).");
    const char *l[] = {"release", slinky_slurm_pings_release(p), "api_version", api, NULL};
    mbuf_sample(b, "slinky_slurm_info", l, 1);
    mbuf_family(b, "slinky_slurmctld_up", "gauge", "1 when the controller answers a ping.");
    for (size_t i = 0; i < slinky_slurm_pings_count(p); i++) {
        const slinky_slurm_ping *g = slinky_slurm_pings_at(p, i);
        const char *gl[] = {"host", g->hostname, "mode", g->mode, NULL};
        mbuf_sample(b, "slinky_slurmctld_up", gl, g->responding ? 1 : 0);
    }
    mbuf_family(b, "slinky_slurmctld_ping_latency_seconds", "gauge",
                "Ping latency to the controller as Slurm measures it.");
    for (size_t i = 0; i < slinky_slurm_pings_count(p); i++) {
        const slinky_slurm_ping *g = slinky_slurm_pings_at(p, i);
        const char *gl[] = {"host", g->hostname, "mode", g->mode, NULL};
        mbuf_sample(b, "slinky_slurmctld_ping_latency_seconds", gl, (double)g->latency_us / 1e6);
    }
}

static void put_diag(mbuf *b, const slinky_slurm_diag *d)
{
    static const struct {
        const char *name, *type, *help;
        size_t off;
        double scale;
    } f[] = {
        {"slinky_scheduler_server_threads", "gauge", "slurmctld server threads in use.",
         offsetof(slinky_slurm_diag, server_thread_count), 1},
        {"slinky_scheduler_agent_queue_size", "gauge", "RPCs queued by slurmctld's agent.",
         offsetof(slinky_slurm_diag, agent_queue_size), 1},
        {"slinky_scheduler_jobs_submitted_total", "counter",
         "Jobs submitted since slurmctld's statistics were reset.",
         offsetof(slinky_slurm_diag, jobs_submitted), 1},
        {"slinky_scheduler_jobs_started_total", "counter",
         "Jobs started since the statistics were reset.", offsetof(slinky_slurm_diag, jobs_started),
         1},
        {"slinky_scheduler_jobs_completed_total", "counter",
         "Jobs completed since the statistics were reset.",
         offsetof(slinky_slurm_diag, jobs_completed), 1},
        {"slinky_scheduler_jobs_canceled_total", "counter",
         "Jobs canceled since the statistics were reset.",
         offsetof(slinky_slurm_diag, jobs_canceled), 1},
        {"slinky_scheduler_jobs_failed_total", "counter",
         "Jobs failed since the statistics were reset.", offsetof(slinky_slurm_diag, jobs_failed),
         1},
        {"slinky_scheduler_jobs_pending", "gauge", "Pending jobs as slurmctld counts them.",
         offsetof(slinky_slurm_diag, jobs_pending), 1},
        {"slinky_scheduler_jobs_running", "gauge", "Running jobs as slurmctld counts them.",
         offsetof(slinky_slurm_diag, jobs_running), 1},
        {"slinky_scheduler_cycle_last_seconds", "gauge",
         "Duration of the main scheduler's last cycle.",
         offsetof(slinky_slurm_diag, schedule_cycle_last), 1e-6},
        {"slinky_scheduler_cycle_max_seconds", "gauge",
         "Longest main scheduler cycle since the reset.",
         offsetof(slinky_slurm_diag, schedule_cycle_max), 1e-6},
        {"slinky_backfill_cycle_last_seconds", "gauge",
         "Duration of the backfill scheduler's last cycle.",
         offsetof(slinky_slurm_diag, bf_cycle_last), 1e-6},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        int64_t v;
        memcpy(&v, (const char *)d + f[i].off, sizeof(v));
        mbuf_family(b, f[i].name, f[i].type, f[i].help);
        mbuf_sample(b, f[i].name, NULL, (double)v * f[i].scale);
    }
}

/* ------------------------------------------------------------ nodes */

static const uint32_t base_bits[] = {SLINKY_SLURM_NODE_IDLE,   SLINKY_SLURM_NODE_ALLOCATED,
                                     SLINKY_SLURM_NODE_MIXED,  SLINKY_SLURM_NODE_DOWN,
                                     SLINKY_SLURM_NODE_ERROR,  SLINKY_SLURM_NODE_FUTURE,
                                     SLINKY_SLURM_NODE_UNKNOWN};
#define BASE_MASK 0x7fu

static void put_nodes(mbuf *b, const slinky_slurm_nodes *l)
{
    size_t n = slinky_slurm_nodes_count(l);
    char s[64];
    mbuf_family(b, "slinky_nodes", "gauge",
                "Nodes by base state (idle, allocated, mixed, down, error, future, unknown).");
    for (size_t k = 0; k < sizeof(base_bits) / sizeof(base_bits[0]); k++) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += (slinky_slurm_nodes_at(l, i)->state & base_bits[k]) != 0;
        lower(s, sizeof(s), slinky_slurm_node_state_name(base_bits[k]));
        mbuf_sample1(b, "slinky_nodes", "state", s, (double)c);
    }
    mbuf_family(b, "slinky_nodes_flagged", "gauge",
                "Nodes carrying a state flag (drain, drained, draining, not_responding, ...).");
    for (uint32_t bit = 1u << 7; bit <= SLINKY_SLURM_NODE_UNDRAIN; bit <<= 1) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += (slinky_slurm_nodes_at(l, i)->state & bit) != 0;
        lower(s, sizeof(s), slinky_slurm_node_state_name(bit));
        mbuf_sample1(b, "slinky_nodes_flagged", "flag", s, (double)c);
    }
    mbuf_family(b, "slinky_node_info", "gauge",
                "One series per node: its state words as Slurm sends them (lower case) and slurmd "
                "version.");
    for (size_t i = 0; i < n; i++) {
        const slinky_slurm_node *d = slinky_slurm_nodes_at(l, i);
        char st[128];
        lower(st, sizeof(st), d->state_text);
        const char *lb[] = {"node",           d->name,           "state", st,
                            "slurmd_version", d->slurmd_version, NULL};
        mbuf_sample(b, "slinky_node_info", lb, 1);
    }
    static const struct {
        const char *name, *help;
        int what;
    } per[] = {
        {"slinky_node_cpus", "CPUs slurmd registered on the node.", 0},
        {"slinky_node_cpus_allocated", "CPUs allocated to jobs on the node.", 1},
        {"slinky_node_cpus_idle", "CPUs not allocated on the node.", 2},
        {"slinky_node_memory_bytes", "Memory (RealMemory) of the node.", 3},
        {"slinky_node_memory_allocated_bytes", "Memory allocated to jobs on the node.", 4},
        {"slinky_node_memory_idle_bytes", "Memory not allocated on the node.", 5},
        {"slinky_node_drained", "1 when the node is drained or draining.", 6},
    };
    for (size_t k = 0; k < sizeof(per) / sizeof(per[0]); k++) {
        mbuf_family(b, per[k].name, "gauge", per[k].help);
        for (size_t i = 0; i < n; i++) {
            const slinky_slurm_node *d = slinky_slurm_nodes_at(l, i);
            double v = 0;
            switch (per[k].what) {
            case 0:
                v = (double)d->cpus;
                break;
            case 1:
                v = (double)d->alloc_cpus;
                break;
            case 2:
                v = (double)(d->cpus - d->alloc_cpus);
                break;
            case 3:
                v = (double)d->real_memory * MIB;
                break;
            case 4:
                v = (double)d->alloc_memory * MIB;
                break;
            case 5:
                v = (double)(d->real_memory - d->alloc_memory) * MIB;
                break;
            default:
                v = slinky_slurm_node_is_draining(d) ? 1 : 0;
                break;
            }
            mbuf_sample1(b, per[k].name, "node", d->name, v);
        }
    }
}

/* true when comma separated `list` holds `item` */
static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, item, n))
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

static void put_partitions(mbuf *b, const slinky_slurm_partitions *pl, const slinky_slurm_nodes *nl)
{
    size_t np = slinky_slurm_partitions_count(pl), nn = nl ? slinky_slurm_nodes_count(nl) : 0;
    mbuf_family(b, "slinky_partition_nodes", "gauge", "Nodes in the partition.");
    for (size_t i = 0; i < np; i++) {
        const slinky_slurm_partition *p = slinky_slurm_partitions_at(pl, i);
        mbuf_sample1(b, "slinky_partition_nodes", "partition", p->name, (double)p->total_nodes);
    }
    if (nl == NULL)
        return;
    static const struct {
        const char *name, *help;
    } per[] = {
        {"slinky_partition_cpus", "CPUs of the partition's nodes."},
        {"slinky_partition_cpus_allocated", "Allocated CPUs of the partition's nodes."},
        {"slinky_partition_cpus_idle", "Unallocated CPUs of the partition's nodes."},
        {"slinky_partition_memory_bytes", "Memory of the partition's nodes."},
        {"slinky_partition_memory_allocated_bytes", "Allocated memory of the partition's nodes."},
        {"slinky_partition_memory_idle_bytes", "Unallocated memory of the partition's nodes."},
        {"slinky_partition_nodes_drained", "Drained or draining nodes in the partition."},
    };
    size_t nf = sizeof(per) / sizeof(per[0]);
    double *sum = calloc(np * nf + 1, sizeof(double));
    if (sum == NULL) {
        b->failed = true;
        return;
    }
    for (size_t j = 0; j < nn; j++) {
        const slinky_slurm_node *d = slinky_slurm_nodes_at(nl, j);
        for (size_t i = 0; i < np; i++) {
            if (!in_list(d->partitions, slinky_slurm_partitions_at(pl, i)->name))
                continue;
            double *s = sum + i * nf;
            s[0] += (double)d->cpus;
            s[1] += (double)d->alloc_cpus;
            s[2] += (double)(d->cpus - d->alloc_cpus);
            s[3] += (double)d->real_memory * MIB;
            s[4] += (double)d->alloc_memory * MIB;
            s[5] += (double)(d->real_memory - d->alloc_memory) * MIB;
            s[6] += slinky_slurm_node_is_draining(d) ? 1 : 0;
        }
    }
    for (size_t k = 0; k < nf; k++) {
        mbuf_family(b, per[k].name, "gauge", per[k].help);
        for (size_t i = 0; i < np; i++)
            mbuf_sample1(b, per[k].name, "partition", slinky_slurm_partitions_at(pl, i)->name,
                         sum[i * nf + k]);
    }
    free(sum);
}

/* ------------------------------------------------------------ jobs */

/* states always present per partition (0 when none), so panels never go blank */
static const char *const job_states[] = {
    "pending", "running",   "suspended", "completing",    "completed", "cancelled", "failed",
    "timeout", "node_fail", "preempted", "out_of_memory", "boot_fail", "deadline"};
#define NSTATES (sizeof(job_states) / sizeof(job_states[0]))

static int state_index(const char *text)
{
    char s[64];
    size_t n = strcspn(text, "+, ");
    if (n >= sizeof(s))
        n = sizeof(s) - 1;
    memcpy(s, text, n);
    s[n] = '\0';
    lower(s, sizeof(s), s);
    for (size_t i = 0; i < NSTATES; i++)
        if (!strcmp(s, job_states[i]))
            return (int)i;
    return -1; /* counted as "other" */
}

typedef struct keycount {
    const char *key;
    double by_state[NSTATES + 1];
    double total;
    bool kept;
} keycount;

typedef struct keyset {
    keycount *v;
    size_t n, cap;
} keyset;

static keycount *keyset_get(keyset *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].key, key))
            return &s->v[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        keycount *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    keycount *k = &s->v[s->n++];
    memset(k, 0, sizeof(*k));
    k->key = key;
    return k;
}

static int by_total_then_name(const void *a, const void *b)
{
    const keycount *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->key, y->key);
}

static const char *state_label(size_t i)
{
    return i < NSTATES ? job_states[i] : "other";
}

static void put_keyed(mbuf *b, const char *family, const char *label, keyset *s, bool all_states)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t st = 0; st <= NSTATES; st++) {
            if (!all_states && s->v[i].by_state[st] == 0)
                continue;
            const char *l[] = {label, s->v[i].key, "state", state_label(st), NULL};
            mbuf_sample(b, family, l, s->v[i].by_state[st]);
        }
}

static void put_jobs(mbuf *b, const slinky_slurm_jobs *jl, const slinky_slurm_partitions *pl,
                     int max_users)
{
    keyset parts = {0}, users = {0};
    bool oom = false;
    for (size_t i = 0; pl && i < slinky_slurm_partitions_count(pl); i++)
        oom |= keyset_get(&parts, slinky_slurm_partitions_at(pl, i)->name) == NULL;
    for (size_t i = 0; i < slinky_slurm_jobs_count(jl); i++) {
        const slinky_slurm_job *j = slinky_slurm_jobs_at(jl, i);
        int st = state_index(j->state_text);
        size_t si = st < 0 ? NSTATES : (size_t)st;
        keycount *p = keyset_get(&parts, j->partition), *u = keyset_get(&users, j->user_name);
        if (p == NULL || u == NULL) {
            oom = true;
            break;
        }
        p->by_state[si]++;
        p->total++;
        u->by_state[si]++;
        u->total++;
    }
    /* users: the max_users with most jobs keep their name, the rest fold into "other" */
    qsort(users.v, users.n, sizeof(*users.v), by_total_then_name);
    keycount other = {.key = "other"};
    size_t folded = 0;
    for (size_t i = 0; i < users.n; i++) {
        if ((int)i < max_users) {
            users.v[i].kept = true;
            continue;
        }
        folded++;
        for (size_t st = 0; st <= NSTATES; st++)
            other.by_state[st] += users.v[i].by_state[st];
    }
    size_t kept = users.n - folded;
    if (folded) {
        users.n = kept;
        if (users.n < users.cap)
            users.v[users.n++] = other;
    }
    if (oom) {
        b->failed = true;
    } else {
        mbuf_family(b, "slinky_jobs", "gauge",
                    "Jobs by partition and base state (a job asking for several partitions counts "
                    "under their list).");
        put_keyed(b, "slinky_jobs", "partition", &parts, true);
        mbuf_family(b, "slinky_user_jobs", "gauge",
                    "Jobs by user and base state; users beyond --max-users (fewest jobs first) are "
                    "user=\"other\".");
        put_keyed(b, "slinky_user_jobs", "user", &users, false);
        mbuf_family(b, "slinky_exporter_users_folded", "gauge",
                    "Users folded into user=\"other\" by the --max-users cap in this scrape.");
        mbuf_sample(b, "slinky_exporter_users_folded", NULL, (double)folded);
    }
    free(parts.v);
    free(users.v);
}

/* ------------------------------------------------------------ one scrape */

enum { FETCH_NODES, FETCH_JOBS };
typedef struct fetch {
    slinky_slurm_client *client;
    int what;
    int rc;
    slinky_slurm_nodes *nodes;
    slinky_slurm_jobs *jobs;
} fetch;

static void *fetch_main(void *arg)
{
    fetch *f = arg;
    f->rc = f->what == FETCH_NODES ? slinky_slurm_nodes_list(&f->nodes, f->client, 0)
                                   : slinky_slurm_jobs_list(&f->jobs, f->client);
    return NULL;
}

int exporter_scrape(exporter *e, mbuf *out)
{
    pthread_mutex_lock(&e->mu);
    double t0 = mono_s();
    bool failed[CALL_COUNT] = {false};
    const char *api = "";
    slinky_slurm_pings *pings = NULL;
    slinky_slurm_nodes *nodes = NULL;
    slinky_slurm_partitions *parts = NULL;
    slinky_slurm_jobs *jobs = NULL;
    slinky_slurm_diag diag;

    failed[CALL_PING] =
        slinky_slurm_client_negotiate(&api, e->client) || slinky_slurm_pings_get(&pings, e->client);
    if (failed[CALL_PING]) {
        /* not reachable: the other calls would each wait for their own timeout */
        for (int i = CALL_DIAG; i < CALL_HEALTH; i++)
            failed[i] = true;
    } else {
        /* the big answers (nodes, jobs) are fetched and decoded at the same time (the client is
           thread-safe); diag and partitions go on this thread */
        fetch fn = {e->client, FETCH_NODES}, fj = {e->client, FETCH_JOBS};
        pthread_t tn, tj;
        bool tn_ok = pthread_create(&tn, NULL, fetch_main, &fn) == 0;
        bool tj_ok = pthread_create(&tj, NULL, fetch_main, &fj) == 0;
        if (!tn_ok)
            fetch_main(&fn);
        if (!tj_ok)
            fetch_main(&fj);
        failed[CALL_DIAG] = slinky_slurm_diag_get(&diag, e->client) != 0;
        failed[CALL_PARTITIONS] = slinky_slurm_partitions_list(&parts, e->client) != 0;
        if (tn_ok)
            pthread_join(tn, NULL);
        if (tj_ok)
            pthread_join(tj, NULL);
        nodes = fn.nodes;
        jobs = fj.jobs;
        failed[CALL_NODES] = fn.rc != 0;
        failed[CALL_JOBS] = fj.rc != 0;
    }
    if (pings)
        put_ping(out, pings, api);
    if (!failed[CALL_DIAG])
        put_diag(out, &diag);
    if (nodes)
        put_nodes(out, nodes);
    if (parts)
        put_partitions(out, parts, nodes);
    if (jobs)
        put_jobs(out, jobs, parts, e->max_users);
    if (e->health_dir)
        failed[CALL_HEALTH] = health_results_collect(out, e->health_dir) != 0;
    slinky_slurm_pings_free(pings);
    slinky_slurm_nodes_free(nodes);
    slinky_slurm_partitions_free(parts);
    slinky_slurm_jobs_free(jobs);

    int nfailed = 0;
    bool slurm_ok = true;
    for (int i = 0; i < CALL_COUNT; i++) {
        if (failed[i]) {
            e->errors[i]++;
            nfailed++;
            slurm_ok &= i == CALL_HEALTH;
        }
    }
    e->scrapes++;
    mbuf_family(out, "slinky_slurm_up", "gauge",
                "1 when every slurmrestd call of this scrape succeeded.");
    mbuf_sample(out, "slinky_slurm_up", NULL, slurm_ok ? 1 : 0);
    mbuf_family(out, "slinky_exporter_scrapes_total", "counter",
                "Scrapes served since the exporter started.");
    mbuf_sample(out, "slinky_exporter_scrapes_total", NULL, (double)e->scrapes);
    mbuf_family(out, "slinky_exporter_scrape_errors_total", "counter",
                "Failed calls by kind (ping, diag, nodes, partitions, jobs, health) since the "
                "exporter started.");
    for (int i = 0; i < CALL_COUNT; i++)
        mbuf_sample1(out, "slinky_exporter_scrape_errors_total", "call", call_names[i],
                     (double)e->errors[i]);
    mbuf_family(out, "slinky_exporter_scrape_duration_seconds", "gauge", "Time this scrape took.");
    mbuf_sample(out, "slinky_exporter_scrape_duration_seconds", NULL, mono_s() - t0);
    pthread_mutex_unlock(&e->mu);
    return nfailed;
}
