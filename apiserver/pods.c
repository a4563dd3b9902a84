/*
 * Pod subresources (verbs.h): pods/eviction, which honours
 * PodDisruptionBudgets (429 when a budget forbids the disruption), and
 * pods/binding, which assigns a pod to a node.
 *
 * A budget's allowed disruptions come from its status when a controller keeps
 * it (status.observedGeneration == metadata.generation, as the disruption
 * controller writes it; then decremented per eviction, as kube-apiserver
 * does); else they are computed here from the pods the budget selects: those
 * with a Ready=True condition are healthy, every selected pod not being
 * deleted is expected.
 */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

static bool pod_ready(const slinky_doc_value *pod)
{
    const slinky_doc_value *conds = slinky_doc_value_path(pod, "status.conditions");
    for (size_t i = 0; i < slinky_doc_value_size(conds); i++) {
        const slinky_doc_value *c = slinky_doc_value_at(conds, i);
        if (!strcmp(slinky_doc_value_path_string(c, "type", ""), "Ready"))
            return !strcmp(slinky_doc_value_path_string(c, "status", ""), "True");
    }
    return false;
}

static bool pod_terminal(const slinky_doc_value *pod)
{
    const char *phase = slinky_doc_value_path_string(pod, "status.phase", "");
    return !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed");
}

/* an IntOrString of a budget: n, or percent of `of` rounded up; -1 when absent */
static long budget_value(const slinky_doc_value *v, long of)
{
    if (!v || slinky_doc_value_is_null(v))
        return -1;
    if (slinky_doc_value_type(v) == SLINKY_DOC_INT)
        return (long)slinky_doc_value_get_int(v);
    const char *s = slinky_doc_value_get_string(v);
    char *end = NULL;
    long pct = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || strcmp(end, "%") != 0 || pct < 0 || pct > 100)
        return -1;
    return (pct * of + 99) / 100; /* rounded up, as intstr.GetScaledValueFromIntOrPercent */
}

typedef struct budget {
    as_obj *pdb;
    slinky_doc *doc;
    long healthy, desired, allowed;
    bool from_status;
} budget;

/* the one budget selecting the pod (0), none (1), or more than one (-1) */
static int find_budget(as_server *s, const char *ns, const slinky_doc_value *labels, budget *b)
{
    memset(b, 0, sizeof(*b));
    as_rtype *prt = as_registry_find_gr(s, "policy", "poddisruptionbudgets");
    int found = 0;
    for (size_t i = 0; prt && i < prt->n_items; i++) {
        as_obj *o = prt->items[i];
        if (strcmp(o->ns, ns) != 0)
            continue;
        slinky_doc *d = NULL;
        if (as_obj_doc(&d, o) != 0)
            continue;
        const slinky_doc_value *sel = slinky_doc_value_path(slinky_doc_root(d), "spec.selector");
        if (!sel || slinky_doc_value_is_null(sel) || !as_label_selector_matches(sel, labels)) {
            slinky_doc_free(d);
            continue;
        }
        if (found++) {
            slinky_doc_free(d);
            slinky_doc_free(b->doc);
            b->doc = NULL;
            return -1;
        }
        b->pdb = o;
        b->doc = d;
    }
    if (!found)
        return 1;
    const slinky_doc_value *root = slinky_doc_root(b->doc);
    const slinky_doc_value *sel = slinky_doc_value_path(root, "spec.selector");
    as_rtype *pods = as_registry_find_gr(s, "", "pods");
    long expected = 0;
    for (size_t i = 0; pods && i < pods->n_items; i++) {
        as_obj *o = pods->items[i];
        if (strcmp(o->ns, ns) != 0 || strstr(o->json, "\"deletionTimestamp\""))
            continue;
        slinky_doc *d = NULL;
        if (as_obj_doc(&d, o) != 0)
            continue;
        const slinky_doc_value *pod = slinky_doc_root(d);
        if (!pod_terminal(pod) &&
            as_label_selector_matches(sel, slinky_doc_value_path(pod, "metadata.labels"))) {
            expected++;
            b->healthy += pod_ready(pod);
        }
        slinky_doc_free(d);
    }
    long min = budget_value(slinky_doc_value_path(root, "spec.minAvailable"), expected);
    long max = budget_value(slinky_doc_value_path(root, "spec.maxUnavailable"), expected);
    b->desired = min >= 0 ? min : max >= 0 ? expected - max : expected;
    b->allowed = b->healthy - b->desired;
    const slinky_doc_value *st = slinky_doc_value_get(root, "status");
    if (slinky_doc_value_path_int(st, "observedGeneration", -1) ==
            slinky_doc_value_path_int(root, "metadata.generation", -2) &&
        slinky_doc_value_get(st, "disruptionsAllowed")) {
        b->from_status = true;
        b->allowed = (long)slinky_doc_value_path_int(st, "disruptionsAllowed", 0);
        b->healthy = (long)slinky_doc_value_path_int(st, "currentHealthy", b->healthy);
        b->desired = (long)slinky_doc_value_path_int(st, "desiredHealthy", b->desired);
    }
    return 0;
}

/* a controller-kept budget: one disruption fewer (status.disruptionsAllowed) */
static void spend_disruption(hctx *h, budget *b)
{
    as_rtype *prt = as_registry_find_gr(h->s, "policy", "poddisruptionbudgets");
    slinky_doc_value *root = slinky_doc_root(b->doc), *v = NULL;
    if (!prt || slinky_doc_value_path_put(&v, root, "status.disruptionsAllowed") != 0)
        return;
    slinky_doc_value_set_int(v, b->allowed - 1);
    uint64_t rv = h->s->rv + 1;
    as_set_rv(root, rv);
    as_obj *o = NULL;
    if (as_obj_new(&o, root, rv) == 0 && as_store_commit(h->s, prt, AS_EV_MODIFIED, o, b->pdb))
        as_obj_unref(o);
}

