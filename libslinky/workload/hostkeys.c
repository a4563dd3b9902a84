/*
 * workload: SSH key pairs for a LoginSet's sshd. GnuTLS generates the keys
 * (RSA, ECDSA on NIST P-256/384/521, Ed25519) and exports their raw
 * parameters; this file lays them out the way upstream's crypto.KeyPair
 * writes them: the private key in OpenSSH's own container
 * ("openssh-key-v1", unencrypted, empty comment; PROTOCOL.key in OpenSSH),
 * wrapped as PEM at 64 columns, and the public key as an authorized_keys
 * line "TYPE BASE64\n".
 */
#include <stdlib.h>
#include <string.h>

#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "core/internal.h"
#include "slinky/core.h"
#include "slinky/workload.h"

/* --- SSH wire encoding (RFC 4251 section 5) ---------------------------- */

static void put_u32(slinky__buf *b, uint32_t v)
{
    unsigned char p[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    slinky__buf_put(b, p, 4);
}

static void put_string(slinky__buf *b, const void *data, size_t len)
{
    put_u32(b, (uint32_t)len);
    if (len)
        slinky__buf_put(b, data, len);
}

static void put_cstring(slinky__buf *b, const char *s)
{
    put_string(b, s, strlen(s));
}

/* mpint: two's complement big-endian, minimal, a 0 byte before a set top bit. */
static void put_mpint(slinky__buf *b, const gnutls_datum_t *d)
{
    const unsigned char *p = d->data;
    size_t n = d->size;
    while (n && !*p) {
        p++;
        n--;
    }
    bool pad = n && (p[0] & 0x80);
    put_u32(b, (uint32_t)(n + pad));
    if (pad)
        slinky__buf_putc(b, 0);
    if (n)
        slinky__buf_put(b, p, n);
}

/* A fixed-width big-endian field element (ECDSA point coordinates). */
static void put_fixed(slinky__buf *b, const gnutls_datum_t *d, size_t width)
{
    const unsigned char *p = d->data;
    size_t n = d->size;
    while (n > width && !*p) {
        p++;
        n--;
    }
    for (size_t i = n; i < width; i++)
        slinky__buf_putc(b, 0);
    slinky__buf_put(b, p, n);
}

/* --- key generation ------------------------------------------------------ */

typedef struct key_parts {
    gnutls_datum_t a[8]; /* RSA: m e d p q u e1 e2; EC: x y k */
    gnutls_ecc_curve_t curve;
} key_parts;

static void parts_free(key_parts *k)
{
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(k->a); i++) {
        if (k->a[i].data) {
            gnutls_memset(k->a[i].data, 0, k->a[i].size);
            gnutls_free(k->a[i].data);
        }
        k->a[i].data = NULL;
    }
}

static int gnutls_fail(int g, const char *what)
{
    return slinky__error_set(SLINKY_ERROR, "ssh keygen: %s: %s", what, gnutls_strerror(g));
}

static const char *curve_ssh_name(unsigned bits, size_t *width_out,
                                  gnutls_ecc_curve_t *curve_out)
{
    switch (bits) {
    case 256:
        *width_out = 32;
        *curve_out = GNUTLS_ECC_CURVE_SECP256R1;
        return "nistp256";
    case 384:
        *width_out = 48;
        *curve_out = GNUTLS_ECC_CURVE_SECP384R1;
        return "nistp384";
    case 521:
        *width_out = 66;
        *curve_out = GNUTLS_ECC_CURVE_SECP521R1;
        return "nistp521";
    default:
        return NULL;
    }
}

