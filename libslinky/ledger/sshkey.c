/* OpenSSH public key validation: "TYPE BASE64 [comment]", blob names TYPE. */
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"

static const char *const key_types[] = {
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "ssh-dss",
};

static int b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decode strict base64 (padding required to a multiple of 4). Returns length or -1. */
static long b64decode(unsigned char *out, const char *in, size_t len)
{
    if (len == 0 || len % 4 != 0)
        return -1;
    long o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)in[i + j];
            if (c == '=') {
                if (i + 4 != len || j < 2)
                    return -1;
                pad++;
                v[j] = 0;
            } else {
                if (pad)
                    return -1;
                v[j] = b64val(c);
                if (v[j] < 0)
                    return -1;
            }
        }
        unsigned n = ((unsigned)v[0] << 18) | ((unsigned)v[1] << 12) | ((unsigned)v[2] << 6) |
                     (unsigned)v[3];
        out[o++] = (unsigned char)(n >> 16);
        if (pad < 2)
            out[o++] = (unsigned char)(n >> 8);
        if (pad < 1)
            out[o++] = (unsigned char)n;
    }
    return o;
}

static uint32_t get32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

int slinky_ledger__ssh_key_check(const char *key)
{
    if (!key)
        return slinky__error_set(SLINKY_EINVALID, "ssh key: missing");
    size_t klen = strlen(key);
    if (klen > 16384)
        return slinky__error_set(SLINKY_EINVALID, "ssh key: longer than 16384 bytes");
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        if (*p < 0x20 && *p != '\t')
            return slinky__error_set(SLINKY_EINVALID,
                                     "ssh key: must be one line without control characters");
    const char *t = key;
    size_t tl = strcspn(t, " \t");
    size_t ti;
    for (ti = 0; ti < SLINKY__ARRAY_SIZE(key_types); ti++)
        if (strlen(key_types[ti]) == tl && !strncmp(key_types[ti], t, tl))
            break;
    if (ti == SLINKY__ARRAY_SIZE(key_types))
        return slinky__error_set(SLINKY_EINVALID,
                                 "ssh key: unknown key type '%.*s' (options before the type "
                                 "are not accepted)",
                                 (int)(tl > 64 ? 64 : tl), t);
    const char *b = t + tl;
    b += strspn(b, " \t");
    size_t bl = strcspn(b, " \t");
    if (bl == 0)
        return slinky__error_set(SLINKY_EINVALID, "ssh key: no base64 key data after '%s'",
                                 key_types[ti]);
    unsigned char *blob = slinky__malloc(bl);
    if (!blob)
        return SLINKY_ENOMEM;
    long n = b64decode(blob, b, bl);
    int rc = 0;
    if (n < 0) {
        rc = slinky__error_set(SLINKY_EINVALID, "ssh key: key data is not valid base64");
        goto out;
    }
    /* The blob is a sequence of uint32-length-prefixed strings; the first is the type. */
    size_t off = 0, count = 0;
    while (off < (size_t)n) {
        if ((size_t)n - off < 4) {
            rc = slinky__error_set(SLINKY_EINVALID, "ssh key: truncated key blob");
            goto out;
        }
        uint32_t l = get32(blob + off);
        off += 4;
        if (l > (size_t)n - off) {
            rc = slinky__error_set(SLINKY_EINVALID, "ssh key: truncated key blob");
            goto out;
        }
        if (count == 0 && (l != tl || memcmp(blob + off, t, tl) != 0)) {
            rc = slinky__error_set(SLINKY_EINVALID,
                                   "ssh key: the key blob is not a '%s' key (type mismatch)",
                                   key_types[ti]);
            goto out;
        }
        off += l;
        count++;
    }
    if (count < 2) {
        rc = slinky__error_set(SLINKY_EINVALID, "ssh key: key blob holds no key material");
        goto out;
    }
    if (ti == 0 && (count != 2 || n != 4 + 11 + 4 + 32))
        rc = slinky__error_set(SLINKY_EINVALID, "ssh key: an ssh-ed25519 key must be 32 bytes");
out:
    free(blob);
    return rc;
}

slinky_status slinky_ledger_ssh_key_check(const char *key)
{
    return slinky_ledger__ssh_key_check(key);
}
