/* kube: percent-encoding, resource paths, label selectors, object keys, Status mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kube_internal.h"
#include "slinky.h"

static void test_escape(void **state)
{
    (void)state;
    char *s = NULL;
    assert_int_equal(slinky_kube_query_escape(&s, "app=x,tier in (a,b)&c=d/é~._-"), 0);
    assert_string_equal(s, "app%3Dx%2Ctier%20in%20%28a%2Cb%29%26c%3Dd%2F%C3%A9~._-");
    slinky_free(s);
    assert_int_equal(slinky_kube_query_escape(&s, ""), 0);
    assert_string_equal(s, "");
    slinky_free(s);
    /* a continue token is base64 with + / = */
    assert_int_equal(slinky_kube_query_escape(&s, "eyJ2Ijoib+/w=="), 0);
    assert_string_equal(s, "eyJ2Ijoib%2B%2Fw%3D%3D");
    slinky_free(s);
    assert_int_equal(slinky_kube_query_escape(NULL, "x"), SLINKY_EINVALID);
}

static void test_paths(void **state)
{
    (void)state;
    const slinky_kube_resource cm = {"", "v1", "configmaps", true};
    const slinky_kube_resource ns = {NULL, "v1", "namespaces", false};
    const slinky_kube_resource nsets = {"slinky.slurm.net", "v1beta1", "nodesets", true};
    char *p = NULL;
    assert_int_equal(slinky_kube_path(&p, &cm, "default", "a", NULL), 0);
    assert_string_equal(p, "/api/v1/namespaces/default/configmaps/a");
    slinky_free(p);
    assert_int_equal(slinky_kube_path(&p, &cm, NULL, NULL, NULL), 0);
    assert_string_equal(p, "/api/v1/configmaps");
    slinky_free(p);
    assert_int_equal(slinky_kube_path(&p, &ns, "ignored", "slurm", NULL), 0);
    assert_string_equal(p, "/api/v1/namespaces/slurm");
    slinky_free(p);
    assert_int_equal(slinky_kube_path(&p, &nsets, "slurm", "n1", "status"), 0);
    assert_string_equal(p, "/apis/slinky.slurm.net/v1beta1/namespaces/slurm/nodesets/n1/status");
    slinky_free(p);
    assert_int_equal(slinky_kube_path(&p, &nsets, "slurm", "a b:c", NULL), 0);
    assert_string_equal(p, "/apis/slinky.slurm.net/v1beta1/namespaces/slurm/nodesets/a%20b:c");
    slinky_free(p);
    p = NULL;
    assert_int_equal(slinky_kube_path(&p, &cm, "default", "../x", NULL), SLINKY_EINVALID);
    assert_int_equal(slinky_kube_path(&p, &cm, "default", "..", NULL), SLINKY_EINVALID);
    assert_int_equal(slinky_kube_path(&p, &cm, "default", "", NULL), SLINKY_EINVALID);
    assert_null(p);
}

static slinky_doc *labels(const char *json)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, json, strlen(json)), 0);
    return d;
}

static bool match(const char *sel, const slinky_doc *l)
{
    bool m = false;
    int err = slinky_kube_selector_matches(&m, sel, slinky_doc_root((slinky_doc *)l));
    if (err)
        fail_msg("selector %s: %s", sel, slinky_error_last()->message);
    return m;
}

static void test_selectors(void **state)
{
    (void)state;
    slinky_doc *l = labels("{\"app\":\"slurm\",\"tier\":\"db\",\"example.com/role\":\"x\"}");
    assert_true(match("", l));
    assert_true(match("app=slurm", l));
    assert_true(match("app==slurm", l));
    assert_false(match("app=other", l));
    assert_true(match("app!=other", l));
    assert_true(match("missing!=x", l));
    assert_true(match("app, tier", l));
    assert_false(match("app,!tier", l));
    assert_true(match("!legacy", l));
    assert_true(match("tier in (web, db)", l));
    assert_false(match("tier notin (web,db)", l));
    assert_true(match("example.com/role=x,app in (slurm)", l));
    assert_false(match("nope in (a)", l));
    assert_true(match("nope notin (a)", l));
    bool m;
    assert_int_equal(slinky_kube_selector_matches(&m, "app in a", slinky_doc_root(l)), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "app in a"));
    assert_int_equal(slinky_kube_selector_matches(&m, "=x", slinky_doc_root(l)), SLINKY_EINVALID);
    assert_int_equal(slinky_kube_selector_matches(&m, "a=b c", slinky_doc_root(l)), SLINKY_EINVALID);
    slinky_doc_free(l);
}

static void test_object_key(void **state)
{
    (void)state;
    slinky_doc *d = labels("{\"metadata\":{\"name\":\"n\",\"namespace\":\"s\"}}");
    char *k = NULL;
    assert_int_equal(slinky_kube_object_key(&k, slinky_doc_root(d)), 0);
    assert_string_equal(k, "s/n");
    slinky_free(k);
    slinky_doc_free(d);
    d = labels("{\"metadata\":{\"name\":\"n\"}}");
    assert_int_equal(slinky_kube_object_key(&k, slinky_doc_root(d)), 0);
    assert_string_equal(k, "n");
    slinky_free(k);
    slinky_doc_free(d);
    d = labels("{\"metadata\":{}}");
    k = NULL;
    assert_int_equal(slinky_kube_object_key(&k, slinky_doc_root(d)), SLINKY_EINVALID);
    assert_null(k);
    slinky_doc_free(d);
}

