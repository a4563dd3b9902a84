/* Label/field selectors, Go ParseBool and name checks of slinky-apiserver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "pure.h"

static slinky_doc *labels(const char *json)
{
    slinky_doc *d = NULL;
    assert_int_equal(slinky_doc_parse_json(&d, json, strlen(json)), 0);
    return d;
}

static bool match(const char *sel, const char *json)
{
    as_selector s;
    assert_int_equal(as_selector_parse_labels(&s, sel), 0);
    slinky_doc *d = labels(json);
    bool m = as_selector_matches_labels(&s, slinky_doc_root(d));
    slinky_doc_free(d);
    as_selector_dispose(&s);
    return m;
}

static void test_label_operators(void **state)
{
    (void)state;
    const char *l = "{\"app\":\"slurm\",\"tier\":\"worker\",\"n\":\"1\"}";
    assert_true(match("", l));
    assert_true(match("app=slurm", l));
    assert_true(match("app==slurm", l));
    assert_false(match("app=other", l));
    assert_true(match("app!=other", l));
    assert_true(match("missing!=x", l));
    assert_false(match("app!=slurm", l));
    assert_true(match("tier in (worker, login)", l));
    assert_false(match("tier in (login)", l));
    assert_true(match("tier notin (login)", l));
    assert_false(match("tier notin (worker)", l));
    assert_true(match("app", l));
    assert_false(match("missing", l));
    assert_true(match("!missing", l));
    assert_false(match("!app", l));
    assert_true(match("app=slurm, tier in (worker),!missing", l));
    assert_false(match("app=slurm,n=2", l));
    assert_true(match("example.com/role notin (x)", l));
}

static void test_label_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {"a in b", "a in ()", "a=b,", "=b", "a=b c", "a in (x",
                                      "-bad=x", "a=@@"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        as_selector s = {0};
        assert_int_not_equal(as_selector_parse_labels(&s, bad[i]), 0);
        assert_null(s.reqs);
    }
}

static const char *lookup(const char *key, void *payload)
{
    (void)payload;
    if (!strcmp(key, "metadata.name"))
        return "n1";
    if (!strcmp(key, "metadata.namespace"))
        return "ns1";
    return NULL;
}

static void test_field_selector(void **state)
{
    (void)state;
    as_selector s;
    assert_int_equal(as_selector_parse_fields(&s, "metadata.name=n1,metadata.namespace!=x"), 0);
    assert_true(as_selector_matches(&s, lookup, NULL));
    as_selector_dispose(&s);
    assert_int_equal(as_selector_parse_fields(&s, "metadata.name==n2"), 0);
    assert_false(as_selector_matches(&s, lookup, NULL));
    as_selector_dispose(&s);
    assert_int_not_equal(as_selector_parse_fields(&s, "metadata.name in (a)"), 0);
    assert_int_not_equal(as_selector_parse_fields(&s, "!metadata.name"), 0);
}

static void test_parse_bool(void **state)
{
    (void)state;
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    static const char *const bad[] = {"", "yes", "tRUE", "2", "truee", "on"};
    for (size_t i = 0; i < 6; i++) {
        bool b = false;
        assert_int_equal(as_parse_bool(&b, yes[i]), 0);
        assert_true(b);
        assert_int_equal(as_parse_bool(&b, no[i]), 0);
        assert_false(b);
        b = true;
        assert_int_equal(as_parse_bool(&b, bad[i]), SLINKY_EINVALID);
        assert_true(b);
    }
}

static void test_names(void **state)
{
    (void)state;
    assert_null(as_check_dns_subdomain("nodesets.slinky.slurm.net"));
    assert_null(as_check_dns_subdomain("a-1"));
    assert_non_null(as_check_dns_subdomain("Upper"));
    assert_non_null(as_check_dns_subdomain("a..b"));
    assert_non_null(as_check_dns_subdomain("-a"));
    assert_non_null(as_check_dns_subdomain(""));
    assert_null(as_check_dns_label("default"));
    assert_non_null(as_check_dns_label("a.b"));
    assert_null(as_check_label_key("app.kubernetes.io/name"));
    assert_non_null(as_check_label_key("Bad Key"));
    assert_null(as_check_label_value(""));
    assert_null(as_check_label_value("1.2.3"));
    assert_non_null(as_check_label_value("-x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_operators), cmocka_unit_test(test_label_errors),
        cmocka_unit_test(test_field_selector), cmocka_unit_test(test_parse_bool),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
