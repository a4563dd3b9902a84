/*
 * kube: fault rounds against slinky-apiserver's fault injection. Each round
 * schedules one fault (dropped watch, 410 ERROR event, 429 with Retry-After,
 * 5xx on watches, lists and writes, tiny chunks, delays, watches closed after
 * N events), makes the informer reopen its watch, writes a few objects, and
 * checks that the informer's cache equals the server's list.
 * SLINKY_KUBE_FAULT_ROUNDS sets the number of rounds (default 200; the
 * bench/kube soak runs 1,000).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kube/kube_itest.h"
#include "kube/kube_internal.h"

static const slinky_kube_resource CM = {"", "v1", "configmaps", true};
static itest_server srv;
static slinky_kube_client *admin, *fast;

static slinky_kube_client *client_with_token(const char *token_file, long backoff_ms)
{
    char path[512], *kc = NULL, *tok = NULL;
    size_t kl = 0, tl = 0;
    snprintf(path, sizeof(path), "%s/kubeconfig", srv.dir);
    if (slinky__read_file(&kc, &kl, path) != 0)
        return NULL;
    slinky__buf b = SLINKY__BUF_INIT;
    char *t = strstr(kc, "token: ");
    if (token_file) {
        snprintf(path, sizeof(path), "%s/%s", srv.dir, token_file);
        if (t == NULL || slinky__read_file(&tok, &tl, path) != 0)
            return NULL;
        while (tl && (tok[tl - 1] == '\n' || tok[tl - 1] == ' '))
            tok[--tl] = '\0';
        slinky__buf_put(&b, kc, (size_t)(t - kc) + 7);
        slinky__buf_puts(&b, tok);
        slinky__buf_puts(&b, t + 7 + strcspn(t + 7, "\n"));
    } else {
        slinky__buf_puts(&b, kc);
    }
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    slinky_kube_client_options co = SLINKY_KUBE_CLIENT_OPTIONS_INIT;
    co.backoff_base_ms = backoff_ms;
    co.backoff_max_ms = 500;
    co.max_retries = 8;
    if (slinky_kube_config_parse(&cfg, b.data, b.len, NULL, NULL) == 0)
        slinky_kube_client_new(&c, cfg, &co);
    slinky_kube_config_free(cfg);
    slinky__buf_dispose(&b);
    free(kc);
    free(tok);
    return c;
}

static int setup(void **state)
{
    (void)state;
    slinky_global_init();
    if (itest_server_start(&srv, "--enable-faults --bookmark-interval 300 --history 200") != 0)
        return -1;
    admin = client_with_token("admin-token", 50);
    fast = client_with_token(NULL, 20);
    if (admin == NULL || fast == NULL)
        return -1;
    const slinky_kube_resource nsr = {"", "v1", "namespaces", false};
    slinky_doc *d = itest_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"f\"}}");
    int err = slinky_kube_create(NULL, srv.client, &nsr, NULL, slinky_doc_root(d), NULL);
    slinky_doc_free(d);
    return err;
}

static int teardown(void **state)
{
    (void)state;
    slinky_kube_client_free(admin);
    slinky_kube_client_free(fast);
    itest_server_stop(&srv);
    slinky_global_shutdown();
    return 0;
}

static void fault(const char *json)
{
    char *body = NULL;
    int status = 0;
    OK(slinky_kube_request(&body, NULL, &status, admin, "POST", "/admin/faults", "application/json",
                           json, strlen(json)));
    if (status != 201 && status != 200)
        fail_msg("fault %s: HTTP %d %s", json, status, body);
    slinky_free(body);
}

static void clear_faults(void)
{
    char *body = NULL;
    int status = 0;
    OK(slinky_kube_request(&body, NULL, &status, admin, "DELETE", "/admin/faults", NULL, NULL, 0));
    slinky_free(body);
}

static bool cache_equals_server(slinky_kube_informer *inf, size_t *n_out)
{
    slinky_doc *server = NULL, *cache = NULL;
    if (slinky_kube_list(&server, srv.client, &CM, "f", NULL) != 0)
        return false;
    if (slinky_kube_informer_list(&cache, inf, "f", NULL) != 0) {
        slinky_doc_free(server);
        return false;
    }
    const slinky_doc_value *items = slinky_doc_value_path(slinky_doc_root(server), "items");
    const slinky_doc_value *cached = slinky_doc_root(cache);
    size_t n = slinky_doc_value_size(items);
    bool eq = n == slinky_doc_value_size(cached);
    /* both sorted by name (the server lists in key order) */
    for (size_t i = 0; eq && i < n; i++)
        eq = slinky_doc_value_equal(slinky_doc_value_at(items, i), slinky_doc_value_at(cached, i));
    *n_out = n;
    slinky_doc_free(server);
    slinky_doc_free(cache);
    return eq;
}

