/*
 * workload: a Token's Secret (upstream internal/builder/common/token_secret.go,
 * api/v1beta1/token_keys.go, internal/controller/token/slurmjwt/token.go) and
 * when to refresh it (internal/controller/token/token_sync.go: at 80% of the
 * lifetime).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "workload/workload_internal.h"

/* Slurm's "infinite" lifetime (scontrol: INT32_MAX - 1 seconds); upstream clamps to it. */
#define SLURM_INFINITE_S ((int64_t)INT32_MAX - 1)
/* api/v1beta1/token_keys.go: Lifetime() default, SecretRef() default key */
#define TOKEN_DEFAULT_LIFETIME_S (15 * 60)
#define TOKEN_DEFAULT_KEY "SLURM_JWT"

/* --- Go durations (time.ParseDuration) ------------------------------------ */

static int unit_ns(int64_t *out, const char *u, size_t n)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {{"ns", 1},
                 {"us", 1000},
                 {"\xc2\xb5s", 1000}, /* U+00B5 micro sign */
                 {"\xce\xbcs", 1000}, /* U+03BC Greek mu */
                 {"ms", 1000000},
                 {"s", 1000000000},
                 {"m", 60LL * 1000000000},
                 {"h", 3600LL * 1000000000}};
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(units); i++)
        if (strlen(units[i].name) == n && !memcmp(units[i].name, u, n)) {
            *out = units[i].ns;
            return 0;
        }
    return -1;
}

/* Nanoseconds of a Go duration string ("15m", "1h30m", "1.5h", "-2s", "0"). */
static int parse_go_duration(int64_t *out, const char *s)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!strcmp(p, "0")) {
        *out = 0;
        return 0;
    }
    if (!*p)
        return -1;
    /* accumulate as long double-free integer math: whole part and fraction separately */
    unsigned long long total = 0;
    while (*p) {
        unsigned long long whole = 0, frac = 0, scale = 1;
        bool digits = false;
        while (*p >= '0' && *p <= '9') {
            if (whole > (ULLONG_MAX - 9) / 10)
                return -1;
            whole = whole * 10 + (unsigned)(*p++ - '0');
            digits = true;
        }
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9') {
                if (scale < 1000000000000000000ULL) {
                    frac = frac * 10 + (unsigned)(*p - '0');
                    scale *= 10;
                }
                p++;
                digits = true;
            }
        }
        if (!digits)
            return -1;
        const char *u = p;
        while (*p && *p != '.' && !(*p >= '0' && *p <= '9'))
            p++;
        int64_t ns = 0;
        if (unit_ns(&ns, u, (size_t)(p - u)))
            return -1;
        unsigned long long unit = (unsigned long long)ns;
        if (whole > (unsigned long long)INT64_MAX / unit)
            return -1;
        unsigned long long v = whole * unit;
        /* the fraction: frac/scale of a unit, rounded down as Go does */
        v += (unsigned long long)((long double)frac * (long double)unit / (long double)scale);
        if (v > (unsigned long long)INT64_MAX - total)
            return -1;
        total += v;
    }
    if (total > (unsigned long long)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)total : (int64_t)total;
    return 0;
}

slinky_status slinky_workload_token_lifetime(int64_t *out, const slinky_model_token *t)
{
    if (!out || !t)
        return slinky__error_set(SLINKY_EINVALID, "workload: token_lifetime: NULL argument");
    if (slinky_model_object_get_kind(t) != SLINKY_MODEL_KIND_TOKEN)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s is not a Token",
                                 slinky_workload__describe(t));
    const char *s = NULL;
    if (slinky_model_token_get_lifetime(&s, t) || !s) {
        *out = TOKEN_DEFAULT_LIFETIME_S;
        return 0;
    }
    int64_t ns = 0;
    if (parse_go_duration(&ns, s))
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: spec.lifetime: \"%s\" is not a duration "
                                 "(like 15m, 1h30m, 90s)",
                                 slinky_workload__describe(t), s);
    int64_t sec = ns / 1000000000;
    /* slurmjwt WithLifetime: Clamp(lifetime, 0, slurmInfinite seconds) */
    *out = sec < 0 ? 0 : sec > SLURM_INFINITE_S ? SLURM_INFINITE_S : sec;
    return 0;
}

