"""A CRD registered at run time: discovery, schema validation/defaulting/pruning,
scale, printer columns, PUT without resourceVersion, CRD deletion."""
import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

NS = "test-namespace"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                  "listKind": "WidgetList", "shortNames": ["wg"], "categories": ["all"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size",
                                                     "statusReplicasPath": ".status.size"}},
            "additionalPrinterColumns": [
                {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "required": ["color"], "properties": {
                        "color": {"type": "string", "enum": ["red", "blue"]},
                        "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                        "code": {"type": "string", "pattern": "^[a-z]+-\\d+$", "maxLength": 8},
                        "budget": {"x-kubernetes-int-or-string": True},
                        "extra": {"type": "object",
                                  "x-kubernetes-preserve-unknown-fields": True}}},
                    "status": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]}}


@pytest.fixture(scope="module")
def widgets(api):
    ext = client.ApiextensionsV1Api(api)
    ext.create_custom_resource_definition(CRD)
    yield client.CustomObjectsApi(api)


def w(name, **spec):
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
            "spec": spec}


def test_discovery_lists_the_new_kind(api, widgets):
    res = api.call_api("/apis/example.com/v1", "GET", response_type="object",
                       auth_settings=["BearerToken"], _return_http_data_only=True)
    by = {r["name"]: r for r in res["resources"]}
    assert by["widgets"]["shortNames"] == ["wg"] and by["widgets"]["kind"] == "Widget"
    assert by["widgets"]["singularName"] == "widget" and by["widgets"]["namespaced"]
    assert "watch" in by["widgets"]["verbs"] and by["widgets"]["categories"] == ["all"]
    assert by["widgets/status"]["verbs"] == ["get", "patch", "update"]
    assert by["widgets/scale"]["kind"] == "Scale" and by["widgets/scale"]["group"] == "autoscaling"
    groups = api.call_api("/apis", "GET", response_type="object", auth_settings=["BearerToken"],
                          _return_http_data_only=True)
    assert "example.com" in [g["name"] for g in groups["groups"]]


def test_defaulting_and_pruning(widgets):
    o = widgets.create_namespaced_custom_object("example.com", "v1", NS, "widgets",
                                                dict(w("w1", color="red", budget="50%",
                                                       extra={"any": {"thing": 1}}),
                                                     bogus=1))
    assert o["spec"]["size"] == 3
    assert o["spec"]["extra"] == {"any": {"thing": 1}}
    assert "bogus" not in o


def test_validation_causes(widgets):
    with pytest.raises(ApiException) as e:
        widgets.create_namespaced_custom_object("example.com", "v1", NS, "widgets",
                                                w("w2", size=11, code="Bad_Code!",
                                                  budget=[1]))
    assert e.value.status == 422
    causes = {c["field"]: c["reason"] for c in json.loads(e.value.body)["details"]["causes"]}
    assert causes["spec.color"] == "FieldValueRequired"
    assert causes["spec.size"] == "FieldValueInvalid"
    assert causes["spec.budget"] == "FieldValueTypeInvalid"
    assert "spec.code" in causes


def test_put_without_resource_version_is_422(widgets):
    o = widgets.create_namespaced_custom_object("example.com", "v1", NS, "widgets",
                                                w("w3", color="blue"))
    del o["metadata"]["resourceVersion"]
    with pytest.raises(ApiException) as e:
        widgets.replace_namespaced_custom_object("example.com", "v1", NS, "widgets", "w3", o)
    assert e.value.status == 422
    assert "metadata.resourceVersion" in e.value.body


def test_scale_subresource_and_table(api, widgets):
    widgets.create_namespaced_custom_object("example.com", "v1", NS, "widgets",
                                            w("w4", color="blue", size=2))
    sc = widgets.get_namespaced_custom_object_scale("example.com", "v1", NS, "widgets", "w4")
    assert sc["kind"] == "Scale" and sc["spec"]["replicas"] == 2
    widgets.patch_namespaced_custom_object_scale("example.com", "v1", NS, "widgets", "w4",
                                                 {"spec": {"replicas": 5}})
    assert widgets.get_namespaced_custom_object("example.com", "v1", NS, "widgets",
                                                "w4")["spec"]["size"] == 5
    t = api.call_api("/apis/example.com/v1/namespaces/%s/widgets" % NS, "GET",
                     header_params={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
                     response_type="object", auth_settings=["BearerToken"],
                     _return_http_data_only=True)
    assert t["kind"] == "Table"
    assert [c["name"] for c in t["columnDefinitions"]] == ["Name", "Size", "Age"]
    row = [r for r in t["rows"] if r["cells"][0] == "w4"][0]
    assert row["cells"][1] == 5 and row["cells"][2].endswith("s")


def test_deleting_the_crd_removes_its_objects(api, widgets):
    ext = client.ApiextensionsV1Api(api)
    ext.delete_custom_resource_definition("widgets.example.com")
    with pytest.raises(ApiException) as e:
        widgets.list_namespaced_custom_object("example.com", "v1", NS, "widgets")
    assert e.value.status == 404
    ext.create_custom_resource_definition(CRD)
    assert widgets.list_namespaced_custom_object("example.com", "v1", NS, "widgets")["items"] == []


def test_aggregated_discovery(api, widgets):
    acc = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    doc, status, headers = api.call_api("/apis", "GET", header_params={"Accept": acc},
                                        response_type="object", auth_settings=["BearerToken"])
    assert "as=APIGroupDiscoveryList" in headers["Content-Type"]
    assert doc["kind"] == "APIGroupDiscoveryList" and doc["apiVersion"] == "apidiscovery.k8s.io/v2"
    g = [i for i in doc["items"] if i["metadata"]["name"] == "example.com"][0]
    r = g["versions"][0]["resources"][0]
    assert (r["resource"], r["scope"], r["shortNames"]) == ("widgets", "Namespaced", ["wg"])
    assert [s["subresource"] for s in r["subresources"]] == ["status", "scale"]
    core = api.call_api("/api", "GET", header_params={"Accept": acc}, response_type="object",
                        auth_settings=["BearerToken"], _return_http_data_only=True)
    assert core["items"][0]["versions"][0]["version"] == "v1"
    # without that Accept: the legacy APIGroupList
    legacy = api.call_api("/apis", "GET", response_type="object", auth_settings=["BearerToken"],
                          _return_http_data_only=True)
    assert legacy["kind"] == "APIGroupList"
