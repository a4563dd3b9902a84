/* slinkyctl slurm: Slurm's control plane over slurmrestd (ping, nodes, node, drain,
 * resume, jobs, reservations), tables by default, -o json|yaml. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "slinky.h"

#if defined(__has_include)
#if __has_include("slinky/workload.h")
#include "slinky/workload.h"
/* the HS256 signer lives in the workload module; weak so a build without it says so */
extern __typeof__(slinky_workload_jwt_sign) slinky_workload_jwt_sign __attribute__((weak));
#define HAVE_WORKLOAD_JWT 1
#endif
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slinkyctl slurm [FLAGS] COMMAND [ARGS]\n"
            "\n"
            "Slurm's control plane through slurmrestd (JWT auth).\n"
            "\n"
            "commands:\n"
            "  ping                      the controllers (primary, backups) and whether they respond\n"
            "  nodes                     every node: state, reason, CPUs\n"
            "  node NAME                 one node\n"
            "  drain NAME --reason TEXT  drain a node (running jobs finish first)\n"
            "  resume NAME               return a node to service\n"
            "  jobs                      jobs with their nodes and end times\n"
            "  reservations              reservations (maintenance windows)\n"
            "\n"
            "flags (env default in brackets):\n"
            "  --url URL          slurmrestd base URL [SLINKY_SLURM_URL]\n"
            "  --user NAME        X-SLURM-USER-NAME [SLINKY_SLURM_USER, else \"slurm\"]\n"
            "  --token-file FILE  JWT file, re-read when it changes [SLINKY_SLURM_TOKEN_FILE]\n"
            "  --jwt-key FILE     sign tokens with the cluster's HS256 key [SLINKY_SLURM_JWT_KEY]\n"
            "                     (otherwise the token in $SLURM_JWT is used)\n"
            "  --timeout MS       request timeout (default 10000)\n"
            "  -o, --output FMT   table (default), json or yaml\n"
            "\n"
            "exit codes: 0 ok, 1 failure, 2 usage, 3 slurmrestd unavailable, 4 invalid input,\n"
            "            5 not found, 6 authentication, 7 not supported by this Slurm\n");
}

static int fail(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "slinkyctl slurm %s: %s\n", what, e->message);
    switch (e->code) {
    case SLINKY_EUNAVAILABLE:
    case SLINKY_ETIMEOUT: return 3;
    case SLINKY_EINVALID:
    case SLINKY_EPARSE: return 4;
    case SLINKY_ENOTFOUND: return 5;
    case SLINKY_EAUTH:
    case SLINKY_EFORBIDDEN: return 6;
    case SLINKY_EUNSUPPORTED: return 7;
    default: return 1;
    }
}

/* ---------------------------------------------------------------- signer */

typedef struct signer {
    char *key;
    size_t key_len;
    const char *user;
} signer;

static slinky_status sign_cb(char **token_out, int64_t *expires_out, int64_t now, void *payload)
{
#ifdef HAVE_WORKLOAD_JWT
    signer *s = payload;
    if (slinky_workload_jwt_sign == NULL)
        return SLINKY_EUNSUPPORTED;
    slinky_workload_jwt_claims cl = SLINKY_WORKLOAD_JWT_CLAIMS_INIT;
    cl.username = s->user;
    cl.issued_at = now;
    cl.expires_at = now + 600;
    int err = slinky_workload_jwt_sign(token_out, &cl, s->key, s->key_len);
    if (err == 0)
        *expires_out = cl.expires_at;
    return err;
#else
    (void)token_out;
    (void)expires_out;
    (void)now;
    (void)payload;
    return SLINKY_EUNSUPPORTED;
#endif
}

static int read_key(signer *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "slinkyctl slurm: --jwt-key %s: cannot open\n", path);
        return 4;
    }
    s->key = malloc(65536);
    s->key_len = s->key ? fread(s->key, 1, 65536, f) : 0;
    fclose(f);
    if (s->key_len == 0) {
        fprintf(stderr, "slinkyctl slurm: --jwt-key %s: empty\n", path);
        return 4;
    }
    return 0;
}

/* ---------------------------------------------------------------- output */