/* --- names (api/v1beta1/token_keys.go) ------------------------------------ */

typedef struct token_refs {
    char *secret_name;   /* SecretKey(): spec.secretRef.name or <name>-jwt-<username> */
    const char *secret_key; /* SecretRef().Key: spec.secretRef.key or SLURM_JWT */
    const char *jwt_name;   /* JwtRef(): jwtKeyRef, else jwtHs256KeyRef */
    const char *jwt_key;
    const char *jwt_field;  /* the spec field that named it, for messages */
    const char *username;
} token_refs;

static int token_refs_get(token_refs *r, const slinky_model_token *t)
{
    memset(r, 0, sizeof(*r));
    const char *desc = slinky_workload__describe(t);
    if (slinky_model_token_get_username(&r->username, t) || !r->username || !*r->username)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s: spec.username is required", desc);
    if (slinky_model_token_has_jwt_key_ref(t)) {
        r->jwt_field = "spec.jwtKeyRef";
        slinky_model_token_get_jwt_key_ref_name(&r->jwt_name, t);
        slinky_model_token_get_jwt_key_ref_key(&r->jwt_key, t);
    } else if (slinky_model_token_has_jwt_hs256_key_ref(t)) {
        r->jwt_field = "spec.jwtHs256KeyRef";
        slinky_model_token_get_jwt_hs256_key_ref_name(&r->jwt_name, t);
        slinky_model_token_get_jwt_hs256_key_ref_key(&r->jwt_key, t);
    } else {
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: spec.jwtKeyRef: jwtKeyRef or jwtHs256KeyRef must "
                                 "be set",
                                 desc);
    }
    if (!r->jwt_name || !*r->jwt_name || !r->jwt_key || !*r->jwt_key)
        return slinky__error_set(SLINKY_EINVALID, "workload: %s: %s: name and key are required",
                                 desc, r->jwt_field);
    const char *sname = NULL, *skey = NULL;
    if (slinky_model_token_has_secret_ref(t)) {
        slinky_model_token_get_secret_ref_name(&sname, t);
        slinky_model_token_get_secret_ref_key(&skey, t);
        if (!sname || !*sname || !skey || !*skey)
            return slinky__error_set(SLINKY_EINVALID,
                                     "workload: %s: spec.secretRef: name and key are required",
                                     desc);
        r->secret_name = slinky__strdup(sname);
        r->secret_key = skey;
    } else {
        r->secret_name = slinky__sprintf("%s-jwt-%s", slinky_model_object_get_name(t), r->username);
        r->secret_key = TOKEN_DEFAULT_KEY;
    }
    return r->secret_name ? 0 : SLINKY_ENOMEM;
}

static bool token_refresh_on(const slinky_model_token *t)
{
    bool on = true; /* defaults.DefaultTokenRefresh */
    slinky_model_token_get_refresh(&on, t);
    return on;
}

static int token_check(const slinky_model_token *t, const slinky_workload_input *in)
{
    int rc = slinky_workload__input_check(in);
    if (rc)
        return rc;
    if (!t || slinky_model_object_get_kind(t) != SLINKY_MODEL_KIND_TOKEN)
        return slinky__error_set(SLINKY_EINVALID, "workload: expected a Token, got %s",
                                 t ? slinky_workload__describe(t) : "NULL");
    if (in->now <= 0)
        return slinky__error_set(SLINKY_EINVALID,
                                 "workload: %s: a Token needs the time (slinky_workload_input.now)",
                                 slinky_workload__describe(t));
    return 0;
}

/* The checks and names every Token entry point starts with; r->secret_name to free. */
static int token_prepare(token_refs *r, int64_t *lifetime, const slinky_model_token *t,
                         const slinky_workload_input *in)
{
    memset(r, 0, sizeof(*r));
    int rc = token_check(t, in);
    if (!rc)
        rc = token_refs_get(r, t);
    if (!rc)
        rc = slinky_workload_token_lifetime(lifetime, t);
    if (rc) {
        free(r->secret_name);
        r->secret_name = NULL;
    }
    return rc;
}

static void wipe_free(char *key, size_t len)
{
    if (key) {
        gnutls_memset(key, 0, len);
        free(key);
    }
}

