"""--authorization-mode=RBAC: ServiceAccount tokens (serviceaccounts/NAME/token)
may do what their RoleBindings and ClusterRoleBindings allow; anything else is
403 with kube-apiserver's message. Token-file tokens stay unrestricted."""
import pytest

from hostile import Server

NS = "/api/v1/namespaces"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


@pytest.fixture(scope="module")
def server():
    s = Server("--authorization-mode", "RBAC")
    yield s
    s.stop()


def token_for(s, ns, name):
    assert s.call("POST", NS + "/%s/serviceaccounts" % ns, {"metadata": {"name": name}})[0] == 201
    st, doc = s.call("POST", NS + "/%s/serviceaccounts/%s/token" % (ns, name),
                     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                      "spec": {"expirationSeconds": 3600}})
    assert st == 201, doc
    return doc["status"]["token"]


def test_service_account_tokens_get_what_their_bindings_allow(server):
    s = server
    assert s.call("POST", NS, {"metadata": {"name": "other"}})[0] == 201
    tok = token_for(s, "default", "app")
    st, doc = s.call("GET", NS + "/default/configmaps", token=tok)
    assert st == 403, doc
    assert doc["message"] == ('configmaps is forbidden: User "system:serviceaccount:default:app" '
                              'cannot list resource "configmaps" in API group "" in the '
                              'namespace "default"')
    assert s.call("POST", RBAC + "/namespaces/default/roles", {
        "metadata": {"name": "cm-reader"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})[0] == 201
    assert s.call("POST", RBAC + "/namespaces/default/rolebindings", {
        "metadata": {"name": "app-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "app", "namespace": "default"}]})[0] == 201
    assert s.call("GET", NS + "/default/configmaps", token=tok)[0] == 200
    st, doc = s.call("POST", NS + "/default/configmaps", {"metadata": {"name": "x"}}, token=tok)
    assert st == 403 and "cannot create resource" in doc["message"]
    assert s.call("GET", NS + "/other/configmaps", token=tok)[0] == 403
    assert s.call("GET", NS + "/default/secrets", token=tok)[0] == 403
    # a ClusterRole bound cluster-wide, limited to one name
    assert s.call("POST", RBAC + "/clusterroles", {
        "metadata": {"name": "one-secret"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"],
                   "resourceNames": ["allowed"]}]})[0] == 201
    assert s.call("POST", RBAC + "/clusterrolebindings", {
        "metadata": {"name": "app-one-secret"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "one-secret"},
        "subjects": [{"kind": "Group", "name": "system:serviceaccounts"}]})[0] == 201
    for ns in ("default", "other"):
        assert s.call("POST", NS + "/%s/secrets" % ns, {"metadata": {"name": "allowed"}})[0] == 201
    assert s.call("GET", NS + "/other/secrets/allowed", token=tok)[0] == 200
    st, doc = s.call("GET", NS + "/other/secrets/denied", token=tok)
    assert st == 403 and doc["message"].startswith('secrets "denied" is forbidden')
    # token-file tokens are not restricted
    assert s.call("GET", NS + "/other/secrets", token="tok-b")[0] == 200
