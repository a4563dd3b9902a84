/*
 * kube: a config's credentials for each request: an exec plugin's (cached until they
 * expire or a 401 forces a refresh), a tokenFile's (read again when the file changes),
 * a static token, client certificate and key. The cache lives in the config, under its lock.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kube_internal.h"

void slinky_kube__creds_dispose(slinky_kube__creds *c)
{
    free(c->token);
    if (c->key)
        explicit_bzero(c->key, c->key_len);
    free(c->key);
    free(c->cert);
    memset(c, 0, sizeof(*c));
}

static int file_token(char **out, slinky_kube_config *cfg)
{
    struct stat st;
    if (stat(cfg->token_file, &st) != 0)
        return slinky__error_set_errno(SLINKY_EAUTH, errno, "tokenFile %s", cfg->token_file);
    if (cfg->file_token == NULL || st.st_mtim.tv_sec != cfg->file_mtime.tv_sec ||
        st.st_mtim.tv_nsec != cfg->file_mtime.tv_nsec) {
        char *data = NULL;
        size_t len = 0;
        int err = slinky__read_file(&data, &len, cfg->token_file);
        if (err)
            return err == SLINKY_ENOMEM ? err : slinky__error_set(SLINKY_EAUTH, "tokenFile %s: %s",
                                                                   cfg->token_file,
                                                                   slinky_error_last()->message);
        while (len && (data[len - 1] == '\n' || data[len - 1] == '\r' || data[len - 1] == ' '))
            data[--len] = '\0';
        free(cfg->file_token);
        cfg->file_token = data;
        cfg->file_mtime = st.st_mtim;
    }
    *out = slinky__strdup(cfg->file_token);
    return *out ? 0 : SLINKY_ENOMEM;
}

static int dup_blob(char **dst, size_t *dlen, const char *src, size_t len)
{
    if (src == NULL)
        return 0;
    *dst = slinky__malloc(len + 1);
    if (*dst == NULL)
        return SLINKY_ENOMEM;
    memcpy(*dst, src, len);
    (*dst)[len] = '\0';
    *dlen = len;
    return 0;
}

int slinky_kube__config_creds(slinky_kube__creds *out, slinky_kube_config *cfg, bool force)
{
    slinky_kube__creds c = {0};
    int err = 0;
    pthread_mutex_lock(&cfg->lock);
    if (cfg->exec) {
        int64_t now = slinky_kube__wall_ms() / 1000;
        if (force || cfg->exec_expiry == 0 || now >= cfg->exec_expiry) {
            slinky_kube__creds fresh = {0};
            int64_t expiry = 0;
            err = slinky_kube__exec_run(&fresh, &expiry, cfg->exec, cfg->server);
            if (err == 0) {
                slinky_kube__creds_dispose(&cfg->exec_creds);
                cfg->exec_creds = fresh;
                cfg->exec_expiry = expiry ? expiry : INT64_MAX;
            }
        }
        if (err == 0 && cfg->exec_creds.token)
            err = (c.token = slinky__strdup(cfg->exec_creds.token)) ? 0 : SLINKY_ENOMEM;
        if (err == 0)
            err = dup_blob(&c.cert, &c.cert_len, cfg->exec_creds.cert, cfg->exec_creds.cert_len);
        if (err == 0)
            err = dup_blob(&c.key, &c.key_len, cfg->exec_creds.key, cfg->exec_creds.key_len);
    }
    if (err == 0 && c.token == NULL && cfg->token_file && *cfg->token_file) {
        err = file_token(&c.token, cfg);
        if (err && cfg->token && *cfg->token) {
            slinky_error_clear();
            err = 0;
        }
    }
    if (err == 0 && c.token == NULL && cfg->token && *cfg->token)
        err = (c.token = slinky__strdup(cfg->token)) ? 0 : SLINKY_ENOMEM;
    if (err == 0 && c.cert == NULL)
        err = dup_blob(&c.cert, &c.cert_len, cfg->cert, cfg->cert_len);
    if (err == 0 && c.key == NULL)
        err = dup_blob(&c.key, &c.key_len, cfg->key, cfg->key_len);
    pthread_mutex_unlock(&cfg->lock);
    if (err) {
        slinky_kube__creds_dispose(&c);
        return err;
    }
    *out = c;
    return 0;
}

slinky_status slinky_kube_config_get_token(char **out, slinky_kube_config *cfg)
{
    if (out == NULL || cfg == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_kube_config_get_token: NULL argument");
    slinky_kube__creds c;
    int err = slinky_kube__config_creds(&c, cfg, false);
    if (err)
        return err;
    *out = c.token;
    c.token = NULL;
    slinky_kube__creds_dispose(&c);
    return 0;
}
