/* kube: REST verbs, Status errors, paging, selectors, threads against slinky-apiserver (TLS + token). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>

#include "kube/kube_itest.h"
#include "kube/kube_internal.h"

static const slinky_kube_resource CM = {"", "v1", "configmaps", true};
static const slinky_kube_resource NODESETS = {"slinky.slurm.net", "v1beta1", "nodesets", true};
static itest_server srv;

static int setup(void **state)
{
    (void)state;
    slinky_global_init();
    return itest_server_start(&srv, "--history 10");
}

static int teardown(void **state)
{
    (void)state;
    itest_server_stop(&srv);
    slinky_global_shutdown();
    return 0;
}

static slinky_doc *configmap(const char *name, const char *extra)
{
    char json[1024];
    snprintf(json, sizeof(json),
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"%s},\"data\":{\"k\":\"v\"}}",
             name, extra ? extra : "");
    return itest_json(json);
}

static void test_crud_and_errors(void **state)
{
    (void)state;
    slinky_kube_client *c = srv.client;
    slinky_doc *obj = configmap("crud", NULL), *got = NULL, *out = NULL;
    OK(slinky_kube_create(&out, c, &CM, "default", slinky_doc_root(obj), NULL));
    const char *rv1 = slinky_doc_value_path_string(slinky_doc_root(out), "metadata.resourceVersion", "");
    assert_true(*rv1 != '\0');
    /* AlreadyExists */
    assert_int_equal(slinky_kube_create(NULL, c, &CM, "default", slinky_doc_root(obj), NULL), SLINKY_EEXISTS);
    assert_int_equal(slinky_error_last()->http_status, 409);
    assert_string_equal(slinky_kube_status_last()->reason, "AlreadyExists");
    /* NotFound */
    assert_int_equal(slinky_kube_get(&got, c, &CM, "default", "nope", NULL), SLINKY_ENOTFOUND);
    assert_null(got);
    assert_string_equal(slinky_kube_status_last()->reason, "NotFound");
    assert_non_null(strstr(slinky_error_last()->message, "nope"));
    /* Invalid, with causes */
    slinky_doc *bad = configmap("Bad_Name", NULL);
    assert_int_equal(slinky_kube_create(NULL, c, &CM, "default", slinky_doc_root(bad), NULL), SLINKY_EINVALID);
    assert_int_equal(slinky_error_last()->http_status, 422);
    assert_true(slinky_kube_status_last()->ncauses >= 1);
    assert_string_equal(slinky_kube_status_last()->causes[0].field, "metadata.name");
    slinky_doc_free(bad);

    OK(slinky_kube_get(&got, c, &CM, "default", "crud", NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(got), "data.k", ""), "v");
    /* update, then a stale update conflicts */
    slinky_doc_value_object_set_string(slinky_doc_value_path(slinky_doc_root(got), "data"), "k", "v2");
    slinky_doc *upd = NULL;
    OK(slinky_kube_update(&upd, c, &CM, "default", slinky_doc_root(got), NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(upd), "data.k", ""), "v2");
    assert_int_equal(slinky_kube_update(NULL, c, &CM, "default", slinky_doc_root(got), NULL), SLINKY_ECONFLICT);
    assert_string_equal(slinky_kube_status_last()->reason, "Conflict");

    /* patches: merge, JSON, strategic */
    slinky_doc *mp = itest_json("{\"data\":{\"m\":\"1\"}}");
    slinky_doc *jp = itest_json("[{\"op\":\"add\",\"path\":\"/data/j\",\"value\":\"2\"}]");
    slinky_doc *sp = itest_json("{\"data\":{\"s\":\"3\"}}");
    slinky_doc *p = NULL;
    OK(slinky_kube_patch(NULL, c, &CM, "default", "crud", SLINKY_KUBE_PATCH_MERGE, slinky_doc_root(mp), NULL));
    OK(slinky_kube_patch(NULL, c, &CM, "default", "crud", SLINKY_KUBE_PATCH_JSON, slinky_doc_root(jp), NULL));
    OK(slinky_kube_patch(&p, c, &CM, "default", "crud", SLINKY_KUBE_PATCH_STRATEGIC, slinky_doc_root(sp), NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(p), "data.m", ""), "1");
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(p), "data.j", ""), "2");
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(p), "data.s", ""), "3");
    /* a JSON patch body must be an array (checked before sending) */
    assert_int_equal(slinky_kube_patch(NULL, c, &CM, "default", "crud", SLINKY_KUBE_PATCH_JSON, slinky_doc_root(mp), NULL),
                     SLINKY_EINVALID);
    /* a failing JSON patch test */
    slinky_doc *jt = itest_json("[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"wrong\"}]");
    assert_true(slinky_kube_patch(NULL, c, &CM, "default", "crud", SLINKY_KUBE_PATCH_JSON, slinky_doc_root(jt), NULL) < 0);
    assert_true(slinky_error_last()->http_status >= 400);

    /* dry run: nothing stored */
    slinky_doc *dry = configmap("dry", NULL);
    slinky_kube_write_options wo = SLINKY_KUBE_WRITE_OPTIONS_INIT;
    wo.dry_run = true;
    OK(slinky_kube_create(NULL, c, &CM, "default", slinky_doc_root(dry), &wo));
    slinky_doc *none = NULL;
    assert_int_equal(slinky_kube_get(&none, c, &CM, "default", "dry", NULL), SLINKY_ENOTFOUND);

    /* delete with a wrong uid precondition fails, then with the right one */
    slinky_kube_delete_options dop = SLINKY_KUBE_DELETE_OPTIONS_INIT;
    dop.precondition_uid = "00000000-0000-0000-0000-000000000000";
    assert_int_equal(slinky_kube_delete(NULL, c, &CM, "default", "crud", &dop), SLINKY_ECONFLICT);
    dop.precondition_uid = slinky_doc_value_path_string(slinky_doc_root(p), "metadata.uid", "");
    dop.propagation_policy = "Background";
    dop.grace_period_seconds = 0;
    OK(slinky_kube_delete(NULL, c, &CM, "default", "crud", &dop));
    assert_int_equal(slinky_kube_get(&none, c, &CM, "default", "crud", NULL), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_kube_delete(NULL, c, &CM, "default", "crud", NULL), SLINKY_ENOTFOUND);

    /* namespace required for namespaced resources */
    assert_int_equal(slinky_kube_get(&none, c, &CM, NULL, "x", NULL), SLINKY_EINVALID);

    slinky_doc *docs[] = {obj, got, out, upd, mp, jp, sp, p, jt, dry};
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
        slinky_doc_free(docs[i]);
}

