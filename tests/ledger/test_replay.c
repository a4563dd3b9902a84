/* Replay into the POSIX sink (root folder) and the Kanidm sink (a stand-in
 * program that records its argv: Kanidm itself cannot be installed here). */
#include <sys/stat.h>

#include "ledger_test_util.h"

static void populate(slinky_ledger *l)
{
    char *ed = lt_key("ed25519.pub");
    assert_int_equal(lt_event(l, SLINKY_LEDGER_GROUP_ADD, "dev", NULL, 0, NULL), 0);     /* 65536 */
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_ADD, "alice", NULL, 0, NULL), 0);   /* 65537 */
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_ADD, "bob", NULL, 0, NULL), 0);     /* 65538 */
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_ADD, "carol", NULL, 0, NULL), 0);   /* 65539 */
    assert_int_equal(lt_event(l, SLINKY_LEDGER_MEMBER_ADD, "alice", "dev", 0, NULL), 0);
    assert_int_equal(lt_event(l, SLINKY_LEDGER_MEMBER_ADD, "bob", "dev", 0, NULL), 0);
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_DISABLE, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(l, SLINKY_LEDGER_USER_DELETE, "carol", NULL, 0, NULL), 0);
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_KEY_ADD;
    ev.name = "alice";
    ev.tag = "laptop";
    ev.key = ed;
    assert_int_equal(slinky_ledger_append(NULL, l, &ev), 0);
    free(ed);
}

typedef struct prog {
    size_t calls, last_done, last_total;
} prog;

static void on_progress(const char *sink, size_t done, size_t total, const char *step,
                        void *payload)
{
    prog *p = payload;
    assert_non_null(sink);
    assert_non_null(step);
    assert_true(done <= total);
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

static void test_posix(void **state)
{
    lt_fx *f = *state;
    populate(f->l);
    /* foreign entries exist before the replay and must be kept */
    char etc[4300];
    snprintf(etc, sizeof(etc), "%s/etc", f->root);
    char *cmd = lt_sh("mkdir -p '%s' && printf 'root:x:0:0:root:/root:/bin/bash\\n' > '%s/passwd' "
                      "&& printf 'root:x:0:\\n' > '%s/group' && printf 'root:*:19000:0:99999:7:::\\n' "
                      "> '%s/shadow' && echo ok",
                      etc, etc, etc, etc);
    assert_string_equal(cmd, "ok\n");
    free(cmd);
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    o.sinks = SLINKY_LEDGER_SINK_POSIX;
    o.posix_root = f->root;
    o.incarnation = "one";
    o.dry_run = true;
    prog p = {0, 0, 0};
    o.progress = on_progress;
    o.payload = &p;
    char *plan = NULL;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    assert_non_null(strstr(plan, "posix: add etc/passwd alice\n"));
    assert_non_null(strstr(plan, "posix: write keys of alice"));
    assert_true(p.calls > 5);
    assert_int_equal(p.last_done, p.last_total);
    slinky_free(plan);
    /* dry run wrote nothing */
    char path[4400];
    snprintf(path, sizeof(path), "%s/passwd", etc);
    char *pw = lt_read(path);
    assert_string_equal(pw, "root:x:0:0:root:/root:/bin/bash\n");
    free(pw);

    o.dry_run = false;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    slinky_free(plan);
    pw = lt_read(path);
    assert_string_equal(pw, "root:x:0:0:root:/root:/bin/bash\n"
                            "alice:x:65537:65537::/home/alice:/bin/bash\n"
                            "bob:x:65538:65538::/home/bob:/bin/bash\n");
    free(pw);
    snprintf(path, sizeof(path), "%s/group", etc);
    char *gr = lt_read(path);
    assert_string_equal(gr, "root:x:0:\n"
                            "dev:x:65536:alice,bob\n"
                            "alice:x:65537:\n"
                            "bob:x:65538:\n");
    free(gr);
    snprintf(path, sizeof(path), "%s/shadow", etc);
    char *sh = lt_read(path);
    assert_string_equal(sh, "root:*:19000:0:99999:7:::\n"
                            "alice:*:::::::\n"
                            "bob:!:::::1:\n");
    free(sh);
    snprintf(path, sizeof(path), "%s/ssh/authorized_keys/alice", etc);
    char *k = lt_read(path), *ed = lt_key("ed25519.pub");
    assert_non_null(k);
    assert_int_equal(strncmp(k, ed, strlen(ed)), 0);
    free(k);
    free(ed);
    snprintf(path, sizeof(path), "%s/ssh/authorized_keys/bob", etc);
    assert_null(lt_read(path));

    /* second replay: nothing to do (progress ref) and files untouched */
    struct stat st1, st2;
    snprintf(path, sizeof(path), "%s/passwd", etc);
    assert_int_equal(stat(path, &st1), 0);
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    assert_string_equal(plan, "");
    slinky_free(plan);
    char *ref = lt_sh("git --git-dir='%s' rev-parse refs/replay/one/posix main", f->path);
    assert_int_equal(strncmp(ref, ref + 41, 40), 0);
    free(ref);
    /* forced: looks at everything, still no change */
    o.force = true;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    assert_string_equal(plan, "");
    slinky_free(plan);
    assert_int_equal(stat(path, &st2), 0);
    assert_int_equal(st1.st_ino, st2.st_ino);

    /* a change: bob deleted -> his entries go, foreign ones stay */
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_DELETE, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_KEY_REMOVE, "alice", NULL, 0, NULL),
                     SLINKY_EINVALID);
    o.force = false;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    assert_non_null(strstr(plan, "remove etc/passwd bob"));
    slinky_free(plan);
    pw = lt_read(path);
    assert_string_equal(pw, "root:x:0:0:root:/root:/bin/bash\n"
                            "alice:x:65537:65537::/home/alice:/bin/bash\n");
    free(pw);
}

