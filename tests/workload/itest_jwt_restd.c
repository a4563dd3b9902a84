/*
 * workload/jwt_restd (integration): the JWT in a Token's Secret, built by
 * the library from a Token and the Secret with the cluster's signing key:
 *   - verifies with a second implementation (python3's hmac, hashlib and
 *     base64 from the standard library), claims included (needs no Slurm);
 *   - is accepted by the real slurmrestd 24.11 (Debian 13 chroot,
 *     tests/harness/slurm24.sh up restd, whose AuthAltParameters jwt_key is
 *     the key used here) on GET /slurm/v0.0.40/ping with X-SLURM-USER-TOKEN;
 *   - a token signed with another key, and an expired one, are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/itest_util.h"
#include "slinky.h"

static char WORK[64];
static char H[1024];
static char KEYFILE[1024]; /* the cluster's jwt_hs256.key, host path */
static char RESTD[256];
static int up;

static const char *chroot_dir(void)
{
    const char *r = getenv("SLURM24_ROOT");
    return r && *r ? r : "/var/cache/slinky/trixie";
}

static char *env_value(const char *env, const char *name)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "export %s=", name);
    const char *p = strstr(env, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    return strndup(p, strcspn(p, "\n"));
}

static int setup(void **state)
{
    (void)state;
    snprintf(H, sizeof(H), "%s/tests/harness", getenv("SLINKY_SOURCE_DIR"));
    snprintf(WORK, sizeof(WORK), "/tmp/itest-jwt.XXXXXX");
    return mkdtemp(WORK) ? 0 : -1;
}

/* slurm24.sh up restd: the cluster whose jwt_hs256.key signs our tokens. */
static void cluster_up(void)
{
    char *env = capture("%s/slurm24.sh up restd 2>%s/up.log", H, WORK);
    char *dir = env_value(env, "SLURM24_DIR"), *restd = env_value(env, "SLURM24_RESTD");
    free(env);
    if (!dir || !restd) {
        sh("tail -20 %s/up.log >&2", WORK);
        fail_msg("slurm24.sh up restd failed");
    }
    up = 1;
    setenv("SLURM24_DIR", dir, 1);
    snprintf(KEYFILE, sizeof(KEYFILE), "%s%s/etc/jwt_hs256.key", chroot_dir(), dir);
    snprintf(RESTD, sizeof(RESTD), "%s", restd);
    free(dir);
    free(restd);
}

static int teardown(void **state)
{
    (void)state;
    if (up)
        sh("%s/slurm24.sh down >/dev/null 2>&1", H);
    sh("rm -rf %s", WORK);
    return 0;
}

/* The Token's Secret built with `key_b64` as the jwt key Secret's data; the JWT (free()). */
static char *token_jwt(const char *key_b64, int64_t now, const char *lifetime)
{
    char ty[1024], ky[4096];
    snprintf(ty, sizeof(ty),
             "apiVersion: slinky.slurm.net/v1beta1\nkind: Token\n"
             "metadata: {name: restd, namespace: slinky, uid: t-1}\n"
             "spec: {username: root, lifetime: \"%s\", jwtKeyRef: {name: slurm-jwt, key: jwt.key}}\n",
             lifetime);
    snprintf(ky, sizeof(ky),
             "apiVersion: v1\nkind: Secret\nmetadata: {name: slurm-jwt, namespace: slinky, uid: s-1}\n"
             "data: {jwt.key: \"%s\"}\n",
             key_b64);
    slinky_model_object *t = NULL, *k = NULL;
    assert_int_equal(slinky_model_object_parse(&t, ty, strlen(ty)), 0);
    assert_int_equal(slinky_model_object_parse(&k, ky, strlen(ky)), 0);
    const slinky_model_object *objs[] = {t, k};
    slinky_workload_input in;
    assert_int_equal(slinky_workload_input_init(&in, SLINKY_WORKLOAD_INPUT_VERSION), 0);
    in.objects = objs;
    in.object_count = 2;
    in.now = now;
    slinky_doc *d = NULL;
    if (slinky_workload_token_secret(&d, t, &in))
        fail_msg("token secret: %s", slinky_error_last()->message);
    char *jwt = strdup(slinky_doc_value_path_string(slinky_doc_root(d), "stringData.SLURM_JWT", ""));
    slinky_doc_free(d);
    slinky_model_object_free(t);
    slinky_model_object_free(k);
    return jwt;
}

