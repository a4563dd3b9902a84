/*
 * kube module bindings. Python sees a client and a watch as owned objects;
 * requests go through the slinky_py_kube_* helpers below, which take and
 * return plain Python values (dicts) and release the GIL while they wait on
 * the network. Callback-based C calls (list_stream, informer handlers,
 * controller, leader election, retry_on_conflict) are not wrapped.
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
                                     const char *context, const char *ns, bool in_cluster)
{
    slinky_kube_config_options o = SLINKY_KUBE_CONFIG_OPTIONS_INIT;
    o.kubeconfig = slinky_py_opt(kubeconfig);
    o.context = slinky_py_opt(context);
    o.ns = slinky_py_opt(ns);
    o.in_cluster = in_cluster;
    slinky_kube_config *cfg = NULL;
    int err = slinky_kube_config_load(&cfg, &o);
    if (err)
        return err;
    err = slinky_kube_client_new(out, cfg, NULL);
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