static void test_posix_conflict(void **state)
{
    lt_fx *f = *state;
    populate(f->l);
    char *r = lt_sh("mkdir -p '%s/etc' && printf 'alice:x:1000:1000::/home/alice:/bin/sh\\n' > "
                    "'%s/etc/passwd' && echo ok",
                    f->root, f->root);
    assert_string_equal(r, "ok\n");
    free(r);
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    o.sinks = SLINKY_LEDGER_SINK_POSIX;
    o.posix_root = f->root;
    char *plan = NULL;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), SLINKY_ECONFLICT);
    assert_null(plan);
    assert_non_null(strstr(slinky_error_last()->message, "'alice' exists with id 1000"));
    /* no progress recorded, file unchanged (not renumbered) */
    char *ref = lt_sh("git --git-dir='%s' for-each-ref refs/replay", f->path);
    assert_string_equal(ref, "");
    free(ref);
    char path[4400];
    snprintf(path, sizeof(path), "%s/etc/passwd", f->root);
    char *pw = lt_read(path);
    assert_string_equal(pw, "alice:x:1000:1000::/home/alice:/bin/sh\n");
    free(pw);
    /* an id used by a foreign name is a conflict too */
    r = lt_sh("printf 'zed:x:65537:65537::/:/bin/sh\\n' > '%s/etc/passwd' && echo ok", f->root);
    free(r);
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), SLINKY_ECONFLICT);
    assert_non_null(strstr(slinky_error_last()->message, "used by 'zed'"));
    /* bad options */
    o.posix_root = NULL;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), SLINKY_EINVALID);
    o.posix_root = f->root;
    o.incarnation = "../x";
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), SLINKY_EINVALID);
}

static void test_kanidm_standin(void **state)
{
    lt_fx *f = *state;
    populate(f->l);
    /* the stand-in records argv (one line, fields separated by '|') and says "not found"
       for every get/list, like an empty Kanidm */
    char standin[4400], logf[4400];
    snprintf(standin, sizeof(standin), "%s/kanidm", f->dir);
    snprintf(logf, sizeof(logf), "%s/kanidm.log", f->dir);
    FILE *s = fopen(standin, "w");
    assert_non_null(s);
    fprintf(s,
            "#!/bin/sh\n(IFS='|'; printf '%%s\\n' \"$*\") >> '%s'\n"
            "case \"$2\" in get|list-publickeys) exit 1;; esac\n"
            "case \"$3\" in list-publickeys) exit 1;; esac\nexit 0\n",
            logf);
    fclose(s);
    chmod(standin, 0755);
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    o.sinks = SLINKY_LEDGER_SINK_KANIDM;
    o.kanidm = standin;
    char *plan = NULL;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), 0);
    slinky_free(plan);
    char *log = lt_read(logf);
    char *ed = lt_key("ed25519.pub");
    char want[8192];
    snprintf(want, sizeof(want),
             "group|get|dev\n"
             "group|create|dev\n"
             "group|posix|set|dev|--gidnumber|65536\n"
             "person|get|alice\n"
             "person|create|alice|alice\n"
             "person|posix|set|alice|--gidnumber|65537|--shell|/bin/bash\n"
             "person|get|bob\n"
             "person|create|bob|bob\n"
             "person|posix|set|bob|--gidnumber|65538|--shell|/bin/bash\n"
             "group|add-members|dev|alice\n"
             "group|add-members|dev|bob\n"
             "person|ssh|list-publickeys|alice\n"
             "person|ssh|add-publickey|alice|laptop|%s\n",
             ed);
    assert_string_equal(log, want);
    free(log);
    free(ed);
    /* a Kanidm that already has alice with another gidnumber: conflict, not renumbered */
    s = fopen(standin, "w");
    fprintf(s, "#!/bin/sh\ncase \"$1 $2 $3\" in 'person get alice') echo 'gidnumber: 4242'; "
               "exit 0;; esac\ncase \"$2\" in get) exit 1;; esac\nexit 0\n");
    fclose(s);
    o.force = true;
    assert_int_equal(slinky_ledger_replay(&plan, f->l, &o), SLINKY_ECONFLICT);
    assert_non_null(strstr(slinky_error_last()->message, "gidnumber 4242"));
}

int main(void)
{
    slinky_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_posix, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_posix_conflict, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_kanidm_standin, lt_setup, lt_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    slinky_global_shutdown();
    return rc;
}
