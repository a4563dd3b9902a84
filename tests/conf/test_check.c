/* conf/check: the static checks find what slurmctld refuses; the catalogue matches the man page. */
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

#define BASE "ClusterName=ci\nSlurmctldHost=localhost\nPartitionName=base State=UP\n"

/* Check `text`; expect an error containing `msg` at `line` (0: clean). */
static void expect(const char *text, unsigned int version, int line, const char *msg)
{
    slinky_conf *c = NULL;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.no_includes = true;
    if (slinky_conf_parse(&c, text, strlen(text), "t.conf", &o))
        fail_msg("parse [%s]: %s", text, slinky_error_last()->message);
    char *report = NULL;
    int rc = slinky_conf_check(&report, c, version);
    if (!line) {
        if (rc)
            fail_msg("expected clean, got %s\n%s", slinky_error_last()->message, report);
    } else {
        if (rc != SLINKY_EINVALID)
            fail_msg("expected \"%s\" for [%s], got rc %d\n%s", msg, text, rc, report);
        char want[64];
        snprintf(want, sizeof(want), "t.conf:%d:", line);
        if (!strstr(report, msg) || !strstr(report, want) || !strstr(slinky_error_last()->message, msg))
            fail_msg("expected \"%s\" at line %d, got report:\n%s", msg, line, report);
        assert_int_equal(slinky_error_last()->line, line);
    }
    slinky_free(report);
    slinky_conf_free(c);
}

static void test_clean(void **state)
{
    (void)state;
    expect(BASE "KillWait=30\nMaxJobCount=UNLIMITED\nSelectType=select/cons_tres\nMaxNodeCount=10\n"
                "NodeName=n[1-2] CPUs=2 NodeAddr=127.0.0.1\nNodeSet=ns Feature=f\n"
                "PartitionName=p Nodes=n1,ns Default=YES\nPartitionName=q Nodes=ALL\n",
           SLINKY_CONF_SLURM_22_05, 0, NULL);
    /* keys are case-insensitive; aliases the 22.05 parser accepts */
    expect(BASE "killwait=3\nControlMachine=x\n", SLINKY_CONF_SLURM_22_05, 0, NULL);
}

static void test_findings(void **state)
{
    (void)state;
    expect(BASE "FooBar=1\n", SLINKY_CONF_SLURM_22_05, 4, "Parsing error at unrecognized key: FooBar");
    expect(BASE "NodeName=n9 Bogus=1\n", SLINKY_CONF_SLURM_22_05, 4,
           "Parsing error at unrecognized key: Bogus");
    expect(BASE "KillWait=abc\n", SLINKY_CONF_SLURM_22_05, 4, "KillWait value \"abc\" is not a valid number");
    expect(BASE "MaxJobCount=-5\n", SLINKY_CONF_SLURM_22_05, 4, "MaxJobCount value (-5) is less than zero");
    expect(BASE "NodeName=n1 CPUs=two\n", SLINKY_CONF_SLURM_22_05, 4, "CPUs value \"two\" is not a valid number");
    expect(BASE "KillWait=\"\"\n", SLINKY_CONF_SLURM_22_05, 4, "Parse error in file t.conf line 4: \"KillWait=\"");
    expect(BASE "PreemptType=preempt/qos\n", SLINKY_CONF_SLURM_22_05, 4,
           "PreemptType and PreemptMode values incompatible");
    expect(BASE "JobContainerType=job_container/tmpfs\n", SLINKY_CONF_SLURM_22_05, 4,
           "PrologFlags=Contain is required for use with job_container/tmpfs");
    expect(BASE "MaxNodeCount=100\n", SLINKY_CONF_SLURM_22_05, 4, "MaxNodeCount only compatible with cons_tres");
    expect(BASE "SelectType=select/linear\nMaxNodeCount=100\n", SLINKY_CONF_SLURM_24_11, 5,
           "MaxNodeCount only compatible with cons_tres");
    expect(BASE "SelectType=SELECT/CONS_TRES\n", SLINKY_CONF_SLURM_22_05, 4, "Can't find plugin for SELECT/CONS_TRES");
    expect(BASE "NodeName=node1 NodeAddr=127.0.0.1\nNodeName=node[0-1] CPUs=1\n", SLINKY_CONF_SLURM_22_05, 5,
           "Duplicated NodeHostName node1 in config file");
    expect(BASE "NodeName=n1\nPartitionName=debug Nodes=n1\nPartitionName=debug Nodes=n1\n",
           SLINKY_CONF_SLURM_22_05, 6, "duplicate entry for partition debug");
    expect(BASE "NodeName=n1\nPartitionName=p2 Nodes=nosuchnode\n", SLINKY_CONF_SLURM_22_05, 5,
           "Invalid node names in partition p2");
    /* what 22.05 lacks and 24.11 has */
    expect(BASE "AuthType=auth/slurm\n", SLINKY_CONF_SLURM_22_05, 4,
           "Couldn't find the specified plugin name for auth/slurm");
    expect(BASE "AuthType=auth/slurm\nCredType=cred/slurm\nAuthInfo=use_client_ids\n"
                "SlurmctldParameters=enable_configless,reconfig_on_restart\n",
           SLINKY_CONF_SLURM_24_11, 0, NULL);
    expect(BASE "MetricsType=metrics/openmetrics\n", SLINKY_CONF_SLURM_24_11, 4,
           "unrecognized key: MetricsType");
    expect(BASE "MetricsType=metrics/openmetrics\n", SLINKY_CONF_SLURM_25_05, 0, NULL);
    /* 22.05 will not start without a partition; 24.11 does */
    expect("ClusterName=ci\nSlurmctldHost=localhost\n", SLINKY_CONF_SLURM_22_05, 1,
           "No PartitionName information available!");
    expect("ClusterName=ci\nSlurmctldHost=localhost\n", SLINKY_CONF_SLURM_24_11, 0, NULL);
    expect(BASE "SlurmctldParameters=enable_configless,enable_stepmgr\n", SLINKY_CONF_SLURM_24_11, 4,
           "STEP_MGR not supported without PrologFlags=contain");
    expect(BASE "SlurmctldParameters=enable_stepmgr\nPrologFlags=Contain\n", SLINKY_CONF_SLURM_24_11, 0, NULL);
    /* PreemptMode given: fine */
    expect(BASE "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n", SLINKY_CONF_SLURM_22_05, 0, NULL);
    expect(BASE "JobContainerType=job_container/tmpfs\nPrologFlags=X11,Contain\n", SLINKY_CONF_SLURM_22_05, 0, NULL);
}