static const char *fmt_time(char buf[32], int64_t t)
{
    if (t == 0)
        return "-";
    if (t == INT64_MAX)
        return "never";
    time_t tt = (time_t)t;
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

static const char *dash(const char *s)
{
    return s && *s ? s : "-";
}

typedef struct out {
    int fmt; /* 0 table, 1 json, 2 yaml */
    slinky_doc *doc;
    slinky_doc_value *arr;
} out;

static int out_begin(out *o)
{
    if (o->fmt == 0)
        return 0;
    if (slinky_doc_new(&o->doc) || slinky_doc_value_set_array(o->arr = slinky_doc_root(o->doc)))
        return 1;
    return 0;
}

static slinky_doc_value *out_item(out *o)
{
    slinky_doc_value *v = NULL;
    if (slinky_doc_value_array_append(&v, o->arr) || slinky_doc_value_set_object(v))
        return NULL;
    return v;
}

static int out_end(out *o)
{
    if (o->fmt == 0)
        return fflush(stdout) == 0 ? 0 : 1;
    char *s = NULL;
    int err = o->fmt == 1 ? slinky_doc_value_dump_json(&s, NULL, o->arr, SLINKY_DOC_DUMP_PRETTY)
                          : slinky_doc_value_dump_yaml(&s, NULL, o->arr, 0);
    slinky_doc_free(o->doc);
    if (err)
        return fail("output");
    fputs(s, stdout);
    if (o->fmt == 1)
        fputc('\n', stdout);
    slinky_free(s);
    return fflush(stdout) == 0 ? 0 : 1;
}

static void set_s(slinky_doc_value *v, const char *k, const char *s)
{
    slinky_doc_value_object_set_string(v, k, s ? s : "");
}

static void set_i(slinky_doc_value *v, const char *k, int64_t i)
{
    slinky_doc_value_object_set_int(v, k, i);
}

static int show_nodes(out *o, const slinky_slurm_nodes *l)
{
    if (out_begin(o))
        return fail("output");
    if (o->fmt == 0)
        printf("%-16s %-22s %5s %5s %-18s %s\n", "NAME", "STATE", "CPUS", "ALLOC", "PARTITIONS", "REASON");
    for (size_t i = 0; i < slinky_slurm_nodes_count(l); i++) {
        const slinky_slurm_node *n = slinky_slurm_nodes_at(l, i);
        if (o->fmt == 0) {
            printf("%-16s %-22s %5lld %5lld %-18s %s\n", n->name, dash(n->state_text), (long long)n->cpus,
                   (long long)n->alloc_cpus, dash(n->partitions), dash(n->reason));
            continue;
        }
        slinky_doc_value *v = out_item(o);
        if (v == NULL)
            return fail("output");
        set_s(v, "name", n->name);
        set_s(v, "state", n->state_text);
        slinky_doc_value_object_set_bool(v, "drained", slinky_slurm_node_is_drained(n));
        slinky_doc_value_object_set_bool(v, "busy", slinky_slurm_node_is_busy(n));
        set_s(v, "reason", n->reason);
        set_s(v, "reasonSetByUser", n->reason_set_by_user);
        set_i(v, "reasonChangedAt", n->reason_changed_at);
        set_s(v, "comment", n->comment);
        set_s(v, "features", n->features);
        set_s(v, "activeFeatures", n->active_features);
        set_s(v, "partitions", n->partitions);
        set_s(v, "address", n->address);
        set_s(v, "hostname", n->hostname);
        set_s(v, "version", n->slurmd_version);
        set_i(v, "cpus", n->cpus);
        set_i(v, "allocCpus", n->alloc_cpus);
        set_i(v, "realMemory", n->real_memory);
        set_i(v, "allocMemory", n->alloc_memory);
    }
    return out_end(o);
}

static int show_jobs(out *o, const slinky_slurm_jobs *l)
{
    char b1[32], b2[32];
    if (out_begin(o))
        return fail("output");
    if (o->fmt == 0)
        printf("%-8s %-16s %-10s %-10s %-12s %-16s %-19s %s\n", "JOBID", "NAME", "USER", "PARTITION", "STATE",
               "NODES", "START", "END");
    for (size_t i = 0; i < slinky_slurm_jobs_count(l); i++) {
        const slinky_slurm_job *j = slinky_slurm_jobs_at(l, i);
        if (o->fmt == 0) {
            printf("%-8lld %-16s %-10s %-10s %-12s %-16s %-19s %s\n", (long long)j->job_id, dash(j->name),
                   dash(j->user_name), dash(j->partition), dash(j->state_text), dash(j->nodes),
                   fmt_time(b1, j->start_time), fmt_time(b2, j->end_time));
            continue;
        }
        slinky_doc_value *v = out_item(o);
        if (v == NULL)
            return fail("output");
        set_i(v, "jobId", j->job_id);
        set_s(v, "name", j->name);
        set_s(v, "user", j->user_name);
        set_s(v, "partition", j->partition);
        set_s(v, "state", j->state_text);
        set_s(v, "nodes", j->nodes);
        set_i(v, "nodeCount", j->node_count);
        set_i(v, "submitTime", j->submit_time);
        set_i(v, "startTime", j->start_time);
        set_i(v, "endTime", j->end_time);
        set_i(v, "timeLimitMinutes", j->time_limit);
    }
    return out_end(o);
}

static int show_resv(out *o, const slinky_slurm_reservations *l)
{
    char b1[32], b2[32];
    if (out_begin(o))
        return fail("output");
    if (o->fmt == 0)
        printf("%-16s %-16s %-19s %-19s %-20s %s\n", "NAME", "NODES", "START", "END", "FLAGS", "USERS");
    for (size_t i = 0; i < slinky_slurm_reservations_count(l); i++) {
        const slinky_slurm_reservation *r = slinky_slurm_reservations_at(l, i);
        if (o->fmt == 0) {
            printf("%-16s %-16s %-19s %-19s %-20s %s\n", r->name, dash(r->nodes), fmt_time(b1, r->start_time),
                   fmt_time(b2, r->end_time), dash(r->flags), dash(r->users));
            continue;
        }
        slinky_doc_value *v = out_item(o);
        if (v == NULL)
            return fail("output");
        set_s(v, "name", r->name);
        set_s(v, "nodes", r->nodes);
        set_i(v, "nodeCount", r->node_count);
        set_i(v, "startTime", r->start_time);
        set_i(v, "endTime", r->end_time);
        set_s(v, "flags", r->flags);
        set_s(v, "users", r->users);
        set_s(v, "partition", r->partition);
    }
    return out_end(o);
}

static int show_pings(out *o, const slinky_slurm_pings *l)
{
    if (out_begin(o))
        return fail("output");
    if (o->fmt == 0)
        printf("%-20s %-10s %-6s %-10s %s\n", "HOST", "MODE", "PING", "RESPONDING", "LATENCY(us)");
    for (size_t i = 0; i < slinky_slurm_pings_count(l); i++) {
        const slinky_slurm_ping *p = slinky_slurm_pings_at(l, i);
        if (o->fmt == 0) {
            printf("%-20s %-10s %-6s %-10s %lld\n", p->hostname, dash(p->mode), dash(p->pinged),
                   p->responding ? "yes" : "no", (long long)p->latency_us);
            continue;
        }
        slinky_doc_value *v = out_item(o);
        if (v == NULL)
            return fail("output");
        set_s(v, "hostname", p->hostname);
        set_s(v, "mode", p->mode);
        set_s(v, "pinged", p->pinged);
        slinky_doc_value_object_set_bool(v, "responding", p->responding);
        slinky_doc_value_object_set_bool(v, "primary", p->primary);
        set_i(v, "latencyMicroseconds", p->latency_us);
        set_s(v, "release", slinky_slurm_pings_release(l));
    }
    return out_end(o);
}

/* ---------------------------------------------------------------- main */

static const char *env_or(const char *v, const char *name)
{
    if (v)
        return v;
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

typedef struct flags {
    const char *url, *user, *token_file, *jwt_key, *output, *reason;
    long timeout;
} flags;

/* -1 to go on, or the exit code (--help, a bad flag) */
static int parse_flags(flags *f, int argc, char **argv, const char *shortopts)
{
    static const struct option lo[] = {
        {"url", 1, 0, 'u'},    {"user", 1, 0, 'U'},    {"token-file", 1, 0, 't'}, {"jwt-key", 1, 0, 'k'},
        {"timeout", 1, 0, 'T'}, {"output", 1, 0, 'o'}, {"reason", 1, 0, 'r'},     {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        switch (c) {
        case 'u': f->url = optarg; break;
        case 'U': f->user = optarg; break;
        case 't': f->token_file = optarg; break;
        case 'k': f->jwt_key = optarg; break;
        case 'T': f->timeout = strtol(optarg, NULL, 10); break;
        case 'o': f->output = optarg; break;
        case 'r': f->reason = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    return -1;
}

int slinkyctl_cmd_slurm(int argc, char **argv)
{
    flags f = {NULL, NULL, NULL, NULL, "table", NULL, 10000};
    int c;
    if ((c = parse_flags(&f, argc, argv, "+o:h")) >= 0)
        return c;
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[optind++];
    /* flags may follow the command too (drain NAME --reason X) */
    int rest_c = argc - optind + 1;
    char **rest_v = argv + optind - 1;
    if ((c = parse_flags(&f, rest_c, rest_v, "o:h")) >= 0)
        return c;
    const char *arg = optind < rest_c ? rest_v[optind] : NULL;
    out o = {0, NULL, NULL};
    if (!strcmp(f.output, "json"))
        o.fmt = 1;
    else if (!strcmp(f.output, "yaml"))
        o.fmt = 2;
    else if (strcmp(f.output, "table") != 0) {
        fprintf(stderr, "slinkyctl slurm: -o %s: use table, json or yaml\n", f.output);
        return 2;
    }
    bool needs_name = !strcmp(cmd, "node") || !strcmp(cmd, "drain") || !strcmp(cmd, "resume");
    if (strcmp(cmd, "ping") && strcmp(cmd, "nodes") && strcmp(cmd, "jobs") && strcmp(cmd, "reservations") &&
        !needs_name) {
        fprintf(stderr, "slinkyctl slurm: unknown command '%s'\n", cmd);
        usage(stderr);
        return 2;
    }
    if (needs_name && arg == NULL) {
        fprintf(stderr, "slinkyctl slurm %s: give a node name\n", cmd);
        return 2;
    }
    if (!strcmp(cmd, "drain") && (f.reason == NULL || *f.reason == '\0')) {
        fprintf(stderr, "slinkyctl slurm drain: --reason TEXT is required\n");
        return 2;
    }
    f.url = env_or(f.url, "SLINKY_SLURM_URL");
    f.user = env_or(f.user, "SLINKY_SLURM_USER");
    if (!f.token_file && !f.jwt_key) {
        f.token_file = env_or(NULL, "SLINKY_SLURM_TOKEN_FILE");
        if (!f.token_file)
            f.jwt_key = env_or(NULL, "SLINKY_SLURM_JWT_KEY");
    }
    if (f.url == NULL) {
        fprintf(stderr, "slinkyctl slurm: no slurmrestd URL (--url or SLINKY_SLURM_URL)\n");
        return 2;
    }
    slinky_slurm_client_options co = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    co.user = f.user;
    co.timeout_ms = f.timeout;
    co.connect_timeout_ms = f.timeout < 5000 ? f.timeout : 5000;
    signer sg = {NULL, 0, f.user ? f.user : "slurm"};
    if (f.token_file) {
        co.token_file = f.token_file;
    } else if (f.jwt_key) {
#ifndef HAVE_WORKLOAD_JWT
        fprintf(stderr, "slinkyctl slurm: --jwt-key needs the workload module's JWT signer, not built here\n");
        return 7;
#else
        if (slinky_workload_jwt_sign == NULL) {
            fprintf(stderr, "slinkyctl slurm: --jwt-key needs the workload module's JWT signer, not built here\n");
            return 7;
        }
        int rc = read_key(&sg, f.jwt_key);
        if (rc) {
            free(sg.key);
            return rc;
        }
        co.sign = sign_cb;
        co.sign_payload = &sg;
#endif
    } else {
        co.token = env_or(NULL, "SLURM_JWT");
        if (co.token == NULL) {
            fprintf(stderr, "slinkyctl slurm: no JWT (--token-file, --jwt-key, or SLURM_JWT)\n");
            return 2;
        }
    }
    (void)read_key;
    (void)sign_cb;
    slinky_slurm_client *cl = NULL;
    if (slinky_slurm_client_new(&cl, f.url, &co)) {
        free(sg.key);
        return fail("client");
    }
    int rc = 0;
    if (!strcmp(cmd, "ping")) {
        slinky_slurm_pings *p = NULL;
        rc = slinky_slurm_pings_get(&p, cl) ? fail(cmd) : show_pings(&o, p);
        slinky_slurm_pings_free(p);
    } else if (!strcmp(cmd, "nodes") || !strcmp(cmd, "node")) {
        slinky_slurm_nodes *l = NULL;
        int err = !strcmp(cmd, "node") ? slinky_slurm_node_get(&l, cl, arg) : slinky_slurm_nodes_list(&l, cl, 0);
        rc = err ? fail(cmd) : show_nodes(&o, l);
        slinky_slurm_nodes_free(l);
    } else if (!strcmp(cmd, "drain")) {
        rc = slinky_slurm_node_drain(cl, arg, f.reason) ? fail(cmd) : 0;
        if (rc == 0)
            printf("node %s draining: %s\n", arg, f.reason);
    } else if (!strcmp(cmd, "resume")) {
        rc = slinky_slurm_node_resume(cl, arg) ? fail(cmd) : 0;
        if (rc == 0)
            printf("node %s resumed\n", arg);
    } else if (!strcmp(cmd, "jobs")) {
        slinky_slurm_jobs *l = NULL;
        rc = slinky_slurm_jobs_list(&l, cl) ? fail(cmd) : show_jobs(&o, l);
        slinky_slurm_jobs_free(l);
    } else {
        slinky_slurm_reservations *l = NULL;
        rc = slinky_slurm_reservations_list(&l, cl) ? fail(cmd) : show_resv(&o, l);
        slinky_slurm_reservations_free(l);
    }
    slinky_slurm_client_free(cl);
    free(sg.key);
    return rc;
}
