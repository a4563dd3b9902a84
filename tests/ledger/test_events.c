/* Ledger events: every kind, validation failures, idempotent retries, verify,
 * history, export/import, push/pull. */
#include "ledger_test_util.h"

static int64_t result_id(const char *res)
{
    const char *p = strstr(res, "\"id\":");
    return p ? atoll(p + 5) : -1;
}

static void assert_verifies(slinky_ledger *l, size_t events)
{
    size_t n = 0;
    char *bad = NULL;
    slinky_status rc = slinky_ledger_verify(&n, &bad, l);
    if (rc != 0)
        fail_msg("verify: %s", slinky_error_last()->message);
    assert_int_equal(n, events);
    assert_null(bad);
}

static void test_init_and_open(void **state)
{
    lt_fx *f = *state;
    char *json = NULL;
    assert_int_equal(slinky_ledger_show(&json, f->l), 0);
    assert_non_null(strstr(json, "\"cluster\": \"test-cluster\""));
    assert_non_null(strstr(json, "\"min\": 65536"));
    assert_non_null(strstr(json, "\"max\": 524287"));
    assert_non_null(strstr(json, "\"format\": 1"));
    slinky_free(json);
    /* a second init at the same place fails; open works */
    slinky_ledger *l2 = NULL;
    assert_int_equal(slinky_ledger_init(&l2, f->path, NULL), SLINKY_EEXISTS);
    assert_null(l2);
    assert_int_equal(slinky_ledger_open(&l2, f->path), 0);
    slinky_ledger_free(l2);
    assert_int_equal(slinky_ledger_open(&l2, "/nonexistent/ledger"), SLINKY_ENOTFOUND);
    /* refs/heads/main in a bare repo: checked with the git CLI */
    char *out = lt_sh("git --git-dir='%s' rev-parse --is-bare-repository "
                      "&& git --git-dir='%s' symbolic-ref HEAD && git --git-dir='%s' "
                      "show main:ledger.json",
                      f->path, f->path, f->path);
    assert_non_null(strstr(out, "true\nrefs/heads/main\n"));
    assert_non_null(strstr(out, "\"next_id\": 65536"));
    free(out);
    assert_verifies(f->l, 0);
}

