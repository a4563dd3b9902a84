/*
 * conf/slurm (integration): the renderer's 22.05 + local output on a real
 * Slurm 22.05 cluster started by tests/harness/slurm-ci.sh (munged, MariaDB,
 * slurmdbd on loopback), then the config changes of issue 7, each applied by
 * the method its diff class names:
 *   - accepted by slurmctld (library validation), node idle, srun hostname;
 *   - AccountingStorageEnforce via extraConf: restart-slurmctld, applied by a
 *     restart, `scontrol show config` shows it and it is enforced;
 *   - KillWait: reconfigure, applied by scontrol reconfigure;
 *   - SelectType: restart class, never sent to reconfigure;
 *   - an added NodeName: fatal-on-reconfigure on 22.05, applied by a restart;
 *   - an unknown key: rejected by the static check before Slurm sees it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/itest_util.h"
#include "core/internal.h"
#include "slinky/conf.h"
#include "slinky/error.h"

static char T[256];       /* harness cluster dir */
static char CONF[512];    /* its slurm.conf (SLURM_CONF) */
static char OLDCONF[512]; /* copy of the running config for clients during apply */
static char MUNGE[512];
static int CTLD_PORT, SLURMD_PORT, DBD_PORT;
static char HW[256];      /* CPUs=... from slurmd -C, RealMemory capped */
static int started;

static const char *harness(void)
{
    static char h[1024];
    snprintf(h, sizeof(h), "%s/tests/harness", getenv("SLINKY_SOURCE_DIR"));
    return h;
}

static int env_int(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "export %s=", key);
    const char *p = strstr(text, pat);
    return p ? atoi(p + strlen(pat)) : 0;
}

static void env_str(char *dst, size_t n, const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "export %s=", key);
    const char *p = strstr(text, pat);
    assert_non_null(p);
    p += strlen(pat);
    snprintf(dst, n, "%.*s", (int)strcspn(p, "\n"), p);
}

static int wait_cmd(int seconds, const char *cmd)
{
    time_t end = time(NULL) + seconds;
    while (time(NULL) < end) {
        if (sh("%s >/dev/null 2>&1", cmd) == 0)
            return 0;
        usleep(100000);
    }
    return -1;
}

static int pid_of(const char *name)
{
    char p[600], *s = NULL;
    size_t n;
    snprintf(p, sizeof(p), "%s/run/%s.pid", T, name);
    if (slinky__read_file(&s, &n, p) < 0) {
        slinky_error_clear();
        return 0;
    }
    int pid = atoi(s);
    free(s);
    return pid;
}

static int alive(int pid)
{
    char p[64], *s = NULL;
    size_t n;
    snprintf(p, sizeof(p), "/proc/%d/stat", pid);
    if (pid <= 0 || slinky__read_file(&s, &n, p) < 0) {
        slinky_error_clear();
        return 0;
    }
    const char *r = strrchr(s, ')');
    int a = r && r[1] == ' ' && r[2] != 'Z';
    free(s);
    return a;
}

static void stop(const char *name)
{
    int pid = pid_of(name);
    if (!alive(pid))
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 300 && alive(pid); i++)
        usleep(100000);
    assert_false(alive(pid));
}

static void start_ctld(void)
{
    assert_int_equal(sh("slurmctld -f %s </dev/null >%s/log/ctld.out 2>&1", CONF, T), 0);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "SLURM_CONF=%s scontrol ping", CONF);
    if (wait_cmd(30, cmd) < 0) {
        sh("tail -5 %s/log/slurmctld.log >&2", T);
        fail_msg("slurmctld did not come up");
    }
}

static void wait_idle(const char *node)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "[ \"$(SLURM_CONF=%s sinfo -h -n %s -o %%t)\" = idle ]", CONF, node);
    if (wait_cmd(40, cmd) < 0) {
        sh("SLURM_CONF=%s sinfo -N >&2; tail -5 %s/log/slurmd-%s.log >&2", CONF, T, node);
        fail_msg("node %s did not become idle", node);
    }
}

static void start_dynamic_node(const char *node, const char *feature)
{
    if (sh("slurmd -f %s -Z -N %s --conf '%s Features=%s NodeAddr=127.0.0.1 "
           "NodeHostname=localhost' </dev/null >%s/log/%s.out 2>&1",
           CONF, node, HW, feature, T, node) != 0) {
        sh("cat %s/log/%s.out >&2; tail -5 %s/log/slurmd-%s.log >&2", T, node, T, node);
        fail_msg("slurmd %s did not start", node);
    }
    wait_idle(node);
}

