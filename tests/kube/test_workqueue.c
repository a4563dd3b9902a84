/* kube: work queue semantics (dedupe, exclusive processing, delays, backoff, bucket, shutdown) and the controller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kube_internal.h"
#include "slinky.h"

static slinky_kube_workqueue *newq(double qps, int burst, long base)
{
    slinky_kube_workqueue_options o = SLINKY_KUBE_WORKQUEUE_OPTIONS_INIT;
    o.qps = qps;
    o.burst = burst;
    o.base_delay_ms = base;
    o.max_delay_ms = 400;
    slinky_kube_workqueue *q = NULL;
    assert_int_equal(slinky_kube_workqueue_new(&q, &o), 0);
    return q;
}

static char *get(slinky_kube_workqueue *q, long timeout)
{
    char *k = NULL;
    int err = slinky_kube_workqueue_get(&k, q, timeout);
    return err ? NULL : k;
}

static void test_dedupe_and_order(void **state)
{
    (void)state;
    slinky_kube_workqueue *q = newq(-1, 1, 5);
    slinky_kube_workqueue_add(q, "a");
    slinky_kube_workqueue_add(q, "b");
    slinky_kube_workqueue_add(q, "a");
    assert_int_equal(slinky_kube_workqueue_len(q), 2);
    char *k = get(q, 0);
    assert_string_equal(k, "a");
    /* a is processing: adding it marks it dirty but does not queue it */
    slinky_kube_workqueue_add(q, "a");
    assert_int_equal(slinky_kube_workqueue_len(q), 1);
    char *k2 = get(q, 0);
    assert_string_equal(k2, "b");
    assert_null(get(q, 20)); /* a is not handed out while processing */
    assert_int_equal(slinky_error_last()->code, SLINKY_ETIMEOUT);
    slinky_kube_workqueue_done(q, k); /* now it comes back */
    char *k3 = get(q, 0);
    assert_string_equal(k3, "a");
    slinky_kube_workqueue_done(q, k2);
    slinky_kube_workqueue_done(q, k3);
    assert_int_equal(slinky_kube_workqueue_len(q), 0);
    slinky_free(k);
    slinky_free(k2);
    slinky_free(k3);
    slinky_kube_workqueue_free(q);
}

static void test_delayed(void **state)
{
    (void)state;
    slinky_kube_workqueue *q = newq(-1, 1, 5);
    int64_t t0 = slinky_kube__now_ms();
    slinky_kube_workqueue_add_after(q, "late", 300);
    slinky_kube_workqueue_add_after(q, "soon", 100);
    slinky_kube_workqueue_add_after(q, "soon", 250); /* the sooner add wins */
    assert_int_equal(slinky_kube_workqueue_len(q), 0);
    char *k = get(q, 2000);
    int64_t dt = slinky_kube__now_ms() - t0;
    assert_string_equal(k, "soon");
    assert_true(dt >= 95 && dt < 250);
    slinky_kube_workqueue_done(q, k);
    slinky_free(k);
    k = get(q, 2000);
    dt = slinky_kube__now_ms() - t0;
    assert_string_equal(k, "late");
    assert_true(dt >= 295);
    slinky_kube_workqueue_done(q, k);
    slinky_free(k);
    /* a delayed add of a queued key does not duplicate it */
    slinky_kube_workqueue_add(q, "x");
    slinky_kube_workqueue_add_after(q, "x", 10);
    slinky_kube__sleep_ms(30);
    assert_int_equal(slinky_kube_workqueue_len(q), 1);
    slinky_kube_workqueue_free(q);
}

static void test_backoff(void **state)
{
    (void)state;
    slinky_kube_workqueue *q = newq(-1, 1, 20);
    long expect[] = {20, 40, 80, 160, 320, 400, 400};
    for (int i = 0; i < 7; i++) {
        int64_t t0 = slinky_kube__now_ms();
        slinky_kube_workqueue_add_rate_limited(q, "k");
        char *k = get(q, 5000);
        int64_t dt = slinky_kube__now_ms() - t0;
        assert_non_null(k);
        if (dt < expect[i] - 2 || dt > expect[i] + 150)
            fail_msg("requeue %d took %lld ms, want ~%ld", i, (long long)dt, expect[i]);
        slinky_kube_workqueue_done(q, k);
        slinky_free(k);
    }
    assert_int_equal(slinky_kube_workqueue_num_requeues(q, "k"), 7);
    slinky_kube_workqueue_forget(q, "k");
    assert_int_equal(slinky_kube_workqueue_num_requeues(q, "k"), 0);
    slinky_kube_workqueue_free(q);
}