static void test_every_kind(void **state)
{
    lt_fx *f = *state;
    char *res = NULL;
    char *ed = lt_key("ed25519.pub"), *rsa = lt_key("rsa.pub"), *ec = lt_key("ecdsa.pub");
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_ADD;
    ev.name = "alice";
    ev.gecos = "Alice A";
    ev.request_id = "req-alice";
    assert_int_equal(slinky_ledger_append(&res, f->l, &ev), 0);
    assert_int_equal(result_id(res), 65536);
    assert_non_null(strstr(res, "\"duplicate\":false"));
    slinky_free(res);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "bob", NULL, 70000, &res), 0);
    assert_int_equal(result_id(res), 70000);
    slinky_free(res);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_GROUP_ADD, "dev", NULL, 0, &res), 0);
    assert_int_equal(result_id(res), 65537);
    slinky_free(res);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_MEMBER_ADD, "alice", "dev", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_MEMBER_ADD, "bob", "dev", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_MEMBER_REMOVE, "bob", "dev", 0, NULL), 0);
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_KEY_ADD;
    ev.name = "alice";
    ev.tag = "laptop";
    ev.key = ed;
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev.tag = "desktop";
    ev.key = rsa;
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev.tag = "hsm";
    ev.key = ec;
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_KEY_REMOVE;
    ev.name = "alice";
    ev.tag = "desktop";
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_UPDATE;
    ev.name = "alice";
    ev.shell = "/bin/zsh";
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_ACCOUNT_ADD;
    ev.name = "research";
    ev.description = "research group";
    ev.organization = "ci";
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_ASSOC_ADD, "alice", "research", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_ASSOC_ADD, "bob", "research", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_ASSOC_REMOVE, "bob", "research", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_DISABLE, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ENABLE, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_DELETE, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_GROUP_ADD, "old", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_GROUP_REMOVE, "old", NULL, 0, NULL), 0);

    /* records */
    char *j = NULL;
    assert_int_equal(slinky_ledger_get(&j, f->l, "user", "alice"), 0);
    assert_non_null(strstr(j, "\"shell\": \"/bin/zsh\""));
    assert_non_null(strstr(j, "\"gecos\": \"Alice A\""));
    assert_non_null(strstr(j, "\"tag\": \"laptop\""));
    assert_non_null(strstr(j, "\"tag\": \"hsm\""));
    assert_null(strstr(j, "desktop"));
    slinky_free(j);
    assert_int_equal(slinky_ledger_get(&j, f->l, "user", "bob"), 0);
    assert_non_null(strstr(j, "\"state\": \"deleted\""));
    assert_non_null(strstr(j, "\"uid\": 70000"));
    slinky_free(j);
    assert_int_equal(slinky_ledger_get(&j, f->l, "group", "dev"), 0);
    assert_non_null(strstr(j, "\"alice\""));
    assert_null(strstr(j, "\"bob\""));
    slinky_free(j);
    assert_int_equal(slinky_ledger_get(&j, f->l, "account", "research"), 0);
    assert_non_null(strstr(j, "\"description\": \"research group\""));
    assert_non_null(strstr(j, "\"alice\""));
    assert_null(strstr(j, "\"bob\""));
    slinky_free(j);
    /* keys: only the active user's remaining keys */
    char *keys = NULL;
    assert_int_equal(slinky_ledger_keys(&keys, f->l, "alice"), 0);
    char want[8192];
    snprintf(want, sizeof(want), "%s\n%s\n", ed, ec);
    assert_string_equal(keys, want);
    slinky_free(keys);
    assert_int_equal(slinky_ledger_keys(&keys, f->l, "bob"), 0);
    assert_string_equal(keys, "");
    slinky_free(keys);
    assert_int_equal(slinky_ledger_keys(&keys, f->l, "nobody"), SLINKY_ENOTFOUND);

    /* deleted ids are never reused: the next user gets a fresh id, bob's name stays taken */
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "bob", NULL, 0, NULL), SLINKY_EEXISTS);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "carol", NULL, 70000, NULL),
                     SLINKY_EEXISTS);
    assert_non_null(strstr(slinky_error_last()->message, "user bob"));
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "carol", NULL, 0, &res), 0);
    assert_int_equal(result_id(res), 65539); /* 65538 went to group old (removed) */
    slinky_free(res);

    /* one commit per event, each with typed trailers */
    char *log = lt_sh("git --git-dir='%s' rev-list --count main && git --git-dir='%s' log -1 "
                      "--format=%%B main | git interpret-trailers --parse",
                      f->path, f->path);
    assert_non_null(strstr(log, "22\n"));
    assert_non_null(strstr(log, "Slinky-Event: user-add\n"));
    assert_non_null(strstr(log, "Slinky-Subject: user/carol\n"));
    assert_non_null(strstr(log, "Slinky-Actor: tester\n"));
    assert_non_null(strstr(log, "Slinky-Request-Id: "));
    assert_non_null(strstr(log, "Slinky-Schema: 1\n"));
    free(log);
    assert_verifies(f->l, 21);
    free(ed);
    free(rsa);
    free(ec);
}

static void expect_fail(slinky_ledger *l, const slinky_ledger_event *ev, int code,
                        const char *msg)
{
    char *res = NULL;
    slinky_status rc = slinky_ledger_append(&res, l, ev);
    if (rc != code)
        fail_msg("expected %d got %d (%s)", code, rc, slinky_error_last()->message);
    assert_null(res);
    if (!strstr(slinky_error_last()->message, msg))
        fail_msg("message '%s' lacks '%s'", slinky_error_last()->message, msg);
}

