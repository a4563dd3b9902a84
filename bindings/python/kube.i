/*
 * kube module bindings. Python sees a client and a watch as owned objects;
 * requests go through the slinky_py_kube_* helpers below, which take and
 * return plain Python values (dicts) and release the GIL while they wait on
 * the network. Callback-based C calls (list_stream, informer handlers,
 * controller, leader election, retry_on_conflict) are not wrapped; the
 * informer is, with one dispatch callable called on its thread (with the GIL).
 */
SLINKY_OUT_OBJECT(slinky_kube_client)
SLINKY_OUT_OBJECT(slinky_kube_watch)

%nodefaultctor slinky_kube_client;
%nodefaultdtor slinky_kube_client;
%nodefaultctor slinky_kube_watch;
%nodefaultdtor slinky_kube_watch;
struct slinky_kube_client {};
struct slinky_kube_watch {};
%extend slinky_kube_client {
    ~slinky_kube_client() { slinky_kube_client_free($self); }
}
%extend slinky_kube_watch {
    ~slinky_kube_watch() { slinky_kube_watch_free($self); }
}

%{
static int slinky_py_kube_fail(int err)
{
    slinky_py_raise(err);
    return err;
}

static PyObject *slinky_py_kube_doc_out(slinky_doc *d)
{
    PyObject *o = d ? slinky_py_doc_to_python(slinky_doc_root(d)) : (Py_INCREF(Py_None), Py_None);
    slinky_doc_free(d);
    return o;
}

static slinky_doc *slinky_py_kube_doc_in(PyObject *obj)
{
    slinky_doc *d = NULL;
    int err = slinky_doc_new(&d);
    if (err) {
        slinky_py_raise(err);
        return NULL;
    }
    if (slinky_py_doc_store(slinky_doc_root(d), obj, 0) < 0) {
        slinky_doc_free(d);
        return NULL;
    }
    return d;
}

static const char *slinky_py_opt(const char *s)
{
    return (s && *s) ? s : NULL;
}
%}

%inline %{
/** Load a config (kubeconfig path, context, namespace may be None/"") and make a client. */
slinky_status slinky_py_kube_connect(slinky_kube_client **out, const char *kubeconfig,
                                     const char *context, const char *ns, bool in_cluster,
                                     long timeout_ms, int max_retries, const char *user_agent)
{
    slinky_kube_client_options co = SLINKY_KUBE_CLIENT_OPTIONS_INIT;
    co.timeout_ms = timeout_ms;
    co.max_retries = max_retries;
    co.user_agent = slinky_py_opt(user_agent);
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    o.kubeconfig = slinky_py_opt(kubeconfig);
    o.context = slinky_py_opt(context);
    o.ns = slinky_py_opt(ns);
    o.in_cluster = in_cluster;
    slinky_kube_config *cfg = NULL;
    int err = slinky_kube_config_load(&cfg, &o);
    if (err)
        return err;
    err = slinky_kube_client_new(out, cfg, &co);
    slinky_kube_config_free(cfg);
    return err;
}

const char *slinky_py_kube_namespace(slinky_kube_client *c)
{
    return slinky_kube_config_get_namespace(slinky_kube_client_get_config(c));
}

const char *slinky_py_kube_server(slinky_kube_client *c)
{
    return slinky_kube_config_get_server(slinky_kube_client_get_config(c));
}

/** get: the object as a dict. */
PyObject *slinky_py_kube_get(slinky_kube_client *c, const char *group, const char *version,
                             const char *resource, bool namespaced, const char *ns, const char *name)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_doc *d = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_get(&d, c, &r, slinky_py_opt(ns), name, NULL);
    Py_END_ALLOW_THREADS
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

/** list (every page): the List as a dict with items and metadata.resourceVersion. */
PyObject *slinky_py_kube_list(slinky_kube_client *c, const char *group, const char *version,
                              const char *resource, bool namespaced, const char *ns,
                              const char *label_selector, const char *field_selector, long limit)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.label_selector = slinky_py_opt(label_selector);
    lo.field_selector = slinky_py_opt(field_selector);
    lo.limit = limit;
    slinky_doc *d = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_list(&d, c, &r, slinky_py_opt(ns), &lo);
    Py_END_ALLOW_THREADS
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

%}

%{
typedef struct slinky_py_items {
    PyObject *items, *memo;
    int failed;
} slinky_py_items;

/* list_stream callback (on the calling thread, GIL released): item -> dict */
static slinky_status slinky_py_items_add(slinky_doc *item, void *payload)
{
    slinky_py_items *p = payload;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *o = slinky_py_doc_value(slinky_doc_root(item), 0, p->memo);
    int rc = o ? PyList_Append(p->items, o) : -1;
    Py_XDECREF(o);
    PyGILState_Release(g);
    slinky_doc_free(item);
    if (rc < 0) {
        p->failed = 1;
        return SLINKY_ECANCELED;
    }
    return 0;
}
%}