/* Both blobs (public, and the private fields after the key type) of a new key. */
static int generate(slinky__buf *pub, slinky__buf *priv, const char **type_out,
                    slinky_workload_ssh_key_type type, unsigned bits)
{
    gnutls_privkey_t key = NULL;
    key_parts k;
    memset(&k, 0, sizeof(k));
    int g = gnutls_privkey_init(&key);
    if (g < 0)
        return gnutls_fail(g, "init");
    int rc = 0;
    if (type == SLINKY_WORKLOAD_SSH_KEY_RSA) {
        if ((g = gnutls_privkey_generate2(key, GNUTLS_PK_RSA, bits, 0, NULL, 0)) < 0 ||
            (g = gnutls_privkey_verify_params(key)) < 0 ||
            (g = gnutls_privkey_export_rsa_raw2(key, &k.a[0], &k.a[1], &k.a[2], &k.a[3],
                                                &k.a[4], &k.a[5], &k.a[6], &k.a[7],
                                                GNUTLS_EXPORT_FLAG_NO_LZ)) < 0) {
            rc = gnutls_fail(g, "RSA");
            goto done;
        }
        /* public: e, n; private: n e d iqmp p q (GnuTLS's coefficient is q^-1 mod p, as
         * OpenSSH's iqmp) */
        *type_out = "ssh-rsa";
        put_cstring(pub, "ssh-rsa");
        put_mpint(pub, &k.a[1]);
        put_mpint(pub, &k.a[0]);
        put_mpint(priv, &k.a[0]);
        put_mpint(priv, &k.a[1]);
        put_mpint(priv, &k.a[2]);
        put_mpint(priv, &k.a[5]);
        put_mpint(priv, &k.a[3]);
        put_mpint(priv, &k.a[4]);
    } else if (type == SLINKY_WORKLOAD_SSH_KEY_ECDSA) {
        size_t width = 0;
        gnutls_ecc_curve_t curve = GNUTLS_ECC_CURVE_INVALID;
        const char *cname = curve_ssh_name(bits, &width, &curve);
        if ((g = gnutls_privkey_generate2(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(curve), 0,
                                          NULL, 0)) < 0 ||
            (g = gnutls_privkey_verify_params(key)) < 0 ||
            (g = gnutls_privkey_export_ecc_raw2(key, &k.curve, &k.a[0], &k.a[1], &k.a[2],
                                                GNUTLS_EXPORT_FLAG_NO_LZ)) < 0) {
            rc = gnutls_fail(g, "ECDSA");
            goto done;
        }
        if (k.a[0].size > width || k.a[1].size > width) {
            rc = slinky__error_set(SLINKY_ERROR, "ssh keygen: ECDSA point wider than the curve");
            goto done;
        }
        *type_out = bits == 256 ? "ecdsa-sha2-nistp256"
                    : bits == 384 ? "ecdsa-sha2-nistp384"
                                  : "ecdsa-sha2-nistp521";
        /* Q: uncompressed point 04 || X || Y */
        slinky__buf q = SLINKY__BUF_INIT;
        slinky__buf_putc(&q, 4);
        put_fixed(&q, &k.a[0], width);
        put_fixed(&q, &k.a[1], width);
        if (q.failed) {
            slinky__buf_dispose(&q);
            rc = slinky__error_oom();
            goto done;
        }
        put_cstring(pub, *type_out);
        put_cstring(pub, cname);
        put_string(pub, q.data, q.len);
        put_cstring(priv, cname);
        put_string(priv, q.data, q.len);
        put_mpint(priv, &k.a[2]);
        slinky__buf_dispose(&q);
    } else {
        if ((g = gnutls_privkey_generate2(key, GNUTLS_PK_EDDSA_ED25519,
                                          GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_ED25519), 0,
                                          NULL, 0)) < 0 ||
            (g = gnutls_privkey_export_ecc_raw2(key, &k.curve, &k.a[0], &k.a[1], &k.a[2], 0)) <
                0) {
            rc = gnutls_fail(g, "Ed25519");
            goto done;
        }
        if (k.a[0].size != 32 || k.a[2].size != 32) {
            rc = slinky__error_set(SLINKY_ERROR,
                                   "ssh keygen: Ed25519 key of %u/%u bytes, expected 32/32",
                                   k.a[0].size, k.a[2].size);
            goto done;
        }
        /* public: the 32-byte point; private: point, then seed || point (64 bytes) */
        *type_out = "ssh-ed25519";
        put_cstring(pub, "ssh-ed25519");
        put_string(pub, k.a[0].data, 32);
        put_string(priv, k.a[0].data, 32);
        put_u32(priv, 64);
        slinky__buf_put(priv, k.a[2].data, 32);
        slinky__buf_put(priv, k.a[0].data, 32);
    }
done:
    parts_free(&k);
    gnutls_privkey_deinit(key);
    return rc;
}

/* --- the OpenSSH private key container ----------------------------------- */

static int container(slinky__buf *out, const slinky__buf *pub, const slinky__buf *fields,
                     const char *type)
{
    uint32_t check = 0;
    int g = gnutls_rnd(GNUTLS_RND_NONCE, &check, sizeof(check));
    if (g < 0)
        return gnutls_fail(g, "random check value");
    slinky__buf sec = SLINKY__BUF_INIT;
    put_u32(&sec, check);
    put_u32(&sec, check);
    put_cstring(&sec, type);
    slinky__buf_put(&sec, fields->data, fields->len);
    put_cstring(&sec, ""); /* comment */
    for (unsigned char pad = 1; sec.len % 8; pad++)
        slinky__buf_putc(&sec, (char)pad);
    static const char magic[] = "openssh-key-v1";
    slinky__buf_put(out, magic, sizeof(magic)); /* with its NUL */
    put_cstring(out, "none");                   /* cipher */
    put_cstring(out, "none");                   /* kdf */
    put_cstring(out, "");                       /* kdf options */
    put_u32(out, 1);                            /* number of keys */
    put_string(out, pub->data, pub->len);
    put_string(out, sec.data, sec.len);
    if (sec.data)
        gnutls_memset(sec.data, 0, sec.cap);
    int failed = sec.failed;
    slinky__buf_dispose(&sec);
    return failed ? slinky__error_oom() : 0;
}

