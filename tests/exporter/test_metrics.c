/*
 * exporter/metrics (unit): the Prometheus text writer of slinky-exporter
 * (tools/slinky-exporter/metrics.c) and its reader of slinky-health result
 * files (health_results.c), compiled in: HELP/TYPE lines, label escaping,
 * integer/float/NaN/Inf values, a buffer grown past its first block; result
 * files into the slinky_health_* families (fail and timeout -> ok 0, empty
 * value -> NaN, comments and short lines ignored, an absent folder -> -1).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tools/slinky-exporter/health_results.c"
#include "../tools/slinky-exporter/metrics.c"

static void test_text_format(void **state)
{
    (void)state;
    mbuf b = {0};
    mbuf_family(&b, "slinky_x", "gauge", "An x.");
    const char *l[] = {"node", "a\"b\\c\nd", "state", "idle", NULL};
    mbuf_sample(&b, "slinky_x", l, 3);
    mbuf_sample(&b, "slinky_x", NULL, 0.25);
    mbuf_sample1(&b, "slinky_x", "k", "v", NAN);
    mbuf_sample1(&b, "slinky_x", NULL, NULL, INFINITY);
    mbuf_sample(&b, "slinky_x", NULL, 1048576000.0);
    assert_false(b.failed);
    assert_string_equal(
        b.data, "# HELP slinky_x An x.\n# TYPE slinky_x gauge\n"
                "slinky_x{node=\"a\\\"b\\\\c\\nd\",state=\"idle\"} 3\n"
                "slinky_x 0.25\nslinky_x{k=\"v\"} NaN\nslinky_x +Inf\nslinky_x 1048576000\n");
    for (int i = 0; i < 2000; i++)
        mbuf_sample1(&b, "slinky_node_cpus", "node", "node-with-a-long-name", i);
    assert_false(b.failed);
    assert_non_null(strstr(b.data, "slinky_node_cpus{node=\"node-with-a-long-name\"} 1999\n"));
    assert_int_equal(strlen(b.data), b.len);
    mbuf_dispose(&b);
}

static void test_health_results(void **state)
{
    (void)state;
    char dir[] = "/tmp/test-exporter-health.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[128];
    snprintf(p, sizeof(p), "%s/node1.tsv", dir);
    FILE *f = fopen(p, "w");
    fprintf(f, "# check\tresult\tvalue\tlimit\tduration_s\ttime\tdetail\n"
               "storage_free:/tmp\tfail\t1024\t>= 1G\t0.005\t1700000000\tfree space\n"
               "hang\ttimeout\t\t300ms\t0.3\t1700000001\tkilled\n"
               "short\tpass\n");
    fclose(f);
    snprintf(p, sizeof(p), "%s/node0.tsv", dir);
    f = fopen(p, "w");
    fprintf(f, "fabric_ib\tskip\t\t\t0.001\t1700000002\tno ib\n");
    fclose(f);
    snprintf(p, sizeof(p), "%s/.node9.tsv.123", dir); /* a writer's temp file: ignored */
    f = fopen(p, "w");
    fprintf(f, "x\tfail\t1\t1\t1\t1\tx\n");
    fclose(f);
    mbuf b = {0};
    assert_int_equal(health_results_collect(&b, dir), 0);
    const char *want[] = {
        "# TYPE slinky_health_check_ok gauge\n"
        "slinky_health_check_ok{node=\"node0\",check=\"fabric_ib\"} 1\n"
        "slinky_health_check_ok{node=\"node1\",check=\"hang\"} 0\n"
        "slinky_health_check_ok{node=\"node1\",check=\"storage_free:/tmp\"} 0\n",
        "slinky_health_check_result{node=\"node1\",check=\"hang\",result=\"timeout\"} 1\n",
        "slinky_health_check_value{node=\"node1\",check=\"storage_free:/tmp\"} 1024\n",
        "slinky_health_check_value{node=\"node1\",check=\"hang\"} NaN\n",
        "slinky_health_check_last_run_timestamp_seconds{node=\"node0\",check=\"fabric_ib\"} "
        "1700000002\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (strstr(b.data, want[i]) == NULL)
            fail_msg("missing:\n%s\nin:\n%s", want[i], b.data);
    assert_null(strstr(b.data, "short"));
    assert_null(strstr(b.data, "node9"));
    mbuf_dispose(&b);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(health_results_collect(&b, dir), -1);
    mbuf_dispose(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_format),
        cmocka_unit_test(test_health_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
