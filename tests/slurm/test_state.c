/* slurm/state (unit): node state words -> bits, DRAINING/DRAINED, the predicates. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "slinky/error.h"
#include "slinky/slurm.h"

static void test_parse(void **state)
{
    (void)state;
    uint32_t s = slinky_slurm_node_state_parse("MIXED+DRAIN");
    assert_true(s & SLINKY_SLURM_NODE_MIXED);
    assert_true(s & SLINKY_SLURM_NODE_DRAINING);
    assert_false(s & SLINKY_SLURM_NODE_DRAINED);
    s = slinky_slurm_node_state_parse("idle,drain");
    assert_true(s & SLINKY_SLURM_NODE_DRAINED);
    s = slinky_slurm_node_state_parse("IDLE DRAIN COMPLETING");
    assert_true(s & SLINKY_SLURM_NODE_DRAINING);
    s = slinky_slurm_node_state_parse("DOWN+NOT_RESPONDING+bogus");
    assert_true(s & SLINKY_SLURM_NODE_DOWN);
    assert_true(s & SLINKY_SLURM_NODE_NOT_RESPONDING);
    assert_true(s & SLINKY_SLURM_NODE_OTHER);
    assert_int_equal(slinky_slurm_node_state_parse(""), 0);
    assert_int_equal(slinky_slurm_node_state_parse(NULL), 0);
    assert_string_equal(slinky_slurm_node_state_name(SLINKY_SLURM_NODE_DRAIN), "DRAIN");
    assert_null(slinky_slurm_node_state_name(SLINKY_SLURM_NODE_DRAIN | SLINKY_SLURM_NODE_IDLE));
}

static void test_predicates(void **state)
{
    (void)state;
    slinky_slurm_node n = {0};
    n.state = slinky_slurm_node_state_parse("IDLE+DRAIN");
    assert_true(slinky_slurm_node_is_drained(&n));
    assert_true(slinky_slurm_node_is_draining(&n));
    assert_false(slinky_slurm_node_is_busy(&n));
    n.state = slinky_slurm_node_state_parse("ALLOCATED+DRAIN");
    assert_false(slinky_slurm_node_is_drained(&n));
    assert_true(slinky_slurm_node_is_busy(&n));
    n.state = slinky_slurm_node_state_parse("IDLE");
    assert_false(slinky_slurm_node_is_drained(&n));
    /* an UNDRAIN on its way: not drained (upstream's rule too) */
    n.state = slinky_slurm_node_state_parse("IDLE+DRAIN+UNDRAIN");
    assert_false(slinky_slurm_node_is_drained(&n));
    assert_false(n.state & SLINKY_SLURM_NODE_DRAINED);
    /* a failed lookup is never drained, and counts as busy */
    assert_false(slinky_slurm_node_is_drained(NULL));
    assert_true(slinky_slurm_node_is_busy(NULL));
}

static void test_client_options(void **state)
{
    (void)state;
    slinky_slurm_client *c = NULL;
    slinky_slurm_client_options o = SLINKY_SLURM_CLIENT_OPTIONS_INIT;
    assert_int_equal(slinky_slurm_client_new(&c, "http://127.0.0.1:1", &o), SLINKY_EINVALID); /* no JWT */
    o.token = "t";
    o.token_file = "/nonexistent";
    assert_int_equal(slinky_slurm_client_new(&c, "http://127.0.0.1:1", &o), SLINKY_EINVALID); /* two */
    o.token_file = NULL;
    assert_int_equal(slinky_slurm_client_new(&c, "ftp://x", &o), SLINKY_EINVALID);
    o.api_version = "v0.0.39";
    assert_int_equal(slinky_slurm_client_new(&c, "http://127.0.0.1:1", &o), SLINKY_EINVALID);
    o.api_version = NULL;
    assert_int_equal(slinky_slurm_client_new(&c, "http://127.0.0.1:1/", &o), 0);
    assert_int_equal(slinky_slurm_node_drain(c, "n1", NULL), SLINKY_EINVALID); /* before any request */
    slinky_slurm_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_predicates),
        cmocka_unit_test(test_client_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
