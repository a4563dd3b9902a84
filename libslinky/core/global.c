/* Reference-counted global initialisation, logging callback, version. */
#include <curl/curl.h>
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "slinky/version.h"

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_init_count;

slinky_status slinky_global_init(void)
{
    slinky_status rc = 0;
    pthread_mutex_lock(&g_init_lock);
    if (g_init_count == 0) {
        if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
            rc = slinky__error_set(SLINKY_ERROR, "curl_global_init failed");
        } else if (git_libgit2_init() < 0) {
            const git_error *e = git_error_last();
            curl_global_cleanup();
            rc = slinky__error_set(SLINKY_EGIT, "git_libgit2_init failed: %s",
                                   e && e->message ? e->message : "unknown");
        }
    }
    if (rc == 0)
        g_init_count++;
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

slinky_status slinky_global_shutdown(void)
{
    slinky_status rc;
    pthread_mutex_lock(&g_init_lock);
    if (g_init_count == 0) {
        rc = slinky__error_set(SLINKY_EINVALID,
                               "slinky_global_shutdown called without slinky_global_init");
    } else {
        g_init_count--;
        if (g_init_count == 0) {
            git_libgit2_shutdown();
            curl_global_cleanup();
        }
        rc = g_init_count;
    }
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

/* --- logging --- */

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static slinky_log_cb g_log_cb;
static void *g_log_payload;
static int g_log_max = -1; /* read without the lock as a hint; checked again under it */

void slinky_log_set_callback(slinky_log_cb cb, slinky_log_level max_level, void *payload)
{
    pthread_mutex_lock(&g_log_lock);
    g_log_cb = cb;
    g_log_payload = payload;
    __atomic_store_n(&g_log_max, cb ? (int)max_level : -1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_log_lock);
}

int slinky__log_enabled(slinky_log_level level)
{
    return (int)level <= __atomic_load_n(&g_log_max, __ATOMIC_ACQUIRE);
}

void slinky__log(slinky_log_level level, const char *module, const char *fmt, ...)
{
    char msg[2048];
    slinky_log_cb cb;
    void *payload;
    va_list ap;

    if (!slinky__log_enabled(level))
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_log_lock);
    cb = g_log_cb;
    payload = g_log_payload;
    int max = g_log_max;
    pthread_mutex_unlock(&g_log_lock);
    if (cb && (int)level <= max)
        cb(level, module ? module : "slinky", msg, payload);
}

const char *slinky_log_level_name(slinky_log_level level)
{
    switch (level) {
    case SLINKY_LOG_ERROR: return "error";
    case SLINKY_LOG_WARNING: return "warning";
    case SLINKY_LOG_INFO: return "info";
    case SLINKY_LOG_DEBUG: return "debug";
    case SLINKY_LOG_TRACE: return "trace";
    default: return "unknown";
    }
}

const char *slinky_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = SLINKY_VERSION_MAJOR;
    if (minor)
        *minor = SLINKY_VERSION_MINOR;
    if (patch)
        *patch = SLINKY_VERSION_PATCH;
    return SLINKY_VERSION;
}