%inline %{
/**
 * list by streaming: (items, resourceVersion). Each item becomes a dict as
 * soon as it is decoded (its native copy is freed at once), and equal keys
 * and short strings are shared between items, so memory is the dicts plus
 * one page in flight.
 */
PyObject *slinky_py_kube_list_items(slinky_kube_client *c, const char *group, const char *version,
                                    const char *resource, bool namespaced, const char *ns,
                                    const char *label_selector, const char *field_selector,
                                    long limit)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.label_selector = slinky_py_opt(label_selector);
    lo.field_selector = slinky_py_opt(field_selector);
    lo.limit = limit;
    slinky_py_items p = {PyList_New(0), PyDict_New(), 0};
    char *rv = NULL;
    int err = SLINKY_ENOMEM;
    if (p.items && p.memo) {
        /* the items hold no cycles: no GC passes over them while they are built */
        int gc_was = PyGC_Disable();
        Py_BEGIN_ALLOW_THREADS
        err = slinky_kube_list_stream(&rv, c, &r, slinky_py_opt(ns), &lo, slinky_py_items_add, &p);
        Py_END_ALLOW_THREADS
        if (gc_was)
            PyGC_Enable();
    }
    Py_XDECREF(p.memo);
    if (err || p.failed) {
        Py_XDECREF(p.items);
        slinky_free(rv);
        if (!p.failed)
            slinky_py_kube_fail(err);
        return NULL;
    }
    PyObject *out = Py_BuildValue("(Ns)", p.items, rv ? rv : "");
    slinky_free(rv);
    return out;
}

/** create (verb "create"), update ("update") or update_status ("update_status"). */
PyObject *slinky_py_kube_write(slinky_kube_client *c, const char *verb, const char *group,
                               const char *version, const char *resource, bool namespaced,
                               const char *ns, PyObject *obj, const char *field_manager, bool dry_run)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_write_options wo = SLINKY_KUBE_WRITE_OPTIONS_INIT;
    wo.field_manager = slinky_py_opt(field_manager);
    wo.dry_run = dry_run;
    slinky_doc *in = slinky_py_kube_doc_in(obj), *d = NULL;
    if (in == NULL)
        return NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    if (strcmp(verb, "create") == 0)
        err = slinky_kube_create(&d, c, &r, slinky_py_opt(ns), slinky_doc_root(in), &wo);
    else if (strcmp(verb, "update") == 0)
        err = slinky_kube_update(&d, c, &r, slinky_py_opt(ns), slinky_doc_root(in), &wo);
    else
        err = slinky_kube_update_status(&d, c, &r, slinky_py_opt(ns), slinky_doc_root(in), &wo);
    Py_END_ALLOW_THREADS
    slinky_doc_free(in);
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

/** patch: type 0 merge, 1 JSON, 2 strategic, 3 apply. */
PyObject *slinky_py_kube_patch(slinky_kube_client *c, const char *group, const char *version,
                               const char *resource, bool namespaced, const char *ns,
                               const char *name, int type, PyObject *patch,
                               const char *field_manager, bool force, bool dry_run,
                               const char *subresource)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_patch_options po = SLINKY_KUBE_PATCH_OPTIONS_INIT;
    po.field_manager = slinky_py_opt(field_manager);
    po.force = force;
    po.dry_run = dry_run;
    po.subresource = slinky_py_opt(subresource);
    slinky_doc *in = slinky_py_kube_doc_in(patch), *d = NULL;
    if (in == NULL)
        return NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_patch(&d, c, &r, slinky_py_opt(ns), name, (slinky_kube_patch_type)type,
                            slinky_doc_root(in), &po);
    Py_END_ALLOW_THREADS
    slinky_doc_free(in);
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

/** delete: grace < 0 keeps the server default. Returns the reply as a dict. */
PyObject *slinky_py_kube_delete(slinky_kube_client *c, const char *group, const char *version,
                                const char *resource, bool namespaced, const char *ns,
                                const char *name, const char *propagation_policy, long grace,
                                const char *precondition_uid, bool dry_run)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_delete_options dop = SLINKY_KUBE_DELETE_OPTIONS_INIT;
    dop.propagation_policy = slinky_py_opt(propagation_policy);
    dop.grace_period_seconds = grace;
    dop.precondition_uid = slinky_py_opt(precondition_uid);
    dop.dry_run = dry_run;
    slinky_doc *d = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_delete(&d, c, &r, slinky_py_opt(ns), name, &dop);
    Py_END_ALLOW_THREADS
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

