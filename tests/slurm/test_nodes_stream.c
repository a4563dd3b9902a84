/*
 * slurm/nodes_stream (unit): the streamed node decoder gives the same typed
 * nodes as the document path, on generated answers of both shapes (v0.0.42:
 * arrays and {set, infinite, number}; v0.0.38: strings, plain numbers,
 * "state" + "state_flags" apart), with escapes, unknown nested members, and
 * the input cut into chunks of every size; errors[] or broken input make the
 * stream unusable (the document path decides then).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm_internal.h"

static char *gen(int nodes, int v38, const char *errors)
{
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_printf(&b, "{\"meta\":{\"plugin\":{\"type\":\"x\",\"nodes\":[1,2]}},\"errors\":%s,\"warnings\":[],",
                       errors);
    if (!v38)
        slinky__buf_puts(&b, "\"last_update\":{\"set\":true,\"infinite\":false,\"number\":1796165673},");
    slinky__buf_puts(&b, "\"nodes\":[");
    static const char *st42[] = {"[\"IDLE\"]", "[\"MIXED\",\"DRAIN\"]", "[\"IDLE\",\"DRAIN\",\"COMPLETING\"]",
                                 "[\"DOWN\",\"NOT_RESPONDING\",\"NEW_WORD\"]", "[]"};
    static const char *st38[] = {"\"idle\"", "\"mixed\"", "\"allocated\"", "\"down\""};
    for (int i = 0; i < nodes; i++) {
        slinky__buf_printf(&b, "%s{\"architecture\":\"x86_64\",\"name\":\"n%04d\",", i ? "," : "", i);
        slinky__buf_puts(&b, "\"energy\":{\"current_watts\":{\"set\":true,\"infinite\":false,\"number\":7},\"x\":[\"a\"]},");
        if (v38) {
            slinky__buf_printf(&b, "\"state\":%s,\"cpus\":%d,\"boot_time\":%d,\"features\":\"f%d,g\",", st38[i % 4],
                               i % 64, 1000 + i, i);
            slinky__buf_printf(&b, "\"reason\":\"r \\\"q\\\" \\u00e9 %d\",\"slurmd_version\":\"22.05.8\",", i);
            slinky__buf_printf(&b, "\"state_flags\":%s,", i % 3 == 0 ? "[\"DRAIN\"]" : "[]");
            slinky__buf_puts(&b, "\"partitions\":[\"debug\",\"p2\"],\"last_busy\":5}");
        } else {
            slinky__buf_printf(&b, "\"state\":%s,\"cpus\":%d,", st42[i % 5], i % 64);
            slinky__buf_printf(&b, "\"boot_time\":{\"set\":true,\"infinite\":false,\"number\":%d},", 1000 + i);
            slinky__buf_printf(&b, "\"last_busy\":{\"set\":%s,\"infinite\":%s,\"number\":9},", i % 2 ? "true" : "false",
                               i % 7 == 0 ? "true" : "false");
            slinky__buf_printf(&b, "\"features\":%s,\"active_features\":[\"a%d\"],", i % 2 ? "[\"f\",\"g\",\"h\"]" : "[]", i);
            slinky__buf_printf(&b, "\"reason\":\"line\\nbreak %d\",\"version\":\"24.11.5\",\"comment\":\"\",", i);
            slinky__buf_puts(&b, "\"next_state_after_reboot\":[\"INVALID\"],\"partitions\":[\"debug\"],");
            slinky__buf_printf(&b, "\"reason_changed_at\":{\"set\":true,\"infinite\":false,\"number\":%d},", i);
            slinky__buf_puts(&b, "\"real_memory\":1000,\"alloc_memory\":0,\"alloc_cpus\":1,\"address\":\"127.0.0.1\"}");
        }
    }
    slinky__buf_puts(&b, "]}");
    return slinky__buf_detach(&b, NULL);
}

static slinky_slurm_nodes *by_doc(const char *json)
{
    slinky_slurm__reply r = {NULL, 200};
    assert_int_equal(slinky_doc_parse_json(&r.doc, json, strlen(json)), 0);
    slinky_slurm_nodes *l = NULL;
    assert_int_equal(slinky_slurm__nodes_from_reply(&l, &r), 0);
    return l;
}

/* NULL when the stream says the document path must decide */
static slinky_slurm_nodes *by_stream(const char *json, size_t chunk)
{
    slinky_slurm__nstream *st = NULL;
    assert_int_equal(slinky_slurm__nstream_new(&st), 0);
    size_t n = strlen(json);
    for (size_t i = 0; i < n; i += chunk)
        slinky_slurm__nstream_feed(st, json + i, i + chunk > n ? n - i : chunk);
    slinky_slurm_nodes *l = NULL;
    if (slinky_slurm__nstream_usable(st))
        assert_int_equal(slinky_slurm__nodes_from_stream(&l, st), 0);
    slinky_slurm__nstream_free(st);
    return l;
}