static char *cluster_key_b64(void)
{
    char *raw = NULL, *b64 = NULL;
    size_t n = 0;
    FILE *f = fopen(KEYFILE, "rb");
    assert_non_null(f);
    raw = malloc(4096);
    n = fread(raw, 1, 4096, f);
    fclose(f);
    assert_true(n > 0);
    assert_int_equal(slinky_base64_encode(&b64, raw, n, 0), 0);
    free(raw);
    return b64;
}

static void test_python_verifies(void **state)
{
    (void)state;
    /* a key of its own (the second implementation needs no Slurm) */
    snprintf(KEYFILE, sizeof(KEYFILE), "%s/own.key", WORK);
    assert_int_equal(sh("head -c 48 /dev/urandom > %s", KEYFILE), 0);
    char *key = cluster_key_b64();
    int64_t now = time(NULL);
    char *jwt = token_jwt(key, now, "10m");
    static const char py[] =
        "import base64, hashlib, hmac, json, sys\n"
        "tok, keyfile, now = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
        "key = open(keyfile, 'rb').read()\n"
        "h, p, s = tok.split('.')\n"
        "def d(x): return base64.urlsafe_b64decode(x + '=' * (-len(x) % 4))\n"
        "want = hmac.new(key, (h + '.' + p).encode(), hashlib.sha256).digest()\n"
        "assert hmac.compare_digest(want, d(s)), 'signature'\n"
        "assert '=' not in tok\n"
        "hd = json.loads(d(h)); c = json.loads(d(p))\n"
        "assert hd == {'alg': 'HS256', 'typ': 'JWT'}, hd\n"
        "assert list(c) == ['iss', 'exp', 'nbf', 'iat', 'jti', 'sun'], list(c)\n"
        "assert c['sun'] == 'root' and c['iss'] == 'slurm-operator'\n"
        "assert c['iat'] == now == c['nbf'] and c['exp'] == now + 600, c\n"
        "print('ok')\n";
    char path[128];
    snprintf(path, sizeof(path), "%s/verify.py", WORK);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(py, f);
    fclose(f);
    char *out = capture("/usr/bin/python3 %s '%s' '%s' %lld 2>&1", path, jwt, KEYFILE,
                        (long long)now);
    assert_string_equal(out, "ok\n");
    free(out);
    /* the same script refuses a token signed with another key */
    char *other = token_jwt("b3RoZXIta2V5", now, "10m");
    out = capture("/usr/bin/python3 %s '%s' '%s' %lld 2>&1", path, other, KEYFILE, (long long)now);
    assert_non_null(strstr(out, "signature"));
    free(out);
    free(other);
    free(jwt);
    slinky_free(key);
}

static char *ping(const char *jwt)
{
    return capture("curl -s -m 10 -o %s/ping.out -w '%%{http_code}' -H 'X-SLURM-USER-TOKEN: %s' "
                   "%s/slurm/v0.0.40/ping; echo; cat %s/ping.out",
                   WORK, jwt, RESTD, WORK);
}

/* slurmrestd answers 200 either way; slurmctld's verdict on the forwarded token is "pinged" */
static bool pinged_up(const char *out)
{
    return !strncmp(out, "200\n", 4) && strstr(out, "\"pinged\": \"UP\"");
}

static void test_slurmrestd_accepts(void **state)
{
    (void)state;
    cluster_up();
    char *key = cluster_key_b64();
    int64_t now = time(NULL);
    char *jwt = token_jwt(key, now, "15m");
    char *out = ping(jwt);
    if (!pinged_up(out))
        fail_msg("slurmrestd refused our token:\n%s", out);
    free(out);
    free(jwt);
    /* another key: refused */
    jwt = token_jwt("b3RoZXIta2V5", now, "15m");
    out = ping(jwt);
    if (pinged_up(out))
        fail_msg("slurmrestd accepted a token signed with another key:\n%s", out);
    free(out);
    free(jwt);
    /* expired an hour ago: refused */
    jwt = token_jwt(key, now - 7200, "1h");
    out = ping(jwt);
    if (pinged_up(out))
        fail_msg("slurmrestd accepted an expired token:\n%s", out);
    free(out);
    free(jwt);
    slinky_free(key);
    /* and it was slurmctld's auth/jwt that refused them */
    out = capture("grep -c 'auth_p_verify' %s%s/log/slurmctld.log", chroot_dir(),
                  getenv("SLURM24_DIR"));
    assert_true(atoi(out) >= 1);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_verifies),
        cmocka_unit_test(test_slurmrestd_accepts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
