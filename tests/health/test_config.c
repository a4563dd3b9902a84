/*
 * health/config (unit): slinky-health's config parser and its guarded runner
 * (tools/slinky-health/config.c, checks.c, run.c compiled in): every check
 * kind and threshold form parses to the right numbers; each refusal names
 * FILE:LINE and keeps nothing; a check that hangs is killed at its timeout
 * and reported "timeout"; a passing and a failing exec.
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
#include <time.h>
#include <unistd.h>

#include "../tools/slinky-health/checks.c"
#include "../tools/slinky-health/config.c"
#include "../tools/slinky-health/run.c"

static char path[64];

static int load_text(config *c, const char *text, char *err, size_t errlen)
{
    snprintf(path, sizeof(path), "/tmp/test-health-config.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    /* stderr into a file, to read the refusal */
    fflush(stderr);
    char epath[80];
    snprintf(epath, sizeof(epath), "%s.err", path);
    FILE *saved = stderr;
    FILE *ef = fopen(epath, "w+");
    assert_non_null(ef);
    stderr = ef;
    int rc = config_load(c, path);
    fflush(ef);
    rewind(ef);
    size_t n = fread(err, 1, errlen - 1, ef);
    err[n] = '\0';
    stderr = saved;
    fclose(ef);
    unlink(epath);
    unlink(path);
    return rc;
}

static void test_parse_all_kinds(void **state)
{
    (void)state;
    config c;
    char err[512];
    int rc = load_text(
        &c,
        "# comment\n\nnode_cpus\nnode_memory\nnode_gpus count=8\nnode_load max=2.5 warn=1\n"
        "storage_mounted path=/home\nstorage_writable path=/tmp timeout=2s\n"
        "storage_free path=/tmp min_free=10G warn_free=20%\nstorage_inodes path=/tmp "
        "min_free=1000\n"
        "storage_latency path=/tmp max=50ms warn=500us\nfabric_ib min_rate=100\n"
        "fabric_tcp target=ctl:6817 max=1s\nexec name=site command=\"/bin/true --x y\" "
        "timeout=1m\n",
        err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_int_equal(c.n, 12);
    assert_int_equal(c.v[0].kind, K_NODE_CPUS);
    assert_int_equal(c.v[0].line, 3);
    assert_true(c.v[2].fail_at.v == 8);
    assert_true(c.v[3].fail_at.v == 2.5 && c.v[3].warn_at.v == 1);
    assert_string_equal(c.v[4].name, "storage_mounted:/home");
    assert_true(c.v[5].timeout_ms == 2000);
    assert_true(c.v[6].fail_at.v == 10.0 * 1024 * 1024 * 1024);
    assert_true(c.v[6].warn_at.percent && fabs(c.v[6].warn_at.v - 0.2) < 1e-12);
    assert_string_equal(c.v[6].fail_at.text, "10G");
    assert_true(c.v[8].fail_at.v == 50 && fabs(c.v[8].warn_at.v - 0.5) < 1e-12);
    assert_string_equal(c.v[10].path, "ctl:6817");
    assert_true(c.v[10].fail_at.v == 1000);
    assert_string_equal(c.v[11].name, "site");
    assert_string_equal(c.v[11].path, "/bin/true --x y");
    assert_true(c.v[11].timeout_ms == 60000);
    assert_true(c.v[0].timeout_ms == 10000);
    config_dispose(&c);
}

static void test_refusals_name_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *msg;
    } cases[] = {
        {"node_cpus\nnode_cpu\n", 2, "unknown check 'node_cpu'"},
        {"storage_free path=/tmp min_free=1Q\n", 1, "min_free: malformed threshold '1Q'"},
        {"storage_free path=/tmp min_free=-1G\n", 1, "malformed threshold '-1G'"},
        {"storage_inodes path=/tmp min_free=1.5\n", 1, "malformed threshold '1.5'"},
        {"storage_latency path=/tmp max=5\n", 1, "max: malformed threshold '5'"},
        {"node_gpus\n", 1, "missing count="},
        {"node_gpus count=2 path=/x\n", 1, "unknown key 'path'"},
        {"exec command=\"unterminated\n", 1, "expected key=value"},
        {"exec command=true timeout=0s\n", 1, "timeout: malformed duration '0s'"},
        {"fabric_tcp target=host\n", 1, "is not HOST:PORT"},
        {"node_cpus\n\nnode_cpus\n", 3, "already defined on line 1"},
        {"node_load max\n", 1, "expected key=value"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        config c = {(check *)0x1, 99};
        char err[512], want[128];
        assert_int_equal(load_text(&c, cases[i].text, err, sizeof(err)), -1);
        snprintf(want, sizeof(want), "%s:%d: ", path, cases[i].line);
        if (strncmp(err, want, strlen(want)) || !strstr(err, cases[i].msg))
            fail_msg("case %zu: got \"%s\", want \"%s...%s\"", i, err, want, cases[i].msg);
        /* nothing kept on failure */
        assert_ptr_equal(c.v, (check *)0x1);
        assert_int_equal(c.n, 99);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_hang_is_killed_at_timeout(void **state)
{
    (void)state;
    check c = {.kind = K_EXEC, .name = "hang", .path = "sleep 20", .timeout_ms = 300};
    node_facts nf = {0};
    result r;
    double t0 = now_s();
    check_run_guarded(&c, &nf, &r);
    double took = now_s() - t0;
    assert_int_equal(r.kind, R_TIMEOUT);
    assert_string_equal(r.value_text, "timeout");
    assert_string_equal(r.limit_text, "300ms");
    assert_true(took >= 0.29 && took < 3);
}

static void test_exec_and_storage(void **state)
{
    (void)state;
    node_facts nf = {0};
    result r;
    check ok = {.kind = K_EXEC, .name = "t", .path = "exit 0", .timeout_ms = 5000};
    check_run_guarded(&ok, &nf, &r);
    assert_int_equal(r.kind, R_PASS);
    check bad = {.kind = K_EXEC, .name = "f", .path = "exit 3", .timeout_ms = 5000};
    check_run_guarded(&bad, &nf, &r);
    assert_int_equal(r.kind, R_FAIL);
    assert_string_equal(r.value_text, "exit 3");
    check fr = {.kind = K_STORAGE_FREE, .path = "/tmp", .timeout_ms = 5000};
    fr.fail_at = (threshold){true, true, 1.0, "100%"}; /* more free than the whole disk: fail */
    check_run_guarded(&fr, &nf, &r);
    assert_int_equal(r.kind, R_FAIL);
    assert_string_equal(r.limit_text, ">= 100%");
    fr.fail_at = (threshold){true, false, 1, "1"};
    check_run_guarded(&fr, &nf, &r);
    assert_int_equal(r.kind, R_PASS);
    assert_true(r.value > 1);
    check cpus = {.kind = K_NODE_CPUS, .timeout_ms = 5000};
    check_run_guarded(&cpus, &nf, &r);
    assert_int_equal(r.kind, R_SKIP);
    nf.known = true;
    nf.cpus = sysconf(_SC_NPROCESSORS_ONLN) + 1;
    check_run_guarded(&cpus, &nf, &r);
    assert_int_equal(r.kind, R_FAIL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_all_kinds),
        cmocka_unit_test(test_refusals_name_file_and_line),
        cmocka_unit_test(test_hang_is_killed_at_timeout),
        cmocka_unit_test(test_exec_and_storage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
