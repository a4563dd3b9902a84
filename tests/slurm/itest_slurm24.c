/*
 * slurm/slurm24 (integration): the client against Slurm 24.11's real
 * slurmrestd (tests/harness/slurm24.sh up restd, two nodes, in the trixie
 * chroot). Tokens come from `scontrol token`.
 *   - negotiation picks v0.0.42; ping, diag, nodes (+ update_time polling),
 *     partitions, jobs;
 *   - drain with a reason, seen by scontrol; with a job running the node is
 *     DRAINING (is_drained false) until the job ends, then DRAINED; resume;
 *   - comment and features updates; an unknown node is ENOTFOUND and a failed
 *     lookup is never drained; a dynamic node record is deleted;
 *   - reservations: get/list; create/delete are EUNSUPPORTED on 24.11 (its
 *     slurmrestd has no such methods) and change nothing;
 *   - an expired JWT -> EAUTH; a rotated token file is picked up; the signer
 *     re-signs at 80% of the lifetime on the injected clock; an unprivileged
 *     user -> EFORBIDDEN;
 *   - slurmrestd stopped (SIGSTOP: no reply; then killed: refused) ->
 *     EUNAVAILABLE within the configured timeout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf/itest_util.h"
#include "slinky/error.h"
#include "slinky/slurm.h"

static char H[1024];       /* harness dir */
static char ROOT[512];     /* chroot */
static char DIR_[512];     /* cluster dir inside the chroot */
static char URL[128];
static char WORK[128];
static int up;

static const char *envline(const char *env, const char *key, char *out, size_t n)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "export %s=", key);
    const char *p = strstr(env, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    snprintf(out, n, "%.*s", (int)strcspn(p, "\n"), p);
    return out;
}

