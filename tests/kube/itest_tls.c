/*
 * kube: a server whose certificate does not verify (signed by a CA the client
 * does not trust, or issued for another host name) is a permanent failure:
 * the client gives up at once, without retrying, and says what is wrong with
 * the certificate. Runs against slinky-apiserver with TLS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "kube/kube_itest.h"

static itest_server srv;
static char *kubeconfig;

static int setup(void **state)
{
    (void)state;
    slinky_global_init();
    if (itest_server_start(&srv, "") != 0)
        return -1;
    char path[512];
    snprintf(path, sizeof(path), "%s/kubeconfig", srv.dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    kubeconfig = calloc(1, 65536);
    size_t n = kubeconfig ? fread(kubeconfig, 1, 65535, f) : 0;
    fclose(f);
    if (n == 0)
        return -1;
    /* a CA of our own that never signed the server's certificate */
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout '%s/other.key' "
             "-subj /CN=other-ca -days 1 -out '%s/other-ca.crt' >/dev/null 2>&1",
             srv.dir, srv.dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(kubeconfig);
    itest_server_stop(&srv);
    slinky_global_shutdown();
    return 0;
}

/* The served kubeconfig with line `from` (a prefix) replaced by `to`, or with
 * `to` inserted after it when insert is set. */
static char *edited(const char *from, const char *to, bool insert)
{
    const char *at = strstr(kubeconfig, from);
    assert_non_null(at);
    const char *eol = strchr(at, '\n');
    assert_non_null(eol);
    size_t head = insert ? (size_t)(eol + 1 - kubeconfig) : (size_t)(at - kubeconfig);
    const char *tail = eol + 1;
    size_t len = head + strlen(to) + strlen(tail) + 2;
    char *out = malloc(len);
    assert_non_null(out);
    snprintf(out, len, "%.*s%s\n%s", (int)head, kubeconfig, to, tail);
    return out;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* list namespaces through a client built from text; expect a prompt,
 * permanent certificate failure whose message contains want. */
static void expect_cert_failure(const char *text, const char *want)
{
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    OK(slinky_kube_config_parse(&cfg, text, strlen(text), srv.dir, NULL));
    OK(slinky_kube_client_new(&c, cfg, NULL)); /* default retries and backoff */
    const slinky_kube_resource ns = {"", "v1", "namespaces", false};
    slinky_doc *out = NULL;
    double t0 = now_s();
    int err = slinky_kube_list(&out, c, &ns, NULL, NULL);
    double took = now_s() - t0;
    const char *msg = slinky_error_last()->message;
    print_message("list: %d after %.3f s: %s\n", err, took, msg);
    assert_int_equal(err, SLINKY_EAUTH);
    assert_null(out);
    assert_true(took < 1.5); /* one attempt, no backoff */
    assert_non_null(strstr(msg, "list namespaces: GET /api/v1/namespaces"));
    assert_non_null(strstr(msg, "certificate"));
    assert_non_null(strstr(msg, want));
    /* a single GET is not retried either */
    char *body = NULL;
    t0 = now_s();
    err = slinky_kube_request(&body, NULL, NULL, c, "GET", "/api/v1/namespaces", NULL, NULL, 0);
    assert_int_equal(err, SLINKY_EAUTH);
    assert_true(now_s() - t0 < 1.5);
    slinky_kube_client_free(c);
    slinky_kube_config_free(cfg);
}

static void test_trusted_ca_works(void **state)
{
    (void)state;
    const slinky_kube_resource ns = {"", "v1", "namespaces", false};
    slinky_doc *out = NULL;
    OK(slinky_kube_list(&out, srv.client, &ns, NULL, NULL));
    slinky_doc_free(out);
}

static void test_wrong_ca_is_permanent(void **state)
{
    (void)state;
    char line[600];
    snprintf(line, sizeof(line), "    certificate-authority: %s/other-ca.crt", srv.dir);
    char *text = edited("    certificate-authority-data:", line, false);
    expect_cert_failure(text, "issuer");
    free(text);
}

static void test_wrong_host_is_permanent(void **state)
{
    (void)state;
    char *text = edited("    server: ", "    tls-server-name: wrong.invalid", true);
    expect_cert_failure(text, "wrong.invalid");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trusted_ca_works),
        cmocka_unit_test(test_wrong_ca_is_permanent),
        cmocka_unit_test(test_wrong_host_is_permanent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
