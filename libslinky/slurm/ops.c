/* slurm: ping, diag, jobs, partitions, reservations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_internal.h"

struct slinky_slurm_jobs {
    slinky_slurm__list l;
};
struct slinky_slurm_partitions {
    slinky_slurm__list l;
};
struct slinky_slurm_reservations {
    slinky_slurm__list l;
};
struct slinky_slurm_pings {
    slinky_slurm__list l;
};

typedef int (*decode_fn)(void *item, slinky_slurm__list *l, const slinky_doc_value *o);

/* Decode the array `key` of a reply into l (takes the reply). */
static int decode_list(slinky_slurm__list *l, slinky_slurm__reply *r, const char *key, size_t isize, decode_fn fn)
{
    l->doc = r->doc;
    slinky_doc_value *root = slinky_doc_root(r->doc);
    l->changed = true;
    l->update_time = slinky_slurm__num(root, "last_update");
    const char *rel = slinky_doc_value_path_string(root, "meta.slurm.release", NULL);
    if (rel == NULL)
        rel = slinky_doc_value_path_string(root, "meta.Slurm.release", "");
    snprintf(l->release, sizeof(l->release), "%s", rel);
    slinky_doc_value *arr = slinky_doc_value_get(root, key);
    if (arr && slinky_doc_value_type(arr) != SLINKY_DOC_ARRAY)
        return slinky__error_set(SLINKY_EPARSE, "slurmrestd reply: \"%s\" is not an array", key);
    size_t n = slinky_doc_value_size(arr);
    if (n && (l->items = slinky__calloc(n, isize)) == NULL)
        return SLINKY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (fn((char *)l->items + i * isize, l, slinky_doc_value_at(arr, i)) != 0)
            return slinky__error_oom();
        l->count++;
    }
    return 0;
}