/* ---------------------------------------------------------------- rendering */

static slinky_conf_nodeset NODESETS[1] = {{"cpu", NULL, true, "MaxTime=UNLIMITED State=UP", 0, NULL, NULL}};

static char *render_with(const char *extra)
{
    slinky_conf_cluster c;
    assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
    c.name = "slurm";
    c.namespace_ = "slurm";
    c.cluster_name = "ci"; /* the harness registered "ci" in slurmdbd and in the state dir */
    c.accounting_name = "slurm";
    c.nodesets = NODESETS;
    c.nodeset_count = 1;
    c.extra_conf = extra;
    slinky_conf_profile p;
    assert_int_equal(slinky_conf_profile_init(&p, SLINKY_CONF_PROFILE_VERSION), 0);
    p.slurm_version = SLINKY_CONF_SLURM_22_05;
    p.local = true;
    p.local_dir = T;
    p.slurmctld_port = CTLD_PORT;
    p.slurmd_port = SLURMD_PORT;
    p.slurmdbd_port = DBD_PORT;
    p.munge_socket = MUNGE;
    char *out = NULL;
    if (slinky_conf_render_slurm(&out, &c, &p))
        fail_msg("render: %s", slinky_error_last()->message);
    return out;
}

static slinky_conf *parse(const char *text, const char *name)
{
    slinky_conf *c = NULL;
    if (slinky_conf_parse(&c, text, strlen(text), name, NULL))
        fail_msg("parse: %s", slinky_error_last()->message);
    return c;
}

static void write_file(const char *path, const char *text)
{
    assert_int_equal(slinky__write_file_atomic(path, text, strlen(text), 0644), 0);
}

/* The restart callback: what the operator would do (stop, start, wait). */
struct restarts {
    int calls;
    slinky_conf_change_class last;
    int do_restart;
};

static slinky_status restart_cb(slinky_conf_change_class k, void *payload)
{
    struct restarts *r = payload;
    r->calls++;
    r->last = k;
    if (!r->do_restart)
        return 0;
    stop("slurmctld");
    start_ctld();
    return 0;
}

static int reconfigure_count(void)
{
    char *s = capture("grep -c '_slurm_rpc_reconfigure_controller' %s/log/slurmctld.log", T);
    int n = atoi(s);
    free(s);
    return n;
}

/* Validate, diff, check, write and apply `new_text` over the running `old_text`. */
static slinky_conf_change_class change_to(const char *old_text, const char *new_text,
                                          struct restarts *r, slinky_conf_change_class want)
{
    slinky_conf *a = parse(old_text, "old.conf"), *b = parse(new_text, "slurm.conf");
    char *report = NULL;
    /* a select/linear file is refused statically (MaxNodeCount); it is only classified */
    if (!strstr(new_text, "select/linear") && slinky_conf_check(&report, b, SLINKY_CONF_SLURM_22_05))
        fail_msg("check: %s\n%s", slinky_error_last()->message, report);
    slinky_free(report);
    slinky_conf_diff *d = NULL;
    assert_int_equal(slinky_conf_diff_new(&d, a, b, SLINKY_CONF_SLURM_22_05), 0);
    char *txt = NULL;
    assert_int_equal(slinky_conf_diff_render(&txt, d), 0);
    if (slinky_conf_diff_class(d) != want)
        fail_msg("diff class %s, want %s:\n%s",
                 slinky_conf_change_class_name(slinky_conf_diff_class(d)),
                 slinky_conf_change_class_name(want), txt);
    slinky_free(txt);
    /* clients of the apply keep the old file (they must still reach the daemons) */
    write_file(OLDCONF, old_text);
    write_file(CONF, new_text);
    slinky_conf_apply_options o = SLINKY_CONF_APPLY_OPTIONS_INIT;
    o.client_conf = OLDCONF;
    o.restart = restart_cb;
    o.payload = r;
    slinky_conf_change_class applied = SLINKY_CONF_CLASS_NONE;
    if (slinky_conf_apply(&applied, d, &o))
        fail_msg("apply: %s", slinky_error_last()->message);
    slinky_conf_diff_free(d);
    slinky_conf_free(a);
    slinky_conf_free(b);
    return applied;
}

static char *show_config(const char *key)
{
    return capture("SLURM_CONF=%s scontrol show config | grep -E '^%s ' | sed -E 's/^[^=]*= //'",
                   CONF, key);
}

/* ---------------------------------------------------------------- fixture */