static void test_server_side_apply_and_status(void **state)
{
    (void)state;
    slinky_kube_client *c = srv.client;
    slinky_doc *ns = itest_json(
        "{\"apiVersion\":\"slinky.slurm.net/v1beta1\",\"kind\":\"NodeSet\",\"metadata\":{\"name\":\"ssa\"},"
        "\"spec\":{\"controllerRef\":{\"name\":\"slurm\"},\"replicas\":2,\"template\":{\"spec\":{\"containers\":[]}}}}");
    slinky_kube_patch_options po = SLINKY_KUBE_PATCH_OPTIONS_INIT;
    po.field_manager = "itest";
    /* apply needs a field manager */
    assert_int_equal(slinky_kube_patch(NULL, c, &NODESETS, "default", "ssa", SLINKY_KUBE_PATCH_APPLY,
                                       slinky_doc_root(ns), NULL),
                     SLINKY_EINVALID);
    slinky_doc *out = NULL;
    int err = slinky_kube_patch(&out, c, &NODESETS, "default", "ssa", SLINKY_KUBE_PATCH_APPLY,
                                slinky_doc_root(ns), &po);
    if (err == SLINKY_EUNSUPPORTED) {
        /* server without apply support yet: create instead */
        OK(slinky_kube_create(&out, c, &NODESETS, "default", slinky_doc_root(ns), NULL));
    } else {
        OK(err);
        assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(out), "spec.replicas", 0), 2);
    }
    /* update_status writes only the status */
    slinky_doc_value *root = slinky_doc_root(out), *st = NULL;
    OK(slinky_doc_value_path_put(&st, root, "status"));
    OK(slinky_doc_value_set_object(st));
    OK(slinky_doc_value_object_set_int(st, "replicas", 7));
    OK(slinky_doc_value_object_set_string(st, "nodeSetHash", "h1"));
    OK(slinky_doc_value_object_set_string(st, "selector", "app=x"));
    slinky_doc *after = NULL;
    OK(slinky_kube_update_status(&after, c, &NODESETS, "default", root, NULL));
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(after), "status.replicas", 0), 7);
    slinky_doc_free(ns);
    slinky_doc_free(out);
    slinky_doc_free(after);
    OK(slinky_kube_delete(NULL, c, &NODESETS, "default", "ssa", NULL));
}