static void test_other_kinds(void **state)
{
    (void)state;
    const char *t = "CgroupPlugin=cgroup/v2\nBogusCgroup=1\n";
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = SLINKY_CONF_KIND_CGROUP;
    slinky_conf *c = NULL;
    assert_int_equal(slinky_conf_parse(&c, t, strlen(t), "cgroup.conf", &o), 0);
    assert_int_equal(slinky_conf_check(NULL, c, 0), SLINKY_EINVALID);
    assert_int_equal(slinky_error_last()->line, 2);
    slinky_conf_free(c);
    assert_true(slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURMDBD, "global", "StorageLoc", 2205));
    assert_true(slinky_conf_key_is_known(SLINKY_CONF_KIND_GRES, NULL, "AutoDetect", 2205));
    assert_true(slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURM, "PartitionName", "maxtime", 2205));
    assert_false(slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURM, "NodeName", "MaxTime", 2205));
    assert_false(slinky_conf_key_is_known(SLINKY_CONF_KIND_SLURM, "global", "", 2205));
}

/* The committed catalogue is what the generator makes from the installed man pages. */
static void test_catalogue_is_generated(void **state)
{
    (void)state;
    const char *src = getenv("SLINKY_SOURCE_DIR");
    assert_non_null(src);
    if (access("/usr/share/man/man5/slurm.conf.5.gz", R_OK) != 0 || access("/usr/bin/python3", X_OK) != 0) {
        skip();
        return;
    }
    char out[] = "/tmp/slinky-cat.XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/libslinky/conf/gen_catalog.py %s && cmp -s %s %s/libslinky/conf/catalog_2205.c",
             src, out, out, src);
    int rc = system(cmd);
    unlink(out);
    assert_int_equal(rc, 0);
}

/* The man page's restart wording, as extracted, gives the classes of notes section 10. */
static void test_restart_table(void **state)
{
    (void)state;
    static const struct {
        const char *key, *opt;
        unsigned int v;
        slinky_conf_change_class k;
    } cases[] = {
        {"KillWait", NULL, 2205, SLINKY_CONF_CLASS_RECONFIGURE},
        {"AccountingStorageEnforce", NULL, 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"SelectType", NULL, 2205, SLINKY_CONF_CLASS_RESTART_ALL},
        {"SchedulerType", NULL, 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"AuthType", NULL, 2205, SLINKY_CONF_CLASS_RESTART_ALL},
        {"SwitchType", NULL, 2205, SLINKY_CONF_CLASS_RESTART_ALL},
        {"CredType", NULL, 2205, SLINKY_CONF_CLASS_RESTART_ALL},
        {"SlurmctldPort", NULL, 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"StateSaveLocation", NULL, 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"MaxNodeCount", NULL, 2205, SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE},
        {"MaxNodeCount", NULL, 2411, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"SlurmctldParameters", "enable_configless", 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"SlurmctldParameters", "enable_stepmgr", 2205, SLINKY_CONF_CLASS_RECONFIGURE},
        {"SchedulerParameters", "no_backup_scheduling", 2205, SLINKY_CONF_CLASS_RESTART_SLURMCTLD},
        {"GresTypes", NULL, 2205, SLINKY_CONF_CLASS_RESTART_ALL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *reason = NULL;
        slinky_conf_change_class k = slinky_conf_key_change_class(&reason, cases[i].key, cases[i].opt, cases[i].v);
        if (k != cases[i].k)
            fail_msg("%s %s: got %s want %s", cases[i].key, cases[i].opt ? cases[i].opt : "",
                     slinky_conf_change_class_name(k), slinky_conf_change_class_name(cases[i].k));
        assert_non_null(reason);
    }
    const char *reason = NULL;
    slinky_conf_key_change_class(&reason, "StateSaveLocation", NULL, 2205);
    assert_non_null(strstr(reason, "restart of slurmctld is required"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_other_kinds),
        cmocka_unit_test(test_catalogue_is_generated),
        cmocka_unit_test(test_restart_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