static int setup(void **state)
{
    (void)state;
    snprintf(T, sizeof(T), "/tmp/itest-conf.XXXXXX");
    if (!mkdtemp(T))
        return -1;
    setenv("SLURM_CI_DIR", T, 1);
    char *env = capture("%s/slurm-ci.sh up dbd 2>%s.up.log", harness(), T);
    started = 1;
    CTLD_PORT = env_int(env, "SLURM_CI_CTLD_PORT");
    DBD_PORT = env_int(env, "SLURM_CI_DBD_PORT");
    SLURMD_PORT = env_int(env, "SLURM_CI_PORT_BASE") + 10;
    if (!CTLD_PORT || !DBD_PORT) {
        sh("cat %s.up.log >&2", T);
        free(env);
        return -1;
    }
    env_str(CONF, sizeof(CONF), env, "SLURM_CONF");
    env_str(MUNGE, sizeof(MUNGE), env, "MUNGE_SOCKET");
    free(env);
    snprintf(OLDCONF, sizeof(OLDCONF), "%s/etc/old/slurm.conf", T);
    sh("mkdir -p %s/etc/old && cp %s/etc/plugstack.conf %s/etc/old/", T, T, T);
    setenv("SLURM_CONF", CONF, 1);
    char *hw = capture("slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; "
                       "s/RealMemory=[0-9]+/RealMemory=1000/; s/ UpTime=.*//'");
    hw[strcspn(hw, "\n")] = '\0';
    snprintf(HW, sizeof(HW), "%s", hw);
    free(hw);
    /* the folders the local profile names (the harness may lay out its own differently) */
    sh("mkdir -p %s/spool %s/state %s/log %s/run", T, T, T, T);
    /* the jwt key the rendered AuthAltParameters names */
    sh("head -c 32 /dev/urandom > %s/etc/jwt.key && chmod 600 %s/etc/jwt.key", T, T);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (started)
        sh("%s/slurm-ci.sh down 2>/dev/null; sacctmgr -i delete user bobconf >/dev/null 2>&1; "
           "userdel bobconf >/dev/null 2>&1; rm -rf %s %s.up.log",
           harness(), T, T);
    return 0;
}

/* ---------------------------------------------------------------- the scenario */

