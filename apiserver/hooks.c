/* Kind-specific behavior: CRD status and registration, namespace phase. */
#include "admit.h"

#include <stdio.h>
#include <string.h>

static bool is(const hctx *h, const char *group, const char *plural)
{
    return h->rt->builtin && strcmp(h->rt->group, group) == 0 &&
           strcmp(h->rt->plural, plural) == 0;
}

static void crd_status(slinky_doc_value *root)
{
    char now[40];
    as_now_rfc3339(now, sizeof(now));
    slinky_doc_value *st = NULL, *conds = NULL, *c = NULL, *an = NULL, *sv = NULL;
    if (slinky_doc_value_object_put(&st, root, "status") != 0)
        return;
    slinky_doc_value_set_object(st);
    const slinky_doc_value *names = slinky_doc_value_path(root, "spec.names");
    slinky_doc_value_object_put(&an, st, "acceptedNames");
    if (names)
        slinky_doc_value_set_copy(an, names);
    else
        slinky_doc_value_set_object(an);
    slinky_doc_value_object_put(&conds, st, "conditions");
    slinky_doc_value_set_array(conds);
    static const char *const types[][3] = {
        {"NamesAccepted", "NoConflicts", "no conflicts found"},
        {"Established", "InitialNamesAccepted", "the initial names have been accepted"}};
    for (size_t i = 0; i < 2; i++) {
        slinky_doc_value_array_append(&c, conds);
        slinky_doc_value_set_object(c);
        slinky_doc_value_object_set_string(c, "type", types[i][0]);
        slinky_doc_value_object_set_string(c, "status", "True");
        slinky_doc_value_object_set_string(c, "lastTransitionTime", now);
        slinky_doc_value_object_set_string(c, "reason", types[i][1]);
        slinky_doc_value_object_set_string(c, "message", types[i][2]);
    }
    slinky_doc_value_object_put(&sv, st, "storedVersions");
    slinky_doc_value_set_array(sv);
    const slinky_doc_value *vers = slinky_doc_value_path(root, "spec.versions");
    for (size_t i = 0; i < slinky_doc_value_size(vers); i++) {
        const slinky_doc_value *v = slinky_doc_value_at(vers, i);
        if (slinky_doc_value_path_bool(v, "storage", false)) {
            slinky_doc_value *e = NULL;
            slinky_doc_value_array_append(&e, sv);
            slinky_doc_value_set_string(e, slinky_doc_value_path_string(v, "name", ""));
        }
    }
}

void as_hook_before_create(hctx *h, slinky_doc_value *root)
{
    if (is(h, "apiextensions.k8s.io", "customresourcedefinitions")) {
        crd_status(root);
    } else if (is(h, "", "namespaces")) {
        slinky_doc_value *v = NULL;
        if (slinky_doc_value_path_put(&v, root, "spec.finalizers") == 0 &&
            slinky_doc_value_type(v) != SLINKY_DOC_ARRAY) {
            slinky_doc_value_set_array(v);
            slinky_doc_value *e = NULL;
            slinky_doc_value_array_append(&e, v);
            slinky_doc_value_set_string(e, "kubernetes");
        }
        if (slinky_doc_value_path_put(&v, root, "status.phase") == 0)
            slinky_doc_value_set_string(v, "Active");
        slinky_doc_value *md = slinky_doc_value_get(root, "metadata");
        slinky_doc_value *labels = NULL;
        if (slinky_doc_value_object_put(&labels, md, "labels") == 0) {
            if (slinky_doc_value_type(labels) != SLINKY_DOC_OBJECT)
                slinky_doc_value_set_object(labels);
            slinky_doc_value_object_set_string(labels, "kubernetes.io/metadata.name",
                                               slinky_doc_value_path_string(md, "name", ""));
        }
    } else if (is(h, "batch", "jobs") &&
               !slinky_doc_value_path_bool(root, "spec.manualSelector", false)) {
        /* generateSelector: the Job's pods are found by its uid */
        const char *uid = slinky_doc_value_path_string(root, "metadata.uid", "");
        const char *name = slinky_doc_value_path_string(root, "metadata.name", "");
        slinky_doc_value *ml = NULL, *labels = NULL;
        if (slinky_doc_value_path_put(&ml, root, "spec.selector.matchLabels") == 0) {
            slinky_doc_value_set_object(ml);
            slinky_doc_value_object_set_string(ml, "batch.kubernetes.io/controller-uid", uid);
        }
        if (slinky_doc_value_path_put(&labels, root, "spec.template.metadata.labels") == 0) {
            if (slinky_doc_value_type(labels) != SLINKY_DOC_OBJECT)
                slinky_doc_value_set_object(labels);
            slinky_doc_value_object_set_string(labels, "batch.kubernetes.io/controller-uid", uid);
            slinky_doc_value_object_set_string(labels, "batch.kubernetes.io/job-name", name);
            slinky_doc_value_object_set_string(labels, "controller-uid", uid);
            slinky_doc_value_object_set_string(labels, "job-name", name);
        }
    } else if (is(h, "", "secrets")) {
        if (!*slinky_doc_value_path_string(root, "type", ""))
            slinky_doc_value_object_set_string(root, "type", "Opaque");
    }
}

void as_hook_after_write(hctx *h, const slinky_doc_value *root)
{
    as_events_mirror(h, h->rt, root, false);
    if (is(h, "apiextensions.k8s.io", "customresourcedefinitions") &&
        !slinky_doc_value_path(root, "metadata.deletionTimestamp"))
        as_registry_apply_crd(h->s, root);
}