static int setup(void **state)
{
    (void)state;
    snprintf(H, sizeof(H), "%s/tests/harness", getenv("SLINKY_SOURCE_DIR"));
    snprintf(WORK, sizeof(WORK), "/tmp/itest-slurm24.XXXXXX");
    if (!mkdtemp(WORK))
        return -1;
    char *env = capture("SLURM_CI_NODES=2 SLURM_CI_EXTRA_CONF='MaxNodeCount=8' %s/slurm24.sh up restd 2>%s/up.log",
                        H, WORK);
    up = 1;
    if (!envline(env, "SLURM24_DIR", DIR_, sizeof(DIR_)) || !envline(env, "SLURM24_RESTD", URL, sizeof(URL)) ||
        !envline(env, "SLURM24_ROOT", ROOT, sizeof(ROOT))) {
        sh("cat %s/up.log >&2", WORK);
        free(env);
        return -1;
    }
    free(env);
    setenv("SLURM24_DIR", DIR_, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (up) {
        /* a stopped slurmrestd must go on to receive its TERM */
        sh("p=$(cat %s%s/run/slurmrestd.pid 2>/dev/null) && kill -CONT $p 2>/dev/null; true", ROOT, DIR_);
        sh("%s/slurm24.sh down >/dev/null 2>&1", H);
    }
    sh("rm -rf %s", WORK);
    return 0;
}

/* a token from `scontrol token` (free()) */
static char *token(const char *user, int lifespan)
{
    char *out = capture("%s/slurm24.sh exec scontrol token username=%s lifespan=%d 2>/dev/null | sed 's/^SLURM_JWT=//'",
                        H, user, lifespan);
    out[strcspn(out, "\n")] = '\0';
    if (strlen(out) < 20)
        fail_msg("scontrol token username=%s: got \"%s\"", user, out);
    return out;
}

static slinky_slurm_client *client_with(const char *user, const char *tok, long timeout_ms)
{
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.user = user;
    o.token = tok;
    o.timeout_ms = timeout_ms;
    o.connect_timeout_ms = timeout_ms;
    slinky_slurm_client *c = NULL;
    if (slinky_slurm_client_new(&c, URL, &o))
        fail_msg("client: %s", slinky_error_last()->message);
    return c;
}

static slinky_slurm_client *root_client(void)
{
    char *t = token("root", 3600);
    slinky_slurm_client *c = client_with("root", t, 10000);
    free(t);
    return c;
}

#define OK(x)                                                                                                  \
    do {                                                                                                       \
        int rc_ = (x);                                                                                         \
        if (rc_)                                                                                               \
            fail_msg("%s: %s (%s)", #x, slinky_error_last()->message, slinky_error_name(rc_));                 \
    } while (0)

#define EXPECT(x, code)                                                                                        \
    do {                                                                                                       \
        int rc_ = (x);                                                                                         \
        if (rc_ != (code))                                                                                     \
            fail_msg("%s: got %s (%s), want %s", #x, slinky_error_name(rc_), slinky_error_last()->message,     \
                     slinky_error_name(code));                                                                 \
    } while (0)

static char last_state[128];

static uint32_t node_state(slinky_slurm_client *c, const char *name, bool *drained)
{
    slinky_slurm_nodes *l = NULL;
    OK(slinky_slurm_node_get(&l, c, name));
    const slinky_slurm_node *n = slinky_slurm_nodes_at(l, 0);
    uint32_t s = n->state;
    snprintf(last_state, sizeof(last_state), "%s", n->state_text);
    *drained = slinky_slurm_node_is_drained(n);
    slinky_slurm_nodes_free(l);
    return s;
}

static void test_negotiate_ping_diag(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    const char *v = NULL;
    OK(slinky_slurm_client_negotiate(&v, c));
    assert_string_equal(v, "v0.0.42");
    assert_true(slinky_slurm_client_can_update(c));
    slinky_slurm_pings *p = NULL;
    OK(slinky_slurm_pings_get(&p, c));
    assert_int_equal(slinky_slurm_pings_count(p), 1);
    const slinky_slurm_ping *pp = slinky_slurm_pings_at(p, 0);
    assert_true(pp->responding);
    assert_true(pp->primary);
    assert_string_equal(pp->mode, "primary");
    assert_string_equal(pp->pinged, "UP");
    assert_string_equal(slinky_slurm_pings_release(p), "24.11.5");
    slinky_slurm_pings_free(p);
    slinky_slurm_diag d;
    OK(slinky_slurm_diag_get(&d, c));
    assert_true(d.server_thread_count >= 1);
    assert_true(d.req_time > 1700000000);
    slinky_slurm_partitions *pl = NULL;
    OK(slinky_slurm_partitions_list(&pl, c));
    assert_int_equal(slinky_slurm_partitions_count(pl), 1);
    assert_string_equal(slinky_slurm_partitions_at(pl, 0)->name, "debug");
    assert_string_equal(slinky_slurm_partitions_at(pl, 0)->nodes, "node[1-2]");
    assert_int_equal(slinky_slurm_partitions_at(pl, 0)->total_nodes, 2);
    assert_true(slinky_slurm_partitions_at(pl, 0)->max_time == INT64_MAX);
    slinky_slurm_partitions_free(pl);
    slinky_slurm_client_free(c);
}

static void test_nodes_list_poll(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    slinky_slurm_nodes *l = NULL;
    OK(slinky_slurm_nodes_list(&l, c, 0));
    assert_int_equal(slinky_slurm_nodes_count(l), 2);
    assert_true(slinky_slurm_nodes_changed(l));
    const slinky_slurm_node *n1 = slinky_slurm_nodes_find(l, "node1");
    assert_non_null(n1);
    assert_non_null(slinky_slurm_nodes_find(l, "node2"));
    assert_true(n1->state & SLINKY_SLURM_NODE_IDLE);
    assert_false(slinky_slurm_node_is_busy(n1));
    assert_false(slinky_slurm_node_is_drained(n1));
    assert_string_equal(n1->partitions, "debug");
    assert_string_equal(n1->address, "127.0.0.1");
    assert_string_equal(n1->slurmd_version, "24.11.5");
    assert_true(n1->cpus >= 1);
    int64_t ut = slinky_slurm_nodes_update_time(l);
    assert_true(ut > 1700000000);
    slinky_slurm_nodes_free(l);
    /* nothing changed since: an empty, unchanged answer (the table may still move while the
       nodes settle after start: then the answer is a full list with a newer update_time) */
    bool unchanged = false;
    for (int i = 0; i < 20 && !unchanged; i++) {
        OK(slinky_slurm_nodes_list(&l, c, ut));
        unchanged = !slinky_slurm_nodes_changed(l);
        if (unchanged) {
            assert_int_equal(slinky_slurm_nodes_count(l), 0);
            assert_int_equal(slinky_slurm_nodes_update_time(l), ut);
        } else {
            assert_int_equal(slinky_slurm_nodes_count(l), 2);
            assert_true(slinky_slurm_nodes_update_time(l) >= ut);
            ut = slinky_slurm_nodes_update_time(l);
            usleep(200000);
        }
        slinky_slurm_nodes_free(l);
    }
    assert_true(unchanged);
    slinky_slurm_client_free(c);
}

static void test_drain_with_job_then_resume(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    assert_int_equal(sh("%s/slurm24.sh exec sbatch -Q --exclusive -w node2 -t 2 --wrap 'sleep 4' >/dev/null", H), 0);
    /* wait until the job runs */
    int running = 0;
    for (int i = 0; i < 100 && !running; i++) {
        slinky_slurm_jobs *jl = NULL;
        OK(slinky_slurm_jobs_list(&jl, c));
        for (size_t k = 0; k < slinky_slurm_jobs_count(jl); k++) {
            const slinky_slurm_job *j = slinky_slurm_jobs_at(jl, k);
            if (!strcmp(j->state_text, "RUNNING") && !strcmp(j->nodes, "node2")) {
                running = 1;
                /* scale-in deadline: a running job has its expected end */
                assert_true(j->end_time > j->start_time);
                assert_int_equal(j->time_limit, 2);
                assert_int_equal(j->node_count, 1);
                assert_string_equal(j->user_name, "root");
                slinky_slurm_jobs *one = NULL;
                OK(slinky_slurm_job_get(&one, c, j->job_id));
                assert_int_equal(slinky_slurm_jobs_at(one, 0)->job_id, j->job_id);
                slinky_slurm_jobs_free(one);
            }
        }
        slinky_slurm_jobs_free(jl);
        if (!running)
            usleep(50000);
    }
    assert_true(running);
    OK(slinky_slurm_node_drain(c, "node2", "slinky scale-in test"));
    bool drained = true;
    uint32_t s = node_state(c, "node2", &drained);
    assert_true(s & SLINKY_SLURM_NODE_DRAIN);
    assert_true(s & SLINKY_SLURM_NODE_DRAINING);
    assert_false(s & SLINKY_SLURM_NODE_DRAINED);
    assert_true(s & (SLINKY_SLURM_NODE_ALLOCATED | SLINKY_SLURM_NODE_MIXED));
    assert_false(drained);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol show node node2 | grep -q 'Reason=slinky scale-in test'", H), 0);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol show node node2 | grep -Eq 'State=[A-Z]+\\+DRAIN'", H), 0);
    /* the job ends by itself: then DRAINED (--exclusive: a node left half allocated stays
       MIXED+DRAIN in slurmctld, and sinfo says draining, for a while after its job ended) */
    for (int i = 0; i < 300 && !drained; i++) {
        usleep(50000);
        s = node_state(c, "node2", &drained);
    }
    if (!drained) {
        sh("%s/slurm24.sh exec squeue >&2; %s/slurm24.sh exec sinfo -n node2 >&2", H, H);
        fail_msg("node2 not drained: %s", last_state);
    }
    assert_true(s & SLINKY_SLURM_NODE_DRAINED);
    assert_false(s & SLINKY_SLURM_NODE_DRAINING);
    int ok = sh("%s/slurm24.sh exec sinfo -h -n node2 -o %%T | grep -qx drained", H);
    assert_int_equal(ok, 0);
    OK(slinky_slurm_node_resume(c, "node2"));
    s = node_state(c, "node2", &drained);
    assert_false(s & SLINKY_SLURM_NODE_DRAIN);
    assert_false(drained);
    assert_int_equal(sh("%s/slurm24.sh exec sinfo -h -n node2 -o %%T | grep -Eqx 'idle[*]?'", H), 0);
    slinky_slurm_client_free(c);
}