static void test_rendered_config_runs_jobs(void **state)
{
    (void)state;
    char *text = render_with(NULL);
    /* the library's two-stage validation with the real slurmctld */
    char path[600];
    snprintf(path, sizeof(path), "%s/etc/rendered.conf", T);
    write_file(path, text);
    slinky_conf_validate_options vo = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
    vo.munge_socket = MUNGE;
    char *msg = NULL;
    if (slinky_conf_validate_slurm(&msg, path, &vo))
        fail_msg("rendered config rejected: %s\n%s", slinky_error_last()->message, text);
    slinky_free(msg);
    unlink(path);
    /* replace the harness's daemons by ones running the rendered file */
    stop("slurmd-node1");
    stop("slurmctld");
    write_file(CONF, text);
    start_ctld();
    start_dynamic_node("dyn1", "cpu");
    assert_int_equal(sh("cd /tmp && SLURM_CONF=%s timeout 60 srun -p cpu -N1 -t 1 hostname >/dev/null", CONF), 0);
    char *v = show_config("SlurmctldParameters");
    assert_non_null(strstr(v, "enable_configless"));
    free(v);

    /* KillWait: reconfigure, applied live */
    struct restarts r = {0, SLINKY_CONF_CLASS_NONE, 0};
    int before = reconfigure_count();
    char *next = render_with("KillWait=45");
    assert_int_equal(change_to(text, next, &r, SLINKY_CONF_CLASS_RECONFIGURE), SLINKY_CONF_CLASS_RECONFIGURE);
    assert_int_equal(r.calls, 0);
    v = show_config("KillWait");
    assert_string_equal(v, "45 sec\n");
    free(v);
    assert_true(reconfigure_count() > before);
    free(text);
    text = next;

    /* the seed scenario: AccountingStorageEnforce through extraConf */
    sh("id bobconf >/dev/null 2>&1 || useradd -M -s /bin/bash bobconf");
    assert_int_equal(sh("cd /tmp && runuser -u bobconf -- env SLURM_CONF=%s timeout 60 srun -p cpu -t 1 true 2>/dev/null", CONF), 0);
    before = reconfigure_count();
    r.do_restart = 1;
    next = render_with("KillWait=45\nAccountingStorageEnforce=associations,limits,qos");
    assert_int_equal(change_to(text, next, &r, SLINKY_CONF_CLASS_RESTART_SLURMCTLD),
                     SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.last, SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    assert_int_equal(reconfigure_count(), before); /* never reconfigured */
    v = show_config("AccountingStorageEnforce");
    assert_string_equal(v, "associations,limits,qos\n");
    free(v);
    wait_idle("dyn1");
    /* and it is in effect: a user without an association is refused, root still runs */
    char *err = capture("cd /tmp && runuser -u bobconf -- env SLURM_CONF=%s timeout 60 srun -p cpu -t 1 true 2>&1", CONF);
    assert_non_null(strstr(err, "Invalid account"));
    free(err);
    assert_int_equal(sh("cd /tmp && SLURM_CONF=%s timeout 60 srun -p cpu -t 1 true", CONF), 0);
    free(text);
    text = next;

    /* SelectType: a restart class, never sent to reconfigure (the callback only records) */
    r.do_restart = 0;
    r.calls = 0;
    before = reconfigure_count();
    next = render_with("KillWait=45\nAccountingStorageEnforce=associations,limits,qos\n"
                       "SelectType=select/linear");
    assert_int_equal(change_to(text, next, &r, SLINKY_CONF_CLASS_RESTART_ALL),
                     SLINKY_CONF_CLASS_RESTART_ALL);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.last, SLINKY_CONF_CLASS_RESTART_ALL);
    assert_int_equal(reconfigure_count(), before);
    /* back to the running file (the new one was only classified), then ask slurmctld */
    write_file(CONF, text);
    v = show_config("SelectType");
    assert_string_equal(v, "select/cons_tres\n"); /* untouched: nothing was sent */
    free(v);
    free(next);

    /* an added NodeName: fatal on reconfigure in 22.05, so applied by a restart */
    r.do_restart = 1;
    r.calls = 0;
    before = reconfigure_count();
    char *grown = NULL;
    assert_true(asprintf(&grown, "%sNodeName=static1 NodeAddr=127.0.0.1 CPUs=1 State=FUTURE\n", text) > 0);
    assert_int_equal(change_to(text, grown, &r, SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE),
                     SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE);
    assert_int_equal(r.calls, 1);
    assert_int_equal(reconfigure_count(), before);
    assert_int_equal(sh("SLURM_CONF=%s scontrol --future show node static1 | grep -q NodeName=static1", CONF), 0);
    assert_true(alive(pid_of("slurmctld")));

    /* an unknown key: the static check refuses it; Slurm never sees the file */
    char *bad = render_with("FooBar=1");
    slinky_conf *b = parse(bad, "slurm.conf");
    char *report = NULL;
    assert_int_equal(slinky_conf_check(&report, b, SLINKY_CONF_SLURM_22_05), SLINKY_EINVALID);
    assert_non_null(strstr(report, "unrecognized key: FooBar"));
    assert_true(slinky_error_last()->line > 0);
    slinky_free(report);
    slinky_conf_free(b);
    free(bad);
    assert_int_equal(sh("SLURM_CONF=%s scontrol ping >/dev/null", CONF), 0);
    free(grown);
    free(text);
}