/** Open a watch (the client must outlive it). */
slinky_status slinky_py_kube_watch_new(slinky_kube_watch **out, slinky_kube_client *c,
                                       const char *group, const char *version,
                                       const char *resource, bool namespaced, const char *ns,
                                       const char *resource_version, const char *label_selector,
                                       long timeout_seconds)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_watch_options wo = SLINKY_KUBE_WATCH_OPTIONS_INIT;
    wo.resource_version = slinky_py_opt(resource_version);
    wo.label_selector = slinky_py_opt(label_selector);
    wo.timeout_seconds = timeout_seconds;
    return slinky_kube_watch_new(out, c, &r, slinky_py_opt(ns), &wo);
}

/** Next event as (type, object), or None when timeout_ms passed without one. */
PyObject *slinky_py_kube_watch_next(slinky_kube_watch *w, long timeout_ms)
{
    slinky_kube_event_type t;
    slinky_doc *d = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_watch_next(&t, &d, w, timeout_ms);
    Py_END_ALLOW_THREADS
    if (err == SLINKY_ETIMEOUT)
        Py_RETURN_NONE;
    if (err)
        return slinky_py_kube_fail(err), NULL;
    PyObject *obj = slinky_py_kube_doc_out(d);
    if (obj == NULL)
        return NULL;
    PyObject *tup = Py_BuildValue("(sN)", slinky_kube_event_type_name(t), obj);
    return tup;
}

/** Stop a watch from any thread. */
void slinky_py_kube_watch_stop(slinky_kube_watch *w)
{
    slinky_kube_watch_stop(w);
}

const char *slinky_py_kube_watch_resource_version(slinky_kube_watch *w)
{
    return slinky_kube_watch_resource_version(w);
}

/** The Status reason of the last failure on this thread ("" when none). */
const char *slinky_py_kube_last_reason(void)
{
    return slinky_kube_status_last()->reason;
}
%}

/* ------------------------------------------------------------------ */
/* Raw requests (discovery), paged list iterator, informer, work queue */
/* ------------------------------------------------------------------ */

%inline %{
/** A raw request: (HTTP status, reply body as str) for any status. */
PyObject *slinky_py_kube_request(slinky_kube_client *c, const char *method, const char *path,
                                 const char *content_type, const char *body)
{
    char *out = NULL;
    size_t len = 0;
    int status = 0, err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_request(&out, &len, &status, c, method, path, slinky_py_opt(content_type),
                              body, body ? strlen(body) : 0);
    Py_END_ALLOW_THREADS
    if (err)
        return slinky_py_kube_fail(err), NULL;
    PyObject *b = slinky_py_str(out ? out : "", out ? len : 0);
    slinky_free(out);
    return b ? Py_BuildValue("(iN)", status, b) : NULL;
}
%}

%{
/* A paged list iterator that keeps its client (a Python proxy) alive. */
typedef struct slinky_py_list_iter {
    slinky_kube_list_iter *it;
    PyObject *client;
} slinky_py_list_iter;

/* An informer that keeps its client alive and calls dispatch(type, old, new)
 * (type "ADDED", "MODIFIED" or "DELETED") on the informer's thread. */
typedef struct slinky_py_informer {
    slinky_kube_informer *inf;
    PyObject *client;
    PyObject *dispatch;
} slinky_py_informer;
%}
struct slinky_py_list_iter {};
struct slinky_py_informer {};

SLINKY_OUT_OBJECT(slinky_py_list_iter)
SLINKY_OUT_OBJECT(slinky_py_informer)
SLINKY_OUT_OBJECT(slinky_kube_workqueue)
%nodefaultctor slinky_py_list_iter;
%nodefaultdtor slinky_py_list_iter;
%nodefaultctor slinky_py_informer;
%nodefaultdtor slinky_py_informer;
%nodefaultctor slinky_kube_workqueue;
%nodefaultdtor slinky_kube_workqueue;
struct slinky_kube_workqueue {};
%extend slinky_py_list_iter {
    ~slinky_py_list_iter() {
        slinky_kube_list_iter_free($self->it);
        Py_XDECREF($self->client);
        free($self);
    }
}
%extend slinky_py_informer {
    ~slinky_py_informer() {
        /* joins the informer thread, which may be waiting for the GIL */
        Py_BEGIN_ALLOW_THREADS
        slinky_kube_informer_free($self->inf);
        Py_END_ALLOW_THREADS
        Py_XDECREF($self->dispatch);
        Py_XDECREF($self->client);
        free($self);
    }
}
%extend slinky_kube_workqueue {
    ~slinky_kube_workqueue() {
        slinky_kube_workqueue_shutdown($self);
        slinky_kube_workqueue_free($self);
    }
}

