/* kube: kubeconfig merge, contexts, paths, inline data, tokenFile, exec plugins, in-cluster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/kube_internal.h"
#include "slinky.h"

static char data_dir[4096];

static const char *data(const char *rel)
{
    static char buf[8][4096];
    static int i;
    i = (i + 1) % 8;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", data_dir, rel);
    return buf[i];
}

static slinky_kube_config *load_env(const char *env, const char *context)
{
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    o.kubeconfig_env = env;
    o.context = context;
    o.home = "/nonexistent";
    slinky_kube_config *cfg = NULL;
    int err = slinky_kube_config_load(&cfg, &o);
    if (err)
        fprintf(stderr, "load: %s\n", slinky_error_last()->message);
    assert_int_equal(err, 0);
    return cfg;
}

static void test_merge_first_wins(void **state)
{
    (void)state;
    char env[9000];
    snprintf(env, sizeof(env), "%s:%s:%s", data("merge/missing.yaml"), data("merge/a.yaml"),
             data("merge/b.yaml"));
    slinky_kube_config *cfg = load_env(env, NULL);
    assert_string_equal(slinky_kube_config_get_context(cfg), "ctx-a");
    assert_string_equal(slinky_kube_config_get_cluster(cfg), "shared");
    assert_string_equal(slinky_kube_config_get_server(cfg), "https://a.example:6443");
    assert_string_equal(slinky_kube_config_get_namespace(cfg), "team-a");
    assert_string_equal(slinky_kube_config_get_user(cfg), "alice");
    /* relative certificate-authority resolved against a.yaml's folder */
    assert_non_null(cfg->ca);
    assert_non_null(strstr(cfg->ca, "fake-a"));
    /* tokenFile (relative) read */
    char *tok = NULL;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "alice-token");
    slinky_free(tok);
    slinky_kube_config_free(cfg);
}

static void test_merge_other_order(void **state)
{
    (void)state;
    char env[9000];
    snprintf(env, sizeof(env), "%s:%s", data("merge/b.yaml"), data("merge/a.yaml"));
    slinky_kube_config *cfg = load_env(env, NULL);
    assert_string_equal(slinky_kube_config_get_context(cfg), "ctx-b");
    assert_string_equal(slinky_kube_config_get_server(cfg), "https://[::1]:7443");
    assert_string_equal(slinky_kube_config_get_namespace(cfg), "default");
    assert_string_equal(cfg->tls_server_name, "api.example");
    assert_non_null(cfg->ca);
    assert_non_null(strstr(cfg->ca, "fake"));
    char *tok = NULL;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "bob-token");
    slinky_free(tok);
    slinky_kube_config_free(cfg);

    /* ctx-a now comes from b.yaml (first file to define it) */
    cfg = load_env(env, "ctx-a");
    assert_string_equal(slinky_kube_config_get_cluster(cfg), "only-b");
    assert_string_equal(slinky_kube_config_get_user(cfg), "bob");
    slinky_kube_config_free(cfg);

    /* users merge by name too: alice from b (token) */
    snprintf(env, sizeof(env), "%s:%s", data("merge/b.yaml"), data("merge/a.yaml"));
}

static void test_explicit_and_errors(void **state)
{
    (void)state;
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    slinky_kube_config *cfg = NULL;
    o.kubeconfig = data("merge/missing.yaml");
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_ENOTFOUND);
    assert_null(cfg);

    o.kubeconfig = data("merge/bad-type.yaml");
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "clusters"));
    assert_non_null(strstr(slinky_error_last()->message, "bad-type.yaml"));

    o.kubeconfig = data("merge/bad-yaml.yaml");
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_EPARSE);
    assert_non_null(strstr(slinky_error_last()->message, "bad-yaml.yaml"));
    assert_true(slinky_error_last()->line > 0);

    o.kubeconfig = data("merge/a.yaml");
    o.context = "nope";
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "nope"));

    /* explicit file wins over the KUBECONFIG list; namespace override */
    o.context = NULL;
    o.kubeconfig_env = data("merge/b.yaml");
    o.ns = "override";
    assert_int_equal(slinky_kube_config_load(&cfg, &o), 0);
    assert_string_equal(slinky_kube_config_get_context(cfg), "ctx-a");
    assert_string_equal(slinky_kube_config_get_namespace(cfg), "override");
    slinky_kube_config_free(cfg);

    o.version = 99;
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_EINVALID);
}

