/*
 * Reference-counted global initialisation and the version. Core starts no
 * dependency itself: each module starts its own on first use through a
 * slinky__lazy (kube: libcurl; ledger: libgit2), and the last
 * slinky_global_shutdown() stops those that were started, newest first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "slinky/version.h"

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_init_count;
static slinky__lazy *g_started; /* newest first */

slinky_status slinky_global_init(void)
{
    pthread_mutex_lock(&g_init_lock);
    g_init_count++;
    pthread_mutex_unlock(&g_init_lock);
    return 0;
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
            while (g_started) {
                slinky__lazy *l = g_started;
                g_started = l->next;
                l->next = NULL;
                l->started = 0;
                if (l->stop)
                    l->stop();
            }
        }
        rc = g_init_count;
    }
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

int slinky__lazy_start(slinky__lazy *l)
{
    int rc = 0;
    pthread_mutex_lock(&g_init_lock);
    if (!l->started) {
        rc = l->start();
        if (rc == 0) {
            l->started = 1;
            l->next = g_started;
            g_started = l;
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
