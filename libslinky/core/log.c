/*
 * The process-wide log callback. Kept apart from global.c so that code which
 * only logs does not pull in libcurl and libgit2 initialisation.
 */
#include <pthread.h>
#include <stdio.h>

#include "internal.h"

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

