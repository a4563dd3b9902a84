/* Concurrency and crash safety of ledger appends (real processes, git CLI checks).
 *  - 8 processes x 100 events on one ledger: exactly 800 events, linear
 *    history, `git fsck --strict` clean, verify passes, ids unique.
 *  - writers killed with SIGKILL at random points: the repository opens,
 *    verify passes (no half-applied event), fsck finds no corruption, and a
 *    new append succeeds (a stale ref lock is cleared). */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "ledger_test_util.h"

#define WRITERS 8
#define EVENTS 100

static void writer(const char *path, int w, int count)
{
    slinky_global_init();
    slinky_ledger *l = NULL;
    if (slinky_ledger_open(&l, path) < 0)
        _exit(10);
    for (int i = 0; count < 0 || i < count; i++) {
        char name[64], req[64];
        snprintf(name, sizeof(name), "w%du%d", w, i);
        snprintf(req, sizeof(req), "req-%d-%d", w, i);
        slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
        /* a mix of kinds: mostly user adds, every 10th a group add */
        ev.kind = i % 10 == 9 ? SLINKY_LEDGER_GROUP_ADD : SLINKY_LEDGER_USER_ADD;
        if (i % 10 == 9)
            snprintf(name, sizeof(name), "w%dg%d", w, i);
        ev.name = name;
        ev.request_id = req;
        ev.actor = "writer";
        if (slinky_ledger_append(NULL, l, &ev) < 0) {
            fprintf(stderr, "writer %d event %d: %s\n", w, i, slinky_error_last()->message);
            _exit(11);
        }
    }
    slinky_ledger_free(l);
    slinky_global_shutdown();
    _exit(0);
}

static void test_eight_writers(void **state)
{
    (void)state;
    char *dir = lt_tmpdir();
    char path[4200];
    snprintf(path, sizeof(path), "%s/ledger.git", dir);
    slinky_ledger *l = NULL;
    assert_int_equal(slinky_ledger_init(&l, path, NULL), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0)
            writer(path, w, EVENTS);
    }
    for (int w = 0; w < WRITERS; w++) {
        int st = 0;
        assert_int_equal(waitpid(pids[w], &st, 0), pids[w]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "8 x 100 appends took %.2f s\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    char *out = lt_sh("git --git-dir='%s' rev-list --count main; "
                      "git --git-dir='%s' rev-list --count --min-parents=2 main; "
                      "git --git-dir='%s' fsck --strict --no-dangling >/dev/null 2>&1 && echo "
                      "fsck-ok",
                      path, path, path);
    assert_string_equal(out, "801\n0\nfsck-ok\n");
    free(out);
    size_t n = 0;
    char *bad = NULL;
    if (slinky_ledger_verify(&n, &bad, l) != 0)
        fail_msg("verify: %s", slinky_error_last()->message);
    assert_int_equal(n, WRITERS * EVENTS);
    /* every id handed out once: 800 index entries, next_id right after them */
    out = lt_sh("git --git-dir='%s' ls-tree -r --name-only main ids | wc -l; "
                "git --git-dir='%s' show main:ledger.json | grep next_id",
                path, path);
    assert_string_equal(out, "800\n  \"next_id\": 66336\n");
    free(out);
    slinky_ledger_free(l);
    lt_rmrf(dir);
    free(dir);
}

static void test_sigkill_writers(void **state)
{
    (void)state;
    char *dir = lt_tmpdir();
    char path[4200];
    snprintf(path, sizeof(path), "%s/ledger.git", dir);
    slinky_ledger *l = NULL;
    assert_int_equal(slinky_ledger_init(&l, path, NULL), 0);
    slinky_ledger_free(l);
    unsigned seed = (unsigned)time(NULL);
    fprintf(stderr, "seed %u\n", seed);
    for (int round = 0; round < 6; round++) {
        pid_t pids[4];
        for (int w = 0; w < 4; w++) {
            pids[w] = fork();
            assert_true(pids[w] >= 0);
            if (pids[w] == 0)
                writer(path, round * 10 + w, -1);
        }
        struct timespec ts = {0, (long)(100 + rand_r(&seed) % 300) * 1000000L};
        nanosleep(&ts, NULL);
        for (int w = 0; w < 4; w++) {
            kill(pids[w], SIGKILL);
            int st = 0;
            waitpid(pids[w], &st, 0);
            assert_true(WIFSIGNALED(st)); /* killed mid-run, not finished */
        }
        fprintf(stderr, "round %d killed at %ld\n", round, (long)time(NULL));
        /* the repository opens and verifies after every massacre */
        assert_int_equal(slinky_ledger_open(&l, path), 0);
        size_t n = 0;
        char *bad = NULL;
        if (slinky_ledger_verify(&n, &bad, l) != 0)
            fail_msg("round %d: verify: %s", round, slinky_error_last()->message);
        slinky_ledger_free(l);
        char *out = lt_sh("git --git-dir='%s' fsck --no-dangling >/dev/null 2>&1 && echo ok",
                          path);
        assert_string_equal(out, "ok\n");
        free(out);
    }
    /* every recorded event is complete: each user-add commit has its user file,
       and a new writer can still append (a stale lock left by a killed writer is cleared) */
    assert_int_equal(slinky_ledger_open(&l, path), 0);
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_ADD, "survivor", NULL, 0, NULL), 0);
    size_t n = 0;
    char *bad = NULL;
    assert_int_equal(slinky_ledger_verify(&n, &bad, l), 0);
    char *out = lt_sh("cd /; g='git --git-dir=%s'; users=$($g log --format=%%B main | grep -c "
                      "'^Slinky-Event: user-add'); files=$($g ls-tree -r --name-only main users "
                      "| wc -l); echo $users $files",
                      path);
    unsigned a = 0, b = 0;
    assert_int_equal(sscanf(out, "%u %u", &a, &b), 2);
    assert_int_equal(a, b);
    assert_true(a > 1);
    fprintf(stderr, "%zu events survived 6 rounds of SIGKILL\n", n);
    free(out);
    slinky_ledger_free(l);
    lt_rmrf(dir);
    free(dir);
}

int main(void)
{
    slinky_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eight_writers),
        cmocka_unit_test(test_sigkill_writers),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    slinky_global_shutdown();
    return rc;
}
