/*
 * workload: HS256 JSON Web Tokens (RFC 7519) as Slurm's auth/jwt reads them
 * and upstream's slurmjwt package makes them. The HMAC and the random jti
 * come from GnuTLS; this file only lays out header.payload.signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "core/internal.h"
#include "slinky/core.h"
#include "slinky/workload.h"

#define JWT_HS256_LEN 32

slinky_status slinky_workload_jwt_claims_init(slinky_workload_jwt_claims *c, unsigned int version)
{
    if (!c || version != SLINKY_WORKLOAD_JWT_CLAIMS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_workload_jwt_claims version %u",
                                 version);
    slinky_workload_jwt_claims d = SLINKY_WORKLOAD_JWT_CLAIMS_INIT;
    *c = d;
    return 0;
}

static int hmac256(unsigned char digest[JWT_HS256_LEN], const void *key, size_t key_len,
                   const char *text, size_t len)
{
    int g = gnutls_hmac_fast(GNUTLS_MAC_SHA256, key, key_len, text, len, digest);
    if (g < 0)
        return slinky__error_set(SLINKY_ERROR, "jwt: HMAC-SHA256 failed: %s", gnutls_strerror(g));
    return 0;
}

/* A random (version 4) UUID from GnuTLS's nonce generator. */
static int random_uuid(char out[37])
{
    unsigned char b[16];
    int g = gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b));
    if (g < 0)
        return slinky__error_set(SLINKY_ERROR, "jwt: random jti: %s", gnutls_strerror(g));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
    return 0;
}

/* The payload, in the member order of upstream's claims struct (golang-jwt's
 * RegisteredClaims: iss, exp, nbf, iat, jti; then Slurm's "sun"). */
static int claims_json(char **out, const slinky_workload_jwt_claims *c, const char *jti)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc < 0)
        return rc;
    slinky_doc_value *r = slinky_doc_root(d);
    if ((rc = slinky_doc_value_set_object(r)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "iss", c->issuer ? c->issuer
                                                                     : "slurm-operator")) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "exp", c->expires_at)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "nbf", c->issued_at)) < 0 ||
        (rc = slinky_doc_value_object_set_int(r, "iat", c->issued_at)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "jti", jti)) < 0 ||
        (rc = slinky_doc_value_object_set_string(r, "sun", c->username)) < 0 ||
        (rc = slinky_doc_value_dump_json(out, NULL, r, SLINKY_DOC_DUMP_COMPACT)) < 0) {
        slinky_doc_free(d);
        return rc;
    }
    slinky_doc_free(d);
    return 0;
}

static int put_b64url(slinky__buf *b, const void *data, size_t len)
{
    char *s = NULL;
    int rc = slinky_base64_encode(&s, data, len, SLINKY_BASE64_URL);
    if (rc < 0)
        return rc;
    slinky__buf_puts(b, s);
    slinky_free(s);
    return 0;
}

