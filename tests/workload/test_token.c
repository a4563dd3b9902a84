/*
 * workload/token: a Token's Secret as upstream builds it
 * (../shared/upstream/slinky/src/internal/builder/common/token_secret.go,
 * common/secret.go, api/v1beta1/token_keys.go, controller/token/slurmjwt/token.go)
 * and the refresh time (controller/token/token_sync.go: exp - lifetime/5),
 * including the cases where upstream stops refreshing.
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

#define NOW 1700000000

static slinky_model_object *obj(const char *yaml)
{
    slinky_model_object *o = NULL;
    if (slinky_model_object_parse(&o, yaml, strlen(yaml)))
        fail_msg("parse: %s", slinky_error_last()->message);
    return o;
}

/* base64("s3cr3t-signing-key") */
static const char *jwt_key_yaml = "apiVersion: v1\nkind: Secret\n"
                                  "metadata: {name: jwt-key, namespace: slinky, uid: uid-jwt}\n"
                                  "data: {jwt.key: czNjcjN0LXNpZ25pbmcta2V5}\n";

static const char *token_yaml =
    "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
    "metadata: {name: slurm, namespace: slinky, uid: uid-tok, labels: {team: hpc}, "
    "annotations: {note: x}}\n"
    "spec: {username: foo, jwtKeyRef: {name: jwt-key, key: jwt.key}}\n";

typedef struct fixture {
    const slinky_model_object *objs[4];
    slinky_workload_input in;
} fixture;

static void input(fixture *f, const slinky_model_object *a, const slinky_model_object *b,
                  int64_t now)
{
    assert_int_equal(slinky_workload_input_init(&f->in, SLINKY_WORKLOAD_INPUT_VERSION), 0);
    size_t n = 0;
    if (a)
        f->objs[n++] = a;
    if (b)
        f->objs[n++] = b;
    f->in.objects = f->objs;
    f->in.object_count = n;
    f->in.now = now;
}

static slinky_doc *secret_for(const char *tyaml, const char *kyaml, int64_t now)
{
    slinky_model_object *t = obj(tyaml), *k = obj(kyaml);
    fixture f;
    input(&f, t, k, now);
    slinky_doc *d = NULL;
    if (slinky_workload_token_secret(&d, t, &f.in))
        fail_msg("token_secret: %s", slinky_error_last()->message);
    slinky_model_object_free(t);
    slinky_model_object_free(k);
    return d;
}

static const char *str(slinky_doc *d, const char *path)
{
    return slinky_doc_value_path_string(slinky_doc_root(d), path, NULL);
}

static void test_secret_fields(void **state)
{
    (void)state;
    slinky_doc *d = secret_for(token_yaml, jwt_key_yaml, NOW);
    assert_string_equal(str(d, "apiVersion"), "v1");
    assert_string_equal(str(d, "kind"), "Secret");
    /* token_keys.go SecretKey(): <name>-jwt-<username>, the Token's namespace */
    assert_string_equal(str(d, "metadata.name"), "slurm-jwt-foo");
    assert_string_equal(str(d, "metadata.namespace"), "slinky");
    /* token_secret.go: Metadata = the Token's labels and annotations */
    assert_string_equal(str(d, "metadata.labels.team"), "hpc");
    assert_string_equal(str(d, "metadata.annotations.note"), "x");
    /* secret.go: controller reference to the owner, which is the signing key's Secret */
    assert_int_equal(slinky_doc_value_size(slinky_doc_value_path(slinky_doc_root(d),
                                                                 "metadata.ownerReferences")),
                     1);
    assert_string_equal(str(d, "metadata.ownerReferences[0].apiVersion"), "v1");
    assert_string_equal(str(d, "metadata.ownerReferences[0].kind"), "Secret");
    assert_string_equal(str(d, "metadata.ownerReferences[0].name"), "jwt-key");
    assert_string_equal(str(d, "metadata.ownerReferences[0].uid"), "uid-jwt");
    assert_true(slinky_doc_value_path_bool(slinky_doc_root(d),
                                           "metadata.ownerReferences[0].controller", false));
    /* Immutable: !refresh, refresh defaulting to true */
    const slinky_doc_value *imm = slinky_doc_value_path(slinky_doc_root(d), "immutable");
    assert_int_equal(slinky_doc_value_type(imm), SLINKY_DOC_BOOL);
    assert_false(slinky_doc_value_get_bool(imm));
    /* StringData {SLURM_JWT: token} signed with the key, 15 minutes, sun = username */
    const char *jwt = str(d, "stringData.SLURM_JWT");
    assert_non_null(jwt);
    assert_null(slinky_doc_value_get(slinky_doc_root(d), "data"));
    slinky_doc *c = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, "s3cr3t-signing-key", 18, NOW), 0);
    const slinky_doc_value *cv = slinky_doc_root(c);
    assert_string_equal(slinky_doc_value_path_string(cv, "sun", ""), "foo");
    assert_string_equal(slinky_doc_value_path_string(cv, "iss", ""), "slurm-operator");
    assert_int_equal(slinky_doc_value_path_int(cv, "iat", 0), NOW);
    assert_int_equal(slinky_doc_value_path_int(cv, "nbf", 0), NOW);
    assert_int_equal(slinky_doc_value_path_int(cv, "exp", 0), NOW + 15 * 60);
    assert_int_equal(strlen(slinky_doc_value_path_string(cv, "jti", "")), 36);
    slinky_doc_free(c);
    /* the wrong key does not verify it */
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, "s3cr3t-signing-kez", 18, NOW),
                     SLINKY_EAUTH);
    slinky_doc_free(d);
}

