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
    char *b64 = slinky__strndup(b, bl);
    if (!b64)
        return SLINKY_ENOMEM;
    unsigned char *blob = NULL;
    size_t blen = 0;
    int rc = slinky_base64_decode((char **)&blob, &blen, b64, SLINKY_BASE64_STRICT);
    free(b64);
    if (rc == SLINKY_ENOMEM)
        return rc;
    if (rc < 0 || blen == 0) {
        free(blob);
        return slinky__error_set(SLINKY_EINVALID, "ssh key: key data is not valid base64");
    }
    long n = (long)blen;
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