typedef struct names {
    int n;
    char seen[64][32];
} names;

static slinky_status count_item(slinky_doc *item, void *p)
{
    names *nm = p;
    if (nm->n < 64)
        snprintf(nm->seen[nm->n], 32, "%s", slinky_doc_value_path_string(slinky_doc_root(item), "metadata.name", ""));
    nm->n++;
    slinky_doc_free(item);
    return 0;
}

static void test_paging_and_selectors(void **state)
{
    (void)state;
    slinky_kube_client *c = srv.client;
    for (int i = 0; i < 23; i++) {
        char name[32], extra[128];
        snprintf(name, sizeof(name), "page-%02d", i);
        snprintf(extra, sizeof(extra), ",\"namespace\":\"default\",\"labels\":{\"group\":\"%s\",\"app\":\"pg\"}",
                 i % 3 == 0 ? "x" : (i % 3 == 1 ? "y" : "z w"));
        slinky_doc *o = configmap(name, extra);
        int err = slinky_kube_create(NULL, c, &CM, "default", slinky_doc_root(o), NULL);
        slinky_doc_free(o);
        if (err == SLINKY_EINVALID) /* "z w" is not a valid label value: use z */
            continue;
        OK(err);
    }
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.limit = 4;
    lo.label_selector = "app=pg";
    slinky_kube_list_iter *it = NULL;
    OK(slinky_kube_list_iter_new(&it, c, &CM, "default", &lo));
    const slinky_doc_value *item;
    int n = 0, err;
    while ((err = slinky_kube_list_iter_next(&item, it)) == 0)
        n++;
    assert_int_equal(err, SLINKY_ITEROVER);
    assert_int_equal(slinky_kube_list_iter_next(&item, it), SLINKY_ITEROVER);
    assert_true(*slinky_kube_list_iter_resource_version(it) != '\0');
    slinky_kube_list_iter_free(it);
    int expected = 16; /* 23 minus the 7 with the invalid value */
    assert_int_equal(n, expected);

    names nm = {0};
    OK(slinky_kube_list_stream(NULL, c, &CM, "default", &lo, count_item, &nm));
    assert_int_equal(nm.n, expected);

    /* set-based selector, percent-encoded on the wire */
    lo.label_selector = "app=pg,group in (x, y)";
    slinky_doc *list = NULL;
    OK(slinky_kube_list(&list, c, &CM, "default", &lo));
    size_t cnt = slinky_doc_value_size(slinky_doc_value_path(slinky_doc_root(list), "items"));
    assert_int_equal(cnt, 16);
    slinky_doc_free(list);
    lo.label_selector = "group notin (x)";
    OK(slinky_kube_list(&list, c, &CM, "default", &lo));
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(slinky_doc_root(list), "items")), 8);
    slinky_doc_free(list);
    /* field selector */
    lo.label_selector = NULL;
    lo.field_selector = "metadata.name=page-03";
    OK(slinky_kube_list(&list, c, &CM, "default", &lo));
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(slinky_doc_root(list), "items")), 1);
    slinky_doc_free(list);

    /* a continue token that expires mid-way (server history 10): the iterator restarts */
    lo.field_selector = NULL;
    lo.label_selector = "app=pg";
    lo.limit = 3;
    OK(slinky_kube_list_iter_new(&it, c, &CM, "default", &lo));
    OK(slinky_kube_list_iter_next(&item, it));
    for (int i = 0; i < 15; i++) {
        slinky_doc *pt = itest_json("{\"data\":{\"bump\":\"1\"}}");
        char v[8];
        snprintf(v, sizeof(v), "%d", i);
        slinky_doc_value_object_set_string(slinky_doc_value_path(slinky_doc_root(pt), "data"), "bump", v);
        OK(slinky_kube_patch(NULL, c, &CM, "default", "page-00", SLINKY_KUBE_PATCH_MERGE, slinky_doc_root(pt), NULL));
        slinky_doc_free(pt);
    }
    n = 1;
    while ((err = slinky_kube_list_iter_next(&item, it)) == 0)
        n++;
    assert_int_equal(err, SLINKY_ITEROVER);
    /* 15 writes beyond a 10-event history: the continue token expired and the
     * iteration started again, so the first page (3 items) was seen twice */
    assert_int_equal(slinky_kube_list_iter_restarts(it), 1);
    assert_int_equal(n, expected + 3);
    slinky_kube_list_iter_free(it);
}

