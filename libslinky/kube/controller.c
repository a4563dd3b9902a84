/* kube: a controller runs N worker threads over a work queue. */
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

struct slinky_kube_controller {
    slinky_kube_workqueue *q;
    int workers;
    slinky_kube_reconcile_cb cb;
    void *payload;
    pthread_t *threads;
    int started;
};

slinky_status slinky_kube_controller_new(slinky_kube_controller **out, slinky_kube_workqueue *q,
                                         int workers, slinky_kube_reconcile_cb reconcile,
                                         void *payload)
{
    if (out == NULL || q == NULL || reconcile == NULL || workers <= 0 || workers > 1024)
        return slinky__error_set(SLINKY_EINVALID, "controller_new: bad argument");
    slinky_kube_controller *ctl = slinky__calloc(1, sizeof(*ctl));
    if (ctl == NULL)
        return SLINKY_ENOMEM;
    ctl->threads = slinky__calloc((size_t)workers, sizeof(pthread_t));
    if (ctl->threads == NULL) {
        free(ctl);
        return SLINKY_ENOMEM;
    }
    ctl->q = q;
    ctl->workers = workers;
    ctl->cb = reconcile;
    ctl->payload = payload;
    *out = ctl;
    return 0;
}

static void *worker(void *p)
{
    slinky_kube_controller *ctl = p;
    for (;;) {
        char *key = NULL;
        int err = slinky_kube_workqueue_get(&key, ctl->q, -1);
        if (err == SLINKY_ECANCELED)
            break;
        if (err)
            continue;
        long after = 0;
        slinky_kube_result r = ctl->cb(&after, key, ctl->payload);
        switch (r) {
        case SLINKY_KUBE_RESULT_DONE:
            slinky_kube_workqueue_forget(ctl->q, key);
            break;
        case SLINKY_KUBE_RESULT_REQUEUE_AFTER:
            slinky_kube_workqueue_forget(ctl->q, key);
            slinky_kube_workqueue_add_after(ctl->q, key, after);
            break;
        case SLINKY_KUBE_RESULT_ERROR:
            slinky__log(SLINKY_LOG_WARNING, "kube", "reconcile %s failed: %s", key,
                        slinky_error_last()->message);
            slinky_kube_workqueue_add_rate_limited(ctl->q, key);
            break;
        default:
            slinky_kube_workqueue_add_rate_limited(ctl->q, key);
        }
        slinky_kube_workqueue_done(ctl->q, key);
        slinky_free(key);
    }
    return NULL;
}

slinky_status slinky_kube_controller_start(slinky_kube_controller *ctl)
{
    if (ctl == NULL || ctl->started)
        return slinky__error_set(SLINKY_EINVALID, "controller_start: NULL or already started");
    for (int i = 0; i < ctl->workers; i++) {
        if (pthread_create(&ctl->threads[i], NULL, worker, ctl) != 0) {
            slinky_kube_workqueue_shutdown(ctl->q);
            for (int j = 0; j < i; j++)
                pthread_join(ctl->threads[j], NULL);
            return slinky__error_set(SLINKY_ERROR, "controller: cannot start worker %d", i);
        }
    }
    ctl->started = 1;
    return 0;
}

void slinky_kube_controller_stop(slinky_kube_controller *ctl)
{
    if (ctl == NULL || ctl->started != 1)
        return;
    slinky_kube_workqueue_shutdown(ctl->q);
    for (int i = 0; i < ctl->workers; i++)
        pthread_join(ctl->threads[i], NULL);
    ctl->started = 2;
}

void slinky_kube_controller_free(slinky_kube_controller *ctl)
{
    if (ctl == NULL)
        return;
    slinky_kube_controller_stop(ctl);
    free(ctl->threads);
    free(ctl);
}