static int pem(char **out, const slinky__buf *der)
{
    char *b64 = NULL;
    int rc = slinky_base64_encode(&b64, der->data, der->len, SLINKY_BASE64_DEFAULT);
    if (rc < 0)
        return rc;
    slinky__buf b = SLINKY__BUF_INIT;
    slinky__buf_puts(&b, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    size_t n = strlen(b64);
    for (size_t i = 0; i < n; i += 64) {
        slinky__buf_put(&b, b64 + i, n - i < 64 ? n - i : 64);
        slinky__buf_putc(&b, '\n');
    }
    slinky__buf_puts(&b, "-----END OPENSSH PRIVATE KEY-----\n");
    gnutls_memset(b64, 0, n);
    slinky_free(b64);
    return slinky__buf_finish(out, NULL, &b);
}

static void wipe(slinky__buf *b)
{
    if (b->data)
        gnutls_memset(b->data, 0, b->cap);
    slinky__buf_dispose(b);
}

slinky_status slinky_workload_ssh_keygen(char **private_out, char **public_out,
                                         slinky_workload_ssh_key_type type, unsigned int bits)
{
    if (!private_out || !public_out)
        return slinky__error_set(SLINKY_EINVALID, "ssh keygen: NULL argument");
    switch (type) {
    case SLINKY_WORKLOAD_SSH_KEY_RSA:
        if (!bits)
            bits = SLINKY_WORKLOAD_SSH_RSA_DEFAULT_BITS;
        if (bits < 2048 || bits > 16384)
            return slinky__error_set(SLINKY_EINVALID,
                                     "ssh keygen: RSA needs 2048 to 16384 bits, not %u", bits);
        break;
    case SLINKY_WORKLOAD_SSH_KEY_ECDSA: {
        size_t w;
        gnutls_ecc_curve_t c;
        if (!bits)
            bits = 256;
        if (!curve_ssh_name(bits, &w, &c))
            return slinky__error_set(SLINKY_EINVALID,
                                     "ssh keygen: ECDSA bits must be 256, 384 or 521, not %u",
                                     bits);
        break;
    }
    case SLINKY_WORKLOAD_SSH_KEY_ED25519:
        if (bits && bits != 256)
            return slinky__error_set(SLINKY_EINVALID, "ssh keygen: Ed25519 has 256 bits, not %u",
                                     bits);
        break;
    default:
        return slinky__error_set(SLINKY_EINVALID, "ssh keygen: unknown key type %d", (int)type);
    }
    slinky__buf pub = SLINKY__BUF_INIT, fields = SLINKY__BUF_INIT, der = SLINKY__BUF_INIT;
    const char *tname = NULL;
    char *priv_pem = NULL, *pub_b64 = NULL;
    int rc = generate(&pub, &fields, &tname, type, bits);
    if (rc == 0 && (pub.failed || fields.failed))
        rc = slinky__error_oom();
    if (rc == 0)
        rc = container(&der, &pub, &fields, tname);
    if (rc == 0 && der.failed)
        rc = slinky__error_oom();
    if (rc == 0)
        rc = pem(&priv_pem, &der);
    if (rc == 0)
        rc = slinky_base64_encode(&pub_b64, pub.data, pub.len, SLINKY_BASE64_DEFAULT);
    char *line = NULL;
    if (rc == 0 && !(line = slinky__sprintf("%s %s\n", tname, pub_b64)))
        rc = SLINKY_ENOMEM;
    slinky_free(pub_b64);
    slinky__buf_dispose(&pub);
    wipe(&fields);
    wipe(&der);
    if (rc < 0) {
        if (priv_pem) {
            gnutls_memset(priv_pem, 0, strlen(priv_pem));
            slinky_free(priv_pem);
        }
        return rc;
    }
    *private_out = priv_pem;
    *public_out = line;
    return 0;
}

const char *slinky_workload_ssh_key_type_name(slinky_workload_ssh_key_type type)
{
    switch (type) {
    case SLINKY_WORKLOAD_SSH_KEY_ED25519:
        return "ed25519";
    case SLINKY_WORKLOAD_SSH_KEY_RSA:
        return "rsa";
    case SLINKY_WORKLOAD_SSH_KEY_ECDSA:
        return "ecdsa";
    }
    return NULL;
}