static void test_parse_inline(void **state)
{
    (void)state;
    static const char kc[] =
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1', insecure-skip-tls-verify: true,"
        " proxy-url: 'http://proxy:3128'}}]\n"
        "users: [{name: u, user: {client-certificate-data: Y2VydA==, client-key-data: a2V5}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u, namespace: ns1}}]\n";
    slinky_kube_config *cfg = NULL;
    assert_int_equal(slinky_kube_config_parse(&cfg, kc, strlen(kc), NULL, NULL), 0);
    assert_true(cfg->insecure);
    assert_string_equal(cfg->proxy_url, "http://proxy:3128");
    assert_int_equal(cfg->cert_len, 4);
    assert_memory_equal(cfg->cert, "cert", 4);
    assert_int_equal(cfg->key_len, 3);
    assert_memory_equal(cfg->key, "key", 3);
    assert_string_equal(slinky_kube_config_get_namespace(cfg), "ns1");
    char *tok = (char *)1;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_null(tok);
    slinky_kube_config_free(cfg);

    static const char bad64[] =
        "current-context: c\nclusters: [{name: k, cluster: {server: 'https://h', certificate-authority-data: '!!!'}}]\n"
        "contexts: [{name: c, context: {cluster: k}}]\n";
    assert_int_equal(slinky_kube_config_parse(&cfg, bad64, strlen(bad64), NULL, NULL), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "certificate-authority-data"));

    /* found by fuzzing: a null current-context */
    static const char nullctx[] = "current-context: null\nclusters: []\n";
    assert_int_equal(slinky_kube_config_parse(&cfg, nullctx, strlen(nullctx), NULL, NULL), SLINKY_ENOTFOUND);

    static const char noserver[] = "current-context: c\nclusters: [{name: k, cluster: {}}]\n"
                                   "contexts: [{name: c, context: {cluster: k}}]\n";
    assert_int_equal(slinky_kube_config_parse(&cfg, noserver, strlen(noserver), NULL, NULL),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "server"));
}

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static slinky_kube_config *exec_config(const char *expire)
{
    char kc[8192], count[512];
    snprintf(count, sizeof(count), "%s/count", tmpdir);
    unlink(count);
    snprintf(kc, sizeof(kc),
             "current-context: c\n"
             "clusters: [{name: k, cluster: {server: 'https://127.0.0.1:1'}}]\n"
             "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
             "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
             "      command: ./plugin.sh\n      args: [--flag]\n"
             "      env:\n      - {name: PLUGIN_ENV, value: from-kubeconfig}\n"
             "      - {name: COUNT_FILE, value: '%s'}\n"
             "      - {name: EXPIRE_SECONDS, value: '%s'}\n",
             count, expire);
    slinky_kube_config *cfg = NULL;
    /* relative command resolved against base_dir (the kubeconfig's folder) */
    int err = slinky_kube_config_parse(&cfg, kc, strlen(kc), data("exec"), NULL);
    if (err)
        fprintf(stderr, "%s\n", slinky_error_last()->message);
    assert_int_equal(err, 0);
    return cfg;
}

static void test_exec_plugin_expiry(void **state)
{
    (void)state;
    slinky_kube_config *cfg = exec_config("2");
    char *tok = NULL;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "run-1");
    slinky_free(tok);
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "run-1"); /* cached until expirationTimestamp */
    slinky_free(tok);
    sleep(3);
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "run-2"); /* expired: the plugin ran again */
    slinky_free(tok);
    /* a forced refresh (what a 401 triggers) runs it again */
    slinky_kube__creds cr;
    assert_int_equal(slinky_kube__config_creds(&cr, cfg, true), 0);
    assert_string_equal(cr.token, "run-3");
    slinky_kube__creds_dispose(&cr);
    slinky_kube_config_free(cfg);

    cfg = exec_config(""); /* no expiry: cached for good */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
        assert_string_equal(tok, "run-1");
        slinky_free(tok);
    }
    slinky_kube_config_free(cfg);
}

static void test_exec_plugin_failures(void **state)
{
    (void)state;
    char kc[4096];
    const char *scripts[] = {"exec/fail.sh", "exec/garbage.sh", "exec/does-not-exist.sh"};
    const char *expect[] = {"plugin says no", "ExecCredential", "could not run"};
    for (int i = 0; i < 3; i++) {
        snprintf(kc, sizeof(kc),
                 "current-context: c\nclusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                 "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                 "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: '%s'}}}]\n",
                 data(scripts[i]));
        slinky_kube_config *cfg = NULL;
        assert_int_equal(slinky_kube_config_parse(&cfg, kc, strlen(kc), NULL, NULL), 0);
        char *tok = NULL;
        assert_int_equal(slinky_kube_config_get_token(&tok, cfg), SLINKY_EAUTH);
        assert_null(tok);
        if (strstr(slinky_error_last()->message, expect[i]) == NULL)
            fail_msg("message \"%s\" lacks \"%s\"", slinky_error_last()->message, expect[i]);
        slinky_kube_config_free(cfg);
    }
}

