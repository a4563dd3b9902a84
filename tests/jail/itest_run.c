/* jail/run: slinky_jail_run's child (it shares the caller's memory until exec): the
 * command is searched in the jail's PATH, a script without #! runs through /bin/sh, the
 * exit status comes back, and the caller's environment and signal handlers are left as
 * they were. Root only (mount namespaces), and skipped where the new mount API is missing
 * (valgrind does not know open_tree). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slinky/error.h"
#include "slinky/jail.h"

static char w[64];
static slinky_jail_spec *spec;

static bool can_jail(void)
{
    if (geteuid() != 0)
        return false;
#ifdef SYS_open_tree
    /* a bad fd: EBADF from a kernel that has it, ENOSYS otherwise */
    return syscall(SYS_open_tree, -1, "", 0) < 0 && errno != ENOSYS;
#else
    return false;
#endif
}

static void put(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void path_in(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", w, rel);
}

static int setup(void **state)
{
    (void)state;
    if (!can_jail())
        return 0;
    snprintf(w, sizeof(w), "/tmp/jail-run.XXXXXX");
    if (!mkdtemp(w) || chmod(w, 0755) < 0)
        return -1;
    char p[256];
    path_in(p, sizeof(p), "bin");
    mkdir(p, 0755);
    path_in(p, sizeof(p), "out");
    mkdir(p, 0777);
    chmod(p, 0777);
    path_in(p, sizeof(p), "bin/jail-hello");
    put(p, "#!/bin/sh\necho \"hello $1 $JAIL_MARK\" > /out/hello\nexit 7\n", 0755);
    path_in(p, sizeof(p), "bin/jail-noshebang");
    put(p, "echo \"plain $1\" > /out/plain\nexit 5\n", 0755);
    char text[2048];
    snprintf(text, sizeof(text),
             "root: {path: /, readOnly: true}\n"
             "scratch: %s/scratch\n"
             "mounts:\n"
             "  - {type: bind, source: %s/bin, destination: /jailbin, readOnly: true}\n"
             "  - {type: bind, source: %s/out, destination: /out}\n"
             "  - {type: bind, source: tmp, destination: /tmp, lifetime: job}\n"
             "  - {type: proc, destination: /proc}\n"
             "environment:\n"
             "  clear: true\n"
             "  set: {JAIL_MARK: inside}\n"
             "  pathPrepend: [/jailbin]\n"
             "process: {user: job, noNewPrivileges: true, capabilities: []}\n",
             w, w, w);
    return slinky_jail_spec_parse(&spec, text, strlen(text)) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    slinky_jail_spec_free(spec);
    if (!w[0])
        return 0;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w);
    return system(cmd) == 0 ? 0 : -1;
}

static int usr1_seen;
static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
}

static slinky_jail_job job_for(const char *id)
{
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.job_id = id;
    job.uid = 65534;
    job.gid = 65534;
    return job;
}

static void read_file(char *buf, size_t n, const char *rel)
{
    char p[256];
    path_in(p, sizeof(p), rel);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

static void test_path_status_and_caller_state(void **state)
{
    (void)state;
    if (!can_jail())
        skip();
    /* the caller's environment and handlers, to compare afterwards */
    assert_int_equal(setenv("SLINKY_RUN_CALLER", "kept", 1), 0);
    assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0); /* no /jailbin here */
    unsetenv("JAIL_MARK");
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);

    slinky_jail_job job = job_for("71");
    int status = -1;
    const char *argv[] = {"jail-hello", "world", NULL};
    assert_int_equal(slinky_jail_run(&status, spec, &job, argv, true), 0);
    assert_int_equal(status, 7);
    char buf[256];
    read_file(buf, sizeof(buf), "out/hello");
    assert_string_equal(buf, "hello world inside\n");

    const char *argv2[] = {"jail-noshebang", "x", NULL};
    status = -1;
    assert_int_equal(slinky_jail_run(&status, spec, &job, argv2, true), 0);
    assert_int_equal(status, 5);
    read_file(buf, sizeof(buf), "out/plain");
    assert_string_equal(buf, "plain x\n");

    assert_string_equal(getenv("SLINKY_RUN_CALLER"), "kept");
    assert_string_equal(getenv("PATH"), "/usr/bin:/bin");
    assert_null(getenv("JAIL_MARK"));
    struct sigaction now;
    assert_int_equal(sigaction(SIGUSR1, NULL, &now), 0);
    assert_ptr_equal(now.sa_handler, on_usr1);
    raise(SIGUSR1);
    assert_int_equal(usr1_seen, 1);
    sigset_t mask;
    assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &mask), 0);
    assert_int_equal(sigismember(&mask, SIGINT), 0);
    assert_int_equal(sigismember(&mask, SIGUSR1), 0);
    sigaction(SIGUSR1, &old, NULL);
    unsetenv("SLINKY_RUN_CALLER");
}

static void test_missing_command(void **state)
{
    (void)state;
    if (!can_jail())
        skip();
    slinky_jail_job job = job_for("72");
    int status = -1;
    const char *argv[] = {"jail-no-such-command", NULL};
    assert_int_equal(slinky_jail_run(&status, spec, &job, argv, true), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "jail-no-such-command"));
    assert_int_equal(status, -1);
    /* a failure inside the child leaves the caller usable: run again */
    const char *argv2[] = {"/bin/true", NULL};
    assert_int_equal(slinky_jail_run(&status, spec, &job, argv2, true), 0);
    assert_int_equal(status, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_status_and_caller_state),
        cmocka_unit_test(test_missing_command),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
