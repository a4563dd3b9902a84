/* conf/hostlist: expand and compress as Slurm does; checked against scontrol when present. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "slinky/conf.h"
#include "slinky/error.h"

static char *expand_joined(const char *expr)
{
    char **v = NULL;
    size_t n = 0;
    if (slinky_conf_hostlist_expand(&v, &n, expr) < 0)
        return NULL;
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "");
    for (size_t i = 0; i < n; i++)
        slinky__buf_printf(&b, "%s%s", i ? " " : "", v[i]);
    slinky_conf_strv_free(v, n);
    return slinky__buf_detach(&b, NULL);
}

static char *compress_words(const char *words)
{
    char *copy = strdup(words), *save = NULL;
    const char *v[64];
    size_t n = 0;
    for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
        v[n++] = t;
    char *out = NULL;
    assert_int_equal(slinky_conf_hostlist_compress(&out, v, n), 0);
    free(copy);
    return out;
}

static const struct {
    const char *expr, *want;
} expand_cases[] = {
    {"node[001-003,010]", "node001 node002 node003 node010"},
    {"a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4"},
    {"a[1-2]b[3-4]c[5-6]", "a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6"},
    {"p[1-2]q[01-02]r[5]", "p1q01r5 p2q01r5 p1q02r5 p2q02r5"},
    {"x[1-2]-y[1-3]", "x1-y1 x1-y2 x1-y3 x2-y1 x2-y2 x2-y3"},
    {"n[9-11]", "n9 n10 n11"},
    {"n[08-11]", "n08 n09 n10 n11"},
    {"n[01-1]", "n01"},
    {"n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10"},
    {"x,y[1-2],z", "x y1 y2 z"},
    {"n[1-2],,x", "n1 n2 x"},
    {"a b", "a b"},
    {"[1-2]", "1 2"},
    {"n1-2]", "n1-2]"},
    {"n1,n01", "n1 n01"},
};

static const char *const expand_errors[] = {"n[3-1]", "n[]", "n[1,,2]", "n[1-2]-ib",
                                            "a[1-2]b[3-4]c", "n[1-70000]", "n[x]"};

static const struct {
    const char *hosts, *want;
} compress_cases[] = {
    {"n3,n1,n2", "n[3,1-2]"},
    {"n9,n10,n11", "n[9-11]"},
    {"n08,n09,n10", "n[08-10]"},
    {"n1,n01,n2", "n[1,01,2]"},
    {"a1b3,a1b4", "a1b[3-4]"},
    {"x,y1,y2,z,y3", "x,y[1-2],z,y3"},
    {"n1,n2,m1,n3", "n[1-2],m1,n3"},
    {"n001,n1", "n[001,1]"},
    {"node,node1", "node,node1"},
    {"n1-ib,n2-ib", "n1-ib,n2-ib"},
    {"n1,n1,n2", "n[1,1-2]"},
    {"node001,node002,node003,node010", "node[001-003,010]"},
    {"solo", "solo"},
    {"n7", "n7"},
};

static void test_expand(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expand_cases) / sizeof(expand_cases[0]); i++) {
        char *got = expand_joined(expand_cases[i].expr);
        if (!got || strcmp(got, expand_cases[i].want))
            fail_msg("expand %s: got [%s], want [%s]", expand_cases[i].expr,
                     got ? got : slinky_error_last()->message, expand_cases[i].want);
        slinky_free(got);
    }
    char **v = NULL;
    size_t n = 0;
    assert_int_equal(slinky_conf_hostlist_expand(&v, &n, "n[1-65536]"), 0);
    assert_int_equal(n, 65536);
    assert_string_equal(v[65535], "n65536");
    slinky_conf_strv_free(v, n);
    assert_int_equal(slinky_conf_hostlist_expand(&v, &n, ""), 0);
    assert_int_equal(n, 0);
    slinky_conf_strv_free(v, n);
}

static void test_expand_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expand_errors) / sizeof(expand_errors[0]); i++) {
        char **v = (char **)0x1;
        size_t n = 7;
        int rc = slinky_conf_hostlist_expand(&v, &n, expand_errors[i]);
        if (rc != SLINKY_EPARSE)
            fail_msg("expand %s: expected EPARSE, got %d", expand_errors[i], rc);
        assert_ptr_equal(v, (char **)0x1);
        assert_int_equal(n, 7);
    }
    char **v = NULL;
    size_t n = 0;
    slinky_conf_hostlist_expand(&v, &n, "n[1-70000]");
    assert_non_null(strstr(slinky_error_last()->message, "Too many hosts in range `1-70000'"));
}

static void test_compress(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(compress_cases) / sizeof(compress_cases[0]); i++) {
        char *got = compress_words(compress_cases[i].hosts);
        if (strcmp(got, compress_cases[i].want))
            fail_msg("compress %s: got %s, want %s", compress_cases[i].hosts, got,
                     compress_cases[i].want);
        slinky_free(got);
    }
    char *out = NULL;
    assert_int_equal(slinky_conf_hostlist_compress(&out, NULL, 0), 0);
    assert_string_equal(out, "");
    slinky_free(out);
}

/* expand(compress(x)) == x for generated lists */
static void test_round_trip(void **state)
{
    (void)state;
    char *hosts[300];
    size_t n = 0;
    for (int i = 0; i < 128; i++)
        assert_true(asprintf(&hosts[n++], "node%03d", i + 1) > 0);
    assert_true(asprintf(&hosts[n++], "node130") > 0);
    for (int i = 5; i < 20; i += 2)
        assert_true(asprintf(&hosts[n++], "gpu%d", i) > 0);
    assert_true(asprintf(&hosts[n++], "login") > 0);
    char *c = NULL;
    assert_int_equal(slinky_conf_hostlist_compress(&c, (const char *const *)hosts, n), 0);
    assert_string_equal(c, "node[001-128,130],gpu[5,7,9,11,13,15,17,19],login");
    char **v = NULL;
    size_t m = 0;
    assert_int_equal(slinky_conf_hostlist_expand(&v, &m, c), 0);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(v[i], hosts[i]);
        free(hosts[i]);
    }
    slinky_conf_strv_free(v, m);
    slinky_free(c);
}