/*
 * A jti unique per token and issue time, derived (SHA-256 through GnuTLS) so
 * that building twice from the same input gives the same bytes: a UUID of
 * RFC 9562 version 8 over namespace, name, uid, username and iat.
 */
static int derived_jti(char out[37], const slinky_model_token *t, const char *user, int64_t iat)
{
    const char *ns = slinky_model_object_get_namespace(t);
    const char *uid = slinky_model_object_get_uid(t);
    char *text = slinky__sprintf("slinky-token\n%s\n%s\n%s\n%s\n%lld", ns ? ns : "",
                                 slinky_model_object_get_name(t), uid ? uid : "", user,
                                 (long long)iat);
    if (!text)
        return SLINKY_ENOMEM;
    unsigned char h[32];
    int g = gnutls_hash_fast(GNUTLS_DIG_SHA256, text, strlen(text), h);
    slinky_free(text);
    if (g < 0)
        return slinky__error_set(SLINKY_ERROR, "workload: jti: %s", gnutls_strerror(g));
    h[6] = (unsigned char)((h[6] & 0x0f) | 0x80);
    h[8] = (unsigned char)((h[8] & 0x3f) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", h[0], h[1],
             h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13], h[14],
             h[15]);
    return 0;
}

slinky_status slinky_workload_token_secret(slinky_doc **out, const slinky_model_token *t,
                                           const slinky_workload_input *in)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "workload: token_secret: NULL argument");
    token_refs r;
    int64_t lifetime = 0;
    int rc = token_prepare(&r, &lifetime, t, in);
    if (rc)
        return rc;
    const slinky_model_object *jwt_secret = NULL;
    char *key = NULL, *jwt = NULL;
    size_t key_len = 0;
    slinky_doc *doc = NULL;
    slinky_doc_value *root = NULL, *meta = NULL, *sd = NULL;
    char jti[37];
    if ((rc = slinky_workload__ref(&jwt_secret, in, t, r.jwt_field, SLINKY_MODEL_KIND_SECRET,
                                   r.jwt_name)) ||
        (rc = slinky_workload__secret_value(&key, &key_len, in, t, r.jwt_field, r.jwt_name,
                                            r.jwt_key)))
        goto done;
    if (!key_len) {
        rc = slinky__error_set(SLINKY_EINVALID, "workload: %s: %s: Secret \"%s\" key \"%s\" is empty",
                               slinky_workload__describe(t), r.jwt_field, r.jwt_name, r.jwt_key);
        goto done;
    }
    slinky_workload_jwt_claims c = SLINKY_WORKLOAD_JWT_CLAIMS_INIT;
    c.username = r.username;
    c.issued_at = in->now;
    c.expires_at = in->now + lifetime;
    if ((rc = derived_jti(jti, t, r.username, in->now)))
        goto done;
    c.id = jti;
    if ((rc = slinky_workload_jwt_sign(&jwt, &c, key, key_len)))
        goto done;
    /* BuildSecret: metadata (token labels and annotations), owner = the signing key's Secret */
    const slinky_doc_value *tv = slinky_model_object_get_value(t);
    if ((rc = slinky_workload__object_new(&doc, &root, &meta, "v1", "Secret",
                                          slinky_model_object_get_namespace(t), r.secret_name)) ||
        (rc = slinky_workload__map_copy(meta, "annotations",
                                        slinky_doc_value_path(tv, "metadata.annotations"))) ||
        (rc = slinky_workload__map_copy(meta, "labels",
                                        slinky_doc_value_path(tv, "metadata.labels"))))
        goto done;
    slinky_workload__meta_prune(meta);
    if ((rc = slinky_workload__set_controller_ref(meta, jwt_secret)) ||
        (rc = slinky_doc_value_object_set_bool(root, "immutable", !token_refresh_on(t))) ||
        (rc = slinky_workload__obj(&sd, root, "stringData")) ||
        (rc = slinky_doc_value_object_set_string(sd, r.secret_key, jwt)))
        goto done;
    *out = doc;
    doc = NULL;
done:
    wipe_free(key, key_len);
    slinky_free(jwt);
    slinky_doc_free(doc);
    free(r.secret_name);
    return rc;
}