#define LIST_TYPE(T, ITEM, FIELD)                                                                          \
    size_t slinky_slurm_##T##_count(const slinky_slurm_##T *x)                                             \
    {                                                                                                      \
        return x ? x->l.count : 0;                                                                         \
    }                                                                                                      \
    const ITEM *slinky_slurm_##T##_at(const slinky_slurm_##T *x, size_t i)                                 \
    {                                                                                                      \
        return x && i < x->l.count ? &((const ITEM *)x->l.items)[i] : NULL;                                \
    }                                                                                                      \
    void slinky_slurm_##T##_free(slinky_slurm_##T *x)                                                      \
    {                                                                                                      \
        if (x == NULL)                                                                                     \
            return;                                                                                        \
        slinky_slurm__list_dispose(&x->l);                                                                 \
        free(x);                                                                                           \
    }                                                                                                      \
    static int get_##T(slinky_slurm_##T **out, slinky_slurm_client *c, const char *tmpl, const char *rel) \
    {                                                                                                      \
        slinky_slurm__reply r;                                                                             \
        int err = slinky_slurm__call(&r, c, "GET", tmpl, rel, NULL);                                       \
        if (err)                                                                                           \
            return err;                                                                                    \
        slinky_slurm_##T *x = slinky__calloc(1, sizeof(*x));                                               \
        if (x == NULL) {                                                                                   \
            slinky_doc_free(r.doc);                                                                        \
            return SLINKY_ENOMEM;                                                                          \
        }                                                                                                  \
        if ((err = decode_list(&x->l, &r, FIELD, sizeof(ITEM), decode_##T)) != 0) {                        \
            slinky_slurm_##T##_free(x);                                                                    \
            return err;                                                                                    \
        }                                                                                                  \
        *out = x;                                                                                          \
        return 0;                                                                                          \
    }

/* --- ping ---------------------------------------------------------------- */

static int decode_pings(void *item, slinky_slurm__list *l, const slinky_doc_value *o)
{
    (void)l;
    slinky_slurm_ping *p = item;
    p->hostname = slinky_slurm__str(o, "hostname");
    p->mode = slinky_slurm__str(o, "mode");
    p->pinged = slinky_slurm__str(o, "pinged");
    if (*p->pinged == '\0')
        p->pinged = slinky_slurm__str(o, "ping"); /* v0.0.38 */
    slinky_doc_value *resp = slinky_doc_value_get(o, "responding");
    p->responding = resp ? slinky_doc_value_get_bool(resp) : strcmp(p->pinged, "UP") == 0;
    slinky_doc_value *prim = slinky_doc_value_get(o, "primary");
    p->primary = prim ? slinky_doc_value_get_bool(prim) : strcmp(p->mode, "primary") == 0;
    p->latency_us = slinky_slurm__num(o, "latency");
    return 0;
}
LIST_TYPE(pings, slinky_slurm_ping, "pings")

slinky_status slinky_slurm_pings_get(slinky_slurm_pings **out, slinky_slurm_client *c)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_pings_get: NULL argument");
    return get_pings(out, c, "ping", "ping");
}

const char *slinky_slurm_pings_release(const slinky_slurm_pings *l)
{
    return l ? l->l.release : "";
}

/* --- diag ---------------------------------------------------------------- */

slinky_status slinky_slurm_diag_get(slinky_slurm_diag *out, slinky_slurm_client *c)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_diag_get: NULL argument");
    slinky_slurm__reply r;
    int err = slinky_slurm__call(&r, c, "GET", "diag", "diag", NULL);
    if (err)
        return err;
    slinky_doc_value *s = slinky_doc_value_get(slinky_doc_root(r.doc), "statistics");
    if (slinky_doc_value_type(s) != SLINKY_DOC_OBJECT) {
        slinky_doc_free(r.doc);
        return slinky__error_set(SLINKY_EPARSE, "slurmrestd diag reply: no \"statistics\" object");
    }
    slinky_slurm_diag d = {
        slinky_slurm__num(s, "server_thread_count"), slinky_slurm__num(s, "agent_queue_size"),
        slinky_slurm__num(s, "jobs_submitted"),      slinky_slurm__num(s, "jobs_started"),
        slinky_slurm__num(s, "jobs_completed"),      slinky_slurm__num(s, "jobs_canceled"),
        slinky_slurm__num(s, "jobs_failed"),         slinky_slurm__num(s, "jobs_pending"),
        slinky_slurm__num(s, "jobs_running"),        slinky_slurm__num(s, "schedule_cycle_last"),
        slinky_slurm__num(s, "schedule_cycle_max"),  slinky_slurm__num(s, "bf_cycle_last"),
        slinky_slurm__num(s, "req_time"),
    };
    slinky_doc_free(r.doc);
    *out = d;
    return 0;
}

/* --- jobs ---------------------------------------------------------------- */

static int decode_jobs(void *item, slinky_slurm__list *l, const slinky_doc_value *o)
{
    slinky_slurm_job *j = item;
    j->job_id = slinky_slurm__num(o, "job_id");
    j->name = slinky_slurm__str(o, "name");
    j->user_name = slinky_slurm__str(o, "user_name");
    j->partition = slinky_slurm__str(o, "partition");
    j->state_text = slinky_slurm__joined(l, o, "job_state", "+");
    j->nodes = slinky_slurm__str(o, "nodes");
    j->node_count = slinky_slurm__num(o, "node_count");
    j->submit_time = slinky_slurm__num(o, "submit_time");
    j->start_time = slinky_slurm__num(o, "start_time");
    j->end_time = slinky_slurm__num(o, "end_time");
    j->time_limit = slinky_slurm__num(o, "time_limit");
    return j->state_text ? 0 : SLINKY_ENOMEM;
}
LIST_TYPE(jobs, slinky_slurm_job, "jobs")

slinky_status slinky_slurm_jobs_list(slinky_slurm_jobs **out, slinky_slurm_client *c)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_jobs_list: NULL argument");
    return get_jobs(out, c, "jobs", "jobs");
}

