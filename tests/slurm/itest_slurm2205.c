/*
 * slurm/slurm2205 (integration): the client against Slurm 22.05's slurmrestd
 * on the host (tests/harness/slurm-ci.sh up dbd restd; its default plugin set
 * needs slurmdbd). Negotiation picks v0.0.38; the read calls decode its
 * older shapes; a node update is SLINKY_EUNSUPPORTED naming v0.0.38 and
 * changes nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/itest_util.h"
#include "slinky/error.h"
#include "slinky/slurm.h"

static char H[1024];
static char WORK[128];
static char URL[128];
static char DIR_[256];
static int up;

static int setup(void **state)
{
    (void)state;
    snprintf(H, sizeof(H), "%s/tests/harness", getenv("SLINKY_SOURCE_DIR"));
    snprintf(WORK, sizeof(WORK), "/tmp/itest-slurm2205.XXXXXX");
    if (!mkdtemp(WORK))
        return -1;
    char *env = capture("%s/slurm-ci.sh up dbd restd 2>%s/up.log", H, WORK);
    up = 1;
    const char *p = strstr(env, "export SLURM_CI_RESTD="), *d = strstr(env, "export SLURM_CI_DIR=");
    if (!p || !d) {
        sh("cat %s/up.log >&2", WORK);
        free(env);
        return -1;
    }
    p += strlen("export SLURM_CI_RESTD=");
    d += strlen("export SLURM_CI_DIR=");
    snprintf(URL, sizeof(URL), "%.*s", (int)strcspn(p, "\n"), p);
    snprintf(DIR_, sizeof(DIR_), "%.*s", (int)strcspn(d, "\n"), d);
    free(env);
    setenv("SLURM_CI_DIR", DIR_, 1);
    char conf[300];
    snprintf(conf, sizeof(conf), "%s/etc/slurm.conf", DIR_);
    setenv("SLURM_CONF", conf, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (up)
        sh("%s/slurm-ci.sh down >/dev/null 2>&1", H);
    sh("rm -rf %s", WORK);
    return 0;
}

#define OK(x)                                                                                                  \
    do {                                                                                                       \
        int rc_ = (x);                                                                                         \
        if (rc_)                                                                                               \
            fail_msg("%s: %s (%s)", #x, slinky_error_last()->message, slinky_error_name(rc_));                 \
    } while (0)

static slinky_slurm_client *client(void)
{
    char *t = capture("scontrol token username=root lifespan=600 | sed 's/^SLURM_JWT=//'");
    t[strcspn(t, "\n")] = '\0';
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    o.user = "root";
    o.token = t;
    slinky_slurm_client *c = NULL;
    int rc = slinky_slurm_client_new(&c, URL, &o);
    free(t);
    if (rc)
        fail_msg("client: %s", slinky_error_last()->message);
    return c;
}

static void test_reads(void **state)
{
    (void)state;
    slinky_slurm_client *c = client();
    const char *v = NULL;
    OK(slinky_slurm_client_negotiate(&v, c));
    assert_string_equal(v, "v0.0.38");
    assert_false(slinky_slurm_client_can_update(c));
    slinky_slurm_pings *p = NULL;
    OK(slinky_slurm_pings_get(&p, c));
    assert_int_equal(slinky_slurm_pings_count(p), 1);
    assert_true(slinky_slurm_pings_at(p, 0)->responding);
    assert_string_equal(slinky_slurm_pings_release(p), "22.05.8");
    slinky_slurm_pings_free(p);
    slinky_slurm_nodes *l = NULL;
    OK(slinky_slurm_nodes_list(&l, c, 0));
    assert_int_equal(slinky_slurm_nodes_count(l), 1);
    const slinky_slurm_node *n = slinky_slurm_nodes_at(l, 0);
    assert_string_equal(n->name, "node1");
    assert_string_equal(n->state_text, "IDLE");
    assert_true(n->state & SLINKY_SLURM_NODE_IDLE);
    assert_false(slinky_slurm_node_is_drained(n));
    assert_string_equal(n->partitions, "debug");
    assert_string_equal(n->slurmd_version, "22.05.8");
    slinky_slurm_nodes_free(l);
    OK(slinky_slurm_node_get(&l, c, "node1"));
    slinky_slurm_nodes_free(l);
    slinky_slurm_partitions *pl = NULL;
    OK(slinky_slurm_partitions_list(&pl, c));
    assert_string_equal(slinky_slurm_partitions_at(pl, 0)->name, "debug");
    assert_string_equal(slinky_slurm_partitions_at(pl, 0)->nodes, "node1");
    slinky_slurm_partitions_free(pl);
    slinky_slurm_jobs *jl = NULL;
    OK(slinky_slurm_jobs_list(&jl, c));
    slinky_slurm_jobs_free(jl);
    slinky_slurm_reservations *rl = NULL;
    OK(slinky_slurm_reservations_list(&rl, c));
    slinky_slurm_reservations_free(rl);
    slinky_slurm_diag d;
    OK(slinky_slurm_diag_get(&d, c));
    assert_true(d.server_thread_count >= 1);
    slinky_slurm_client_free(c);
}

static void test_update_unsupported(void **state)
{
    (void)state;
    slinky_slurm_client *c = client();
    int rc = slinky_slurm_node_drain(c, "node1", "must not happen");
    assert_int_equal(rc, SLINKY_EUNSUPPORTED);
    assert_non_null(strstr(slinky_error_last()->message, "v0.0.38"));
    assert_int_equal(slinky_slurm_node_resume(c, "node1"), SLINKY_EUNSUPPORTED);
    assert_int_equal(slinky_slurm_node_delete(c, "node1"), SLINKY_EUNSUPPORTED);
    /* nothing changed */
    assert_int_equal(sh("sinfo -h -n node1 -o %%T | grep -qx idle"), 0);
    slinky_slurm_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_update_unsupported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