static void same(const slinky_slurm_nodes *a, const slinky_slurm_nodes *b)
{
    assert_int_equal(slinky_slurm_nodes_count(a), slinky_slurm_nodes_count(b));
    assert_int_equal(slinky_slurm_nodes_update_time(a), slinky_slurm_nodes_update_time(b));
    for (size_t i = 0; i < slinky_slurm_nodes_count(a); i++) {
        const slinky_slurm_node *x = slinky_slurm_nodes_at(a, i), *y = slinky_slurm_nodes_at(b, i);
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->address, y->address);
        assert_string_equal(x->hostname, y->hostname);
        assert_string_equal(x->state_text, y->state_text);
        assert_int_equal(x->state, y->state);
        assert_string_equal(x->reason, y->reason);
        assert_string_equal(x->reason_set_by_user, y->reason_set_by_user);
        assert_string_equal(x->comment, y->comment);
        assert_string_equal(x->features, y->features);
        assert_string_equal(x->active_features, y->active_features);
        assert_string_equal(x->partitions, y->partitions);
        assert_string_equal(x->slurmd_version, y->slurmd_version);
        assert_int_equal(x->reason_changed_at, y->reason_changed_at);
        assert_int_equal(x->cpus, y->cpus);
        assert_int_equal(x->alloc_cpus, y->alloc_cpus);
        assert_int_equal(x->real_memory, y->real_memory);
        assert_int_equal(x->alloc_memory, y->alloc_memory);
        assert_int_equal(x->boot_time, y->boot_time);
        assert_int_equal(x->last_busy, y->last_busy);
    }
}

static void test_same_as_doc(void **state)
{
    (void)state;
    for (int v38 = 0; v38 < 2; v38++) {
        char *json = gen(40, v38, "[]");
        slinky_slurm_nodes *d = by_doc(json);
        assert_int_equal(slinky_slurm_nodes_count(d), 40);
        static const size_t chunks[] = {1, 2, 3, 7, 64, 1000, 1 << 20};
        for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
            slinky_slurm_nodes *s = by_stream(json, chunks[k]);
            assert_non_null(s);
            same(d, s);
            slinky_slurm_nodes_free(s);
        }
        /* a few spot checks of the decoded values themselves */
        const slinky_slurm_node *n1 = slinky_slurm_nodes_at(d, 1), *n0 = slinky_slurm_nodes_at(d, 0);
        if (v38) {
            assert_string_equal(n0->state_text, "IDLE+DRAIN");
            assert_true(slinky_slurm_node_is_drained(n0));
            assert_string_equal(n0->reason, "r \"q\" \xc3\xa9 0");
            assert_string_equal(n0->partitions, "debug,p2");
            assert_string_equal(n0->features, "f0,g");
        } else {
            assert_string_equal(n1->state_text, "MIXED+DRAIN");
            assert_false(slinky_slurm_node_is_drained(n1));
            assert_true(n1->state & SLINKY_SLURM_NODE_DRAINING);
            assert_int_equal(n1->boot_time, 1001);
            assert_int_equal(n0->last_busy, INT64_MAX); /* infinite */
            assert_int_equal(n1->last_busy, 9);
            assert_string_equal(n1->features, "f,g,h");
            assert_int_equal(slinky_slurm_nodes_update_time(d), 1796165673);
        }
        slinky_slurm_nodes_free(d);
        free(json);
    }
}

static void test_unusable(void **state)
{
    (void)state;
    char *json = gen(3, 0, "[{\"error_number\":2018,\"description\":\"x\"}]");
    assert_null(by_stream(json, 100));
    free(json);
    json = gen(3, 0, "[]");
    json[strlen(json) - 3] = '\0'; /* cut short */
    assert_null(by_stream(json, 100));
    free(json);
    assert_null(by_stream("{\"nodes\":[{\"name\":\"a\",}]}", 5)); /* trailing comma */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_doc),
        cmocka_unit_test(test_unusable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