static void test_validation(void **state)
{
    lt_fx *f = *state;
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_ADD;
    ev.name = "Alice";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "not a portable name");
    ev.name = "a23456789012345678901234567890123"; /* 33 */
    expect_fail(f->l, &ev, SLINKY_EINVALID, "not a portable name");
    ev.name = "-x";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "not a portable name");
    ev.name = "a2345678901234567890123456789012"; /* 32 is fine */
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    ev.name = "dave";
    ev.id = 500;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "reserved");
    ev.id = 0;
    ev.home = "relative";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "home");
    ev.home = NULL;
    ev.gecos = "a:b";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "gecos");
    ev.gecos = NULL;
    ev.tag = "x";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "'tag' is not allowed");
    ev.tag = NULL;
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    expect_fail(f->l, &ev, SLINKY_EEXISTS, "already exists");

    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_GROUP_ADD;
    ev.name = "dave";
    expect_fail(f->l, &ev, SLINKY_EEXISTS, "user name");
    ev.name = "g1";
    ev.id = 65536; /* the first user's uid */
    expect_fail(f->l, &ev, SLINKY_EEXISTS, "already taken");

    /* keys */
    char *mismatch = lt_key("mismatch.pub"), *b64 = lt_key("badbase64.pub"),
         *trunc = lt_key("truncated.pub"), *ed = lt_key("ed25519.pub");
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_KEY_ADD;
    ev.name = "dave";
    ev.tag = "k1";
    ev.key = mismatch;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "type mismatch");
    ev.key = b64;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "base64");
    ev.key = trunc;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "ssh key");
    ev.key = "ssh-foo AAAA";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "unknown key type");
    ev.key = "from=\"x\" ssh-ed25519 AAAA";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "unknown key type");
    ev.key = ed;
    ev.tag = "bad tag";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "tag");
    ev.tag = "k1";
    ev.name = "nosuch";
    expect_fail(f->l, &ev, SLINKY_ENOTFOUND, "does not exist");
    ev.name = "dave";
    assert_int_equal(slinky_ledger_append(NULL, f->l, &ev), 0);
    expect_fail(f->l, &ev, SLINKY_EEXISTS, "tagged 'k1'");
    ev.tag = "k2";
    expect_fail(f->l, &ev, SLINKY_EEXISTS, "already has this key");
    ev.kind = SLINKY_LEDGER_KEY_REMOVE;
    ev.key = NULL;
    ev.tag = "nope";
    expect_fail(f->l, &ev, SLINKY_ENOTFOUND, "no key tagged");

    /* references must exist */
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_MEMBER_ADD;
    ev.name = "dave";
    ev.target = "nogroup";
    expect_fail(f->l, &ev, SLINKY_ENOTFOUND, "group 'nogroup' does not exist");
    ev.kind = SLINKY_LEDGER_ASSOC_ADD;
    ev.target = "noacct";
    expect_fail(f->l, &ev, SLINKY_ENOTFOUND, "account 'noacct' does not exist");
    ev.target = NULL;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "'target' is required");
    ev.kind = SLINKY_LEDGER_USER_ENABLE;
    ev.target = "x";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "'target' is not allowed");
    ev.kind = (slinky_ledger_event_kind)99;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "unknown");
    ev = (slinky_ledger_event)SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_ENABLE;
    ev.name = "dave";
    expect_fail(f->l, &ev, SLINKY_EINVALID, "not disabled");
    ev.kind = SLINKY_LEDGER_USER_UPDATE;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "nothing to change");
    ev.version = 42;
    expect_fail(f->l, &ev, SLINKY_EINVALID, "version");

    /* JSON events: unknown fields and kinds are named */
    const char *bad[] = {"{\"kind\":\"user-add\",\"name\":\"x\",\"colour\":1}",
                         "{\"kind\":\"user-explode\",\"name\":\"x\"}", "[1]", "{\"name\":\"x\"}",
                         "{\"kind\":\"init\",\"cluster\":\"x\"}",
                         "{\"kind\":\"user-add\",\"name\":\"x\",\"id\":\"12\"}"};
    const char *why[] = {"colour", "user-explode", "JSON object", "no 'kind'", "init", "integer"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *res = NULL;
        assert_true(slinky_ledger_append_json(&res, f->l, bad[i], strlen(bad[i])) < 0);
        if (!strstr(slinky_error_last()->message, why[i]))
            fail_msg("'%s': message '%s'", bad[i], slinky_error_last()->message);
    }
    /* nothing of the failures was committed: 3 good events */
    assert_verifies(f->l, 3);
    free(mismatch);
    free(b64);
    free(trunc);
    free(ed);
}