slinky_status slinky_workload_build_token(slinky_workload *into, const slinky_model_token *t,
                                          const slinky_workload_input *in)
{
    if (!into)
        return slinky__error_set(SLINKY_EINVALID, "workload: build_token: NULL argument");
    slinky_doc *doc = NULL;
    int rc = slinky_workload_token_secret(&doc, t, in);
    if (rc)
        return rc;
    return slinky_workload__push(into, doc);
}

slinky_status slinky_workload_token_secret_name(char **out, const slinky_model_token *t)
{
    if (!out || !t || slinky_model_object_get_kind(t) != SLINKY_MODEL_KIND_TOKEN)
        return slinky__error_set(SLINKY_EINVALID, "workload: token_secret_name: expected a Token");
    token_refs r;
    int rc = token_refs_get(&r, t);
    if (rc) {
        free(r.secret_name);
        return rc;
    }
    char *s = slinky__strdup(r.secret_name);
    free(r.secret_name);
    if (!s)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

/* The JWT stored in the token's Secret (data, base64, or stringData); NULL when absent. */
static char *stored_jwt(const slinky_model_object *secret, const char *key)
{
    const slinky_doc_value *root = slinky_model_object_get_value(secret);
    const char *s = slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(root, "stringData"), key));
    if (s)
        return slinky__strdup(s);
    const char *b64 = slinky_doc_value_get_string(
        slinky_doc_value_get(slinky_doc_value_get(root, "data"), key));
    char *dec = NULL;
    if (!b64 || slinky_base64_decode(&dec, NULL, b64, SLINKY_BASE64_STRICT) < 0) {
        slinky_error_clear();
        return NULL;
    }
    return dec;
}

slinky_status slinky_workload_token_refresh_time(int64_t *out, const char **reason_out,
                                                 const slinky_model_token *t,
                                                 const slinky_workload_input *in)
{
    if (!out)
        return slinky__error_set(SLINKY_EINVALID, "workload: token_refresh_time: NULL argument");
    token_refs r;
    int64_t lifetime = 0;
    int rc = token_prepare(&r, &lifetime, t, in);
    if (rc)
        return rc;
    const slinky_model_object *secret = NULL;
    char *key = NULL, *jwt = NULL;
    size_t key_len = 0;
    slinky_doc *claims = NULL;
    int64_t at = in->now;
    const char *why = NULL;
    if (slinky_workload_input_find(&secret, in, SLINKY_MODEL_KIND_SECRET,
                                   slinky_model_object_get_namespace(t), r.secret_name)) {
        slinky_error_clear();
        why = "the token Secret does not exist";
        goto decided;
    }
    if (!token_refresh_on(t)) {
        at = INT64_MAX;
        why = "spec.refresh is false";
        goto decided;
    }
    if ((rc = slinky_workload__secret_value(&key, &key_len, in, t, r.jwt_field, r.jwt_name,
                                            r.jwt_key)))
        goto done;
    if (!(jwt = stored_jwt(secret, r.secret_key))) {
        why = "the token Secret has no token under its key";
        goto decided;
    }
    if (slinky_workload_jwt_verify(&claims, jwt, key, key_len, -1)) {
        slinky_error_clear();
        why = "the stored token does not verify with the signing key";
        goto decided;
    }
    const slinky_doc_value *cv = slinky_doc_root(claims);
    const char *sun = slinky_doc_value_path_string(cv, "sun", NULL);
    const slinky_doc_value *iat = slinky_doc_value_get(cv, "iat");
    const slinky_doc_value *exp = slinky_doc_value_get(cv, "exp");
    if (!sun || strcmp(sun, r.username)) {
        why = "the stored token is for another user";
    } else if (!slinky_doc_value_is_number(iat) || !slinky_doc_value_is_number(exp)) {
        why = "the stored token has no iat or exp";
    } else if (slinky_doc_value_get_int(exp) - slinky_doc_value_get_int(iat) != lifetime) {
        why = "spec.lifetime differs from the stored token's";
    } else {
        /* token_sync.go: refreshTime = exp - Lifetime/5 */
        at = slinky_doc_value_get_int(exp) - lifetime / 5;
        why = at <= in->now ? "80% of the lifetime has passed" : "80% of the lifetime";
    }
decided:
    *out = at;
    if (reason_out)
        *reason_out = why;
    rc = 0;
done:
    wipe_free(key, key_len);
    slinky_free(jwt);
    slinky_doc_free(claims);
    free(r.secret_name);
    return rc;
}