static int do_eviction(hctx *h, as_obj *pod_obj, const slinky_doc_value *body)
{
    const char *bname = slinky_doc_value_path_string(body, "metadata.name", h->route->name);
    if (strcmp(bname, h->route->name) != 0)
        return as_resp_error(h->resp, NULL, 400, "BadRequest", NULL,
                             "name in URL does not match name in Eviction object");
    slinky_doc *pd = NULL;
    if (as_obj_doc(&pd, pod_obj) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    const slinky_doc_value *pod = slinky_doc_root(pd);
    const slinky_doc_value *opts = slinky_doc_value_get(body, "deleteOptions");
    const slinky_doc_value *dr = slinky_doc_value_get(opts, "dryRun");
    h->body_dry_run = dr && !strcmp(slinky_doc_value_path_string(dr, "[0]", ""), "All");
    budget b;
    int found = pod_terminal(pod) ? 1
                                  : find_budget(h->s, h->ns, slinky_doc_value_path(pod,
                                                                                   "metadata.labels"),
                                                &b);
    int code = 0;
    if (found < 0) {
        code = as_resp_status(h->resp, 500, "InternalError",
                              "This pod has more than one PodDisruptionBudget, which the eviction "
                              "subresource does not support.",
                              NULL);
    } else if (found == 0 && b.allowed <= 0 && !(!pod_ready(pod) && b.healthy >= b.desired)) {
        const char *pdb_name = slinky_doc_value_path_string(slinky_doc_root(b.doc),
                                                            "metadata.name", "");
        char msg[600], details[900];
        snprintf(msg, sizeof(msg), "The disruption budget %s needs %ld healthy pods and has %ld "
                                   "currently",
                 pdb_name, b.desired, b.healthy);
        as_buf d = AS_BUF_INIT;
        as_buf_puts(&d, "{\"causes\":[{\"reason\":\"DisruptionBudget\",\"message\":");
        as_json_str(&d, msg);
        as_buf_puts(&d, "}]}");
        snprintf(details, sizeof(details), "%s", d.data ? d.data : "{}");
        as_buf_dispose(&d);
        code = as_resp_status(h->resp, 429, "TooManyRequests",
                              "Cannot evict pod as it would violate the pod's disruption budget.",
                              details);
        /* no Retry-After, as kube-apiserver (clients would retry on their own) */
    } else {
        if (found == 0 && b.from_status && pod_ready(pod) && !as_dry(h))
            spend_disruption(h, &b);
        slinky_doc *fd = NULL;
        as_rtype *pods = h->rt;
        code = as_delete_one(h, pods, pod_obj, NULL, &fd);
        slinky_doc_free(fd);
        if (!code)
            code = as_resp_status(h->resp, 201, "", "", NULL);
        h->resp->status = h->resp->status ? h->resp->status : 201;
    }
    if (found == 0)
        slinky_doc_free(b.doc);
    slinky_doc_free(pd);
    return code;
}

static int do_binding(hctx *h, as_obj *pod_obj, const slinky_doc_value *body)
{
    const char *node = slinky_doc_value_path_string(body, "target.name", "");
    const char *kind = slinky_doc_value_path_string(body, "target.kind", "Node");
    if (!*node || (*kind && strcmp(kind, "Node") != 0)) {
        as_causes c = {0};
        as_causes_add(&c, *node ? "FieldValueNotSupported" : "FieldValueRequired",
                      *node ? "target.kind" : "target.name",
                      *node ? "Unsupported value: must be Node" : "Required value");
        int code = as_resp_invalid(h->resp, h->rt, h->route->name, &c);
        as_causes_dispose(&c);
        return code ? code : 422;
    }
    slinky_doc *pd = NULL;
    if (as_obj_doc(&pd, pod_obj) != 0)
        return as_resp_status(h->resp, 500, "InternalError", "read failed", NULL);
    slinky_doc_value *pod = slinky_doc_root(pd);
    const char *cur = slinky_doc_value_path_string(pod, "spec.nodeName", "");
    int code;
    if (*cur) {
        code = as_resp_error(h->resp, h->rt, 409, "Conflict", h->route->name,
                             "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is "
                             "already assigned to node \"%s\"",
                             h->route->name, h->route->name, cur);
    } else {
        slinky_doc_value *v = NULL;
        if (slinky_doc_value_path_put(&v, pod, "spec.nodeName") == 0)
            slinky_doc_value_set_string(v, node);
        code = as_update_doc(h, pod_obj, pod, false);
        if (!code)
            code = as_resp_status(h->resp, 201, "", "", NULL);
    }
    slinky_doc_free(pd);
    return code;
}

int as_do_pod_subresource(hctx *h)
{
    if (strcmp(h->req->method, "POST") != 0)
        return as_resp_status(h->resp, 405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              NULL);
    as_obj *pod = as_store_get(h->rt, h->ns, h->route->name);
    if (!pod)
        return as_resp_not_found(h->resp, h->rt, h->route->name);
    slinky_doc *d = NULL;
    if (as_parse_body(&d, h->req, h->resp, h->s->max_body))
        return h->resp->status;
    const slinky_doc_value *body = slinky_doc_root(d);
    int code = !strcmp(h->route->sub, "eviction") ? do_eviction(h, pod, body)
                                                  : do_binding(h, pod, body);
    slinky_doc_free(d);
    return code;
}
