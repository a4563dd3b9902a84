/*
 * workload/jwt: HS256 JWTs as upstream's slurmjwt makes them
 * (../shared/upstream/slinky/src/internal/controller/token/slurmjwt/token.go):
 * header, claim names and order, signature; the verifier against RFC 7515's
 * HS256 example (appendix A.1) and against tampering. A second HMAC
 * implementation (python3's hmac) checks our tokens in workload/jwt_python.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slinky.h"

static const char KEY[] = "0123456789abcdef0123456789abcdef";

static char *sign(const char *user, int64_t iat, int64_t exp, const char *jti)
{
    slinky_workload_jwt_claims c;
    assert_int_equal(slinky_workload_jwt_claims_init(&c, SLINKY_WORKLOAD_JWT_CLAIMS_VERSION), 0);
    c.username = user;
    c.issued_at = iat;
    c.expires_at = exp;
    c.id = jti;
    char *jwt = NULL;
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, strlen(KEY)), 0);
    return jwt;
}

static char *decode_part(const char *jwt, int part)
{
    const char *p = jwt;
    for (int i = 0; i < part; i++)
        p = strchr(p, '.') + 1;
    size_t n = strcspn(p, ".");
    char *seg = strndup(p, n);
    char *out = NULL;
    assert_int_equal(slinky_base64_decode(&out, NULL, seg, SLINKY_BASE64_URL), 0);
    free(seg);
    return out;
}

/* slurmjwt.NewToken: {"alg":"HS256","typ":"JWT"}; claims iss, exp, nbf, iat, jti, sun */
static void test_layout(void **state)
{
    (void)state;
    char *jwt = sign("slurm", 1700000000, 1700000900, "11111111-2222-4333-8444-555555555555");
    char *h = decode_part(jwt, 0);
    assert_string_equal(h, "{\"alg\":\"HS256\",\"typ\":\"JWT\"}");
    char *p = decode_part(jwt, 1);
    assert_string_equal(p, "{\"iss\":\"slurm-operator\",\"exp\":1700000900,\"nbf\":1700000000,"
                           "\"iat\":1700000000,\"jti\":\"11111111-2222-4333-8444-555555555555\","
                           "\"sun\":\"slurm\"}");
    /* base64url without padding in every part */
    assert_null(strchr(jwt, '='));
    assert_null(strchr(jwt, '+'));
    assert_null(strchr(jwt, '/'));
    /* the signature is 32 bytes (43 base64url characters) */
    assert_int_equal(strlen(strrchr(jwt, '.') + 1), 43);
    slinky_free(h);
    slinky_free(p);
    slinky_free(jwt);
}

static void test_random_jti(void **state)
{
    (void)state;
    char *a = sign("alice", 10, 20, NULL), *b = sign("alice", 10, 20, NULL);
    assert_string_not_equal(a, b);
    slinky_doc *c = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&c, a, KEY, strlen(KEY), -1), 0);
    const char *jti = slinky_doc_value_path_string(slinky_doc_root(c), "jti", "");
    assert_int_equal(strlen(jti), 36);
    assert_int_equal(jti[14], '4'); /* version 4 */
    slinky_doc_free(c);
    slinky_free(a);
    slinky_free(b);
}

static void test_roundtrip_and_time(void **state)
{
    (void)state;
    char *jwt = sign("bob", 1000, 1900, "x");
    slinky_doc *c = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, KEY, strlen(KEY), 1500), 0);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(c), "sun", ""), "bob");
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(c), "exp", 0), 1900);
    slinky_doc_free(c);
    c = NULL;
    /* expired at exp, not valid before nbf */
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, KEY, strlen(KEY), 1900), SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, "expired"));
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, KEY, strlen(KEY), 999), SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, "not valid before"));
    assert_null(c);
    slinky_free(jwt);
}

