/*
 * kube: leader election on a coordination.k8s.io/v1 Lease (the client-go
 * algorithm): acquire when the lease is free or expired, renew every
 * retry period, give up when a renewal has not succeeded within the renew
 * deadline. Optimistic concurrency via resourceVersion.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_internal.h"

static const slinky_kube_resource lease_resource = {"coordination.k8s.io", "v1", "leases", true};

struct slinky_kube_leader {
    slinky_kube_client *c;
    slinky_kube_leader_options o;
    char *ns, *name, *identity;
    pthread_t thread;
    bool running;
    atomic_bool stop;
    atomic_bool leader;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* observed */
    char *observed_holder;
    char *observed_renew;
    int64_t observed_at; /* monotonic ms when the record last changed */
};

SLINKY_KUBE__OPTIONS_INIT_FN(slinky_kube_leader_options, SLINKY_KUBE_LEADER_OPTIONS_VERSION)

void slinky_kube_leader_free(slinky_kube_leader *le)
{
    if (le == NULL)
        return;
    slinky_kube_leader_stop(le);
    free(le->ns);
    free(le->name);
    free(le->identity);
    free(le->observed_holder);
    free(le->observed_renew);
    pthread_mutex_destroy(&le->lock);
    pthread_cond_destroy(&le->cond);
    free(le);
}

slinky_status slinky_kube_leader_new(slinky_kube_leader **out, slinky_kube_client *c,
                                     const slinky_kube_leader_options *o)
{
    if (out == NULL || c == NULL || o == NULL)
        return slinky__error_set(SLINKY_EINVALID, "leader_new: NULL argument");
    if (o->version != SLINKY_KUBE_LEADER_OPTIONS_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "leader options: unknown version %u", o->version);
    if (!o->lease_namespace || !*o->lease_namespace || !o->lease_name || !*o->lease_name ||
        !o->identity || !*o->identity)
        return slinky__error_set(SLINKY_EINVALID, "leader_new: lease_namespace, lease_name and identity are required");
    slinky_kube_leader *le = slinky__calloc(1, sizeof(*le));
    if (le == NULL)
        return SLINKY_ENOMEM;
    le->c = c;
    le->o = *o;
    if (le->o.lease_duration_ms <= 0)
        le->o.lease_duration_ms = 15000;
    if (le->o.renew_deadline_ms <= 0)
        le->o.renew_deadline_ms = 10000;
    if (le->o.retry_period_ms <= 0)
        le->o.retry_period_ms = 2000;
    pthread_mutex_init(&le->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&le->cond, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&le->stop, false);
    atomic_init(&le->leader, false);
    le->ns = slinky__strdup(o->lease_namespace);
    le->name = slinky__strdup(o->lease_name);
    le->identity = slinky__strdup(o->identity);
    if (!le->ns || !le->name || !le->identity) {
        slinky_kube_leader_free(le);
        return SLINKY_ENOMEM;
    }
    le->o.lease_namespace = le->ns;
    le->o.lease_name = le->name;
    le->o.identity = le->identity;
    *out = le;
    return 0;
}

static int fill_spec(slinky_doc_value *spec, slinky_kube_leader *le, bool acquire, int64_t transitions)
{
    char now[40];
    slinky_kube__format_microtime(now, sizeof(now), slinky_kube__wall_ms());
    int err = slinky_doc_value_object_set_string(spec, "holderIdentity", le->identity);
    if (err == 0)
        err = slinky_doc_value_object_set_int(spec, "leaseDurationSeconds",
                                              (le->o.lease_duration_ms + 999) / 1000);
    if (err == 0)
        err = slinky_doc_value_object_set_string(spec, "renewTime", now);
    if (err == 0 && acquire) {
        err = slinky_doc_value_object_set_string(spec, "acquireTime", now);
        if (err == 0)
            err = slinky_doc_value_object_set_int(spec, "leaseTransitions", transitions);
    }
    return err;
}