static void test_update_fields_and_errors(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    slinky_slurm_node_change u = SLINKY_SLURM_NODE_CHANGE_INIT;
    u.comment = "rack 7";
    u.features = "fast,ssd";
    u.active_features = "fast,ssd";
    OK(slinky_slurm_node_update(c, "node1", &u));
    slinky_slurm_nodes *l = NULL;
    OK(slinky_slurm_node_get(&l, c, "node1"));
    assert_string_equal(slinky_slurm_nodes_at(l, 0)->comment, "rack 7");
    assert_string_equal(slinky_slurm_nodes_at(l, 0)->features, "fast,ssd");
    slinky_slurm_nodes_free(l);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol show node node1 | grep -q 'AvailableFeatures=fast,ssd'", H), 0);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol show node node1 | grep -q 'Comment=rack 7'", H), 0);
    /* DOWN needs a reason: refused before anything is sent */
    slinky_slurm_node_change d = SLINKY_SLURM_NODE_CHANGE_INIT;
    d.action = SLINKY_SLURM_NODE_SET_DOWN;
    EXPECT(slinky_slurm_node_update(c, "node1", &d), SLINKY_EINVALID);
    EXPECT(slinky_slurm_node_drain(c, "node1", ""), SLINKY_EINVALID);
    /* unknown node: ENOTFOUND, with Slurm's error number in the message; never drained */
    l = NULL;
    EXPECT(slinky_slurm_node_get(&l, c, "nosuchnode"), SLINKY_ENOTFOUND);
    assert_null(l);
    assert_false(slinky_slurm_node_is_drained(slinky_slurm_nodes_at(l, 0)));
    EXPECT(slinky_slurm_node_drain(c, "nosuchnode", "x"), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "error 2018"));
    assert_non_null(strstr(slinky_error_last()->message, "Invalid node name specified"));
    assert_int_equal(slinky_error_last()->http_status, 500);
    slinky_slurm_jobs *j = NULL;
    EXPECT(slinky_slurm_job_get(&j, c, 999999), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "error 2017"));
    slinky_slurm_client_free(c);
}