slinky_status slinky_slurm_job_get(slinky_slurm_jobs **out, slinky_slurm_client *c, int64_t job_id)
{
    if (out == NULL || c == NULL || job_id <= 0)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_job_get: bad argument (job id %lld)",
                                 (long long)job_id);
    char rel[48];
    snprintf(rel, sizeof(rel), "job/%lld", (long long)job_id);
    slinky_slurm_jobs *l = NULL;
    int err = get_jobs(&l, c, "job/{job_id}", rel);
    if (err)
        return err;
    if (l->l.count == 0) {
        slinky_slurm_jobs_free(l);
        return slinky__error_set(SLINKY_ENOTFOUND, "slurm job %lld not found", (long long)job_id);
    }
    *out = l;
    return 0;
}

/* --- partitions ------------------------------------------------------------ */

static int decode_partitions(void *item, slinky_slurm__list *l, const slinky_doc_value *o)
{
    slinky_slurm_partition *p = item;
    p->name = slinky_slurm__str(o, "name");
    slinky_doc_value *nodes = slinky_doc_value_get(o, "nodes");
    if (slinky_doc_value_type(nodes) == SLINKY_DOC_OBJECT) { /* v0.0.40+ */
        p->nodes = slinky_slurm__str(nodes, "configured");
        p->total_nodes = slinky_slurm__num(nodes, "total");
        p->total_cpus = slinky_slurm__num(slinky_doc_value_get(o, "cpus"), "total");
        p->max_time = slinky_slurm__num(slinky_doc_value_get(o, "maximums"), "time");
        p->state_text = slinky_slurm__joined(l, slinky_doc_value_get(o, "partition"), "state", "+");
    } else { /* v0.0.38 */
        p->nodes = slinky_slurm__str(o, "nodes");
        p->total_nodes = slinky_slurm__num(o, "total_nodes");
        p->total_cpus = slinky_slurm__num(o, "total_cpus");
        p->max_time = slinky_slurm__num(o, "max_time");
        p->state_text = slinky_slurm__joined(l, o, "state", "+");
    }
    return p->state_text ? 0 : SLINKY_ENOMEM;
}
LIST_TYPE(partitions, slinky_slurm_partition, "partitions")

slinky_status slinky_slurm_partitions_list(slinky_slurm_partitions **out, slinky_slurm_client *c)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_partitions_list: NULL argument");
    return get_partitions(out, c, "partitions", "partitions");
}

/* --- reservations -------------------------------------------------------- */

static int decode_reservations(void *item, slinky_slurm__list *l, const slinky_doc_value *o)
{
    slinky_slurm_reservation *r = item;
    r->name = slinky_slurm__str(o, "name");
    r->nodes = slinky_slurm__str(o, "node_list");
    r->node_count = slinky_slurm__num(o, "node_count");
    r->start_time = slinky_slurm__num(o, "start_time");
    r->end_time = slinky_slurm__num(o, "end_time");
    r->flags = slinky_slurm__joined(l, o, "flags", ",");
    r->users = slinky_slurm__joined(l, o, "users", ",");
    r->partition = slinky_slurm__str(o, "partition");
    return r->flags && r->users ? 0 : SLINKY_ENOMEM;
}
LIST_TYPE(reservations, slinky_slurm_reservation, "reservations")