/* One attempt to acquire or renew. Returns true when we hold the lease. */
static bool try_acquire_or_renew(slinky_kube_leader *le)
{
    slinky_doc *lease = NULL;
    int err = slinky_kube_get(&lease, le->c, &lease_resource, le->ns, le->name, NULL);
    if (err == SLINKY_ENOTFOUND) {
        slinky_doc *d = NULL;
        if (slinky_doc_new(&d) != 0)
            return false;
        slinky_doc_value *root = slinky_doc_root(d), *meta, *spec;
        bool ok = slinky_doc_value_set_object(root) == 0 &&
                  slinky_doc_value_object_set_string(root, "apiVersion", "coordination.k8s.io/v1") == 0 &&
                  slinky_doc_value_object_set_string(root, "kind", "Lease") == 0 &&
                  slinky_doc_value_path_put(&meta, root, "metadata") == 0 &&
                  slinky_doc_value_set_object(meta) == 0 &&
                  slinky_doc_value_object_set_string(meta, "name", le->name) == 0 &&
                  slinky_doc_value_object_set_string(meta, "namespace", le->ns) == 0 &&
                  slinky_doc_value_path_put(&spec, root, "spec") == 0 &&
                  slinky_doc_value_set_object(spec) == 0 && fill_spec(spec, le, true, 0) == 0;
        ok = ok && slinky_kube_create(NULL, le->c, &lease_resource, le->ns, root, NULL) == 0;
        slinky_doc_free(d);
        return ok;
    }
    if (err)
        return false;
    slinky_doc_value *root = slinky_doc_root(lease);
    const char *holder = slinky_doc_value_path_string(root, "spec.holderIdentity", "");
    const char *renew = slinky_doc_value_path_string(root, "spec.renewTime", "");
    int64_t dur_s = slinky_doc_value_path_int(root, "spec.leaseDurationSeconds",
                                              (le->o.lease_duration_ms + 999) / 1000);
    int64_t transitions = slinky_doc_value_path_int(root, "spec.leaseTransitions", 0);
    int64_t now = slinky_kube__now_ms();
    /* Track when the record last changed, by our own clock (as client-go). */
    if (le->observed_holder == NULL || strcmp(le->observed_holder, holder) != 0 ||
        le->observed_renew == NULL || strcmp(le->observed_renew, renew) != 0) {
        free(le->observed_holder);
        free(le->observed_renew);
        le->observed_holder = slinky__strdup(holder);
        le->observed_renew = slinky__strdup(renew);
        le->observed_at = now;
    }
    bool mine = strcmp(holder, le->identity) == 0;
    if (*holder && !mine && now < le->observed_at + dur_s * 1000) {
        slinky_doc_free(lease);
        return false; /* held by another, not expired */
    }
    slinky_doc_value *spec = NULL;
    bool ok = slinky_doc_value_path_put(&spec, root, "spec") == 0;
    if (ok && slinky_doc_value_type(spec) != SLINKY_DOC_OBJECT)
        ok = slinky_doc_value_set_object(spec) == 0;
    ok = ok && fill_spec(spec, le, !mine, mine ? transitions : transitions + 1) == 0;
    ok = ok && slinky_kube_update(NULL, le->c, &lease_resource, le->ns, root, NULL) == 0;
    if (ok) {
        free(le->observed_holder);
        le->observed_holder = slinky__strdup(le->identity);
        le->observed_at = slinky_kube__now_ms();
    }
    slinky_doc_free(lease);
    return ok;
}

static bool sleep_or_stop(slinky_kube_leader *le, long ms)
{
    struct timespec ts;
    slinky_kube__abstime(&ts, ms);
    pthread_mutex_lock(&le->lock);
    while (!atomic_load(&le->stop))
        if (pthread_cond_timedwait(&le->cond, &le->lock, &ts) != 0)
            break;
    pthread_mutex_unlock(&le->lock);
    return atomic_load(&le->stop);
}

static void release(slinky_kube_leader *le)
{
    slinky_doc *lease = NULL;
    if (slinky_kube_get(&lease, le->c, &lease_resource, le->ns, le->name, NULL) != 0)
        return;
    slinky_doc_value *root = slinky_doc_root(lease);
    if (strcmp(slinky_doc_value_path_string(root, "spec.holderIdentity", ""), le->identity) == 0) {
        slinky_doc_value *spec = slinky_doc_value_path(root, "spec");
        slinky_doc_value_object_set_string(spec, "holderIdentity", "");
        slinky_doc_value_object_set_int(spec, "leaseDurationSeconds", 1);
        slinky_kube_update(NULL, le->c, &lease_resource, le->ns, root, NULL);
    }
    slinky_doc_free(lease);
}

static void *leader_main(void *p)
{
    slinky_kube_leader *le = p;
    while (!atomic_load(&le->stop)) {
        /* campaign */
        while (!atomic_load(&le->stop) && !try_acquire_or_renew(le)) {
            slinky_error_clear();
            long jitter = (long)(le->o.retry_period_ms * 0.2 * slinky_kube__rand01());
            if (sleep_or_stop(le, le->o.retry_period_ms + jitter))
                break;
        }
        if (atomic_load(&le->stop))
            break;
        atomic_store(&le->leader, true);
        if (le->o.on_started_leading)
            le->o.on_started_leading(le->o.payload);
        /* renew until a renewal misses the deadline */
        int64_t last_ok = slinky_kube__now_ms();
        while (!atomic_load(&le->stop)) {
            if (sleep_or_stop(le, le->o.retry_period_ms))
                break;
            if (try_acquire_or_renew(le)) {
                last_ok = slinky_kube__now_ms();
            } else if (slinky_kube__now_ms() - last_ok >= le->o.renew_deadline_ms) {
                break;
            }
        }
        atomic_store(&le->leader, false);
        if (atomic_load(&le->stop) && le->o.release_on_stop)
            release(le);
        if (le->o.on_stopped_leading)
            le->o.on_stopped_leading(le->o.payload);
    }
    return NULL;
}

slinky_status slinky_kube_leader_start(slinky_kube_leader *le)
{
    if (le == NULL || le->running)
        return slinky__error_set(SLINKY_EINVALID, "leader_start: NULL or already started");
    atomic_store(&le->stop, false);
    if (pthread_create(&le->thread, NULL, leader_main, le) != 0)
        return slinky__error_set(SLINKY_ERROR, "leader: cannot start its thread");
    le->running = true;
    return 0;
}

bool slinky_kube_leader_is_leader(slinky_kube_leader *le)
{
    return le && atomic_load(&le->leader);
}

void slinky_kube_leader_stop(slinky_kube_leader *le)
{
    if (le == NULL || !le->running)
        return;
    pthread_mutex_lock(&le->lock);
    atomic_store(&le->stop, true);
    pthread_cond_broadcast(&le->cond);
    pthread_mutex_unlock(&le->lock);
    pthread_join(le->thread, NULL);
    le->running = false;
}