static void test_deterministic(void **state)
{
    (void)state;
    slinky_doc *a = secret_for(token_yaml, jwt_key_yaml, NOW);
    slinky_doc *b = secret_for(token_yaml, jwt_key_yaml, NOW);
    slinky_doc *later = secret_for(token_yaml, jwt_key_yaml, NOW + 1);
    char *ja = NULL, *jb = NULL, *jl = NULL;
    assert_int_equal(slinky_doc_value_dump_json(&ja, NULL, slinky_doc_root(a), 0), 0);
    assert_int_equal(slinky_doc_value_dump_json(&jb, NULL, slinky_doc_root(b), 0), 0);
    assert_int_equal(slinky_doc_value_dump_json(&jl, NULL, slinky_doc_root(later), 0), 0);
    assert_string_equal(ja, jb);
    assert_string_not_equal(ja, jl);
    /* a new issue time gives a new jti too */
    slinky_doc *ca = NULL, *cl = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&ca, str(a, "stringData.SLURM_JWT"),
                                                "s3cr3t-signing-key", 18, -1),
                     0);
    assert_int_equal(slinky_workload_jwt_verify(&cl, str(later, "stringData.SLURM_JWT"),
                                                "s3cr3t-signing-key", 18, -1),
                     0);
    assert_string_not_equal(slinky_doc_value_path_string(slinky_doc_root(ca), "jti", ""),
                            slinky_doc_value_path_string(slinky_doc_root(cl), "jti", ""));
    slinky_doc_free(ca);
    slinky_doc_free(cl);
    slinky_free(ja);
    slinky_free(jb);
    slinky_free(jl);
    slinky_doc_free(a);
    slinky_doc_free(b);
    slinky_doc_free(later);
}

static void test_secret_ref_refresh_off_lifetime(void **state)
{
    (void)state;
    const char *t = "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
                    "metadata: {name: slurm, namespace: slinky}\n"
                    "spec: {username: bar, refresh: false, lifetime: 1h30m,\n"
                    "  secretRef: {name: my-token, key: tok},\n"
                    "  jwtHs256KeyRef: {name: jwt-key, key: jwt.key}}\n";
    slinky_doc *d = secret_for(t, jwt_key_yaml, NOW);
    assert_string_equal(str(d, "metadata.name"), "my-token");
    assert_null(slinky_doc_value_path(slinky_doc_root(d), "metadata.labels"));
    assert_true(slinky_doc_value_path_bool(slinky_doc_root(d), "immutable", false));
    const char *jwt = str(d, "stringData.tok");
    assert_non_null(jwt);
    slinky_doc *c = NULL;
    assert_int_equal(slinky_workload_jwt_verify(&c, jwt, "s3cr3t-signing-key", 18, -1), 0);
    assert_int_equal(slinky_doc_value_path_int(slinky_doc_root(c), "exp", 0), NOW + 5400);
    slinky_doc_free(c);
    slinky_doc_free(d);
}

static int64_t lifetime_of(const char *value)
{
    char y[512];
    snprintf(y, sizeof(y),
             "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\nmetadata: {name: t}\n"
             "spec: {username: u, lifetime: \"%s\", jwtKeyRef: {name: k, key: k}}\n",
             value);
    slinky_model_object *t = obj(y);
    int64_t s = -42;
    int rc = slinky_workload_token_lifetime(&s, t);
    slinky_model_object_free(t);
    return rc ? rc * 1000000LL : s;
}

