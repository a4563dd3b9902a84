/* kube: watch, informer (kubectl as a second writer), leader election against slinky-apiserver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "kube/kube_itest.h"
#include "kube/kube_internal.h"

static const slinky_kube_resource CM = {"", "v1", "configmaps", true};
static itest_server srv;

static int setup(void **state)
{
    (void)state;
    slinky_global_init();
    if (itest_server_start(&srv, "--history 50 --bookmark-interval 200") != 0)
        return -1;
    const slinky_kube_resource nsr = {"", "v1", "namespaces", false};
    const char *names[] = {"w", "idle", "churn", "inf", "kube-system"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char json[256];
        snprintf(json, sizeof(json), "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", names[i]);
        slinky_doc *d = itest_json(json);
        int err = slinky_kube_create(NULL, srv.client, &nsr, NULL, slinky_doc_root(d), NULL);
        slinky_doc_free(d);
        if (err != 0 && err != SLINKY_EEXISTS)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    itest_server_stop(&srv);
    slinky_global_shutdown();
    return 0;
}

static void create_cm(const char *ns, const char *name)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},\"data\":{\"a\":\"1\"}}", name);
    slinky_doc *d = itest_json(json);
    OK(slinky_kube_create(NULL, srv.client, &CM, ns, slinky_doc_root(d), NULL));
    slinky_doc_free(d);
}

static void test_watch_events_and_stop(void **state)
{
    (void)state;
    slinky_doc *list = NULL;
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    OK(slinky_kube_list(&list, srv.client, &CM, "w", &lo));
    slinky_kube_watch_options wo = SLINKY_KUBE_WATCH_OPTIONS_INIT;
    wo.resource_version = slinky_doc_value_path_string(slinky_doc_root(list), "metadata.resourceVersion", "");
    slinky_kube_watch *w = NULL;
    OK(slinky_kube_watch_new(&w, srv.client, &CM, "w", &wo));
    slinky_doc_free(list);
    create_cm("w", "w1");
    assert_int_equal(itest_kubectl_apply(&srv, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w2\",\"namespace\":\"w\"},\"data\":{\"x\":\"y\"}}"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n w label configmap w1 l=v"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n w delete configmap w2"), 0);
    const char *want[] = {"ADDED w1", "ADDED w2", "MODIFIED w1", "DELETED w2"};
    int got = 0, bookmarks = 0;
    int64_t t0 = slinky_kube__now_ms();
    while (got < 4 && slinky_kube__now_ms() - t0 < 10000) {
        slinky_kube_event_type t;
        slinky_doc *obj = NULL;
        int err = slinky_kube_watch_next(&t, &obj, w, 2000);
        if (err == SLINKY_ETIMEOUT)
            continue;
        OK(err);
        if (t == SLINKY_KUBE_EVENT_BOOKMARK) {
            bookmarks++;
            slinky_doc_free(obj);
            continue;
        }
        char ev[64];
        snprintf(ev, sizeof(ev), "%s %s", slinky_kube_event_type_name(t),
                 slinky_doc_value_path_string(slinky_doc_root(obj), "metadata.name", ""));
        assert_string_equal(ev, want[got]);
        got++;
        slinky_doc_free(obj);
    }
    assert_int_equal(got, 4);
    assert_true(*slinky_kube_watch_resource_version(w) != '\0');
    slinky_kube_watch_free(w);
}

static void *stopper(void *p)
{
    slinky_kube__sleep_ms(200);
    slinky_kube_watch_stop(p);
    return NULL;
}

static void test_watch_stop_from_thread_and_gone(void **state)
{
    (void)state;
    slinky_kube_watch_options wo = SLINKY_KUBE_WATCH_OPTIONS_INIT;
    wo.hide_bookmarks = true;
    slinky_kube_watch *w = NULL;
    OK(slinky_kube_watch_new(&w, srv.client, &CM, "idle", &wo));
    pthread_t t;
    pthread_create(&t, NULL, stopper, w);
    int64_t t0 = slinky_kube__now_ms();
    slinky_kube_event_type type;
    slinky_doc *obj = NULL;
    int err = slinky_kube_watch_next(&type, &obj, w, -1);
    int64_t dt = slinky_kube__now_ms() - t0;
    pthread_join(t, NULL);
    assert_int_equal(err, SLINKY_ECANCELED);
    assert_true(dt < 2000);
    slinky_kube_watch_free(w);

    /* history is 50 events: make 60 changes, then a watch from RV 1 is gone */
    for (int i = 0; i < 60; i++) {
        char name[32];
        snprintf(name, sizeof(name), "churn-%d", i);
        create_cm("churn", name);
    }
    wo.resource_version = "1";
    OK(slinky_kube_watch_new(&w, srv.client, &CM, "churn", &wo));
    err = SLINKY_ETIMEOUT;
    for (int i = 0; i < 200 && (err == 0 || err == SLINKY_ETIMEOUT); i++) {
        err = slinky_kube_watch_next(&type, &obj, w, 3000);
        if (err == 0)
            slinky_doc_free(obj);
    }
    assert_int_equal(err, SLINKY_EGONE);
    slinky_kube_watch_free(w);
}

