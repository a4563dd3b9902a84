/* core: error model, global init, logging, version. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/internal.h"
#include "slinky.h"

static void test_codes_are_stable(void **state)
{
    (void)state;
    /* append-only: these values are ABI */
    assert_int_equal(SLINKY_ERROR, -1);
    assert_int_equal(SLINKY_ENOMEM, -2);
    assert_int_equal(SLINKY_EINVALID, -3);
    assert_int_equal(SLINKY_ENOTFOUND, -4);
    assert_int_equal(SLINKY_EEXISTS, -5);
    assert_int_equal(SLINKY_ECONFLICT, -6);
    assert_int_equal(SLINKY_EAUTH, -7);
    assert_int_equal(SLINKY_ETIMEOUT, -8);
    assert_int_equal(SLINKY_EHTTP, -9);
    assert_int_equal(SLINKY_EPARSE, -10);
    assert_int_equal(SLINKY_EGIT, -11);
    assert_int_equal(SLINKY_ITEROVER, -12);
    assert_string_equal(slinky_error_name(SLINKY_ENOTFOUND), "SLINKY_ENOTFOUND");
    assert_string_equal(slinky_error_name(-999), "SLINKY_UNKNOWN");
}

static void test_last_error_never_null(void **state)
{
    (void)state;
    slinky_error_clear();
    const slinky_error *e = slinky_error_last();
    assert_non_null(e);
    assert_non_null(e->message);
    assert_int_equal(e->code, 0);
    assert_string_equal(e->message, "");

    assert_int_equal(slinky__error_set(SLINKY_ENOTFOUND, "no %s", "thing"), SLINKY_ENOTFOUND);
    e = slinky_error_last();
    assert_int_equal(e->code, SLINKY_ENOTFOUND);
    assert_string_equal(e->message, "no thing");
    assert_int_equal(e->http_status, 0);

    slinky__error_set_http(SLINKY_ECONFLICT, 409, "conflict");
    assert_int_equal(slinky_error_last()->http_status, 409);

    slinky__error_set_pos(SLINKY_EPARSE, 3, 7, "bad token");
    e = slinky_error_last();
    assert_int_equal(e->line, 3);
    assert_int_equal(e->column, 7);
    assert_string_equal(e->message, "line 3, column 7: bad token");
    slinky__error_prefix("%s: ", "f.yaml");
    assert_string_equal(slinky_error_last()->message, "f.yaml: line 3, column 7: bad token");
    assert_int_equal(slinky_error_last()->code, SLINKY_EPARSE);

    slinky_error_clear();
    assert_int_equal(slinky_error_last()->code, 0);
    assert_string_equal(slinky_error_last()->message, "");
}

struct thread_arg {
    int code;
    char seen[64];
    int seen_code;
    pthread_barrier_t *barrier;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    slinky__error_set(a->code, "thread %d", a->code);
    pthread_barrier_wait(a->barrier); /* both threads have set their error */
    const slinky_error *e = slinky_error_last();
    a->seen_code = e->code;
    strncpy(a->seen, e->message, sizeof(a->seen) - 1);
    return NULL;
}

static void test_per_thread_isolation(void **state)
{
    (void)state;
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    struct thread_arg a = {SLINKY_ENOTFOUND, {0}, 0, &barrier};
    struct thread_arg b = {SLINKY_ECONFLICT, {0}, 0, &barrier};
    pthread_t ta, tb;
    slinky__error_set(SLINKY_EIO, "main");
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&barrier);
    assert_int_equal(a.seen_code, SLINKY_ENOTFOUND);
    assert_string_equal(a.seen, "thread -4");
    assert_int_equal(b.seen_code, SLINKY_ECONFLICT);
    assert_string_equal(b.seen, "thread -6");
    assert_int_equal(slinky_error_last()->code, SLINKY_EIO);
    assert_string_equal(slinky_error_last()->message, "main");
}