static void write_some(int round)
{
    char name[32], json[256];
    snprintf(name, sizeof(name), "obj-%d", round % 17);
    slinky_doc *got = NULL;
    int err = slinky_kube_get(&got, fast, &CM, "f", name, NULL);
    if (err == SLINKY_ENOTFOUND) {
        snprintf(json, sizeof(json), "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"r\":\"%d\"}},\"data\":{\"v\":\"0\"}}",
                 name, round);
        slinky_doc *d = itest_json(json);
        OK(slinky_kube_create(NULL, fast, &CM, "f", slinky_doc_root(d), NULL));
        slinky_doc_free(d);
    } else {
        OK(err);
        slinky_doc_free(got);
        if (round % 5 == 4) {
            OK(slinky_kube_delete(NULL, fast, &CM, "f", name, NULL));
        } else {
            snprintf(json, sizeof(json), "{\"data\":{\"v\":\"%d\"}}", round);
            slinky_doc *p = itest_json(json);
            OK(slinky_kube_patch(NULL, fast, &CM, "f", name, SLINKY_KUBE_PATCH_MERGE, slinky_doc_root(p), NULL));
            slinky_doc_free(p);
        }
    }
}

static void test_fault_rounds(void **state)
{
    (void)state;
    const char *env = getenv("SLINKY_KUBE_FAULT_ROUNDS");
    int rounds = env ? atoi(env) : 200;
    slinky_kube_informer *inf = NULL;
    slinky_kube_informer_options io = SLINKY_KUBE_INFORMER_OPTIONS_INIT;
    io.list_limit = 7;
    OK(slinky_kube_informer_new(&inf, fast, &CM, "f", &io));
    OK(slinky_kube_informer_start(inf));
    OK(slinky_kube_informer_wait_synced(inf, 10000));
    const char *W = "\"path\":\"/api/v1/namespaces/f/configmaps\",\"watch\":true";
    const char *L = "\"path\":\"/api/v1/namespaces/f/configmaps\",\"watch\":false,\"method\":\"GET\"";
    const char *P = "\"path\":\"/api/v1/namespaces/f/configmaps/*\",\"method\":\"PATCH\"";
    int64_t t_retry_after = 0;
    int n_retry_after = 0;
    unsigned lists0 = slinky_kube_informer_list_count(inf);
    for (int r = 0; r < rounds; r++) {
        char f[512];
        int kind = r % 10;
        switch (kind) {
        case 0: snprintf(f, sizeof(f), "{%s,\"kind\":\"drop\"}", W); break;
        case 1: snprintf(f, sizeof(f), "{%s,\"kind\":\"watch-410\"}", W); break;
        case 2: snprintf(f, sizeof(f), "{%s,\"kind\":\"tiny-chunks\",\"bytes\":%d}", W, 1 + r % 7); break;
        case 3: snprintf(f, sizeof(f), "{%s,\"kind\":\"close-watch\",\"events\":1}", W); break;
        case 4: snprintf(f, sizeof(f), "{%s,\"kind\":\"status\",\"code\":%d}", W, r % 20 < 10 ? 500 : 503); break;
        case 5: /* relist through a failing list page */
            snprintf(f, sizeof(f), "{%s,\"kind\":\"watch-410\"}", W);
            fault(f);
            snprintf(f, sizeof(f), "{%s,\"kind\":\"status\",\"code\":503}", L);
            break;
        case 6: snprintf(f, sizeof(f), "{%s,\"kind\":\"delay\",\"ms\":30}", W); break;
        case 7: snprintf(f, sizeof(f), "{%s,\"kind\":\"status\",\"code\":503}", P); break;
        case 8: snprintf(f, sizeof(f), "{%s,\"kind\":\"tiny-chunks\",\"bytes\":97}", L); break;
        default:
            if (r % 50 == 9) /* a 429 with Retry-After on the watch (1 s: keep them rare) */
                snprintf(f, sizeof(f), "{%s,\"kind\":\"status\",\"code\":429,\"retryAfter\":1}", W);
            else
                snprintf(f, sizeof(f), "{%s,\"kind\":\"drop\"}", W);
        }
        fault(f);
        int64_t t0 = slinky_kube__now_ms();
        if (kind != 7 && kind != 8)
            slinky_kube__informer_kick(inf);
        if (kind == 8) {
            /* a list with a tiny-chunked reply */
            slinky_doc *l = NULL;
            OK(slinky_kube_list(&l, fast, &CM, "f", NULL));
            slinky_doc_free(l);
        }
        write_some(r);
        write_some(r + 7);
        size_t n = 0;
        bool eq = false;
        while (!(eq = cache_equals_server(inf, &n)) && slinky_kube__now_ms() - t0 < 15000)
            slinky_kube__sleep_ms(5);
        if (!eq)
            fail_msg("round %d (fault %s): cache differs from the server after 15 s", r, f);
        if (kind == 9 && r % 50 == 9) {
            t_retry_after += slinky_kube__now_ms() - t0;
            n_retry_after++;
        }
        if (getenv("SLINKY_KUBE_FAULT_VERBOSE"))
            fprintf(stderr, "round %d kind %d: %lld ms (%zu objects)\n", r, kind,
                    (long long)(slinky_kube__now_ms() - t0), n);
        clear_faults();
    }
    /* the watch waited out each Retry-After (1 s) */
    assert_true(t_retry_after >= 950 * (int64_t)n_retry_after);
    /* 410 rounds relisted */
    assert_true(slinky_kube_informer_list_count(inf) > lists0);
    slinky_kube_informer_free(inf);
    fprintf(stderr, "fault rounds: %d passed\n", rounds);
}