static void test_delete_dynamic_node(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    assert_int_equal(sh("%s/slurm24.sh exec scontrol create nodename=dyn1 state=future cpus=1 realmemory=100", H),
                     0);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol --future show node dyn1 | grep -q NodeName=dyn1", H), 0);
    OK(slinky_slurm_node_delete(c, "dyn1"));
    assert_int_not_equal(sh("%s/slurm24.sh exec scontrol --future show node dyn1 >/dev/null 2>&1", H), 0);
    EXPECT(slinky_slurm_node_delete(c, "dyn1"), SLINKY_ENOTFOUND);
    slinky_slurm_client_free(c);
}

static void test_reservations(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client();
    assert_int_equal(sh("%s/slurm24.sh exec scontrol create reservation reservationname=maint1 "
                        "starttime=now+1hour duration=30 nodes=node1 users=root flags=maint >/dev/null", H), 0);
    slinky_slurm_reservations *l = NULL;
    OK(slinky_slurm_reservation_get(&l, c, "maint1"));
    const slinky_slurm_reservation *r = slinky_slurm_reservations_at(l, 0);
    assert_string_equal(r->name, "maint1");
    assert_string_equal(r->nodes, "node1");
    assert_string_equal(r->users, "root");
    assert_non_null(strstr(r->flags, "MAINT"));
    assert_int_equal(r->end_time - r->start_time, 30 * 60);
    slinky_slurm_reservations_free(l);
    OK(slinky_slurm_reservations_list(&l, c));
    assert_int_equal(slinky_slurm_reservations_count(l), 1);
    slinky_slurm_reservations_free(l);
    /* 24.11's slurmrestd offers only GET for reservations: EUNSUPPORTED, never a no-op */
    slinky_slurm_reservation_spec s = SLINKY_SLURM_RESERVATION_SPEC_INIT;
    s.name = "maint2";
    s.nodes = "node2";
    s.users = "root";
    s.start_time = (int64_t)time(NULL) + 7200;
    s.duration_min = 10;
    s.flags = "MAINT";
    EXPECT(slinky_slurm_reservation_create(c, &s), SLINKY_EUNSUPPORTED);
    assert_non_null(strstr(slinky_error_last()->message, "v0.0.42"));
    assert_non_null(strstr(slinky_error_last()->message, "24.11.5"));
    EXPECT(slinky_slurm_reservation_delete(c, "maint1"), SLINKY_EUNSUPPORTED);
    OK(slinky_slurm_reservation_get(&l, c, "maint1"));
    slinky_slurm_reservations_free(l);
    l = NULL;
    EXPECT(slinky_slurm_reservation_get(&l, c, "maint2"), SLINKY_ENOTFOUND);
    s.duration_min = 0;
    EXPECT(slinky_slurm_reservation_create(c, &s), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "duration_min"));
    assert_int_equal(sh("%s/slurm24.sh exec scontrol delete reservationname=maint1", H), 0);
    EXPECT(slinky_slurm_reservation_get(&l, c, "maint1"), SLINKY_ENOTFOUND);
    slinky_slurm_client_free(c);
}