/* ---- informer ---- */

typedef struct counts {
    atomic_int add, update, del;
} counts;

static void on_add(const slinky_doc_value *o, void *p)
{
    (void)o;
    atomic_fetch_add(&((counts *)p)->add, 1);
}
static void on_update(const slinky_doc_value *a, const slinky_doc_value *b, void *p)
{
    (void)a;
    (void)b;
    atomic_fetch_add(&((counts *)p)->update, 1);
}
static void on_delete(const slinky_doc_value *o, void *p)
{
    (void)o;
    atomic_fetch_add(&((counts *)p)->del, 1);
}

/* The informer's cache equals the server's list (names and resourceVersions). */
static bool cache_matches(slinky_kube_informer *inf, const char *ns)
{
    slinky_doc *server = NULL, *cache = NULL;
    if (slinky_kube_list(&server, srv.client, &CM, ns, NULL) != 0)
        return false;
    if (slinky_kube_informer_list(&cache, inf, ns, NULL) != 0) {
        slinky_doc_free(server);
        return false;
    }
    const slinky_doc_value *items = slinky_doc_value_path(slinky_doc_root(server), "items");
    const slinky_doc_value *cached = slinky_doc_root(cache);
    bool eq = slinky_doc_value_size(items) == slinky_doc_value_size(cached);
    for (size_t i = 0; eq && i < slinky_doc_value_size(items); i++) {
        const slinky_doc_value *s = slinky_doc_value_at(items, i);
        slinky_doc *one = NULL;
        if (slinky_kube_informer_get(&one, inf, ns, slinky_doc_value_path_string(s, "metadata.name", "")) != 0) {
            eq = false;
            break;
        }
        eq = slinky_doc_value_equal(s, slinky_doc_root(one));
        slinky_doc_free(one);
    }
    slinky_doc_free(server);
    slinky_doc_free(cache);
    return eq;
}

static bool wait_matches(slinky_kube_informer *inf, const char *ns, long ms)
{
    int64_t t0 = slinky_kube__now_ms();
    while (slinky_kube__now_ms() - t0 < ms) {
        if (cache_matches(inf, ns))
            return true;
        slinky_kube__sleep_ms(50);
    }
    return cache_matches(inf, ns);
}