static void test_tampering(void **state)
{
    (void)state;
    char *jwt = sign("carol", 1000, 1900, "x");
    slinky_doc *c = NULL;
    /* another key */
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, "other", 5, -1), SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, "signature"));
    /* a payload re-encoded for another user keeps the old signature */
    char *dot1 = strchr(jwt, '.'), *dot2 = strchr(dot1 + 1, '.');
    const char forged[] = "{\"iss\":\"slurm-operator\",\"exp\":1900,\"sun\":\"root\"}";
    char *fp = NULL;
    assert_int_equal(slinky_base64_encode(&fp, forged, strlen(forged), SLINKY_BASE64_URL), 0);
    char *bad = NULL;
    assert_true(asprintf(&bad, "%.*s.%s%s", (int)(dot1 - jwt), jwt, fp, dot2) > 0);
    assert_int_equal(slinky_workload_jwt_verify(&c, bad, KEY, strlen(KEY), -1), SLINKY_EAUTH);
    free(bad);
    /* alg none with an empty signature */
    char *none = NULL;
    assert_int_equal(slinky_base64_encode(&none, "{\"alg\":\"none\"}", 14, SLINKY_BASE64_URL), 0);
    assert_true(asprintf(&bad, "%s.%s.", none, fp) > 0);
    assert_int_equal(slinky_workload_jwt_verify(&c, bad, KEY, strlen(KEY), -1), SLINKY_EAUTH);
    assert_non_null(strstr(slinky_error_last()->message, "only HS256"));
    free(bad);
    /* a flipped signature character */
    char *flip = strdup(jwt);
    char *last = strrchr(flip, '.') + 1;
    last[3] = last[3] == 'A' ? 'B' : 'A';
    assert_int_equal(slinky_workload_jwt_verify(&c, flip, KEY, strlen(KEY), -1), SLINKY_EAUTH);
    free(flip);
    /* malformed: parts, alphabet, JSON */
    assert_int_equal(slinky_workload_jwt_verify(&c, "a.b", KEY, 3, -1), SLINKY_EPARSE);
    assert_int_equal(slinky_workload_jwt_verify(&c, "a.b.c.d", KEY, 3, -1), SLINKY_EPARSE);
    assert_int_equal(slinky_workload_jwt_verify(&c, "e30=.e30.AA", KEY, 3, -1), SLINKY_EPARSE);
    assert_int_equal(slinky_workload_jwt_verify(&c, "bm90anNvbg.e30.AA", KEY, 3, -1), SLINKY_EPARSE);
    assert_null(c);
    slinky_free(none);
    slinky_free(fp);
    slinky_free(jwt);
}

/* RFC 7515 appendix A.1: the HS256 example JWS and its key verify; a changed byte does not. */
static void test_rfc7515_a1(void **state)
{
    (void)state;
    const char *jws = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
                      ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
                      ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    char *key = NULL;
    size_t klen = 0;
    assert_int_equal(slinky_base64_decode(&key, &klen,
                                          "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
                                          SLINKY_BASE64_URL),
                     0);
    slinky_doc *c = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&c, jws, key, klen, -1), 0);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(c), "iss", ""), "joe");
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(c), "exp", 0), 1300819380);
    slinky_doc_free(c);
    c = NULL;
    /* the example expired in 2011 */
    assert_int_equal(slinky_workload_jwt_verify(&c, jws, key, klen, 1700000000), SLINKY_EAUTH);
    key[0] ^= 1;
    assert_int_equal(slinky_workload_jwt_verify(&c, jws, key, klen, -1), SLINKY_EAUTH);
    slinky_free(key);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    slinky_workload_jwt_claims c = SLINKY_WORKLOAD_JWT_CLAIMS_INIT;
    char *jwt = NULL;
    c.issued_at = 10;
    c.expires_at = 20;
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, strlen(KEY)), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "username"));
    c.username = "u";
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, 0), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "empty"));
    c.expires_at = 5;
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, strlen(KEY)), SLINKY_EINVALID);
    c.version = 99;
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, strlen(KEY)), SLINKY_EINVALID);
    assert_int_equal(slinky_workload_jwt_claims_init(&c, 99), SLINKY_EINVALID);
    assert_null(jwt);
    /* a username needing JSON escapes stays one JSON string */
    c.version = SLINKY_WORKLOAD_JWT_CLAIMS_VERSION;
    c.expires_at = 20;
    c.username = "a\"b\\c";
    c.id = "j";
    assert_int_equal(slinky_workload_jwt_sign(&jwt, &c, KEY, strlen(KEY)), 0);
    slinky_doc *d = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&d, jwt, KEY, strlen(KEY), -1), 0);
    assert_string_equal(slinky_doc_value_path_string(slinky_doc_root(d), "sun", ""), "a\"b\\c");
    slinky_doc_free(d);
    slinky_free(jwt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),          cmocka_unit_test(test_random_jti),
        cmocka_unit_test(test_roundtrip_and_time), cmocka_unit_test(test_tampering),
        cmocka_unit_test(test_rfc7515_a1),      cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