static void test_auth(void **state)
{
    (void)state;
    char *t = token("root", 1);
    slinky_slurm_client *c = client_with("root", t, 10000);
    free(t);
    const char *v = NULL;
    OK(slinky_slurm_client_negotiate(&v, c)); /* within its second */
    sleep(2);
    slinky_slurm_nodes *l = NULL;
    EXPECT(slinky_slurm_nodes_list(&l, c, 0), SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, "1007"));
    slinky_slurm_client_free(c);
    /* a token that is not a JWT */
    c = client_with("root", "not-a-token", 10000);
    EXPECT(slinky_slurm_nodes_list(&l, c, 0), SLINKY_EAUTH);
    slinky_slurm_client_free(c);
    /* an unprivileged user may read but not drain */
    t = token("nobody", 600);
    c = client_with("nobody", t, 10000);
    free(t);
    OK(slinky_slurm_nodes_list(&l, c, 0));
    slinky_slurm_nodes_free(l);
    EXPECT(slinky_slurm_node_drain(c, "node1", "not mine"), SLINKY_EFORBIDDEN);
    slinky_slurm_client_free(c);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol show node node1 | grep -q 'Reason=not mine'", H), 1);
}

static void test_token_file_rotation(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof(path), "%s/jwt", WORK);
    char *good = token("root", 600), *old = token("root", 1);
    FILE *f = fopen(path, "w");
    fprintf(f, "SLURM_JWT=%s\n", old); /* the way `scontrol token` prints it */
    fclose(f);
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.user = "root";
    o.token_file = path;
    slinky_slurm_client *c = NULL;
    OK(slinky_slurm_client_new(&c, URL, &o));
    const char *v;
    OK(slinky_slurm_client_negotiate(&v, c));
    sleep(2);
    slinky_slurm_nodes *l = NULL;
    EXPECT(slinky_slurm_nodes_list(&l, c, 0), SLINKY_EAUTH);
    /* rotate (write a new file, rename over): picked up without a new client */
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    f = fopen(tmp, "w");
    fprintf(f, "%s\n", good);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
    OK(slinky_slurm_nodes_list(&l, c, 0));
    assert_int_equal(slinky_slurm_nodes_count(l), 2);
    slinky_slurm_nodes_free(l);
    free(good);
    free(old);
    slinky_slurm_client_free(c);
}