typedef struct worker_arg {
    int id;
    int failures;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    for (int i = 0; i < 25; i++) {
        char name[64];
        snprintf(name, sizeof(name), "thread-%d-%d", a->id, i);
        slinky_doc *o = configmap(name, NULL), *got = NULL;
        if (slinky_kube_create(NULL, srv.client, &CM, "default", slinky_doc_root(o), NULL) != 0)
            a->failures++;
        if (slinky_kube_get(&got, srv.client, &CM, "default", name, NULL) != 0 ||
            strcmp(slinky_doc_value_path_string(slinky_doc_root(got), "metadata.name", ""), name) != 0)
            a->failures++;
        if (slinky_kube_delete(NULL, srv.client, &CM, "default", name, NULL) != 0)
            a->failures++;
        slinky_doc_free(o);
        slinky_doc_free(got);
    }
    return NULL;
}

static void test_threads_share_client(void **state)
{
    (void)state;
    pthread_t t[4];
    worker_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i].id = i;
        a[i].failures = 0;
        pthread_create(&t[i], NULL, worker, &a[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(a[i].failures, 0);
    }
}

static slinky_status bump(slinky_doc_value *obj, void *p)
{
    (void)p;
    slinky_doc_value *data = slinky_doc_value_path(obj, "data");
    long v = strtol(slinky_doc_value_path_string(obj, "data.n", "0"), NULL, 10);
    char s[32];
    snprintf(s, sizeof(s), "%ld", v + 1);
    return slinky_doc_value_object_set_string(data, "n", s);
}

static void *bumper(void *p)
{
    intptr_t fails = 0;
    (void)p;
    for (int i = 0; i < 10; i++)
        if (slinky_kube_retry_on_conflict(NULL, srv.client, &CM, "default", "counter", 50, bump, NULL) != 0)
            fails++;
    return (void *)fails;
}

static void test_retry_on_conflict(void **state)
{
    (void)state;
    slinky_doc *o = configmap("counter", NULL);
    OK(slinky_kube_create(NULL, srv.client, &CM, "default", slinky_doc_root(o), NULL));
    slinky_doc_free(o);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, bumper, NULL);
    for (int i = 0; i < 3; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_int_equal((int)(intptr_t)r, 0);
    }
    slinky_doc *got = NULL;
    OK(slinky_kube_get(&got, srv.client, &CM, "default", "counter", NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(got), "data.n", ""), "30");
    slinky_doc_free(got);
}