static void test_lifetime(void **state)
{
    (void)state;
    assert_int_equal(lifetime_of("15m"), 900);
    assert_int_equal(lifetime_of("1h30m"), 5400);
    assert_int_equal(lifetime_of("1.5h"), 5400);
    assert_int_equal(lifetime_of("90s"), 90);
    assert_int_equal(lifetime_of("2m30.5s"), 150);
    assert_int_equal(lifetime_of("1500ms"), 1);
    assert_int_equal(lifetime_of("0"), 0);
    /* slurmjwt WithLifetime clamps to [0, MaxInt32-1 s] */
    assert_int_equal(lifetime_of("-5m"), 0);
    assert_int_equal(lifetime_of("1000000h"), 2147483646);
    assert_int_equal(lifetime_of("15"), SLINKY_EINVALID * 1000000LL);
    assert_non_null(strstr(slinky_error_last()->message, "spec.lifetime"));
    assert_int_equal(lifetime_of("abc"), SLINKY_EINVALID * 1000000LL);
    assert_int_equal(lifetime_of(""), SLINKY_EINVALID * 1000000LL);
    assert_int_equal(lifetime_of("5x"), SLINKY_EINVALID * 1000000LL);
    assert_int_equal(lifetime_of("99999999999999999999h"), SLINKY_EINVALID * 1000000LL);
    /* unset: 15 minutes (token_keys.go Lifetime()) */
    slinky_model_object *t = obj(token_yaml);
    int64_t s = 0;
    assert_int_equal(slinky_workload_token_lifetime(&s, t), 0);
    assert_int_equal(s, 900);
    slinky_model_object_free(t);
}

static void test_bad_input(void **state)
{
    (void)state;
    slinky_model_object *t = obj(token_yaml), *k = obj(jwt_key_yaml);
    fixture f;
    slinky_doc *d = NULL;
    /* the key's Secret is not in the input */
    input(&f, t, NULL, NOW);
    assert_int_equal(slinky_workload_token_secret(&d, t, &f.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "spec.jwtKeyRef"));
    /* no time */
    input(&f, t, k, 0);
    assert_int_equal(slinky_workload_token_secret(&d, t, &f.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "now"));
    /* the Secret lacks the key */
    slinky_model_object *k2 = obj("apiVersion: v1\nkind: Secret\n"
                                  "metadata: {name: jwt-key, namespace: slinky, uid: u}\n"
                                  "data: {other: eA==}\n");
    input(&f, t, k2, NOW);
    assert_int_equal(slinky_workload_token_secret(&d, t, &f.in), SLINKY_ENOTFOUND);
    assert_non_null(strstr(slinky_error_last()->message, "jwt.key"));
    /* the owner needs a uid */
    slinky_model_object *k3 = obj("apiVersion: v1\nkind: Secret\n"
                                  "metadata: {name: jwt-key, namespace: slinky}\n"
                                  "data: {jwt.key: eA==}\n");
    input(&f, t, k3, NOW);
    assert_int_equal(slinky_workload_token_secret(&d, t, &f.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "uid"));
    /* no key reference at all */
    slinky_model_object *t2 = obj("apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
                                  "metadata: {name: t, namespace: slinky}\nspec: {username: u}\n");
    input(&f, t2, k, NOW);
    assert_int_equal(slinky_workload_token_secret(&d, t2, &f.in), SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "jwtKeyRef"));
    /* not a Token */
    input(&f, k, NULL, NOW);
    assert_int_equal(slinky_workload_token_secret(&d, k, &f.in), SLINKY_EINVALID);
    /* nothing was appended to a set on failure */
    slinky_workload *w = NULL;
    assert_int_equal(slinky_workload_new(&w), 0);
    input(&f, t, NULL, NOW);
    assert_int_equal(slinky_workload_build_token(w, t, &f.in), SLINKY_ENOTFOUND);
    assert_int_equal(slinky_workload_count(w), 0);
    input(&f, t, k, NOW);
    assert_int_equal(slinky_workload_build_token(w, t, &f.in), 0);
    assert_int_equal(slinky_workload_count(w), 1);
    assert_string_equal(slinky_workload_name_at(w, 0), "slurm-jwt-foo");
    slinky_workload_free(w);
    assert_null(d);
    slinky_model_object_free(t);
    slinky_model_object_free(t2);
    slinky_model_object_free(k);
    slinky_model_object_free(k2);
    slinky_model_object_free(k3);
}

/* The built Secret as the API server would store it: stringData moved into data (base64). */
static slinky_model_object *as_live(slinky_doc *d)
{
    slinky_doc_value *root = slinky_doc_root(d);
    slinky_doc_value *sd = slinky_doc_value_get(root, "stringData");
    slinky_doc_value *data = NULL;
    assert_int_equal(slinky_doc_value_object_put(&data, root, "data"), 0);
    assert_int_equal(slinky_doc_value_set_object(data), 0);
    for (size_t i = 0; i < slinky_doc_value_size(sd); i++) {
        const char *v = slinky_doc_value_get_string(slinky_doc_value_member_at(sd, i));
        char *b = NULL;
        assert_int_equal(slinky_base64_encode(&b, v, strlen(v), 0), 0);
        assert_int_equal(slinky_doc_value_object_set_string(data, slinky_doc_value_key_at(sd, i), b),
                         0);
        slinky_free(b);
    }
    assert_int_equal(slinky_doc_value_object_remove(root, "stringData"), 0);
    slinky_model_object *o = NULL;
    assert_int_equal(slinky_model_object_new_from_value(&o, root), 0);
    return o;
}