static void test_idempotent(void **state)
{
    lt_fx *f = *state;
    slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
    ev.kind = SLINKY_LEDGER_USER_ADD;
    ev.name = "erin";
    ev.request_id = "req-1";
    char *r1 = NULL, *r2 = NULL;
    assert_int_equal(slinky_ledger_append(&r1, f->l, &ev), 0);
    char *tip1 = lt_sh("git --git-dir='%s' rev-parse main", f->path);
    assert_int_equal(slinky_ledger_append(&r2, f->l, &ev), 0);
    char *tip2 = lt_sh("git --git-dir='%s' rev-parse main", f->path);
    assert_string_equal(tip1, tip2);
    assert_non_null(strstr(r2, "\"duplicate\":true"));
    assert_int_equal(result_id(r1), result_id(r2));
    slinky_free(r1);
    slinky_free(r2);
    /* same request id with another event: still the earlier result, nothing written */
    ev.name = "frank";
    assert_int_equal(slinky_ledger_append(&r2, f->l, &ev), 0);
    assert_non_null(strstr(r2, "user/erin"));
    slinky_free(r2);
    assert_int_equal(slinky_ledger_get(&r2, f->l, "user", "frank"), SLINKY_ENOTFOUND);
    free(tip1);
    free(tip2);
    /* JSON form */
    const char *j = "{\"kind\":\"group-add\",\"name\":\"ops\",\"request_id\":\"req-2\"}";
    assert_int_equal(slinky_ledger_append_json(&r1, f->l, j, strlen(j)), 0);
    assert_int_equal(slinky_ledger_append_json(&r2, f->l, j, strlen(j)), 0);
    assert_non_null(strstr(r2, "\"duplicate\":true"));
    assert_int_equal(result_id(r1), result_id(r2));
    slinky_free(r1);
    slinky_free(r2);
    assert_verifies(f->l, 2);
}