/* "already as wanted": no update is sent (the resourceVersion stays), *out is the object read */
static slinky_status set_n_30(slinky_doc_value *obj, void *p)
{
    int *calls = p;
    (*calls)++;
    if (!strcmp(slinky_doc_value_path_string(obj, "data.n", ""), "30"))
        return SLINKY_KUBE_MUTATE_NO_CHANGE;
    return slinky_doc_value_object_set_string(slinky_doc_value_path(obj, "data"), "n", "30");
}

static void test_retry_on_conflict_no_change(void **state)
{
    (void)state;
    slinky_doc *o = configmap("unchanged", NULL);
    OK(slinky_kube_create(NULL, srv.client, &CM, "default", slinky_doc_root(o), NULL));
    slinky_doc_free(o);
    int calls = 0;
    slinky_doc *first = NULL, *second = NULL;
    OK(slinky_kube_retry_on_conflict(&first, srv.client, &CM, "default", "unchanged", 0, set_n_30, &calls));
    const char *rv1 = slinky_doc_value_path_string(slinky_doc_root(first), "metadata.resourceVersion", "");
    OK(slinky_kube_retry_on_conflict(&second, srv.client, &CM, "default", "unchanged", 0, set_n_30, &calls));
    assert_int_equal(calls, 2);
    assert_non_null(second);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(second), "metadata.resourceVersion", ""), rv1);
    slinky_doc *got = NULL;
    OK(slinky_kube_get(&got, srv.client, &CM, "default", "unchanged", NULL));
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(got), "metadata.resourceVersion", ""), rv1);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(got), "data.n", ""), "30");
    slinky_doc_free(got);
    slinky_doc_free(first);
    slinky_doc_free(second);
}

static void test_raw_request_and_auth(void **state)
{
    (void)state;
    char *body = NULL;
    size_t len = 0;
    int status = 0;
    OK(slinky_kube_request(&body, &len, &status, srv.client, "GET", "/version", NULL, NULL, 0));
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "gitVersion"));
    slinky_free(body);
    /* a wrong token is refused with 401 -> SLINKY_EAUTH */
    char kc[512];
    snprintf(kc, sizeof(kc), "%s/kubeconfig", srv.dir);
    char *data = NULL;
    size_t dl = 0;
    OK(slinky__read_file(&data, &dl, kc));
    char *tok = strstr(data, "token: ");
    assert_non_null(tok);
    tok[7] = tok[7] == 'x' ? 'y' : 'x';
    slinky_kube_config *cfg = NULL;
    OK(slinky_kube_config_parse(&cfg, data, dl, NULL, NULL));
    free(data);
    slinky_kube_client *c = NULL;
    OK(slinky_kube_client_new(&c, cfg, NULL));
    slinky_kube_config_free(cfg);
    slinky_doc *got = NULL;
    assert_int_equal(slinky_kube_get(&got, c, &CM, "default", "x", NULL), SLINKY_EAUTH);
    assert_int_equal(slinky_error_last()->http_status, 401);
    slinky_kube_client_free(c);
}

/* A kubeconfig variant: text edits applied to the server's kubeconfig. */
static slinky_kube_client *variant(const char *find, const char *replace)
{
    char kc[512];
    snprintf(kc, sizeof(kc), "%s/kubeconfig", srv.dir);
    char *data = NULL;
    size_t dl = 0;
    if (slinky__read_file(&data, &dl, kc) != 0)
        return NULL;
    slinky__buf b = SLINKY__BUF_INIT;
    char *at = strstr(data, find);
    if (at == NULL) {
        free(data);
        return NULL;
    }
    slinky__buf_put(&b, data, (size_t)(at - data));
    slinky__buf_puts(&b, replace);
    slinky__buf_puts(&b, at + strlen(find));
    free(data);
    slinky_kube_config *cfg = NULL;
    slinky_kube_client *c = NULL;
    slinky_kube_client_options co = SLINKY_KUBE_CLIENT_OPTIONS_INIT;
    co.max_retries = 1;
    co.backoff_base_ms = 10;
    if (slinky_kube_config_parse(&cfg, b.data, b.len, NULL, NULL) == 0)
        slinky_kube_client_new(&c, cfg, &co);
    slinky_kube_config_free(cfg);
    slinky__buf_dispose(&b);
    return c;
}