/* signer: real tokens from scontrol, lifespan = expiry - now; an injected clock */
typedef struct signer {
    int calls;
    int64_t now;
    int64_t life;
} signer;

static slinky_status sign_cb(char **token_out, int64_t *expires_out, int64_t now, void *payload)
{
    signer *s = payload;
    s->calls++;
    *token_out = token("root", (int)s->life);
    *expires_out = now + s->life;
    return 0;
}

static int64_t clock_cb(void *payload)
{
    return ((signer *)payload)->now;
}

static void test_signer_refresh(void **state)
{
    (void)state;
    signer s = {0, (int64_t)time(NULL), 100};
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.user = "root";
    o.sign = sign_cb;
    o.sign_payload = &s;
    o.clock = clock_cb;
    o.clock_payload = &s;
    slinky_slurm_client *c = NULL;
    OK(slinky_slurm_client_new(&c, URL, &o));
    assert_int_equal(s.calls, 0); /* nothing until the first call */
    slinky_slurm_nodes *l = NULL;
    OK(slinky_slurm_nodes_list(&l, c, 0)); /* negotiation + list: one token */
    slinky_slurm_nodes_free(l);
    assert_int_equal(s.calls, 1);
    s.now += 79; /* < 80% of 100 s */
    OK(slinky_slurm_nodes_list(&l, c, 0));
    slinky_slurm_nodes_free(l);
    assert_int_equal(s.calls, 1);
    s.now += 1; /* 80%: re-signed before it expires */
    OK(slinky_slurm_nodes_list(&l, c, 0));
    slinky_slurm_nodes_free(l);
    assert_int_equal(s.calls, 2);
    s.now += 50; /* 50 s into the new token's 100 */
    OK(slinky_slurm_nodes_list(&l, c, 0));
    slinky_slurm_nodes_free(l);
    assert_int_equal(s.calls, 2);
    slinky_slurm_client_free(c);
}

static void test_cli(void **state)
{
    (void)state;
    char *t = token("root", 600);
    const char *b = getenv("SLINKY_BUILD_DIR");
    int rc = sh("SLURM_JWT=%s SLINKY_SLURM_URL=%s %s/tools/slinkyctl/slinkyctl slurm --user root nodes "
                ">%s/nodes.txt && grep -Eq '^node2 +IDLE' %s/nodes.txt",
                t, URL, b, WORK, WORK);
    assert_int_equal(rc, 0);
    rc = sh("SLURM_JWT=%s %s/tools/slinkyctl/slinkyctl slurm --url %s --user root node node1 -o json "
            "| /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[0][\"name\"]==\"node1\", d'",
            t, b, URL);
    assert_int_equal(rc, 0);
    rc = sh("SLURM_JWT=%s %s/tools/slinkyctl/slinkyctl slurm --url %s --user root node nosuch 2>/dev/null", t, b,
            URL);
    assert_int_equal(rc, 5);
    /* drain and resume through the CLI, seen by Slurm; a token file from the environment */
    char tf[256];
    snprintf(tf, sizeof(tf), "%s/cli.jwt", WORK);
    FILE *f = fopen(tf, "w");
    fprintf(f, "SLURM_JWT=%s\n", t);
    fclose(f);
    rc = sh("SLINKY_SLURM_TOKEN_FILE=%s %s/tools/slinkyctl/slinkyctl slurm --url %s --user root drain node1 "
            "--reason 'cli test' >/dev/null && %s/slurm24.sh exec scontrol show node node1 | grep -q 'Reason=cli test'",
            tf, b, URL, H);
    assert_int_equal(rc, 0);
    rc = sh("SLINKY_SLURM_TOKEN_FILE=%s %s/tools/slinkyctl/slinkyctl slurm --url %s --user root nodes -o yaml "
            "| grep -q 'state: IDLE+DRAIN'", tf, b, URL);
    assert_int_equal(rc, 0);
    rc = sh("SLINKY_SLURM_TOKEN_FILE=%s %s/tools/slinkyctl/slinkyctl slurm --url %s --user root resume node1 >/dev/null"
            " && %s/slurm24.sh exec sinfo -h -n node1 -o %%T | grep -Eqx 'idle[*]?'", tf, b, URL, H);
    assert_int_equal(rc, 0);
    rc = sh("SLURM_JWT=%s %s/tools/slinkyctl/slinkyctl slurm --url %s drain node1 >/dev/null 2>&1", t, b, URL);
    assert_int_equal(rc, 2); /* no --reason */
    free(t);
}