static int64_t refresh_at(const slinky_model_object *t, const slinky_model_object *k,
                          const slinky_model_object *live, int64_t now, const char **why)
{
    fixture f;
    input(&f, t, k, now);
    if (live)
        f.objs[f.in.object_count++] = live;
    int64_t at = -1;
    *why = NULL;
    if (slinky_workload_token_refresh_time(&at, why, t, &f.in))
        fail_msg("refresh_time: %s", slinky_error_last()->message);
    assert_non_null(*why);
    return at;
}

static void test_refresh_time(void **state)
{
    (void)state;
    slinky_model_object *t = obj(token_yaml), *k = obj(jwt_key_yaml);
    const char *why = NULL;
    /* no Secret yet: build now */
    assert_int_equal(refresh_at(t, k, NULL, NOW, &why), NOW);
    assert_non_null(strstr(why, "does not exist"));
    /* a fresh token: exp - lifetime/5 = iat + 720 s */
    slinky_doc *d = secret_for(token_yaml, jwt_key_yaml, NOW);
    slinky_model_object *live = as_live(d);
    slinky_doc_free(d);
    assert_int_equal(refresh_at(t, k, live, NOW + 100, &why), NOW + 720);
    assert_int_equal(refresh_at(t, k, live, NOW + 720, &why), NOW + 720);
    assert_non_null(strstr(why, "has passed"));
    /* long expired: still the same time (<= now), i.e. refresh */
    assert_true(refresh_at(t, k, live, NOW + 100000, &why) <= NOW + 100000);
    /* upstream gets stuck on these: a rotated signing key, a token for another user,
     * another lifetime; here they all mean "refresh now" */
    slinky_model_object *rotated = obj("apiVersion: v1\nkind: Secret\n"
                                       "metadata: {name: jwt-key, namespace: slinky, uid: uid-jwt}\n"
                                       "data: {jwt.key: bmV3LWtleQ==}\n");
    assert_int_equal(refresh_at(t, rotated, live, NOW + 100, &why), NOW + 100);
    assert_non_null(strstr(why, "does not verify"));
    slinky_model_object *t_user = obj(
        "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
        "metadata: {name: slurm, namespace: slinky}\n"
        "spec: {username: foo, lifetime: 1h, jwtKeyRef: {name: jwt-key, key: jwt.key}}\n");
    assert_int_equal(refresh_at(t_user, k, live, NOW + 100, &why), NOW + 100);
    assert_non_null(strstr(why, "lifetime"));
    slinky_model_object *t_sec = obj(
        "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
        "metadata: {name: other, namespace: slinky}\n"
        "spec: {username: bar, secretRef: {name: slurm-jwt-foo, key: SLURM_JWT},"
        " jwtKeyRef: {name: jwt-key, key: jwt.key}}\n");
    assert_int_equal(refresh_at(t_sec, k, live, NOW + 100, &why), NOW + 100);
    assert_non_null(strstr(why, "another user"));
    /* a Secret without the key */
    slinky_model_object *t_key = obj(
        "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
        "metadata: {name: slurm, namespace: slinky}\n"
        "spec: {username: foo, secretRef: {name: slurm-jwt-foo, key: NOPE},"
        " jwtKeyRef: {name: jwt-key, key: jwt.key}}\n");
    assert_int_equal(refresh_at(t_key, k, live, NOW + 100, &why), NOW + 100);
    assert_non_null(strstr(why, "no token"));
    /* refresh false: never, once it exists */
    slinky_model_object *t_off = obj(
        "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
        "metadata: {name: slurm, namespace: slinky}\n"
        "spec: {username: foo, refresh: false, jwtKeyRef: {name: jwt-key, key: jwt.key}}\n");
    assert_int_equal(refresh_at(t_off, k, live, NOW + 100000, &why), INT64_MAX);
    assert_int_equal(refresh_at(t_off, k, NULL, NOW, &why), NOW);
    /* the signing key missing is an error, not a refresh */
    fixture f;
    input(&f, t, live, NOW);
    int64_t at = 7;
    assert_int_equal(slinky_workload_token_refresh_time(&at, NULL, t, &f.in), SLINKY_ENOTFOUND);
    assert_int_equal(at, 7);
    slinky_model_object_free(t);
    slinky_model_object_free(k);
    slinky_model_object_free(live);
    slinky_model_object_free(rotated);
    slinky_model_object_free(t_user);
    slinky_model_object_free(t_sec);
    slinky_model_object_free(t_key);
    slinky_model_object_free(t_off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_fields),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_secret_ref_refresh_off_lifetime),
        cmocka_unit_test(test_lifetime),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_refresh_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
