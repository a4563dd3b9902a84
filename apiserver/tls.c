/* A throwaway CA and a serving certificate (127.0.0.1, localhost), via GnuTLS. */
#include "base.h"
#include "tls.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        int _r = (x);                                                                     \
        if (_r < 0) {                                                                     \
            rc = slinky_error_set(SLINKY_ERROR, "%s: %s", #x, gnutls_strerror(_r));      \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

static int set_common(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, const char *cn)
{
    unsigned char serial[16];
    int r = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
    if (r < 0)
        return r;
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    time_t now = time(NULL);
    if ((r = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
        (r = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
        (r = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
        (r = gnutls_x509_crt_set_expiration_time(crt, now + 3650L * 86400)) < 0 ||
        (r = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                           (unsigned)strlen(cn))) < 0 ||
        (r = gnutls_x509_crt_set_key(crt, key)) < 0)
        return r;
    unsigned char id[64];
    size_t idlen = sizeof(id);
    if ((r = gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA1, id, &idlen)) < 0)
        return r;
    return gnutls_x509_crt_set_subject_key_id(crt, id, idlen);
}

static char *export_crt(gnutls_x509_crt_t crt)
{
    gnutls_datum_t d = {0};
    if (gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d) < 0)
        return NULL;
    char *s = as_strndup((const char *)d.data, d.size);
    gnutls_free(d.data);
    return s;
}

int as_tls_generate(char **ca_pem, char **cert_pem, char **key_pem)
{
    int rc = 0;
    gnutls_x509_privkey_t cakey = NULL, key = NULL;
    gnutls_x509_crt_t ca = NULL, crt = NULL;
    char *a = NULL, *b = NULL, *c = NULL;
    unsigned bits = GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1);

    CHECK(gnutls_x509_privkey_init(&cakey));
    CHECK(gnutls_x509_privkey_generate(cakey, GNUTLS_PK_ECDSA, bits, 0));
    CHECK(gnutls_x509_crt_init(&ca));
    CHECK(set_common(ca, cakey, "slinky-apiserver-ca"));
    CHECK(gnutls_x509_crt_set_basic_constraints(ca, 1, -1));
    CHECK(gnutls_x509_crt_set_key_usage(ca, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
                                                GNUTLS_KEY_DIGITAL_SIGNATURE));
    CHECK(gnutls_x509_crt_sign2(ca, ca, cakey, GNUTLS_DIG_SHA256, 0));

    CHECK(gnutls_x509_privkey_init(&key));
    CHECK(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, bits, 0));
    CHECK(gnutls_x509_crt_init(&crt));
    CHECK(set_common(crt, key, "localhost"));
    CHECK(gnutls_x509_crt_set_basic_constraints(crt, 0, -1));
    CHECK(gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
                                                 GNUTLS_KEY_KEY_ENCIPHERMENT));
    CHECK(gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0));
    CHECK(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost", 9,
                                               GNUTLS_FSAN_APPEND));
    {
        static const unsigned char ip[4] = {127, 0, 0, 1};
        CHECK(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4,
                                                   GNUTLS_FSAN_APPEND));
    }
    {
        unsigned char id[64];
        size_t idlen = sizeof(id);
        CHECK(gnutls_x509_crt_get_subject_key_id(ca, id, &idlen, NULL));
        CHECK(gnutls_x509_crt_set_authority_key_id(crt, id, idlen));
    }
    CHECK(gnutls_x509_crt_sign2(crt, ca, cakey, GNUTLS_DIG_SHA256, 0));

    a = export_crt(ca);
    b = export_crt(crt);
    {
        gnutls_datum_t d = {0};
        CHECK(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d));
        c = as_strndup((const char *)d.data, d.size);
        gnutls_free(d.data);
    }
    if (!a || !b || !c) {
        rc = slinky_error_set(SLINKY_ERROR, "exporting the generated certificates failed");
        goto done;
    }
    *ca_pem = a;
    *cert_pem = b;
    *key_pem = c;
    a = b = c = NULL;
done:
    free(a);
    free(b);
    free(c);
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (ca)
        gnutls_x509_crt_deinit(ca);
    if (key)
        gnutls_x509_privkey_deinit(key);
    if (cakey)
        gnutls_x509_privkey_deinit(cakey);
    return rc;
}
