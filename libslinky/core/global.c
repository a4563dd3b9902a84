/* Reference-counted global initialisation and the version. */
#include <curl/curl.h>
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "slinky/version.h"

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_init_count;
static int g_git_inited; /* libgit2 is started on first use: it costs ~6-10 ms (CA parsing) */

slinky_status slinky_global_init(void)
{
    slinky_status rc = 0;
    pthread_mutex_lock(&g_init_lock);
    if (g_init_count == 0) {
        if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
            rc = slinky__error_set(SLINKY_ERROR, "curl_global_init failed");
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
            if (g_git_inited) {
                git_libgit2_shutdown();
                g_git_inited = 0;
            }
            curl_global_cleanup();
        }
        rc = g_init_count;
    }
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

int slinky__git_init(void)
{
    int rc = 0;
    pthread_mutex_lock(&g_init_lock);
    if (!g_git_inited) {
        if (git_libgit2_init() < 0) {
            const git_error *e = git_error_last();
            rc = slinky__error_set(SLINKY_EGIT, "git_libgit2_init failed: %s",
                                   e && e->message ? e->message : "unknown");
        } else {
            g_git_inited = 1;
        }
    }
    pthread_mutex_unlock(&g_init_lock);
    return rc;
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