slinky_status slinky_workload_jwt_sign(char **out, const slinky_workload_jwt_claims *claims,
                                       const void *key, size_t key_len)
{
    if (!out || !claims || !key)
        return slinky__error_set(SLINKY_EINVALID, "jwt: sign: NULL argument");
    if (claims->version != SLINKY_WORKLOAD_JWT_CLAIMS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "unknown slinky_workload_jwt_claims version %u",
                                 claims->version);
    if (!key_len)
        return slinky__error_set(SLINKY_EINVALID, "jwt: the signing key is empty");
    if (!claims->username || !*claims->username)
        return slinky__error_set(SLINKY_EINVALID, "jwt: username (claim sun) is required");
    if (claims->expires_at < claims->issued_at)
        return slinky__error_set(SLINKY_EINVALID, "jwt: expires_at %lld is before issued_at %lld",
                                 (long long)claims->expires_at, (long long)claims->issued_at);
    char uuid[37];
    const char *jti = claims->id;
    int rc;
    if (!jti) {
        if ((rc = random_uuid(uuid)) < 0)
            return rc;
        jti = uuid;
    }
    char *payload = NULL;
    if ((rc = claims_json(&payload, claims, jti)) < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    static const char header[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
    if ((rc = put_b64url(&b, header, sizeof(header) - 1)) < 0 ||
        (slinky__buf_putc(&b, '.'), rc = put_b64url(&b, payload, strlen(payload))) < 0) {
        slinky_free(payload);
        slinky__buf_dispose(&b);
        return rc;
    }
    slinky_free(payload);
    if (b.failed) {
        slinky__buf_dispose(&b);
        return slinky__error_oom();
    }
    unsigned char mac[JWT_HS256_LEN];
    if ((rc = hmac256(mac, key, key_len, b.data, b.len)) < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    slinky__buf_putc(&b, '.');
    if ((rc = put_b64url(&b, mac, sizeof(mac))) < 0) {
        slinky__buf_dispose(&b);
        return rc;
    }
    return slinky__buf_finish(out, NULL, &b);
}

/* One base64url segment (no padding, URL alphabet only) decoded. */
static int segment(char **out, size_t *len_out, const char *s, size_t len, const char *what)
{
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return slinky__error_set(SLINKY_EPARSE,
                                     "jwt: %s: byte %zu is not in the base64url alphabet", what, i);
    }
    char *copy = slinky__strndup(s, len);
    if (!copy)
        return SLINKY_ENOMEM;
    int rc = slinky_base64_decode(out, len_out, copy, SLINKY_BASE64_URL);
    slinky_free(copy);
    if (rc < 0)
        slinky__error_prefix("jwt: %s: ", what);
    return rc;
}

static int parse_part(slinky_doc **out, const char *s, size_t len, const char *what)
{
    char *raw = NULL;
    size_t n = 0;
    int rc = segment(&raw, &n, s, len, what);
    if (rc < 0)
        return rc;
    slinky_doc *d = NULL;
    rc = slinky_doc_parse_json(&d, raw, n);
    slinky_free(raw);
    if (rc < 0) {
        slinky__error_prefix("jwt: %s: ", what);
        return rc;
    }
    if (slinky_doc_value_type(slinky_doc_root(d)) != SLINKY_DOC_OBJECT) {
        slinky_doc_free(d);
        return slinky__error_set(SLINKY_EPARSE, "jwt: %s is not a JSON object", what);
    }
    *out = d;
    return 0;
}

/* Constant-time comparison of two MACs of the same length. */
static bool mac_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static bool int_claim(int64_t *out, const slinky_doc_value *claims, const char *name)
{
    const slinky_doc_value *v = slinky_doc_value_get(claims, name);
    if (!v || !slinky_doc_value_is_number(v))
        return false;
    *out = slinky_doc_value_get_int(v);
    return true;
}

slinky_status slinky_workload_jwt_verify(slinky_doc **claims_out, const char *jwt,
                                         const void *key, size_t key_len, int64_t now)
{
    if (!claims_out || !jwt || !key)
        return slinky__error_set(SLINKY_EINVALID, "jwt: verify: NULL argument");
    if (!key_len)
        return slinky__error_set(SLINKY_EINVALID, "jwt: the signing key is empty");
    const char *d1 = strchr(jwt, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '.'))
        return slinky__error_set(SLINKY_EPARSE,
                                 "jwt: expected three dot-separated parts (header.payload.signature)");
    slinky_doc *header = NULL, *claims = NULL;
    char *sig = NULL;
    size_t sig_len = 0;
    int rc = parse_part(&header, jwt, (size_t)(d1 - jwt), "header");
    if (rc < 0)
        return rc;
    const char *alg = slinky_doc_value_path_string(slinky_doc_root(header), "alg", NULL);
    if (!alg || strcmp(alg, "HS256")) {
        rc = slinky__error_set(SLINKY_EAUTH, "jwt: header alg is %s, only HS256 is accepted",
                               alg ? alg : "(missing)");
        goto done;
    }
    if ((rc = parse_part(&claims, d1 + 1, (size_t)(d2 - d1 - 1), "payload")) < 0 ||
        (rc = segment(&sig, &sig_len, d2 + 1, strlen(d2 + 1), "signature")) < 0)
        goto done;
    unsigned char mac[JWT_HS256_LEN];
    if ((rc = hmac256(mac, key, key_len, jwt, (size_t)(d2 - jwt))) < 0)
        goto done;
    if (sig_len != sizeof(mac) || !mac_equal(mac, (const unsigned char *)sig, sizeof(mac))) {
        rc = slinky__error_set(SLINKY_EAUTH, "jwt: signature does not match the key");
        goto done;
    }
    if (now >= 0) {
        const slinky_doc_value *c = slinky_doc_root(claims);
        int64_t exp = 0, nbf = 0;
        if (!int_claim(&exp, c, "exp")) {
            rc = slinky__error_set(SLINKY_EAUTH, "jwt: no exp claim");
            goto done;
        }
        if (exp <= now) {
            rc = slinky__error_set(SLINKY_EAUTH, "jwt: expired at %lld (now %lld)",
                                   (long long)exp, (long long)now);
            goto done;
        }
        if (int_claim(&nbf, c, "nbf") && nbf > now) {
            rc = slinky__error_set(SLINKY_EAUTH, "jwt: not valid before %lld (now %lld)",
                                   (long long)nbf, (long long)now);
            goto done;
        }
    }
    *claims_out = claims;
    claims = NULL;
    rc = 0;
done:
    slinky_doc_free(header);
    slinky_doc_free(claims);
    slinky_free(sig);
    return rc;
}
