/*
 * RBAC for ServiceAccount tokens (verbs.h), with --authorization-mode=RBAC:
 * a request is allowed when a RoleBinding in its namespace or a
 * ClusterRoleBinding names the ServiceAccount (or the groups
 * system:serviceaccounts, system:serviceaccounts:NS, system:authenticated)
 * and the Role/ClusterRole it refers to has a rule matching the API group,
 * the resource (or "resource/subresource"), the verb and, when the rule
 * lists them, the name; "*" matches anything. Otherwise 403 with
 * kube-apiserver's message. Token-file tokens stay unrestricted.
 */
#include "verbs.h"

#include <stdio.h>
#include <string.h>

static bool in_list(const slinky_doc_value *list, const char *v)
{
    for (size_t i = 0; i < slinky_doc_value_size(list); i++) {
        const char *x = slinky_doc_value_get_string(slinky_doc_value_at(list, i));
        if (x && (!strcmp(x, "*") || !strcmp(x, v)))
            return true;
    }
    return false;
}

static bool rules_allow(const slinky_doc_value *role, const char *group, const char *res,
                        const char *verb, const char *name)
{
    const slinky_doc_value *rules = slinky_doc_value_get(role, "rules");
    for (size_t i = 0; i < slinky_doc_value_size(rules); i++) {
        const slinky_doc_value *r = slinky_doc_value_at(rules, i);
        const slinky_doc_value *names = slinky_doc_value_get(r, "resourceNames");
        if (in_list(slinky_doc_value_get(r, "apiGroups"), group) &&
            in_list(slinky_doc_value_get(r, "resources"), res) &&
            in_list(slinky_doc_value_get(r, "verbs"), verb) &&
            (slinky_doc_value_size(names) == 0 || (name && in_list(names, name))))
            return true;
    }
    return false;
}

static bool subject_is(const slinky_doc_value *subjects, const char *ns, const char *name)
{
    char group_ns[300];
    snprintf(group_ns, sizeof(group_ns), "system:serviceaccounts:%s", ns);
    for (size_t i = 0; i < slinky_doc_value_size(subjects); i++) {
        const slinky_doc_value *s = slinky_doc_value_at(subjects, i);
        const char *kind = slinky_doc_value_path_string(s, "kind", "");
        const char *sname = slinky_doc_value_path_string(s, "name", "");
        if (!strcmp(kind, "ServiceAccount") && !strcmp(sname, name) &&
            !strcmp(slinky_doc_value_path_string(s, "namespace", ""), ns))
            return true;
        if (!strcmp(kind, "Group") &&
            (!strcmp(sname, "system:serviceaccounts") || !strcmp(sname, group_ns) ||
             !strcmp(sname, "system:authenticated")))
            return true;
    }
    return false;
}

/* does one binding of type `brt` (in ns, or cluster-wide) grant it? */
static bool bindings_allow(as_server *s, as_rtype *brt, const char *ns, const as_req *req,
                           const char *group, const char *res, const char *verb,
                           const char *name)
{
    as_rtype *roles = as_registry_find_gr(s, "rbac.authorization.k8s.io", "roles");
    as_rtype *croles = as_registry_find_gr(s, "rbac.authorization.k8s.io", "clusterroles");
    bool ok = false;
    for (size_t i = 0; brt && i < brt->n_items && !ok; i++) {
        as_obj *b = brt->items[i];
        if (ns && strcmp(b->ns, ns) != 0)
            continue;
        slinky_doc *bd = NULL;
        if (as_obj_doc(&bd, b) != 0)
            continue;
        const slinky_doc_value *br = slinky_doc_root(bd);
        if (subject_is(slinky_doc_value_get(br, "subjects"), req->sa_ns, req->sa_name)) {
            const char *kind = slinky_doc_value_path_string(br, "roleRef.kind", "");
            const char *rname = slinky_doc_value_path_string(br, "roleRef.name", "");
            as_obj *role = !strcmp(kind, "Role") && roles && ns ? as_store_get(roles, ns, rname)
                           : !strcmp(kind, "ClusterRole") && croles
                               ? as_store_get(croles, "", rname)
                               : NULL;
            slinky_doc *rd = NULL;
            if (role && as_obj_doc(&rd, role) == 0)
                ok = rules_allow(slinky_doc_root(rd), group, res, verb, name);
            slinky_doc_free(rd);
        }
        slinky_doc_free(bd);
    }
    return ok;
}

int as_rbac_check(as_server *s, const as_req *req, const as_route *route, const char *verb,
                  as_resp *resp)
{
    if (!s->rbac || !req->sa_name)
        return 0;
    char res[200];
    snprintf(res, sizeof(res), "%s%s%s", route->resource, route->sub ? "/" : "",
             route->sub ? route->sub : "");
    const char *ns = route->ns;
    const char *group = route->group;
    const char *name = route->name;
    if (ns && bindings_allow(s, as_registry_find_gr(s, "rbac.authorization.k8s.io",
                                                    "rolebindings"),
                             ns, req, group, res, verb, name))
        return 0;
    if (bindings_allow(s, as_registry_find_gr(s, "rbac.authorization.k8s.io",
                                              "clusterrolebindings"),
                       NULL, req, group, res, verb, name))
        return 0;
    char msg[1200], where[400] = "";
    if (ns)
        snprintf(where, sizeof(where), " in the namespace \"%s\"", ns);
    char what[300] = "";
    if (name)
        snprintf(what, sizeof(what), " \"%s\"", name);
    /* kube-apiserver: configmaps "x" is forbidden: User "..." cannot get resource ... */
    snprintf(msg, sizeof(msg),
             "%s%s is forbidden: User \"system:serviceaccount:%s:%s\" cannot %s resource \"%s\" "
             "in API group \"%s\"%s",
             route->resource, what, req->sa_ns, req->sa_name, verb, res, group, where);
    as_buf d = AS_BUF_INIT;
    as_buf_puts(&d, "{\"name\":");
    as_json_str(&d, name ? name : "");
    as_buf_puts(&d, ",\"group\":");
    as_json_str(&d, group);
    as_buf_puts(&d, ",\"kind\":");
    as_json_str(&d, route->resource);
    as_buf_puts(&d, "}");
    as_resp_status(resp, 403, "Forbidden", msg, d.data);
    as_buf_dispose(&d);
    return 403;
}