static void test_informer_with_kubectl(void **state)
{
    (void)state;
    create_cm("inf", "pre-1");
    create_cm("inf", "pre-2");
    slinky_kube_informer *inf = NULL;
    counts cn;
    atomic_init(&cn.add, 0);
    atomic_init(&cn.update, 0);
    atomic_init(&cn.del, 0);
    slinky_kube_informer_handlers h = SLINKY_KUBE_INFORMER_HANDLERS_INIT;
    h.on_add = on_add;
    h.on_update = on_update;
    h.on_delete = on_delete;
    h.payload = &cn;
    slinky_kube_informer_options io = SLINKY_KUBE_INFORMER_OPTIONS_INIT;
    io.list_limit = 1; /* exercise paging */
    OK(slinky_kube_informer_new(&inf, srv.client, &CM, "inf", &io));
    slinky_kube_informer_handlers bad = h;
    bad.version = 99; /* from a newer header */
    assert_int_equal(slinky_kube_informer_add_handlers(inf, &bad), SLINKY_EINVALID);
    OK(slinky_kube_informer_add_handlers(inf, &h));
    assert_false(slinky_kube_informer_has_synced(inf));
    OK(slinky_kube_informer_start(inf));
    OK(slinky_kube_informer_wait_synced(inf, 10000));
    assert_true(slinky_kube_informer_has_synced(inf));
    assert_int_equal(slinky_kube_informer_size(inf), 2);
    assert_int_equal(atomic_load(&cn.add), 2);

    /* kubectl writes while the informer watches */
    assert_int_equal(itest_kubectl_apply(&srv, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"k1\",\"namespace\":\"inf\"},\"data\":{\"a\":\"1\"}}"), 0);
    assert_int_equal(itest_kubectl_apply(&srv, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"k2\",\"namespace\":\"inf\"},\"data\":{\"a\":\"2\"}}"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n inf label configmap k1 tier=web"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n inf label configmap pre-1 tier=web"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n inf patch configmap k2 --type merge -p '{\"data\":{\"b\":\"3\"}}'"), 0);
    assert_int_equal(itest_kubectl(&srv, "-n inf delete configmap pre-2"), 0);
    create_cm("inf", "c-1");
    assert_true(wait_matches(inf, "inf", 10000));
    assert_int_equal(slinky_kube_informer_size(inf), 4);
    assert_true(atomic_load(&cn.update) >= 3);
    assert_int_equal(atomic_load(&cn.del), 1);

    /* label index */
    slinky_doc *web = NULL;
    OK(slinky_kube_informer_list(&web, inf, "inf", "tier=web"));
    assert_int_equal(slinky_doc_value_size(slinky_doc_root(web)), 2);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_value_at(slinky_doc_root(web), 0), "metadata.name", ""), "k1");
    slinky_doc_free(web);
    OK(slinky_kube_informer_list(&web, inf, NULL, "tier!=web"));
    assert_int_equal(slinky_doc_value_size(slinky_doc_root(web)), 2);
    slinky_doc_free(web);
    slinky_doc *none = NULL;
    assert_int_equal(slinky_kube_informer_get(&none, inf, "inf", "pre-2"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_kube_informer_list(&none, inf, NULL, "a in b"), SLINKY_EINVALID);
    slinky_kube_informer_stop(inf);
    slinky_kube_informer_free(inf);
}

/* ---- leader election ---- */

static atomic_int leading;

static void started(void *p)
{
    (void)p;
    atomic_fetch_add(&leading, 1);
}
static void stopped(void *p)
{
    (void)p;
    atomic_fetch_sub(&leading, 1);
}

static slinky_kube_leader *candidate(const char *id)
{
    slinky_kube_leader_options o = SLINKY_KUBE_LEADER_OPTIONS_INIT;
    o.lease_namespace = "kube-system";
    o.lease_name = "itest-lock";
    o.identity = id;
    o.lease_duration_ms = 1500;
    o.renew_deadline_ms = 1000;
    o.retry_period_ms = 200;
    o.on_started_leading = started;
    o.on_stopped_leading = stopped;
    o.release_on_stop = true;
    slinky_kube_leader *le = NULL;
    OK(slinky_kube_leader_new(&le, srv.client, &o));
    return le;
}

static void test_leader_election(void **state)
{
    (void)state;
    atomic_init(&leading, 0);
    slinky_kube_leader *a = candidate("a"), *b = candidate("b");
    OK(slinky_kube_leader_start(a));
    int64_t t0 = slinky_kube__now_ms();
    while (!slinky_kube_leader_is_leader(a) && slinky_kube__now_ms() - t0 < 5000)
        slinky_kube__sleep_ms(20);
    assert_true(slinky_kube_leader_is_leader(a));
    OK(slinky_kube_leader_start(b));
    slinky_kube__sleep_ms(2000); /* b must not take a renewed lease */
    assert_true(slinky_kube_leader_is_leader(a));
    assert_false(slinky_kube_leader_is_leader(b));
    assert_int_equal(atomic_load(&leading), 1);
    slinky_kube_leader_stop(a); /* releases the lease */
    t0 = slinky_kube__now_ms();
    while (!slinky_kube_leader_is_leader(b) && slinky_kube__now_ms() - t0 < 5000)
        slinky_kube__sleep_ms(20);
    assert_true(slinky_kube_leader_is_leader(b));
    const slinky_kube_resource leases = {"coordination.k8s.io", "v1", "leases", true};
    slinky_doc *l = NULL;
    OK(slinky_kube_get(&l, srv.client, &leases, "kube-system", "itest-lock", NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(l), "spec.holderIdentity", ""), "b");
    assert_true(slinky_doc_value_path_int(slinky_doc_root(l), "spec.leaseTransitions", 0) >= 1);
    slinky_doc_free(l);
    slinky_kube_leader_free(b);
    slinky_kube_leader_free(a);
    assert_int_equal(atomic_load(&leading), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_events_and_stop),
        cmocka_unit_test(test_watch_stop_from_thread_and_gone),
        cmocka_unit_test(test_informer_with_kubectl),
        cmocka_unit_test(test_leader_election),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