/* Every 22.05 + local variant the renderer makes is accepted by the real slurmctld. */
static void test_profiles_accepted(void **state)
{
    (void)state;
    const char *pro[] = {"prolog-0.sh"}, *cpro[] = {"prolog-slurmctld-0.sh"},
               *cepi[] = {"epilog-slurmctld-0.sh"};
    sh("printf '#!/bin/sh\\nexit 0\\n' | tee %s/etc/prolog-slurmctld-0.sh %s/etc/epilog-slurmctld-0.sh "
       ">/dev/null && chmod 755 %s/etc/*-slurmctld-0.sh", T, T, T);
    slinky_conf_nodeset ns[3] = {
        {"nodeset-b", NULL, true, "MaxTime=UNLIMITED OverSubscribe=EXCLUSIVE", 0, NULL, NULL},
        {"nodeset-a", "slinky-", true, "MaxTime=UNLIMITED PreemptMode=REQUEUE", 0, NULL, NULL},
        {"nodeset-c", NULL, false, NULL, 0, NULL, NULL},
    };
    for (int variant = 0; variant < 6; variant++) {
        slinky_conf_cluster c;
        assert_int_equal(slinky_conf_cluster_init(&c, SLINKY_CONF_CLUSTER_VERSION), 0);
        c.name = "slurm";
        c.namespace_ = "slurm";
        switch (variant) {
        case 1: c.ha_enabled = true; c.ha_backups = 2; c.jwks = true; break;
        case 2: c.nodesets = ns; c.nodeset_count = 3; c.accounting_name = "slurm"; break;
        case 3:
            c.extra_conf = "SlurmctldParameters=enable_stepmgr\nAuthInfo=cred_expire=70\n"
                           "MinJobAge=30\nSchedulerParameters=bf_interval=15,\\\nmax_rpc_cnt=5";
            break;
        case 4:
            c.prolog = pro; c.prolog_count = 1;
            c.prolog_slurmctld = cpro; c.prolog_slurmctld_count = 1;
            c.epilog_slurmctld = cepi; c.epilog_slurmctld_count = 1;
            c.metrics_enabled = true;
            break;
        case 5: c.external = true; c.external_host = "my-controller"; c.external_port = 6817; break;
        default: break;
        }
        slinky_conf_profile p;
        assert_int_equal(slinky_conf_profile_init(&p, SLINKY_CONF_PROFILE_VERSION), 0);
        p.slurm_version = SLINKY_CONF_SLURM_22_05;
        p.local = true;
        p.local_dir = T;
        p.munge_socket = MUNGE;
        char *text = NULL;
        if (slinky_conf_render_slurm(&text, &c, &p))
            fail_msg("variant %d: %s", variant, slinky_error_last()->message);
        slinky_conf *parsed = parse(text, "variant.conf");
        char *report = NULL;
        /* the external/minimal file is for clients (slurmrestd), never for a slurmctld:
           the only finding may be the missing partition, and only the client parse applies */
        int client_only = c.external;
        if (slinky_conf_check(&report, parsed, SLINKY_CONF_SLURM_22_05) &&
            !(client_only && !strstr(slinky_error_last()->message, "(and more") &&
              strstr(slinky_error_last()->message, "No PartitionName")))
            fail_msg("variant %d: static check: %s\n%s", variant, slinky_error_last()->message, report);
        slinky_free(report);
        slinky_conf_free(parsed);
        char dir[600], path[700];
        snprintf(dir, sizeof(dir), "%s/etc/variant%d", T, variant);
        sh("mkdir -p %s", dir);
        snprintf(path, sizeof(path), "%s/slurm.conf", dir);
        write_file(path, text);
        slinky_conf_validate_options vo = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
        vo.munge_socket = MUNGE;
        vo.parse_only = client_only;
        char *msg = NULL;
        if (slinky_conf_validate_slurm(&msg, path, &vo))
            fail_msg("variant %d rejected: %s\n%s", variant, slinky_error_last()->message, text);
        slinky_free(msg);
        slinky_free(text);
    }
}

/* The library's validation reports slurmctld's own message for what only the daemon sees. */
static void test_validate_rejects(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof(path), "%s/etc/v/slurm.conf", T);
    sh("mkdir -p %s/etc/v", T);
    slinky_conf_validate_options vo = SLINKY_CONF_VALIDATE_OPTIONS_INIT;
    vo.munge_socket = MUNGE;
    char *msg = NULL;
    /* stage 1 (client parse) */
    write_file(path, "ClusterName=v\nSlurmctldHost=localhost\nFooBar=1\n");
    assert_int_equal(slinky_conf_validate_slurm(&msg, path, &vo), SLINKY_EINVALID);
    assert_non_null(strstr(msg, "unrecognized key: FooBar"));
    slinky_free(msg);
    /* stage 2 (slurmctld): a plugin that does not exist */
    write_file(path, "ClusterName=v\nSlurmctldHost=localhost\nSchedulerType=sched/bogus\n"
                     "NodeName=n1 NodeAddr=127.0.0.1 CPUs=1\nPartitionName=p Nodes=n1\n");
    msg = NULL;
    assert_int_equal(slinky_conf_validate_slurm(&msg, path, &vo), SLINKY_EINVALID);
    assert_non_null(strstr(msg, "sched/bogus"));
    assert_non_null(strstr(slinky_error_last()->message, "REJECTED (slurmctld)"));
    slinky_free(msg);
    /* and a good one */
    write_file(path, "ClusterName=v\nSlurmctldHost=localhost\n"
                     "NodeName=n1 NodeAddr=127.0.0.1 CPUs=1\nPartitionName=p Nodes=n1\n");
    msg = NULL;
    if (slinky_conf_validate_slurm(&msg, path, &vo))
        fail_msg("%s", slinky_error_last()->message);
    assert_string_equal(msg, "");
    slinky_free(msg);
}

int main(void)
{
    if (geteuid() != 0 || access("/usr/sbin/slurmctld", X_OK) != 0) {
        fprintf(stderr, "needs root and slurmctld\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rendered_config_runs_jobs),
        cmocka_unit_test(test_profiles_accepted),
        cmocka_unit_test(test_validate_rejects),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
