/*
 * workload/hostkeys: SSH key pairs as upstream's crypto.KeyPair writes them
 * (../shared/upstream/slinky/src/internal/utils/crypto/keypair.go: OpenSSH
 * private key PEM via ssh.MarshalPrivateKey, authorized_keys public line via
 * ssh.MarshalAuthorizedKey). The private container is read back field by
 * field (OpenSSH PROTOCOL.key) and its public blob compared with the public
 * line. sshd itself loads the keys in workload/sshd (integration).
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

typedef struct rd {
    const unsigned char *p;
    size_t n;
} rd;

static uint32_t u32(rd *r)
{
    assert_true(r->n >= 4);
    uint32_t v = ((uint32_t)r->p[0] << 24) | ((uint32_t)r->p[1] << 16) | ((uint32_t)r->p[2] << 8) |
                 r->p[3];
    r->p += 4;
    r->n -= 4;
    return v;
}

static rd str(rd *r)
{
    uint32_t len = u32(r);
    assert_true(r->n >= len);
    rd s = {r->p, len};
    r->p += len;
    r->n -= len;
    return s;
}

static bool str_is(rd s, const char *want)
{
    return s.n == strlen(want) && !memcmp(s.p, want, s.n);
}

/* An mpint is minimal: no leading 0 unless the next byte has its top bit set. */
static void check_mpint(rd m)
{
    assert_true(m.n > 0);
    if (m.p[0] == 0)
        assert_true(m.n > 1 && (m.p[1] & 0x80));
    else
        assert_false(m.p[0] & 0x80);
}

static char *pem_body(const char *pem)
{
    const char *begin = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
    const char *end = "-----END OPENSSH PRIVATE KEY-----\n";
    assert_memory_equal(pem, begin, strlen(begin));
    size_t len = strlen(pem);
    assert_true(len > strlen(begin) + strlen(end));
    assert_string_equal(pem + len - strlen(end), end);
    /* base64 lines of at most 64 characters (Go's encoding/pem) */
    const char *p = pem + strlen(begin);
    while (strncmp(p, "-----END", 8)) {
        size_t l = strcspn(p, "\n");
        assert_true(l > 0 && l <= 64);
        p += l + 1;
    }
    char *b64 = strndup(pem + strlen(begin), len - strlen(begin) - strlen(end));
    char *der = NULL;
    size_t n = 0;
    assert_int_equal(slinky_base64_decode(&der, &n, b64, 0), 0);
    free(b64);
    char *copy = malloc(n + sizeof(size_t));
    memcpy(copy + sizeof(size_t), der, n);
    memcpy(copy, &n, sizeof(size_t));
    slinky_free(der);
    return copy; /* length prefix, then bytes */
}