static void test_status_mapping(void **state)
{
    (void)state;
    static const struct {
        int http;
        const char *reason;
        int code;
    } cases[] = {
        {404, "NotFound", SLINKY_ENOTFOUND},      {409, "AlreadyExists", SLINKY_EEXISTS},
        {409, "Conflict", SLINKY_ECONFLICT},      {422, "Invalid", SLINKY_EINVALID},
        {410, "Expired", SLINKY_EGONE},           {410, "Gone", SLINKY_EGONE},
        {401, "Unauthorized", SLINKY_EAUTH},      {403, "Forbidden", SLINKY_EFORBIDDEN},
        {429, "TooManyRequests", SLINKY_EBUSY},   {503, "ServiceUnavailable", SLINKY_EBUSY},
        {504, "Timeout", SLINKY_ETIMEOUT},        {415, "UnsupportedMediaType", SLINKY_EUNSUPPORTED},
        {500, "InternalError", SLINKY_EHTTP},     {400, "BadRequest", SLINKY_EINVALID},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char body[512];
        snprintf(body, sizeof(body),
                 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"msg %zu\","
                 "\"reason\":\"%s\",\"code\":%d}",
                 i, cases[i].reason, cases[i].http);
        int err = slinky_kube__status_error(cases[i].http, body, strlen(body), 0);
        assert_int_equal(err, cases[i].code);
        assert_int_equal(slinky_error_last()->code, cases[i].code);
        assert_int_equal(slinky_error_last()->http_status, cases[i].http);
        char want[32];
        snprintf(want, sizeof(want), "msg %zu", i);
        assert_string_equal(slinky_error_last()->message, want);
        assert_string_equal(slinky_kube_status_last()->reason, cases[i].reason);
    }
    static const char invalid[] =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"NodeSet \\\"x\\\" is invalid\","
        "\"reason\":\"Invalid\",\"code\":422,\"details\":{\"name\":\"x\",\"kind\":\"NodeSet\","
        "\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"bad\",\"field\":\"spec.replicas\"},"
        "{\"reason\":\"FieldValueRequired\",\"message\":\"req\",\"field\":\"spec.x\"}]}}";
    assert_int_equal(slinky_kube__status_error(422, invalid, strlen(invalid), 0), SLINKY_EINVALID);
    const slinky_kube_status *st = slinky_kube_status_last();
    assert_string_equal(st->name, "x");
    assert_string_equal(st->kind, "NodeSet");
    assert_int_equal(st->ncauses, 2);
    assert_string_equal(st->causes[0].field, "spec.replicas");
    assert_string_equal(st->causes[1].reason, "FieldValueRequired");
    /* no Status body: the HTTP code decides; the body excerpt is kept */
    assert_int_equal(slinky_kube__status_error(429, "slow down", 9, 3), SLINKY_EBUSY);
    assert_int_equal(slinky_kube_status_last()->retry_after_seconds, 3);
    assert_non_null(strstr(slinky_error_last()->message, "slow down"));
    assert_int_equal(slinky_kube__status_error(502, NULL, 0, 0), SLINKY_EHTTP);
    assert_int_equal(slinky_kube_status_last()->ncauses, 0);
}

static void test_resource_lookup(void **state)
{
    (void)state;
    slinky_kube_resource r;
    assert_int_equal(slinky_kube_resource_lookup(&r, "configmaps"), 0);
    assert_string_equal(r.group, "");
    assert_string_equal(r.version, "v1");
    assert_true(r.namespaced);
    assert_int_equal(slinky_kube_resource_lookup(&r, "NodeSet"), 0);
    assert_string_equal(r.resource, "nodesets");
    assert_string_equal(r.group, "slinky.slurm.net");
    assert_int_equal(slinky_kube_resource_lookup(&r, "nodesets.slinky.slurm.net"), 0);
    assert_int_equal(slinky_kube_resource_lookup(&r, "namespaces"), 0);
    assert_false(r.namespaced);
    assert_int_equal(slinky_kube_resource_lookup(&r, "widgets"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_kube_resource_for_kind(&r, "coordination.k8s.io/v1", "Lease"), 0);
    assert_string_equal(r.resource, "leases");
    assert_int_equal(slinky_kube_resource_for_kind(&r, "v1", "Secret"), 0);
    assert_string_equal(r.resource, "secrets");
    assert_int_equal(slinky_kube_resource_for_kind(&r, "slinky.slurm.net/v1alpha1", "NodeSet"), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_kube_resource_for_kind(&r, "apps/v1", "Secret"), SLINKY_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),     cmocka_unit_test(test_paths),
        cmocka_unit_test(test_selectors),  cmocka_unit_test(test_object_key),
        cmocka_unit_test(test_status_mapping),
        cmocka_unit_test(test_resource_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
