/* jail/scratch: per-job folders, teardown that never follows symlinks, stale cleanup. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slinky/jail.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "/tmp/jail-scratch.XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_setup_and_cleanup(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    slinky_jail_spec *s = NULL;
    char p[512], outside[512];
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    snprintf(p, sizeof(p), "%s/scratch", root);
    assert_int_equal(slinky_jail_spec_set_scratch(s, p), 0);
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.job_id = "5";
    job.uid = 4242;
    job.gid = 4343;
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0); /* idempotent (several steps) */
    struct stat st;
    snprintf(p, sizeof(p), "%s/scratch/job-5/tmp", root);
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_uid, 4242);
    assert_int_equal(st.st_gid, 4343);
    assert_int_equal(st.st_mode & 07777, 0700);
    /* a file outside, reached through a symlink inside the scratch, survives the teardown */
    snprintf(outside, sizeof(outside), "%s/outside", root);
    put(outside, "keep me");
    snprintf(p, sizeof(p), "%s/scratch/job-5/tmp/link", root);
    assert_int_equal(symlink(outside, p), 0);
    snprintf(p, sizeof(p), "%s/scratch/job-5/tmp/sub/deeper", root);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && echo x > '%s/f'", p, p);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(slinky_jail_cleanup(s, "5"), 0);
    snprintf(p, sizeof(p), "%s/scratch/job-5", root);
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(access(outside, F_OK), 0);
    assert_int_equal(slinky_jail_cleanup(s, "5"), 0); /* gone already: fine */
    assert_int_equal(slinky_jail_cleanup(s, "../x"), SLINKY_EINVALID);
    assert_int_equal(slinky_jail_cleanup(s, NULL), SLINKY_EINVALID);
    slinky_jail_spec_free(s);
}

static void test_stale(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    slinky_jail_spec *s = NULL;
    char p[512];
    assert_int_equal(slinky_jail_spec_new_default(&s), 0);
    snprintf(p, sizeof(p), "%s/scratch2", root);
    assert_int_equal(slinky_jail_spec_set_scratch(s, p), 0);
    slinky_jail_job job = SLINKY_JAIL_JOB_INIT;
    job.uid = 4242;
    job.gid = 4242;
    job.job_id = "1"; /* owned by this (live) process */
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    job.job_id = "2"; /* its owner is gone */
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    job.job_id = "3"; /* made during another boot */
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    snprintf(p, sizeof(p), "%s/scratch2/job-3/.slinky-boot", root);
    put(p, "some-other-boot\n");
    snprintf(p, sizeof(p), "%s/scratch2/job-2/.slinky-owners", root);
    put(p, "999999999 12345\n");
    size_t removed = 99;
    assert_int_equal(slinky_jail_cleanup_stale(&removed, s, NULL), 0);
    assert_int_equal(removed, 2);
    snprintf(p, sizeof(p), "%s/scratch2/job-1/tmp", root);
    assert_int_equal(access(p, F_OK), 0);
    snprintf(p, sizeof(p), "%s/scratch2/job-2", root);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/scratch2/job-3", root);
    assert_int_equal(access(p, F_OK), -1);
    /* a setup also removes what crashed jobs left */
    job.job_id = "2";
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    snprintf(p, sizeof(p), "%s/scratch2/job-2/.slinky-owners", root);
    put(p, "999999999 12345\n");
    job.job_id = "4";
    assert_int_equal(slinky_jail_setup(s, &job, 0), 0);
    snprintf(p, sizeof(p), "%s/scratch2/job-2", root);
    assert_int_equal(access(p, F_OK), -1);
    /* no scratch folder at all: nothing to do */
    assert_int_equal(slinky_jail_spec_set_scratch(s, "/nonexistent/slinky/scratch"), 0);
    assert_int_equal(slinky_jail_cleanup_stale(&removed, s, NULL), 0);
    assert_int_equal(removed, 0);
    slinky_jail_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_and_cleanup),
        cmocka_unit_test(test_stale),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