static void test_token_bucket(void **state)
{
    (void)state;
    /* 20 qps, burst 2: the third and fourth distinct keys wait for tokens */
    slinky_kube_workqueue *q = newq(20, 2, 1);
    int64_t t0 = slinky_kube__now_ms();
    const char *keys[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++)
        slinky_kube_workqueue_add_rate_limited(q, keys[i]);
    for (int i = 0; i < 4; i++) {
        char *k = get(q, 2000);
        assert_non_null(k);
        slinky_kube_workqueue_done(q, k);
        slinky_free(k);
    }
    int64_t dt = slinky_kube__now_ms() - t0;
    assert_true(dt >= 95); /* 2 tokens short at 20/s = 100 ms */
    assert_true(dt < 1000);
    slinky_kube_workqueue_free(q);
}

static void *blocked_get(void *p)
{
    char *k = NULL;
    intptr_t err = slinky_kube_workqueue_get(&k, p, -1);
    slinky_free(k);
    return (void *)err;
}

static void test_shutdown(void **state)
{
    (void)state;
    slinky_kube_workqueue *q = newq(-1, 1, 5);
    pthread_t t;
    pthread_create(&t, NULL, blocked_get, q);
    slinky_kube__sleep_ms(50);
    slinky_kube_workqueue_shutdown(q);
    void *ret;
    pthread_join(t, &ret);
    assert_int_equal((int)(intptr_t)ret, SLINKY_ECANCELED);
    assert_true(slinky_kube_workqueue_is_shutdown(q));
    slinky_kube_workqueue_add(q, "ignored");
    assert_int_equal(slinky_kube_workqueue_len(q), 0);
    char *k = NULL;
    assert_int_equal(slinky_kube_workqueue_get(&k, q, 0), SLINKY_ECANCELED);
    slinky_kube_workqueue_free(q);
}

/* ---- controller ---- */

typedef struct ctl_state {
    pthread_mutex_t lock;
    int active[8];   /* per key: workers inside reconcile now */
    int max_active;  /* never above 1 per key */
    int calls[8];
    atomic_int total;
} ctl_state;

static slinky_kube_result reconcile(long *after, const char *key, void *p)
{
    ctl_state *s = p;
    int i = key[0] - 'a';
    pthread_mutex_lock(&s->lock);
    s->active[i]++;
    if (s->active[i] > s->max_active)
        s->max_active = s->active[i];
    int call = ++s->calls[i];
    pthread_mutex_unlock(&s->lock);
    slinky_kube__sleep_ms(2);
    pthread_mutex_lock(&s->lock);
    s->active[i]--;
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(&s->total, 1);
    if (i == 0 && call < 3)
        return SLINKY_KUBE_RESULT_ERROR; /* a: fails twice, then done */
    if (i == 1 && call == 1) {
        *after = 30; /* b: requeue after 30 ms once */
        return SLINKY_KUBE_RESULT_REQUEUE_AFTER;
    }
    if (i == 2 && call < 2)
        return SLINKY_KUBE_RESULT_REQUEUE;
    return SLINKY_KUBE_RESULT_DONE;
}

static void test_controller(void **state)
{
    (void)state;
    slinky_kube_workqueue *q = newq(-1, 1, 5);
    ctl_state s;
    memset(&s, 0, sizeof(s));
    pthread_mutex_init(&s.lock, NULL);
    slinky_kube_controller *ctl = NULL;
    assert_int_equal(slinky_kube_controller_new(&ctl, q, 4, reconcile, &s), 0);
    assert_int_equal(slinky_kube_controller_start(ctl), 0);
    for (int round = 0; round < 50; round++) {
        char k[2] = {(char)('a' + round % 5), 0};
        slinky_kube_workqueue_add(q, k);
    }
    int64_t t0 = slinky_kube__now_ms();
    while (slinky_kube__now_ms() - t0 < 3000) {
        pthread_mutex_lock(&s.lock);
        bool done = s.calls[0] >= 3 && s.calls[1] >= 2 && s.calls[2] >= 2 && s.calls[3] >= 1 &&
                    s.calls[4] >= 1;
        pthread_mutex_unlock(&s.lock);
        if (done && slinky_kube_workqueue_len(q) == 0)
            break;
        slinky_kube__sleep_ms(10);
    }
    slinky_kube_controller_stop(ctl);
    assert_int_equal(s.max_active, 1); /* never two workers on one key */
    assert_true(s.calls[0] >= 3);
    assert_true(s.calls[1] >= 2);
    assert_true(s.calls[2] >= 2);
    assert_int_equal(slinky_kube_workqueue_num_requeues(q, "a"), 0); /* forgotten when done */
    slinky_kube_controller_free(ctl);
    slinky_kube_workqueue_free(q);
    pthread_mutex_destroy(&s.lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedupe_and_order), cmocka_unit_test(test_delayed),
        cmocka_unit_test(test_backoff),          cmocka_unit_test(test_token_bucket),
        cmocka_unit_test(test_shutdown),         cmocka_unit_test(test_controller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