static void test_token_file_reread(void **state)
{
    (void)state;
    char tf[512], kc[2048];
    snprintf(tf, sizeof(tf), "%s/tok", tmpdir);
    write_file(tf, "first\n");
    snprintf(kc, sizeof(kc),
             "current-context: c\nclusters: [{name: k, cluster: {server: 'https://h'}}]\n"
             "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
             "users: [{name: u, user: {tokenFile: tok, token: static}}]\n");
    slinky_kube_config *cfg = NULL;
    assert_int_equal(slinky_kube_config_parse(&cfg, kc, strlen(kc), tmpdir, NULL), 0);
    char *tok = NULL;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "first");
    slinky_free(tok);
    write_file(tf, "second\n");
    struct timespec ts[2] = {{0, UTIME_NOW}, {time(NULL) + 5, 0}};
    utimensat(AT_FDCWD, tf, ts, 0);
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "second");
    slinky_free(tok);
    unlink(tf); /* unreadable file: the static token is the fallback */
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "static");
    slinky_free(tok);
    slinky_kube_config_free(cfg);
}

static void test_in_cluster(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof(p), "%s/token", tmpdir);
    write_file(p, "sa-token\n");
    snprintf(p, sizeof(p), "%s/ca.crt", tmpdir);
    write_file(p, "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
    snprintf(p, sizeof(p), "%s/namespace", tmpdir);
    write_file(p, "slurm\n");
    setenv("KUBERNETES_SERVICE_HOST", "fd00:10::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    o.in_cluster = true;
    o.service_account_dir = tmpdir;
    slinky_kube_config *cfg = NULL;
    assert_int_equal(slinky_kube_config_load(&cfg, &o), 0);
    assert_true(slinky_kube_config_is_in_cluster(cfg));
    assert_string_equal(slinky_kube_config_get_server(cfg), "https://[fd00:10::1]:443");
    assert_string_equal(slinky_kube_config_get_namespace(cfg), "slurm");
    char *tok = NULL;
    assert_int_equal(slinky_kube_config_get_token(&tok, cfg), 0);
    assert_string_equal(tok, "sa-token");
    slinky_free(tok);
    slinky_kube_config_free(cfg);

    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    /* no kubeconfig anywhere: falls back to in-cluster */
    o.in_cluster = false;
    o.kubeconfig_env = "";
    o.home = "/nonexistent";
    assert_int_equal(slinky_kube_config_load(&cfg, &o), 0);
    assert_string_equal(slinky_kube_config_get_server(cfg), "https://10.0.0.1:443");
    slinky_kube_config_free(cfg);
    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(slinky_kube_config_load(&cfg, &o), SLINKY_ENOTFOUND);
}

static void test_rfc3339(void **state)
{
    (void)state;
    assert_int_equal(slinky_kube__parse_rfc3339("1970-01-01T00:00:10Z"), 10);
    assert_int_equal(slinky_kube__parse_rfc3339("1970-01-01T01:00:10+01:00"), 10);
    assert_int_equal(slinky_kube__parse_rfc3339("1970-01-01T00:00:10.123456Z"), 10);
    assert_int_equal(slinky_kube__parse_rfc3339("1970-01-01 00:00:10Z"), -1);
    assert_int_equal(slinky_kube__parse_rfc3339("junk"), -1);
}

int main(void)
{
    const char *d = getenv("SLINKY_TEST_DATA");
    snprintf(data_dir, sizeof(data_dir), "%s/kube", d ? d : "tests/data");
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/slinky-kube-config-XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_first_wins),   cmocka_unit_test(test_merge_other_order),
        cmocka_unit_test(test_explicit_and_errors), cmocka_unit_test(test_parse_inline),
        cmocka_unit_test(test_exec_plugin_expiry), cmocka_unit_test(test_exec_plugin_failures),
        cmocka_unit_test(test_token_file_reread),  cmocka_unit_test(test_in_cluster),
        cmocka_unit_test(test_rfc3339),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
