/*
 * conf/slurm24 (integration): Slurm 24.11 (Debian 13, auth/slurm) in the
 * harness's trixie chroot (tests/harness/slurm24.sh).
 *   - every 24.11-profile config the renderer makes (auth/slurm,
 *     AuthInfo=use_client_ids, enable_configless, reconfig_on_restart, HA,
 *     NodeSets, accounting, prolog/epilog, extraConf) is accepted by the
 *     24.11 slurmctld; an unknown key is refused by both us and it;
 *   - an added NodeName is classified reconfigure on 24.11 and applied live
 *     by `scontrol reconfigure` (the same change is fatal on 22.05).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/itest_util.h"
#include "core/internal.h"
#include "slinky/conf.h"
#include "slinky/error.h"

static char WORK[256];
static char H[1024]; /* harness dir */
static int up;

static int setup(void **state)
{
    (void)state;
    snprintf(H, sizeof(H), "%s/tests/harness", getenv("SLINKY_SOURCE_DIR"));
    snprintf(WORK, sizeof(WORK), "/tmp/itest-conf24.XXXXXX");
    if (!mkdtemp(WORK))
        return -1;
    /* the chroot is built once per machine (~60 s) and then reused */
    if (sh("%s/slurm24.sh build >%s/build.log 2>&1", H, WORK) != 0) {
        sh("tail -5 %s/build.log >&2", WORK);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (up)
        sh("%s/slurm24.sh down >/dev/null 2>&1", H);
    sh("rm -rf %s", WORK);
    return 0;
}

static char INROOT[256]; /* a dir inside the chroot (local profile paths), "" if unused */

static const char *chroot_dir(void)
{
    const char *r = getenv("SLURM24_ROOT");
    return r && *r ? r : "/var/cache/slinky/trixie";
}

static char *render24(const slinky_conf_cluster *c)
{
    slinky_conf_profile p;
    assert_int_equal(slinky_conf_profile_init(&p, SLINKY_CONF_PROFILE_VERSION), 0);
    p.slurm_version = SLINKY_CONF_SLURM_24_11;
    if (INROOT[0]) {
        p.local = true; /* paths inside the chroot, where the scripts exist */
        p.local_dir = INROOT;
    }
    char *out = NULL;
    if (slinky_conf_render_slurm(&out, c, &p))
        fail_msg("render: %s", slinky_error_last()->message);
    return out;
}

/* Static check for 24.11, then the 24.11 slurmctld; returns the validator's exit status. */
static int validate24(const char *name, const char *text, int expect_static_ok)
{
    slinky_conf *c = NULL;
    assert_int_equal(slinky_conf_parse(&c, text, strlen(text), name, NULL), 0);
    char *report = NULL;
    int rc = slinky_conf_check(&report, c, SLINKY_CONF_SLURM_24_11);
    if (expect_static_ok && rc)
        fail_msg("%s: static check: %s\n%s", name, slinky_error_last()->message, report);
    if (!expect_static_ok)
        assert_int_equal(rc, SLINKY_EINVALID);
    slinky_free(report);
    slinky_conf_free(c);
    char dir[512], path[600];
    snprintf(dir, sizeof(dir), "%s/%s", WORK, name);
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    assert_int_equal(slinky__write_file_atomic(path, text, strlen(text), 0644), 0);
    int v = sh("%s/slurm24.sh validate %s >%s/out 2>&1", H, path, dir);
    if ((v == 0) != (expect_static_ok != 0))
        sh("echo '--- %s:' >&2; cat %s/out >&2; cat %s >&2", name, dir, path);
    return v;
}

static void test_profiles_accepted(void **state)
{
    (void)state;
    const char *pro[] = {"prolog-0.sh"};
    const char *cpro[] = {"prolog-slurmctld-0.sh"};
    slinky_conf_nodeset ns[2] = {
        {"nodeset-b", NULL, true, "MaxTime=UNLIMITED OverSubscribe=EXCLUSIVE", 0, NULL, NULL},
        {"nodeset-a", "slinky-", true, "MaxTime=UNLIMITED PreemptMode=REQUEUE", 0, NULL, NULL},
    };
    for (int variant = 0; variant < 5; variant++) {
        slinky_conf_cluster c;
        assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
        c.name = "slurm";
        c.namespace_ = "slurm";
        char name[32];
        snprintf(name, sizeof(name), "v%d", variant);
        switch (variant) {
        case 0: /* defaults */
            break;
        case 1: /* HA, jwks */
            c.ha_enabled = true;
            c.ha_backups = 1;
            c.jwks = true;
            break;
        case 2: /* NodeSets with partitions, accounting */
            c.nodesets = ns;
            c.nodeset_count = 2;
            c.accounting_name = "slurm";
            break;
        case 3: /* extraConf merged with the operator's options */
            c.extra_conf = "SlurmctldParameters=enable_stepmgr\nPrologFlags=Contain\nAuthInfo=cred_expire=70\n"
                           "MinJobAge=30";
            break;
        case 4: /* prolog/epilog scripts (slurmctld wants them to exist), metrics (no
                   MetricsType before 25.05), local profile */
            snprintf(INROOT, sizeof(INROOT), "/tmp/itest-conf24-%d", (int)getpid());
            assert_int_equal(sh("mkdir -p %s%s/etc && printf '#!/bin/sh\\nexit 0\\n' > "
                                "%s%s/etc/prolog-slurmctld-0.sh && chmod 755 %s%s/etc/prolog-slurmctld-0.sh",
                                chroot_dir(), INROOT, chroot_dir(), INROOT, chroot_dir(), INROOT), 0);
            c.prolog = pro;
            c.prolog_count = 1;
            c.prolog_slurmctld = cpro;
            c.prolog_slurmctld_count = 1;
            c.metrics_enabled = true;
            c.cluster_name = "named";
            break;
        }
        char *text = render24(&c);
        assert_non_null(strstr(text, "AuthType=auth/slurm\n"));
        assert_non_null(strstr(text, "AuthInfo=use_client_ids"));
        assert_non_null(strstr(text, "enable_configless"));
        assert_non_null(strstr(text, "reconfig_on_restart"));
        int v = validate24(name, text, 1);
        if (v != 0)
            fail_msg("variant %d rejected by the 24.11 slurmctld (exit %d)", variant, v);
        free(text);
        if (INROOT[0]) {
            sh("rm -rf %s%s", chroot_dir(), INROOT);
            INROOT[0] = '\0';
        }
    }
    /* an unknown key: refused statically and by 24.11 as well */
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.extra_conf = "FooBar=1";
    char *text = render24(&c);
    assert_int_equal(validate24("bad", text, 0), 1);
    free(text);
    /* enable_stepmgr without PrologFlags=Contain: found statically, fatal for 24.11 */
    c.extra_conf = "SlurmctldParameters=enable_stepmgr";
    text = render24(&c);
    assert_int_equal(validate24("stepmgr", text, 0), 1);
    free(text);
}

static void test_added_node_is_reconfigure(void **state)
{
    (void)state;
    char *env = capture("%s/slurm24.sh up 2>%s/up.log", H, WORK);
    up = 1;
    const char *p = strstr(env, "export SLURM24_DIR=");
    const char *q = strstr(env, "export SLURM24_CONF_HOST=");
    if (!p || !q) {
        sh("cat %s/up.log >&2", WORK);
        fail_msg("slurm24.sh up failed");
    }
    char dir[512], conf[1024];
    p += strlen("export SLURM24_DIR=");
    q += strlen("export SLURM24_CONF_HOST=");
    snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(p, "\n"), p);
    snprintf(conf, sizeof(conf), "%.*s", (int)strcspn(q, "\n"), q);
    free(env);
    setenv("SLURM24_DIR", dir, 1);
    char *old_text = NULL;
    size_t n = 0;
    assert_int_equal(slinky__read_file(&old_text, &n, conf), 0);
    char *new_text = NULL;
    assert_true(asprintf(&new_text, "%sNodeName=static1 NodeAddr=127.0.0.1 CPUs=1 State=FUTURE\n",
                         old_text) > 0);
    slinky_conf *a = NULL, *b = NULL;
    assert_int_equal(slinky_conf_parse(&a, old_text, n, "old.conf", NULL), 0);
    assert_int_equal(slinky_conf_parse(&b, new_text, strlen(new_text), "slurm.conf", NULL), 0);
    /* 22.05 would die on this reconfigure; 24.11 applies it */
    slinky_conf_diff *d22 = NULL, *d = NULL;
    assert_int_equal(slinky_conf_diff_new(&d22, a, b, SLINKY_CONF_SLURM_22_05), 0);
    assert_int_equal(slinky_conf_diff_class(d22), SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE);
    assert_int_equal(slinky_conf_diff_new(&d, a, b, SLINKY_CONF_SLURM_24_11), 0);
    assert_int_equal(slinky_conf_diff_class(d), SLINKY_CONF_CLASS_RECONFIGURE);
    assert_int_equal(slinky_conf_check(NULL, b, SLINKY_CONF_SLURM_24_11), 0);
    assert_int_equal(slinky__write_file_atomic(conf, new_text, strlen(new_text), 0644), 0);
    char prefix[1100];
    snprintf(prefix, sizeof(prefix), "%s/slurm24.sh exec", H);
    slinky_conf_apply_options o = SLINKY_CONF_APPLY_OPTIONS_INIT;
    o.bin_prefix = prefix; /* scontrol reconfigure inside the chroot */
    slinky_conf_change_class applied = SLINKY_CONF_CLASS_NONE;
    if (slinky_conf_apply(&applied, d, &o))
        fail_msg("apply: %s", slinky_error_last()->message);
    assert_int_equal(applied, SLINKY_CONF_CLASS_RECONFIGURE);
    /* slurmctld (re-exec'd) answers and knows the new node */
    int ok = -1;
    for (int i = 0; i < 100 && ok != 0; i++) {
        ok = sh("%s/slurm24.sh exec scontrol --future show node static1 2>/dev/null | grep -q NodeName=static1", H);
        if (ok)
            usleep(100000);
    }
    assert_int_equal(ok, 0);
    assert_int_equal(sh("%s/slurm24.sh exec scontrol ping >/dev/null", H), 0);
    slinky_conf_diff_free(d);
    slinky_conf_diff_free(d22);
    slinky_conf_free(a);
    slinky_conf_free(b);
    free(old_text);
    free(new_text);
}

int main(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "needs root\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles_accepted),
        cmocka_unit_test(test_added_node_is_reconfigure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
