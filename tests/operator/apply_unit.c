/*
 * operator: op_install_and_apply() with a real /bin/sh restart command that
 * records what it was asked to do. (Reconfigure against a real slurmctld is
 * covered by operator/e2e.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "operator.h"

static const char *BASE = "ClusterName=t\n"
                          "SlurmctldHost=localhost\n"
                          "SelectType=select/cons_tres\n"
                          "MinJobAge=2\n";

struct fixture {
    char dir[64];
    char conf[128];
    char record[128];
    char restart_ok[256];
    char restart_fail[256];
};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/op-apply.XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->conf, sizeof(fx->conf), "%s/slurm.conf", fx->dir);
    snprintf(fx->record, sizeof(fx->record), "%s/record", fx->dir);
    /* records the class and the file the daemons would be restarted with */
    snprintf(fx->restart_ok, sizeof(fx->restart_ok),
             "echo \"$SLINKY_CHANGE_CLASS $(grep -c . \"$SLURM_CONF\")\" >> %s", fx->record);
    snprintf(fx->restart_fail, sizeof(fx->restart_fail), "echo \"$SLINKY_CHANGE_CLASS\" >> %s; exit 3",
             fx->record);
    write_file(fx->conf, BASE);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
    if (system(cmd) != 0)
        return -1;
    free(fx);
    return 0;
}

static op_options opts(const char *restart)
{
    op_options o;
    memset(&o, 0, sizeof(o));
    o.slurm_version = 2205;
    o.restart_cmd = restart;
    return o;
}

static void test_unchanged_is_none(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(fx->restart_ok);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_RESTART_ALL;
    char *summary = NULL;
    assert_int_equal(op_install_and_apply(&k, &summary, &o, fx->conf, BASE), 0);
    assert_int_equal(k, SLINKY_CONF_CLASS_NONE);
    assert_null(read_file(fx->record)); /* nothing was restarted */
    free(summary);
}

static void test_comment_only_installs_without_restart(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(fx->restart_ok);
    char text[512];
    snprintf(text, sizeof(text), "# managed by slinky\n%s", BASE);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_RESTART_ALL;
    char *summary = NULL;
    assert_int_equal(op_install_and_apply(&k, &summary, &o, fx->conf, text), 0);
    assert_int_equal(k, SLINKY_CONF_CLASS_NONE);
    assert_string_equal(read_file(fx->conf), text);
    assert_null(read_file(fx->record));
    free(summary);
}

static void test_restart_class_runs_the_command(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(fx->restart_ok);
    char text[512];
    snprintf(text, sizeof(text), "%sAccountingStorageEnforce=associations\n", BASE);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_NONE;
    char *summary = NULL;
    assert_int_equal(op_install_and_apply(&k, &summary, &o, fx->conf, text), 0);
    assert_int_equal(k, SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    assert_non_null(strstr(summary, "AccountingStorageEnforce"));
    /* restarted once, with the NEW file (5 lines) in place */
    assert_string_equal(read_file(fx->record), "restart-slurmctld 5\n");
    assert_string_equal(read_file(fx->conf), text);
    char prev[160];
    snprintf(prev, sizeof(prev), "%s.prev", fx->conf);
    assert_string_equal(read_file(prev), BASE);
    free(summary);
}

static void test_failed_restart_restores_old_file(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(fx->restart_fail);
    char text[512];
    snprintf(text, sizeof(text), "%sSelectType=select/linear\n", BASE);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_NONE;
    char *summary = NULL;
    assert_int_not_equal(op_install_and_apply(&k, &summary, &o, fx->conf, text), 0);
    assert_string_equal(read_file(fx->conf), BASE); /* old file back */
    assert_non_null(strstr(op_last_error(), "restart command failed"));
    /* tried the new config, then brought the old one up again, both by the key's class */
    const char *cls = slinky_conf_change_class_name(
        slinky_conf_key_change_class(NULL, "SelectType", NULL, 2205));
    assert_true(slinky_conf_key_change_class(NULL, "SelectType", NULL, 2205) >=
                SLINKY_CONF_CLASS_RESTART_SLURMCTLD);
    char want[128];
    snprintf(want, sizeof(want), "%s\n%s\n", cls, cls);
    assert_string_equal(read_file(fx->record), want);
    assert_null(summary);
}

static void test_restart_needed_without_command_is_refused(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(NULL);
    char text[512];
    snprintf(text, sizeof(text), "%sSchedulerType=sched/builtin\n", BASE);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_NONE;
    assert_int_not_equal(op_install_and_apply(&k, NULL, &o, fx->conf, text), 0);
    assert_string_equal(read_file(fx->conf), BASE);
    assert_non_null(strstr(op_last_error(), "no --restart-command"));
}

static void test_unparsable_new_file_changes_nothing(void **state)
{
    struct fixture *fx = *state;
    op_options o = opts(fx->restart_ok);
    slinky_conf_change_class k = SLINKY_CONF_CLASS_NONE;
    assert_int_not_equal(op_install_and_apply(&k, NULL, &o, fx->conf, "Include\n=broken\n"), 0);
    assert_string_equal(read_file(fx->conf), BASE);
    assert_null(read_file(fx->record));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unchanged_is_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comment_only_installs_without_restart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_class_runs_the_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_restart_restores_old_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_needed_without_command_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unparsable_new_file_changes_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
