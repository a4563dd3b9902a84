/*
 * slurm: JWT sources. A fixed token; a token file re-read when its identity
 * (device, inode, size, mtime) changes, so a rotated file is picked up
 * without a restart; or a signer callback called again once 80% of the
 * token's lifetime has passed on the (injectable) clock.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "slurm_internal.h"

static int64_t default_clock(void *payload)
{
    (void)payload;
    return (int64_t)time(NULL);
}

int slinky_slurm__token_init(slinky_slurm__token *t, const slinky_slurm_client_options *o)
{
    memset(t, 0, sizeof(*t));
    int n = (o && o->token && *o->token) + (o && o->token_file && *o->token_file) + (o && o->sign);
    if (n != 1)
        return slinky__error_set(SLINKY_EINVALID,
                                 "slurm client: give exactly one JWT source (token, token_file or sign), got %d", n);
    pthread_mutex_init(&t->lock, NULL);
    t->clock = o->clock ? o->clock : default_clock;
    t->clock_payload = o->clock_payload;
    t->sign = o->sign;
    t->sign_payload = o->sign_payload;
    if (o->token && *o->token && (t->fixed = slinky__strdup(o->token)) == NULL)
        return SLINKY_ENOMEM;
    if (o->token_file && *o->token_file && (t->file = slinky__strdup(o->token_file)) == NULL)
        return SLINKY_ENOMEM;
    return 0;
}

static void wipe_free(char *s)
{
    if (s) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

void slinky_slurm__token_dispose(slinky_slurm__token *t)
{
    if (t->clock == NULL)
        return; /* never initialised */
    wipe_free(t->fixed);
    wipe_free(t->cached);
    free(t->file);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof(*t));
}

/* The token in a file: "SLURM_JWT=tok" (scontrol token) or the bare token, blanks trimmed. */
static int token_from_text(char **out, const char *text, const char *path)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "SLURM_JWT=", 10) == 0)
        p += 10;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]))
        n++;
    if (n == 0)
        return slinky__error_set(SLINKY_EAUTH, "token file %s: no token in it", path);
    char *s = slinky__strndup(p, n);
    if (s == NULL)
        return SLINKY_ENOMEM;
    *out = s;
    return 0;
}

static int read_file_locked(slinky_slurm__token *t)
{
    struct stat st;
    if (stat(t->file, &st) != 0)
        return slinky__error_set_errno(SLINKY_EAUTH, errno, "token file %s", t->file);
    int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (t->cached && st.st_dev == t->dev && st.st_ino == t->ino && st.st_size == t->size && mt == t->mtime_ns)
        return 0;
    char *text = NULL, *tok = NULL;
    int err = slinky__read_file(&text, NULL, t->file);
    if (err)
        return slinky__error_set(SLINKY_EAUTH, "token file %s: %s", t->file, slinky_error_last()->message);
    err = token_from_text(&tok, text, t->file);
    explicit_bzero(text, strlen(text));
    free(text);
    if (err)
        return err;
    wipe_free(t->cached);
    t->cached = tok;
    t->dev = st.st_dev;
    t->ino = st.st_ino;
    t->size = st.st_size;
    t->mtime_ns = mt;
    return 0;
}

static int sign_locked(slinky_slurm__token *t)
{
    int64_t now = t->clock(t->clock_payload);
    if (t->cached) {
        /* re-sign at 80% of the lifetime */
        int64_t life = t->expires - t->signed_at;
        if (life > 0 && now < t->signed_at + life * 8 / 10)
            return 0;
        if (life <= 0 && now < t->expires)
            return 0;
    }
    char *tok = NULL;
    int64_t exp = 0;
    int err = t->sign(&tok, &exp, now, t->sign_payload);
    if (err) {
        free(tok);
        if (slinky_error_last()->code != err)
            slinky__error_set(err, "slurm JWT signer failed (%s)", slinky_error_name(err));
        return err;
    }
    if (tok == NULL || *tok == '\0' || exp <= now) {
        free(tok);
        return slinky__error_set(SLINKY_EAUTH, "slurm JWT signer returned %s",
                                 tok ? "a token that is already expired" : "no token");
    }
    wipe_free(t->cached);
    t->cached = tok;
    t->signed_at = now;
    t->expires = exp;
    return 0;
}

int slinky_slurm__token_get(char **out, slinky_slurm__token *t)
{
    if (t->fixed) {
        *out = slinky__strdup(t->fixed);
        return *out ? 0 : SLINKY_ENOMEM;
    }
    pthread_mutex_lock(&t->lock);
    int err = t->file ? read_file_locked(t) : sign_locked(t);
    if (err == 0 && (*out = slinky__strdup(t->cached)) == NULL)
        err = SLINKY_ENOMEM;
    pthread_mutex_unlock(&t->lock);
    return err;
}
