/* conf/diff: semantic diff and change classes (22.05 and 24.11). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/conf.h"
#include "slinky/error.h"

#define BASE                                                                                      \
    "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\nSelectType=select/cons_tres\n"         \
    "SlurmctldParameters=enable_configless\n"                                                     \
    "NodeName=n[1-2] CPUs=2 NodeAddr=127.0.0.1\nPartitionName=debug Nodes=ALL Default=YES\n"

static slinky_conf_diff *diff(const char *a, const char *b, unsigned int v)
{
    slinky_conf *ca = NULL, *cb = NULL;
    assert_int_equal(slinky_conf_parse(&ca, a, strlen(a), "old.conf", NULL), 0);
    assert_int_equal(slinky_conf_parse(&cb, b, strlen(b), "new.conf", NULL), 0);
    slinky_conf_diff *d = NULL;
    assert_int_equal(slinky_conf_diff_new(&d, ca, cb, v), 0);
    slinky_conf_free(ca);
    slinky_conf_free(cb);
    return d;
}

static void expect(const char *a, const char *b, unsigned int v, size_t n, slinky_conf_change_class k)
{
    slinky_conf_diff *d = diff(a, b, v);
    char *txt = NULL;
    assert_int_equal(slinky_conf_diff_render(&txt, d), 0);
    if (slinky_conf_diff_count(d) != n || slinky_conf_diff_class(d) != k)
        fail_msg("want %zu changes / %s, got:\n%s", n, slinky_conf_change_class_name(k), txt);
    slinky_free(txt);
    slinky_conf_diff_free(d);
}

static void test_none(void **state)
{
    (void)state;
    /* case of keys, order of lines, comments, hostlist spelling and option order do not matter */
    expect(BASE, BASE, 2205, 0, SLINKY_CONF_CLASS_NONE);
    expect(BASE "DebugFlags=Gres,Backfill\n",
           "# reordered\nkillwait=30\nClusterName=ci\nSlurmctldHost=localhost\n"
           "SelectType=select/cons_tres\nslurmctldparameters=enable_configless\n"
           "NodeName=n1,n2 CPUs=2 NodeAddr=127.0.0.1\nPartitionName=debug Default=YES Nodes=ALL\n"
           "DebugFlags=Backfill,Gres\n",
           2205, 0, SLINKY_CONF_CLASS_NONE);
    /* last value wins before comparing */
    expect(BASE, BASE "KillWait=40\nKillWait=30\n", 2205, 0, SLINKY_CONF_CLASS_NONE);
}