/* The same cases through the real scontrol (no daemon needed), when installed. */
static void test_against_scontrol(void **state)
{
    (void)state;
    if (access("/usr/bin/scontrol", X_OK) != 0) {
        skip();
        return;
    }
    char dir[] = "/tmp/slinky-hl.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char conf[256], cmd[1024];
    snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
    FILE *f = fopen(conf, "w");
    assert_non_null(f);
    fputs("ClusterName=x\nSlurmctldHost=localhost\n", f);
    fclose(f);
    for (size_t i = 0; i < sizeof(expand_cases) / sizeof(expand_cases[0]); i++) {
        snprintf(cmd, sizeof(cmd), "SLURM_CONF=%s scontrol show hostnames '%s' 2>/dev/null", conf,
                 expand_cases[i].expr);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        slinky__buf b = SLINKY__BUF_INIT;
        slinky__buf_puts(&b, "");
        char line[256];
        while (fgets(line, sizeof(line), p)) {
            line[strcspn(line, "\n")] = '\0';
            slinky__buf_printf(&b, "%s%s", b.len ? " " : "", line);
        }
        pclose(p);
        char *mine = expand_joined(expand_cases[i].expr);
        if (strcmp(mine, b.data))
            fail_msg("%s: slinky [%s] scontrol [%s]", expand_cases[i].expr, mine, b.data);
        slinky_free(mine);
        slinky__buf_dispose(&b);
    }
    for (size_t i = 0; i < sizeof(compress_cases) / sizeof(compress_cases[0]); i++) {
        snprintf(cmd, sizeof(cmd), "SLURM_CONF=%s scontrol show hostlist '%s' 2>/dev/null", conf,
                 compress_cases[i].hosts);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        char line[512] = "";
        if (!fgets(line, sizeof(line), p))
            line[0] = '\0';
        pclose(p);
        line[strcspn(line, "\n")] = '\0';
        char *mine = compress_words(compress_cases[i].hosts);
        if (strcmp(mine, line))
            fail_msg("%s: slinky [%s] scontrol [%s]", compress_cases[i].hosts, mine, line);
        slinky_free(mine);
    }
    unlink(conf);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_expand_errors),
        cmocka_unit_test(test_compress),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_against_scontrol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
