/* Base64 encode/decode (RFC 4648), standard and URL alphabets. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char std_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

slinky_status slinky_base64_encode(char **out, const void *data, size_t len, unsigned flags)
{
    if (!out || (!data && len))
        return slinky__error_set(SLINKY_EINVALID, "base64: NULL argument");
    const char *a = (flags & SLINKY_BASE64_URL) ? url_alpha : std_alpha;
    bool pad = !(flags & SLINKY_BASE64_URL);
    const unsigned char *p = data;
    if (len > (SIZE_MAX - 8) / 4 * 3)
        return slinky__error_oom();
    char *o = slinky__malloc(len / 3 * 4 + 8);
    if (!o)
        return SLINKY_ENOMEM;
    size_t j = 0;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        o[j++] = a[(v >> 18) & 63];
        o[j++] = a[(v >> 12) & 63];
        if (i + 1 < len)
            o[j++] = a[(v >> 6) & 63];
        else if (pad)
            o[j++] = '=';
        if (i + 2 < len)
            o[j++] = a[v & 63];
        else if (pad)
            o[j++] = '=';
    }
    o[j] = '\0';
    *out = o;
    return 0;
}

static int value_of(unsigned char c, bool strict)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || (!strict && c == '-'))
        return 62;
    if (c == '/' || (!strict && c == '_'))
        return 63;
    return -1;
}

slinky_status slinky_base64_decode(char **out, size_t *len_out, const char *text, unsigned flags)
{
    if (!out || !text)
        return slinky__error_set(SLINKY_EINVALID, "base64: NULL argument");
    bool strict = (flags & SLINKY_BASE64_STRICT) != 0;
    size_t n = strlen(text);
    if (strict && n % 4 != 0)
        return slinky__error_set(SLINKY_EINVALID, "base64: length %zu is not a multiple of 4", n);
    char *buf = slinky__malloc(n / 4 * 3 + 4);
    if (!buf)
        return SLINKY_ENOMEM;
    size_t o = 0, pad = 0, digits = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (!strict && (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'))
            continue;
        if (ch == '=') {
            pad++;
            continue;
        }
        int v = value_of(ch, strict);
        if (v < 0 || pad) {
            free(buf);
            return slinky__error_set(SLINKY_EINVALID, "base64: invalid character at offset %zu",
                                     i);
        }
        digits++;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    if (digits % 4 == 1 || pad > 2 || (strict && (digits + pad) % 4 != 0) ||
        (pad && (digits + pad) % 4 != 0)) {
        free(buf);
        return slinky__error_set(SLINKY_EINVALID, "base64: truncated input");
    }
    buf[o] = '\0';
    *out = buf;
    if (len_out)
        *len_out = o;
    return 0;
}