/* A 429 with Retry-After on a plain request is honoured (and then succeeds). */
static void test_retry_after(void **state)
{
    (void)state;
    fault("{\"path\":\"/api/v1/namespaces/f/configmaps/ra\",\"method\":\"GET\",\"kind\":\"status\",\"code\":429,\"retryAfter\":1}");
    int64_t t0 = slinky_kube__now_ms();
    slinky_doc *got = NULL;
    assert_int_equal(slinky_kube_get(&got, fast, &CM, "f", "ra", NULL), SLINKY_ENOTFOUND);
    int64_t dt = slinky_kube__now_ms() - t0;
    assert_true(dt >= 950);
    /* with retries off the 429 surfaces as SLINKY_EBUSY with the Retry-After */
    fault("{\"path\":\"/api/v1/namespaces/f/configmaps/ra\",\"method\":\"GET\",\"kind\":\"status\",\"code\":429,\"retryAfter\":2}");
    slinky_kube_client_options co = SLINKY_KUBE_CLIENT_OPTIONS_INIT;
    co.max_retries = -1;
    slinky_kube_client *once = NULL;
    OK(slinky_kube_client_new(&once, srv.cfg, &co));
    assert_int_equal(slinky_kube_get(&got, once, &CM, "f", "ra", NULL), SLINKY_EBUSY);
    assert_int_equal(slinky_error_last()->http_status, 429);
    assert_int_equal(slinky_kube_status_last()->retry_after_seconds, 2);
    slinky_kube_client_free(once);
    clear_faults();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retry_after),
        cmocka_unit_test(test_fault_rounds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