static void test_globals(void **state)
{
    (void)state;
    expect(BASE, BASE "KillWait=45\n", 2205, 1, SLINKY_CONF_CLASS_RECONFIGURE);
    /* the seed scenario: the man page says restart slurmctld (reconfigure would not apply it) */
    slinky_conf_diff *d = diff(BASE, BASE "AccountingStorageEnforce=associations,limits,qos\n", 2205);
    assert_int_equal(slinky_conf_diff_count(d), 1);
    const slinky_conf_change *c = slinky_conf_diff_at(d, 0);
    assert_string_equal(c->scope, "global");
    assert_string_equal(c->key, "AccountingStorageEnforce");
    assert_null(c->old_value);
    assert_string_equal(c->new_value, "associations,limits,qos");
    assert_int_equal(c->klass, SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    assert_non_null(c->reason);
    assert_null(slinky_conf_diff_at(d, 1));
    slinky_conf_diff_free(d);
    expect(BASE, "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\nSelectType=select/linear\n"
                 "SlurmctldParameters=enable_configless\n"
                 "NodeName=n[1-2] CPUs=2 NodeAddr=127.0.0.1\nPartitionName=debug Nodes=ALL Default=YES\n",
           2205, 1, SLINKY_CONF_CLASS_RESTART_ALL);
    expect(BASE, BASE "SlurmctldPort=7000\n", 2205, 1, SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    expect(BASE, BASE "MaxNodeCount=100\n", 2205, 1, SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE);
    expect(BASE, BASE "AuthType=auth/munge\n", 2205, 1, SLINKY_CONF_CLASS_RESTART_ALL);
    /* removing a key is a change too */
    expect(BASE "MinJobAge=5\n", BASE, 2205, 1, SLINKY_CONF_CLASS_RECONFIGURE);
    /* options: enable_configless needs a restart by itself, other words do not */
    expect(BASE, BASE "SlurmctldParameters=enable_configless,enable_stepmgr\n", 2205, 1,
           SLINKY_CONF_CLASS_RECONFIGURE);
    expect(BASE, BASE "SlurmctldParameters=enable_stepmgr\n", 2205, 1,
           SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    /* a second SlurmctldHost (a backup) */
    expect(BASE, BASE "SlurmctldHost=backup(127.0.0.2)\n", 2205, 1, SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
}

static void test_records(void **state)
{
    (void)state;
    /* an added node: fatal on 22.05, reconfigure on 24.11 */
    expect(BASE, BASE "NodeName=static1 NodeAddr=127.0.0.1\n", 2205, 1,
           SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE);
    expect(BASE, BASE "NodeName=static1 NodeAddr=127.0.0.1\n", 2411, 1, SLINKY_CONF_CLASS_RECONFIGURE);
    /* growing a hostlist adds exactly the new hosts */
    slinky_conf_diff *d = diff(BASE, "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\n"
                                     "SelectType=select/cons_tres\nSlurmctldParameters=enable_configless\n"
                                     "NodeName=n[1-4] CPUs=2 NodeAddr=127.0.0.1\n"
                                     "PartitionName=debug Nodes=ALL Default=YES\n",
                               2205);
    assert_int_equal(slinky_conf_diff_count(d), 2);
    assert_string_equal(slinky_conf_diff_at(d, 0)->name, "n3");
    assert_string_equal(slinky_conf_diff_at(d, 1)->name, "n4");
    assert_string_equal(slinky_conf_diff_at(d, 1)->scope, "NodeName");
    slinky_conf_diff_free(d);
    /* a node attribute: restart all daemons (man page); per host */
    expect(BASE, "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\nSelectType=select/cons_tres\n"
                 "SlurmctldParameters=enable_configless\n"
                 "NodeName=n1 CPUs=2 NodeAddr=127.0.0.1\nNodeName=n2 CPUs=1 NodeAddr=127.0.0.1\n"
                 "PartitionName=debug Nodes=ALL Default=YES\n",
           2205, 1, SLINKY_CONF_CLASS_RESTART_ALL);
    /* DEFAULT lines are applied before comparing */
    expect(BASE, "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\nSelectType=select/cons_tres\n"
                 "SlurmctldParameters=enable_configless\nNodeName=DEFAULT CPUs=2\n"
                 "NodeName=n[1-2] NodeAddr=127.0.0.1\nPartitionName=debug Nodes=ALL Default=YES\n",
           2205, 0, SLINKY_CONF_CLASS_NONE);
    /* partitions: added and changed by reconfigure */
    expect(BASE, BASE "PartitionName=p2 Nodes=n1\n", 2205, 1, SLINKY_CONF_CLASS_RECONFIGURE);
    expect(BASE, "ClusterName=ci\nSlurmctldHost=localhost\nKillWait=30\nSelectType=select/cons_tres\n"
                 "SlurmctldParameters=enable_configless\n"
                 "NodeName=n[1-2] CPUs=2 NodeAddr=127.0.0.1\nPartitionName=debug Nodes=ALL Default=YES MaxTime=60\n",
           2205, 1, SLINKY_CONF_CLASS_RECONFIGURE);
    /* the overall class is the largest */
    expect(BASE, BASE "KillWait=1\nNodeName=x1 NodeAddr=127.0.0.1\nSlurmctldPort=7000\n", 2205, 3,
           SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE);
}

static void test_render_text(void **state)
{
    (void)state;
    slinky_conf_diff *d = diff(BASE, BASE "KillWait=45\n", 2205);
    char *t = NULL;
    assert_int_equal(slinky_conf_diff_render(&t, d), 0);
    assert_non_null(strstr(t, "reconfigure"));
    assert_non_null(strstr(t, "KillWait: 30 -> 45"));
    assert_non_null(strstr(t, "overall: reconfigure\n"));
    slinky_free(t);
    slinky_conf_diff_free(d);
    assert_string_equal(slinky_conf_change_class_name(SLINKY_CONF_CLASS_FATAL_ON_RECONFIGURE),
                        "fatal-on-reconfigure");
    assert_int_equal(slinky_conf_diff_count(NULL), 0);
    slinky_conf_diff_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_globals),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_render_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