static void test_tls_settings(void **state)
{
    (void)state;
    slinky_doc *got = NULL;
    /* tls-server-name: the certificate names localhost and 127.0.0.1 */
    slinky_kube_client *c = variant("    server: ", "    tls-server-name: localhost\n    server: ");
    assert_non_null(c);
    OK(slinky_kube_get(&got, c, &CM, "default", "counter", NULL));
    slinky_doc_free(got);
    slinky_kube_client_free(c);
    c = variant("    server: ", "    tls-server-name: wrong.example\n    server: ");
    assert_non_null(c);
    got = NULL;
    assert_int_equal(slinky_kube_get(&got, c, &CM, "default", "counter", NULL), SLINKY_EAUTH);
    assert_null(got);
    slinky_kube_client_free(c);
    /* without the CA the self-signed chain is refused, unless verification is off */
    c = variant("    certificate-authority-data: ", "    x-unused: ");
    assert_non_null(c);
    assert_int_equal(slinky_kube_get(&got, c, &CM, "default", "counter", NULL), SLINKY_EAUTH);
    slinky_kube_client_free(c);
    c = variant("    certificate-authority-data: ", "    insecure-skip-tls-verify: true\n    x-unused: ");
    assert_non_null(c);
    OK(slinky_kube_get(&got, c, &CM, "default", "counter", NULL));
    slinky_doc_free(got);
    slinky_kube_client_free(c);
}

/* An exec plugin whose first token is stale: the 401 makes the client run it again. */
static void test_exec_plugin_refresh_on_401(void **state)
{
    (void)state;
    char kc[512], tokfile[512], count[512], script[1024], exec_user[2048];
    snprintf(kc, sizeof(kc), "%s/kubeconfig", srv.dir);
    snprintf(tokfile, sizeof(tokfile), "%s/token", srv.dir);
    snprintf(count, sizeof(count), "%s/exec-count", srv.dir);
    snprintf(script, sizeof(script), "%s/kube/exec/rotating.sh", itest_env("SLINKY_TEST_DATA", "tests/data"));
    snprintf(exec_user, sizeof(exec_user),
             "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: '%s'\n"
             "      env:\n      - {name: TOKEN_FILE, value: '%s'}\n      - {name: COUNT_FILE, value: '%s'}\n"
             "    x-old-token: ",
             script, tokfile, count);
    slinky_kube_client *c = variant("    token: ", exec_user);
    assert_non_null(c);
    slinky_doc *got = NULL;
    OK(slinky_kube_get(&got, c, &CM, "default", "counter", NULL));
    slinky_doc_free(got);
    char *n = NULL;
    OK(slinky__read_file(&n, NULL, count));
    assert_int_equal(atoi(n), 2); /* stale token, 401, plugin ran again */
    free(n);
    /* the refreshed credential is cached: no third run */
    OK(slinky_kube_get(&got, c, &CM, "default", "counter", NULL));
    slinky_doc_free(got);
    OK(slinky__read_file(&n, NULL, count));
    assert_int_equal(atoi(n), 2);
    free(n);
    slinky_kube_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crud_and_errors),
        cmocka_unit_test(test_server_side_apply_and_status),
        cmocka_unit_test(test_paging_and_selectors),
        cmocka_unit_test(test_threads_share_client),
        cmocka_unit_test(test_retry_on_conflict),
        cmocka_unit_test(test_retry_on_conflict_no_change),
        cmocka_unit_test(test_raw_request_and_auth),
        cmocka_unit_test(test_tls_settings),
        cmocka_unit_test(test_exec_plugin_refresh_on_401),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