%{
static void slinky_py_inf_call(slinky_py_informer *p, const char *type,
                               const slinky_doc_value *old_obj, const slinky_doc_value *obj)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *o = old_obj ? slinky_py_doc_to_python(old_obj) : (Py_INCREF(Py_None), Py_None);
    PyObject *n = o ? slinky_py_doc_to_python(obj) : NULL;
    PyObject *r = n ? PyObject_CallFunction(p->dispatch, "sOO", type, o, n) : NULL;
    if (!r)
        PyErr_WriteUnraisable(p->dispatch);
    Py_XDECREF(r);
    Py_XDECREF(o);
    Py_XDECREF(n);
    PyGILState_Release(g);
}

static void slinky_py_inf_add(const slinky_doc_value *obj, void *payload)
{
    slinky_py_inf_call(payload, "ADDED", NULL, obj);
}

static void slinky_py_inf_update(const slinky_doc_value *old_obj, const slinky_doc_value *new_obj,
                                 void *payload)
{
    slinky_py_inf_call(payload, "MODIFIED", old_obj, new_obj);
}

static void slinky_py_inf_delete(const slinky_doc_value *obj, void *payload)
{
    slinky_py_inf_call(payload, "DELETED", NULL, obj);
}
%}

%inline %{
/** A lazy paged list; client_proxy is the Python object of c (kept alive). */
slinky_status slinky_py_list_iter_new(slinky_py_list_iter **out, PyObject *client_proxy,
                                      slinky_kube_client *c, const char *group,
                                      const char *version, const char *resource, bool namespaced,
                                      const char *ns, const char *label_selector,
                                      const char *field_selector, long limit)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_list_options lo = SLINKY_KUBE_LIST_OPTIONS_INIT;
    lo.label_selector = slinky_py_opt(label_selector);
    lo.field_selector = slinky_py_opt(field_selector);
    lo.limit = limit;
    slinky_py_list_iter *p = calloc(1, sizeof(*p));
    if (!p)
        return SLINKY_ENOMEM;
    int err = slinky_kube_list_iter_new(&p->it, c, &r, slinky_py_opt(ns), &lo);
    if (err) {
        free(p);
        return err;
    }
    Py_INCREF(client_proxy);
    p->client = client_proxy;
    *out = p;
    return 0;
}

/** The next item as a dict, or None at the end (pages are fetched as needed). */
PyObject *slinky_py_list_iter_next(slinky_py_list_iter *p)
{
    const slinky_doc_value *v = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_list_iter_next(&v, p->it);
    Py_END_ALLOW_THREADS
    if (err == SLINKY_ITEROVER)
        Py_RETURN_NONE;
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_doc_to_python(v);
}

const char *slinky_py_list_iter_resource_version(slinky_py_list_iter *p)
{
    return slinky_kube_list_iter_resource_version(p->it);
}

unsigned slinky_py_list_iter_restarts(slinky_py_list_iter *p)
{
    return slinky_kube_list_iter_restarts(p->it);
}

/** An informer (not started); dispatch may be None (no handlers). */
slinky_status slinky_py_informer_new(slinky_py_informer **out, PyObject *client_proxy,
                                     slinky_kube_client *c, const char *group, const char *version,
                                     const char *resource, bool namespaced, const char *ns,
                                     const char *label_selector, const char *field_selector,
                                     long watch_timeout_seconds, PyObject *dispatch)
{
    slinky_kube_resource r = {group, version, resource, namespaced};
    slinky_kube_informer_options io = SLINKY_KUBE_INFORMER_OPTIONS_INIT;
    io.label_selector = slinky_py_opt(label_selector);
    io.field_selector = slinky_py_opt(field_selector);
    io.watch_timeout_seconds = watch_timeout_seconds;
    slinky_py_informer *p = calloc(1, sizeof(*p));
    if (!p)
        return SLINKY_ENOMEM;
    int err = slinky_kube_informer_new(&p->inf, c, &r, slinky_py_opt(ns), &io);
    if (!err && dispatch != Py_None) {
        slinky_kube_informer_handlers h = SLINKY_KUBE_INFORMER_HANDLERS_INIT;
        h.on_add = slinky_py_inf_add;
        h.on_update = slinky_py_inf_update;
        h.on_delete = slinky_py_inf_delete;
        h.payload = p;
        err = slinky_kube_informer_add_handlers(p->inf, &h);
    }
    if (err) {
        slinky_kube_informer_free(p->inf);
        free(p);
        return err;
    }
    Py_INCREF(client_proxy);
    p->client = client_proxy;
    if (dispatch != Py_None) {
        Py_INCREF(dispatch);
        p->dispatch = dispatch;
    }
    *out = p;
    return 0;
}

