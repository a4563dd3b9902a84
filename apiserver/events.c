/*
 * One set of events behind v1 and events.k8s.io/v1 (admit.h), as
 * kube-apiserver serves the same objects in both shapes: every write of an
 * Event in one group is mirrored, converted, into the other (same name,
 * namespace, uid and creationTimestamp), so `kubectl get events` lists them
 * whichever group it picks. Conversion as in k8s.io/api/events/v1:
 * involvedObject <-> regarding, message <-> note, source <-> deprecatedSource,
 * firstTimestamp/lastTimestamp/count <-> deprecatedFirstTimestamp/
 * deprecatedLastTimestamp/deprecatedCount, reportingComponent <->
 * reportingController; the rest keeps its name.
 */
#include "admit.h"

#include <string.h>

static const char *const k_pairs[][2] = {
    /* core v1 name, events.k8s.io/v1 name */
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

static bool is_events(const as_rtype *rt)
{
    return rt->builtin && !strcmp(rt->plural, "events") &&
           (!*rt->group || !strcmp(rt->group, "events.k8s.io"));
}

/* `root` in the other group's shape (a new document) */
static int convert(slinky_doc **out, const slinky_doc_value *root, bool to_events_k8s_io)
{
    slinky_doc *d = NULL;
    int rc = slinky_doc_new(&d);
    if (rc)
        return rc;
    slinky_doc_value *n = slinky_doc_root(d);
    slinky_doc_value_set_object(n);
    slinky_doc_value_object_set_string(n, "apiVersion", to_events_k8s_io ? "events.k8s.io/v1"
                                                                          : "v1");
    slinky_doc_value_object_set_string(n, "kind", "Event");
    for (size_t i = 0; i < slinky_doc_value_size(root); i++) {
        const char *k = slinky_doc_value_key_at(root, i);
        if (!strcmp(k, "apiVersion") || !strcmp(k, "kind"))
            continue;
        const char *name = k;
        for (size_t j = 0; j < AS_ARRAY_SIZE(k_pairs); j++)
            if (!strcmp(k, k_pairs[j][to_events_k8s_io ? 0 : 1]))
                name = k_pairs[j][to_events_k8s_io ? 1 : 0];
        if (!to_events_k8s_io || strcmp(k, "reportingInstance") != 0 ||
            !slinky_doc_value_get(root, "reportingInstance"))
            slinky_doc_value_object_set(n, name, slinky_doc_value_member_at(root, i));
    }
    /* managedFields belong to the group that was written */
    slinky_doc_value *md = slinky_doc_value_get(n, "metadata");
    if (md && slinky_doc_value_get(md, "managedFields"))
        slinky_doc_value_object_remove(md, "managedFields");
    *out = d;
    return 0;
}

void as_events_mirror(hctx *h, const as_rtype *rt, const slinky_doc_value *root, bool deleted)
{
    if (!is_events(rt) || h->mirroring)
        return;
    bool to_new = !*rt->group;
    as_rtype *other = as_registry_find_gr(h->s, to_new ? "events.k8s.io" : "", "events");
    if (!other)
        return;
    const char *ns = slinky_doc_value_path_string(root, "metadata.namespace", "");
    const char *name = slinky_doc_value_path_string(root, "metadata.name", "");
    as_obj *prev = as_store_get(other, ns, name);
    if (deleted && !prev)
        return;
    slinky_doc *d = NULL;
    if (convert(&d, root, to_new) != 0)
        return;
    slinky_doc_value *n = slinky_doc_root(d);
    uint64_t rv = h->s->rv + 1;
    as_set_rv(n, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, n, rv) == 0) {
        h->mirroring = true;
        int type = deleted ? AS_EV_DELETED : prev ? AS_EV_MODIFIED : AS_EV_ADDED;
        if (as_store_commit(h->s, other, type, o, prev) != 0)
            as_obj_unref(o);
        h->mirroring = false;
    }
    slinky_doc_free(d);
}