slinky_status slinky_slurm_reservations_list(slinky_slurm_reservations **out, slinky_slurm_client *c)
{
    if (out == NULL || c == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservations_list: NULL argument");
    return get_reservations(out, c, "reservations", "reservations");
}

slinky_status slinky_slurm_reservation_get(slinky_slurm_reservations **out, slinky_slurm_client *c,
                                           const char *name)
{
    if (out == NULL || c == NULL || name == NULL || *name == '\0')
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservation_get: bad argument");
    char *rel = slinky_slurm__rel("reservation", name);
    if (rel == NULL)
        return SLINKY_ENOMEM;
    slinky_slurm_reservations *l = NULL;
    int err = get_reservations(&l, c, "reservation/{reservation_name}", rel);
    free(rel);
    if (err)
        return err;
    if (l->l.count == 0) {
        slinky_slurm_reservations_free(l);
        return slinky__error_set(SLINKY_ENOTFOUND, "slurm reservation \"%s\" not found", name);
    }
    *out = l;
    return 0;
}

slinky_status slinky_slurm_reservation_spec_init(slinky_slurm_reservation_spec *s, unsigned int version)
{
    if (s == NULL || version != SLINKY_SLURM_RESERVATION_SPEC_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservation_spec: unknown version %u", version);
    memset(s, 0, sizeof(*s));
    s->version = version;
    return 0;
}

/* key: [text] (a hostlist expression is one item: "n[1,3]" must not be split) */
static int put_one(slinky_doc_value *o, const char *key, const char *text)
{
    slinky_doc_value *arr = NULL, *v = NULL;
    int err = slinky_doc_value_object_put(&arr, o, key);
    if (err == 0 && (err = slinky_doc_value_set_array(arr)) == 0 && (err = slinky_doc_value_array_append(&v, arr)) == 0)
        err = slinky_doc_value_set_string(v, text);
    return err;
}

static int put_no_val(slinky_doc_value *o, const char *key, int64_t n)
{
    slinky_doc_value *v = NULL;
    int err = slinky_doc_value_object_put(&v, o, key);
    if (err == 0)
        err = slinky_doc_value_set_object(v);
    if (err == 0)
        err = slinky_doc_value_object_set_bool(v, "set", true);
    if (err == 0)
        err = slinky_doc_value_object_set_bool(v, "infinite", false);
    if (err == 0)
        err = slinky_doc_value_object_set_int(v, "number", n);
    return err;
}

slinky_status slinky_slurm_reservation_create(slinky_slurm_client *c, const slinky_slurm_reservation_spec *s)
{
    if (c == NULL || s == NULL)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservation_create: NULL argument");
    if (s->version != SLINKY_SLURM_RESERVATION_SPEC_VERSION)
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservation_spec: unknown version %u", s->version);
    const char *missing = !s->name || !*s->name     ? "name"
                          : !s->nodes || !*s->nodes ? "nodes"
                          : !s->users || !*s->users ? "users"
                          : s->start_time <= 0      ? "start_time"
                          : s->duration_min <= 0    ? "duration_min"
                                                    : NULL;
    if (missing)
        return slinky__error_set(SLINKY_EINVALID, "slurm reservation %s: %s is required", s->name ? s->name : "",
                                 missing);
    slinky_doc *d = NULL;
    char *body = NULL;
    int err = slinky_doc_new(&d);
    if (err)
        return err;
    slinky_doc_value *o = slinky_doc_root(d);
    if ((err = slinky_doc_value_set_object(o)) == 0 && (err = slinky_doc_value_object_set_string(o, "name", s->name)) == 0 &&
        (err = put_one(o, "node_list", s->nodes)) == 0 && (err = slinky_slurm__put_csv(o, "users", s->users)) == 0 &&
        (err = put_no_val(o, "start_time", s->start_time)) == 0 &&
        (err = put_no_val(o, "duration", s->duration_min)) == 0 && (!s->flags || (err = slinky_slurm__put_csv(o, "flags", s->flags)) == 0))
        err = slinky_doc_value_dump_json(&body, NULL, o, 0);
    slinky_doc_free(d);
    if (err == 0) {
        slinky_slurm__reply r;
        err = slinky_slurm__call(&r, c, "POST", "reservation", "reservation", body);
        if (err == 0)
            slinky_doc_free(r.doc);
    }
    slinky_free(body);
    return err;
}

slinky_status slinky_slurm_reservation_delete(slinky_slurm_client *c, const char *name)
{
    if (c == NULL || name == NULL || *name == '\0')
        return slinky__error_set(SLINKY_EINVALID, "slinky_slurm_reservation_delete: bad argument");
    char *rel = slinky_slurm__rel("reservation", name);
    if (rel == NULL)
        return SLINKY_ENOMEM;
    slinky_slurm__reply r;
    int err = slinky_slurm__call(&r, c, "DELETE", "reservation/{reservation_name}", rel, NULL);
    free(rel);
    if (err == 0)
        slinky_doc_free(r.doc);
    return err;
}