static void test_verify_detects_forgery(void **state)
{
    lt_fx *f = *state;
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "alice", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_GROUP_ADD, "dev", NULL, 0, NULL), 0);
    assert_verifies(f->l, 2);
    /* forge: the tip's event message on a tree with an extra root user */
    char *forged = lt_sh(
        "set -e; export GIT_DIR='%s' GIT_INDEX_FILE='%s/idx'; git read-tree main; "
        "b=$(printf '{\"name\":\"mallory\",\"uid\":0}\\n' | git hash-object -w --stdin); "
        "git update-index --add --cacheinfo 100644,$b,users/00/mallory.json; t=$(git write-tree); "
        "c=$(git log -1 --format=%%B main | GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x "
        "GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x git commit-tree $t -p main); "
        "git update-ref refs/heads/main $c; echo $c",
        f->path, f->dir);
    forged[strcspn(forged, "\n")] = '\0';
    assert_int_equal(strlen(forged), 40);
    /* the ledger is read-only now: no honest event is written on top of it,
     * and no replay serves the forged root user */
    slinky_ledger *l2 = NULL;
    assert_int_equal(slinky_ledger_open(&l2, f->path), 0);
    assert_int_equal(lt_event(l2, SLINKY_LEDGER_USER_ADD, "bob", NULL, 0, NULL), SLINKY_ECONFLICT);
    assert_non_null(strstr(slinky_error_last()->message, "read-only"));
    assert_non_null(strstr(slinky_error_last()->message, forged));
    char *tip = lt_sh("git --git-dir='%s' rev-parse main", f->path);
    assert_int_equal(strncmp(tip, forged, 40), 0);
    free(tip);
    slinky_ledger_replay_options ro = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    ro.sinks = SLINKY_LEDGER_SINK_POSIX;
    ro.posix_root = f->root;
    assert_int_equal(slinky_ledger_replay(NULL, l2, &ro), SLINKY_ECONFLICT);
    assert_non_null(strstr(slinky_error_last()->message, forged));
    assert_int_equal(access(f->root, F_OK), -1);
    size_t n = 0;
    char *bad = NULL;
    assert_int_equal(slinky_ledger_verify(&n, &bad, l2), SLINKY_ECONFLICT);
    assert_non_null(bad);
    assert_string_equal(bad, forged);
    assert_non_null(strstr(slinky_error_last()->message, forged));
    slinky_free(bad);
    /* a commit with a bad event line is reported too */
    char *forged2 = lt_sh("set -e; export GIT_DIR='%s'; t=$(git rev-parse main^{tree}); "
                          "c=$(printf 'hello\\n\\nnot an event\\n' | GIT_AUTHOR_NAME=x "
                          "GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x git "
                          "commit-tree $t -p main~2); git update-ref refs/heads/main $c; echo $c",
                          f->path);
    forged2[strcspn(forged2, "\n")] = '\0';
    bad = NULL;
    assert_int_equal(slinky_ledger_verify(&n, &bad, l2), SLINKY_ECONFLICT);
    assert_string_equal(bad, forged2);
    slinky_free(bad);
    slinky_ledger_free(l2);
    free(forged);
    free(forged2);
}

static void test_history_export_import(void **state)
{
    lt_fx *f = *state;
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "alice", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "bob", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_GROUP_ADD, "dev", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_MEMBER_ADD, "alice", "dev", 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_DISABLE, "alice", NULL, 0, NULL), 0);
    char *h = NULL;
    assert_int_equal(slinky_ledger_history(&h, f->l, "alice"), 0);
    int lines = 0;
    for (char *p = h; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3);
    assert_null(strstr(h, "\"bob\""));
    slinky_free(h);
    assert_int_equal(slinky_ledger_history(&h, f->l, "group/dev"), 0);
    lines = 0;
    for (char *p = h; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2);
    slinky_free(h);
    char *ex = NULL;
    assert_int_equal(slinky_ledger_export(&ex, f->l), 0);
    assert_non_null(strstr(ex, "\"commit\":\""));
    assert_non_null(strstr(ex, "\"actor\":\"tester\""));
    /* import into a fresh ledger of the same cluster: identical tree */
    char p2[4300];
    snprintf(p2, sizeof(p2), "%s/copy.git", f->dir);
    slinky_ledger_init_options o = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    o.cluster_id = "test-cluster";
    slinky_ledger *l2 = NULL;
    assert_int_equal(slinky_ledger_init(&l2, p2, &o), 0);
    size_t applied = 0;
    assert_int_equal(slinky_ledger_import(&applied, l2, ex, strlen(ex)), 0);
    assert_int_equal(applied, 5);
    assert_int_equal(slinky_ledger_import(&applied, l2, ex, strlen(ex)), 0);
    assert_int_equal(applied, 0);
    char *t1 = lt_sh("git --git-dir='%s' rev-parse main^{tree}", f->path);
    char *t2 = lt_sh("git --git-dir='%s' rev-parse main^{tree}", p2);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    /* a bad line is named */
    const char *badl = "\n{\"kind\":\"user-add\",\"name\":\"zed\"}\n{\"kind\":\"nope\"}\n";
    assert_int_equal(slinky_ledger_import(&applied, l2, badl, strlen(badl)), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "line 3"));
    assert_int_equal(applied, 1);
    slinky_ledger_free(l2);
    slinky_free(ex);
}