slinky_status slinky_py_informer_start(slinky_py_informer *p)
{
    return slinky_kube_informer_start(p->inf);
}

/** Wait until the first list is cached: True, or False after timeout_ms. */
PyObject *slinky_py_informer_wait_synced(slinky_py_informer *p, long timeout_ms)
{
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_informer_wait_synced(p->inf, timeout_ms);
    Py_END_ALLOW_THREADS
    if (err == SLINKY_ETIMEOUT)
        Py_RETURN_FALSE;
    if (err)
        return slinky_py_kube_fail(err), NULL;
    Py_RETURN_TRUE;
}

bool slinky_py_informer_has_synced(slinky_py_informer *p)
{
    return slinky_kube_informer_has_synced(p->inf);
}

void slinky_py_informer_stop(slinky_py_informer *p)
{
    Py_BEGIN_ALLOW_THREADS
    slinky_kube_informer_stop(p->inf);
    Py_END_ALLOW_THREADS
}

/** The cached object as a dict, None when absent. */
PyObject *slinky_py_informer_get(slinky_py_informer *p, const char *ns, const char *name)
{
    slinky_doc *d = NULL;
    int err = slinky_kube_informer_get(&d, p->inf, ns ? ns : "", name);
    if (err == SLINKY_ENOTFOUND) {
        slinky_error_clear();
        Py_RETURN_NONE;
    }
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

/** The cached objects (sorted by namespace/name) as a list of dicts. */
PyObject *slinky_py_informer_list(slinky_py_informer *p, const char *ns, const char *selector)
{
    slinky_doc *d = NULL;
    int err = slinky_kube_informer_list(&d, p->inf, slinky_py_opt(ns), slinky_py_opt(selector));
    if (err)
        return slinky_py_kube_fail(err), NULL;
    return slinky_py_kube_doc_out(d);
}

size_t slinky_py_informer_size(slinky_py_informer *p)
{
    return slinky_kube_informer_size(p->inf);
}

unsigned slinky_py_informer_list_count(slinky_py_informer *p)
{
    return slinky_kube_informer_list_count(p->inf);
}

slinky_status slinky_py_informer_resource_version(char **out, slinky_py_informer *p)
{
    return slinky_kube_informer_resource_version(out, p->inf);
}

/** A work queue (delays in ms; qps < 0 disables the token bucket). */
slinky_status slinky_py_workqueue_new(slinky_kube_workqueue **out, long base_delay_ms,
                                      long max_delay_ms, double qps, int burst)
{
    slinky_kube_workqueue_options o = SLINKY_KUBE_WORKQUEUE_OPTIONS_INIT;
    o.base_delay_ms = base_delay_ms;
    o.max_delay_ms = max_delay_ms;
    o.qps = qps;
    o.burst = burst;
    return slinky_kube_workqueue_new(out, &o);
}

/** The next key, or None after timeout_ms; CanceledError after shutdown. */
PyObject *slinky_py_workqueue_get(slinky_kube_workqueue *q, long timeout_ms)
{
    char *key = NULL;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = slinky_kube_workqueue_get(&key, q, timeout_ms);
    Py_END_ALLOW_THREADS
    if (err == SLINKY_ETIMEOUT)
        Py_RETURN_NONE;
    if (err)
        return slinky_py_kube_fail(err), NULL;
    PyObject *k = slinky_py_str(key, strlen(key));
    slinky_free(key);
    return k;
}
%}

slinky_status slinky_kube_workqueue_add(slinky_kube_workqueue *q, const char *key);
slinky_status slinky_kube_workqueue_add_after(slinky_kube_workqueue *q, const char *key,
                                              long delay_ms);
slinky_status slinky_kube_workqueue_add_rate_limited(slinky_kube_workqueue *q, const char *key);
void slinky_kube_workqueue_forget(slinky_kube_workqueue *q, const char *key);
int slinky_kube_workqueue_num_requeues(slinky_kube_workqueue *q, const char *key);
void slinky_kube_workqueue_done(slinky_kube_workqueue *q, const char *key);
size_t slinky_kube_workqueue_len(slinky_kube_workqueue *q);
void slinky_kube_workqueue_shutdown(slinky_kube_workqueue *q);
bool slinky_kube_workqueue_is_shutdown(slinky_kube_workqueue *q);