static void test_global_init_refcount(void **state)
{
    (void)state;
    assert_int_equal(slinky_global_init(), 0);
    assert_int_equal(slinky_global_init(), 0);
    assert_int_equal(slinky_global_shutdown(), 1);
    assert_int_equal(slinky_global_shutdown(), 0);
    assert_int_equal(slinky_global_shutdown(), SLINKY_EINVALID);
    assert_int_equal(slinky_error_last()->code, SLINKY_EINVALID);
}

struct log_capture {
    int calls;
    slinky_log_level level;
    char module[32];
    char message[128];
};

static void capture(slinky_log_level level, const char *module, const char *message, void *payload)
{
    struct log_capture *c = payload;
    c->calls++;
    c->level = level;
    strncpy(c->module, module, sizeof(c->module) - 1);
    strncpy(c->message, message, sizeof(c->message) - 1);
}

static void test_log_callback(void **state)
{
    (void)state;
    struct log_capture c;
    memset(&c, 0, sizeof(c));
    slinky__log(SLINKY_LOG_ERROR, "core", "dropped %d", 1); /* no callback: dropped */
    slinky_log_set_callback(capture, SLINKY_LOG_INFO, &c);
    slinky__log(SLINKY_LOG_DEBUG, "core", "too verbose");
    assert_int_equal(c.calls, 0);
    slinky__log(SLINKY_LOG_WARNING, "kube", "retry %d", 3);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.level, SLINKY_LOG_WARNING);
    assert_string_equal(c.module, "kube");
    assert_string_equal(c.message, "retry 3");
    slinky_log_set_callback(NULL, SLINKY_LOG_TRACE, NULL);
    slinky__log(SLINKY_LOG_ERROR, "core", "dropped");
    assert_int_equal(c.calls, 1);
    assert_string_equal(slinky_log_level_name(SLINKY_LOG_DEBUG), "debug");
}

static void test_version(void **state)
{
    (void)state;
    int ma = -1, mi = -1, pa = -1;
    assert_string_equal(slinky_version(&ma, &mi, &pa), SLINKY_VERSION);
    assert_int_equal(ma, SLINKY_VERSION_MAJOR);
    assert_int_equal(mi, SLINKY_VERSION_MINOR);
    assert_int_equal(pa, SLINKY_VERSION_PATCH);
    assert_true(SLINKY_VERSION_CHECK(0, 1, 0));
    assert_false(SLINKY_VERSION_CHECK(99, 0, 0));
    slinky_free(NULL);
}

static void test_buffer_and_files(void **state)
{
    (void)state;
    slinky__buf b = SLINKY__BUF_INIT;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(slinky__buf_printf(&b, "%d,", i), 0);
    size_t len;
    char *s = slinky__buf_detach(&b, &len);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    assert_memory_equal(s, "0,1,2,", 6);

    char path[] = "/tmp/slinky-core-XXXXXX";
    assert_non_null(mkdtemp(path));
    char *f = slinky__sprintf("%s/file", path);
    assert_int_equal(slinky__write_file_atomic(f, s, len, 0600), 0);
    char *back = NULL;
    size_t blen = 0;
    assert_int_equal(slinky__read_file(&back, &blen, f), 0);
    assert_int_equal(blen, len);
    assert_memory_equal(back, s, len);
    slinky_free(back);
    char *missing = slinky__sprintf("%s/missing", path);
    back = NULL;
    assert_int_equal(slinky__read_file(&back, &blen, missing), SLINKY_ENOTFOUND);
    assert_null(back);
    assert_non_null(strstr(slinky_error_last()->message, "missing"));
    /* a failed atomic write (folder gone) leaves nothing half-written */
    char *nodir = slinky__sprintf("%s/nodir/x", path);
    assert_int_equal(slinky__write_file_atomic(nodir, "x", 1, 0600), SLINKY_EIO);
    unlink(f);
    rmdir(path);
    slinky_free(f);
    slinky_free(missing);
    slinky_free(nodir);
    slinky_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_are_stable),   cmocka_unit_test(test_last_error_never_null),
        cmocka_unit_test(test_per_thread_isolation), cmocka_unit_test(test_global_init_refcount),
        cmocka_unit_test(test_log_callback),       cmocka_unit_test(test_version),
        cmocka_unit_test(test_buffer_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