static void test_push_pull(void **state)
{
    lt_fx *f = *state;
    char remote[4300], url[4400], p2[4300];
    snprintf(remote, sizeof(remote), "%s/remote.git", f->dir);
    snprintf(url, sizeof(url), "file://%s", remote);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "alice", NULL, 0, NULL), 0);
    assert_int_equal(slinky_ledger_push(f->l, remote), 0);
    char *a = lt_sh("git --git-dir='%s' rev-parse main", f->path);
    char *b = lt_sh("git --git-dir='%s' rev-parse main", remote);
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* a second clone pulls, both add, the slower one must pull first */
    snprintf(p2, sizeof(p2), "%s/second.git", f->dir);
    slinky_ledger_init_options o = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    o.cluster_id = "test-cluster";
    slinky_ledger *l2 = NULL;
    assert_int_equal(slinky_ledger_init(&l2, p2, &o), 0);
    /* a different init commit: histories diverge */
    assert_int_equal(slinky_ledger_pull(l2, url), SLINKY_ECONFLICT);
    slinky_ledger_free(l2);
    /* a copy made by push is fast-forwardable */
    char p3[4300];
    snprintf(p3, sizeof(p3), "%s/third.git", f->dir);
    assert_int_equal(slinky_ledger_push(f->l, p3), 0);
    slinky_ledger *l3 = NULL;
    assert_int_equal(slinky_ledger_open(&l3, p3), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "bob", NULL, 0, NULL), 0);
    assert_int_equal(slinky_ledger_push(f->l, url), 0);
    assert_int_equal(slinky_ledger_pull(l3, remote), 0);
    char *j = NULL;
    assert_int_equal(slinky_ledger_get(&j, l3, "user", "bob"), 0);
    slinky_free(j);
    assert_int_equal(lt_event(l3, SLINKY_LEDGER_USER_ADD, "carol", NULL, 0, NULL), 0);
    assert_int_equal(lt_event(f->l, SLINKY_LEDGER_USER_ADD, "dan", NULL, 0, NULL), 0);
    assert_int_equal(slinky_ledger_push(l3, remote), 0);
    assert_int_equal(slinky_ledger_push(f->l, remote), SLINKY_ECONFLICT);
    assert_int_equal(slinky_ledger_pull(f->l, remote), SLINKY_ECONFLICT);
    assert_int_equal(slinky_ledger_push(f->l, "http://example.com/x"), SLINKY_EUNSUPPORTED);
    slinky_ledger_free(l3);
}

static void test_sshd_render(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(slinky_ledger_sshd_render(&out, NULL), 0);
    assert_non_null(strstr(out, "Port 2222\n"));
    assert_non_null(strstr(out, "AuthorizedKeysCommand none\n"));
    slinky_free(out);
    slinky_ledger_sshd_options o = SLINKY_LEDGER_SSHD_OPTIONS_INIT;
    o.enable_seamless = true;
    o.keys_command = "/opt/k --ledger /l %u";
    assert_int_equal(slinky_ledger_sshd_render(&out, &o), 0);
    assert_non_null(strstr(out, "AuthorizedKeysCommand /opt/k --ledger /l %u\n"));
    assert_non_null(strstr(out, "AuthorizedKeysCommandUser nobody\n"));
    assert_non_null(strstr(out, "PasswordAuthentication no\n"));
    slinky_free(out);
    o.keys_command = "relative %u";
    assert_int_equal(slinky_ledger_sshd_render(&out, &o), SLINKY_EINVALID);
}

int main(void)
{
    slinky_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_init_and_open, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_every_kind, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_validation, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_idempotent, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_verify_detects_forgery, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_history_export_import, lt_setup, lt_teardown),
        cmocka_unit_test_setup_teardown(test_push_pull, lt_setup, lt_teardown),
        cmocka_unit_test(test_sshd_render),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    slinky_global_shutdown();
    return rc;
}