/* one client, several threads at once: every call answers, none fails */
static void *worker(void *p)
{
    slinky_slurm_client *c = p;
    intptr_t bad = 0;
    for (int i = 0; i < 15; i++) {
        slinky_slurm_nodes *l = NULL;
        if (i % 3 == 0) {
            if (slinky_slurm_nodes_list(&l, c, 0) || slinky_slurm_nodes_count(l) != 2)
                bad++;
        } else if (slinky_slurm_node_get(&l, c, i % 2 ? "node1" : "node2") ||
                   strcmp(slinky_slurm_nodes_at(l, 0)->name, i % 2 ? "node1" : "node2") != 0) {
            bad++;
        }
        slinky_slurm_nodes_free(l);
    }
    return (void *)bad;
}

static void test_threads(void **state)
{
    (void)state;
    slinky_slurm_client *c = root_client(); /* not negotiated yet: the threads race for it */
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, c), 0);
    intptr_t bad = 0;
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        bad += (intptr_t)r;
    }
    assert_int_equal(bad, 0);
    slinky_slurm_client_free(c);
}

static void test_unavailable(void **state)
{
    (void)state;
    slinky_slurm_client *c = client_with("root", "x", 1500);
    const char *v;
    char pidf[1100];
    snprintf(pidf, sizeof(pidf), "%s%s/run/slurmrestd.pid", ROOT, DIR_);
    char *pid = capture("cat %s", pidf);
    int p = atoi(pid);
    free(pid);
    assert_true(p > 1);
    /* stopped: the kernel accepts, nobody answers -> EUNAVAILABLE after the timeout */
    assert_int_equal(kill(p, SIGSTOP), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = slinky_slurm_client_negotiate(&v, c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    kill(p, SIGCONT);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_int_equal(rc, SLINKY_EUNAVAILABLE);
    assert_true(s >= 1.4 && s < 2.5);
    /* gone: refused at once */
    assert_int_equal(kill(p, SIGTERM), 0);
    for (int i = 0; i < 100 && kill(p, 0) == 0; i++)
        usleep(50000);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = slinky_slurm_client_negotiate(&v, c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_int_equal(rc, SLINKY_EUNAVAILABLE);
    assert_non_null(strstr(slinky_error_last()->message, "fail closed"));
    assert_true(s < 1.5);
    slinky_slurm_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_negotiate_ping_diag),
        cmocka_unit_test(test_drain_with_job_then_resume),
        cmocka_unit_test(test_nodes_list_poll),
        cmocka_unit_test(test_update_fields_and_errors),
        cmocka_unit_test(test_delete_dynamic_node),
        cmocka_unit_test(test_reservations),
        cmocka_unit_test(test_auth),
        cmocka_unit_test(test_token_file_rotation),
        cmocka_unit_test(test_signer_refresh),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_unavailable), /* last: stops slurmrestd */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