/* Decode the private key, check the container and return the public blob it holds. */
static void check_pair(const char *priv, const char *pub, const char *type,
                       size_t *rsa_modulus_bits)
{
    /* public: "TYPE BASE64\n" */
    size_t tl = strlen(type);
    assert_memory_equal(pub, type, tl);
    assert_int_equal(pub[tl], ' ');
    assert_int_equal(pub[strlen(pub) - 1], '\n');
    char *b64 = strndup(pub + tl + 1, strlen(pub) - tl - 2);
    assert_null(strchr(b64, ' '));
    char *blob = NULL;
    size_t blob_len = 0;
    assert_int_equal(slinky_base64_decode(&blob, &blob_len, b64, SLINKY_BASE64_STRICT), 0);
    free(b64);

    char *raw = pem_body(priv);
    size_t n;
    memcpy(&n, raw, sizeof(size_t));
    rd r = {(const unsigned char *)raw + sizeof(size_t), n};
    assert_true(r.n > 15);
    assert_memory_equal(r.p, "openssh-key-v1\0", 15);
    r.p += 15;
    r.n -= 15;
    assert_true(str_is(str(&r), "none")); /* cipher */
    assert_true(str_is(str(&r), "none")); /* kdf */
    assert_int_equal(str(&r).n, 0);       /* kdf options */
    assert_int_equal(u32(&r), 1);
    rd pubblob = str(&r);
    assert_int_equal(pubblob.n, blob_len);
    assert_memory_equal(pubblob.p, blob, blob_len);
    rd sec = str(&r);
    assert_int_equal(r.n, 0);
    assert_int_equal(sec.n % 8, 0);
    uint32_t c1 = u32(&sec), c2 = u32(&sec);
    assert_int_equal(c1, c2);
    assert_true(str_is(str(&sec), type));
    rd pb = {(const unsigned char *)blob, blob_len};
    assert_true(str_is(str(&pb), type));
    if (!strcmp(type, "ssh-ed25519")) {
        rd p32 = str(&pb);
        assert_int_equal(p32.n, 32);
        rd q = str(&sec);
        assert_int_equal(q.n, 32);
        assert_memory_equal(q.p, p32.p, 32);
        rd k = str(&sec);
        assert_int_equal(k.n, 64);
        assert_memory_equal(k.p + 32, p32.p, 32); /* seed || public */
    } else if (!strcmp(type, "ssh-rsa")) {
        rd e = str(&pb), nn = str(&pb);
        check_mpint(e);
        check_mpint(nn);
        rd fields[6];
        for (int i = 0; i < 6; i++) {
            fields[i] = str(&sec);
            check_mpint(fields[i]);
        }
        /* n e d iqmp p q: n and e match the public blob */
        assert_int_equal(fields[0].n, nn.n);
        assert_memory_equal(fields[0].p, nn.p, nn.n);
        assert_int_equal(fields[1].n, e.n);
        assert_memory_equal(fields[1].p, e.p, e.n);
        size_t nbytes = nn.n - (nn.p[0] == 0);
        *rsa_modulus_bits = nbytes * 8;
        /* e = 65537 */
        assert_int_equal(e.n, 3);
        assert_memory_equal(e.p, "\x01\x00\x01", 3);
    } else {
        rd curve = str(&pb), q = str(&pb);
        assert_true(str_is(curve, "nistp256"));
        assert_int_equal(q.n, 65);
        assert_int_equal(q.p[0], 4);
        assert_true(str_is(str(&sec), "nistp256"));
        rd q2 = str(&sec);
        assert_int_equal(q2.n, 65);
        assert_memory_equal(q2.p, q.p, 65);
        check_mpint(str(&sec));
    }
    assert_int_equal(str(&sec).n, 0); /* empty comment, as upstream */
    for (unsigned char i = 1; sec.n; i++) {
        assert_int_equal(sec.p[0], i);
        sec.p++;
        sec.n--;
    }
    free(raw);
    slinky_free(blob);
}

static void test_ed25519(void **state)
{
    (void)state;
    char *priv = NULL, *pub = NULL, *priv2 = NULL, *pub2 = NULL;
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_ED25519, 0), 0);
    check_pair(priv, pub, "ssh-ed25519", NULL);
    assert_int_equal(slinky_workload_ssh_keygen(&priv2, &pub2, SLINKY_WORKLOAD_SSH_KEY_ED25519, 256),
                     0);
    assert_string_not_equal(pub, pub2);
    slinky_free(priv);
    slinky_free(pub);
    slinky_free(priv2);
    slinky_free(pub2);
}

static void test_ecdsa(void **state)
{
    (void)state;
    char *priv = NULL, *pub = NULL;
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_ECDSA, 0), 0);
    check_pair(priv, pub, "ecdsa-sha2-nistp256", NULL);
    slinky_free(priv);
    slinky_free(pub);
    /* other curves name themselves */
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_ECDSA, 384), 0);
    assert_memory_equal(pub, "ecdsa-sha2-nistp384 ", 20);
    slinky_free(priv);
    slinky_free(pub);
}

static void test_rsa(void **state)
{
    (void)state;
    char *priv = NULL, *pub = NULL;
    size_t bits = 0;
    /* 2048 keeps the valgrind run short; the default (4096) is generated in workload/sshd */
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_RSA, 2048), 0);
    check_pair(priv, pub, "ssh-rsa", &bits);
    assert_int_equal(bits, 2048);
    slinky_free(priv);
    slinky_free(pub);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char *priv = NULL, *pub = NULL;
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_RSA, 1024),
                     SLINKY_EINVALID);
    assert_non_null(strstr(slinky_error_last()->message, "2048"));
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_ECDSA, 255),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, SLINKY_WORKLOAD_SSH_KEY_ED25519, 512),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_workload_ssh_keygen(&priv, &pub, (slinky_workload_ssh_key_type)7, 0),
                     SLINKY_EINVALID);
    assert_int_equal(slinky_workload_ssh_keygen(NULL, &pub, SLINKY_WORKLOAD_SSH_KEY_ED25519, 0),
                     SLINKY_EINVALID);
    assert_null(priv);
    assert_null(pub);
    assert_string_equal(slinky_workload_ssh_key_type_name(SLINKY_WORKLOAD_SSH_KEY_ECDSA), "ecdsa");
    assert_null(slinky_workload_ssh_key_type_name((slinky_workload_ssh_key_type)7));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ed25519),
        cmocka_unit_test(test_ecdsa),
        cmocka_unit_test(test_rsa),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
