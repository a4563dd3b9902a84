"""slinky-apiserver driven by Debian's official Python client (python3-kubernetes)."""
import copy
import json
import os
import threading
import time

import pytest
import yaml
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from conftest import UPSTREAM

G, V, NS = "slinky.slurm.net", "v1beta1", "test-namespace"


def example(kind):
    with open(os.path.join(UPSTREAM, "examples", kind + ".yaml")) as f:
        return yaml.safe_load(f)


def nodeset(name):
    o = example("nodeset")
    o["metadata"]["name"] = name
    return o


def test_custom_objects_crud(api):
    co = client.CustomObjectsApi(api)
    created = co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-crud"))
    assert created["metadata"]["uid"]
    assert created["metadata"]["generation"] == 1
    rv1 = created["metadata"]["resourceVersion"]
    got = co.get_namespaced_custom_object(G, V, NS, "nodesets", "py-crud")
    assert got["spec"]["scalingMode"] == "StatefulSet"
    names = [o["metadata"]["name"] for o in
             co.list_namespaced_custom_object(G, V, NS, "nodesets")["items"]]
    assert "py-crud" in names
    patched = co.patch_namespaced_custom_object(G, V, NS, "nodesets", "py-crud",
                                                {"spec": {"replicas": 4}})
    assert patched["spec"]["replicas"] == 4
    assert patched["metadata"]["generation"] == 2
    assert int(patched["metadata"]["resourceVersion"]) > int(rv1)
    body = copy.deepcopy(patched)
    body["spec"]["replicas"] = 6
    replaced = co.replace_namespaced_custom_object(G, V, NS, "nodesets", "py-crud", body)
    assert replaced["spec"]["replicas"] == 6
    # the same body again carries a stale resourceVersion now
    with pytest.raises(ApiException) as e:
        co.replace_namespaced_custom_object(G, V, NS, "nodesets", "py-crud", body)
    assert e.value.status == 409
    assert json.loads(e.value.body)["reason"] == "Conflict"
    co.delete_namespaced_custom_object(G, V, NS, "nodesets", "py-crud")
    with pytest.raises(ApiException) as e:
        co.get_namespaced_custom_object(G, V, NS, "nodesets", "py-crud")
    assert e.value.status == 404


def test_create_existing_is_409_already_exists(api):
    co = client.CustomObjectsApi(api)
    co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-dup"))
    with pytest.raises(ApiException) as e:
        co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-dup"))
    assert e.value.status == 409
    assert json.loads(e.value.body)["reason"] == "AlreadyExists"


def test_invalid_nodeset_is_422_naming_fields(api):
    co = client.CustomObjectsApi(api)
    bad = nodeset("py-bad")
    bad["spec"]["scalingMode"] = "Sideways"
    del bad["spec"]["controllerRef"]
    with pytest.raises(ApiException) as e:
        co.create_namespaced_custom_object(G, V, NS, "nodesets", bad)
    assert e.value.status == 422
    status = json.loads(e.value.body)
    assert status["reason"] == "Invalid"
    fields = {c["field"]: c for c in status["details"]["causes"]}
    assert fields["spec.scalingMode"]["reason"] == "FieldValueNotSupported"
    assert fields["spec.controllerRef"]["reason"] == "FieldValueRequired"
    assert len(fields) == 2


def test_watch_stream_sees_added_modified_deleted(api):
    co = client.CustomObjectsApi(api)
    events = []
    started = threading.Event()

    def run():
        w = watch.Watch()
        started.set()
        for ev in w.stream(co.list_namespaced_custom_object, G, V, NS, "nodesets",
                           timeout_seconds=20):
            if ev["object"].get("metadata", {}).get("name") != "py-watch":
                continue
            events.append(ev["type"])
            if ev["type"] == "DELETED":
                w.stop()

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    time.sleep(0.5)
    co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-watch"))
    co.patch_namespaced_custom_object(G, V, NS, "nodesets", "py-watch",
                                      {"metadata": {"labels": {"x": "y"}}})
    co.delete_namespaced_custom_object(G, V, NS, "nodesets", "py-watch")
    t.join(25)
    assert events == ["ADDED", "MODIFIED", "DELETED"]


def test_status_subresource(api):
    co = client.CustomObjectsApi(api)
    co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-status"))
    st = co.patch_namespaced_custom_object_status(G, V, NS, "nodesets", "py-status",
                                                  {"status": {"replicas": 2, "nodeSetHash": "h1",
                                                             "selector": "app=x"}})
    assert st["status"]["replicas"] == 2
    assert st["metadata"]["generation"] == 1
    # the main endpoint ignores status
    o = co.patch_namespaced_custom_object(G, V, NS, "nodesets", "py-status",
                                          {"status": {"replicas": 9}})
    assert o["status"]["replicas"] == 2


def test_list_paging_and_label_selector(api):
    core = client.CoreV1Api(api)
    for i in range(7):
        core.create_namespaced_config_map(NS, {"metadata": {"name": "cm-%d" % i,
                                                            "labels": {"n": str(i % 2)}},
                                               "data": {"k": str(i)}})
    names, cont, rvs = [], None, set()
    while True:
        page = core.list_namespaced_config_map(NS, limit=3, _continue=cont)
        names += [c.metadata.name for c in page.items]
        rvs.add(page.metadata.resource_version)
        cont = page.metadata._continue
        if not cont:
            break
    assert sorted(names) == ["cm-%d" % i for i in range(7)]
    assert len(rvs) == 1, "pages of one list share a resourceVersion"
    odd = core.list_namespaced_config_map(NS, label_selector="n in (1)")
    assert sorted(c.metadata.name for c in odd.items) == ["cm-1", "cm-3", "cm-5"]
    not_odd = core.list_namespaced_config_map(NS, label_selector="n!=1,!missing")
    assert len(not_odd.items) == 4


def test_no_token_is_401(server):
    cfg = client.Configuration()
    cfg.host = "https://127.0.0.1:" + open(os.path.join(server, "port")).read().strip()
    cfg.ssl_ca_cert = os.path.join(server, "ca.crt")
    with client.ApiClient(cfg) as a:
        with pytest.raises(ApiException) as e:
            client.CoreV1Api(a).list_namespace()
    assert e.value.status == 401


def apply_yaml(api, name, replicas, manager, force=False):
    o = nodeset(name)
    o["spec"]["replicas"] = replicas
    q = [("fieldManager", manager)] + ([("force", "true")] if force else [])
    return api.call_api(
        "/apis/%s/%s/namespaces/%s/nodesets/%s" % (G, V, NS, name), "PATCH",
        query_params=q, header_params={"Content-Type": "application/apply-patch+yaml",
                                       "Accept": "application/json"},
        body=yaml.safe_dump(o), response_type="object", auth_settings=["BearerToken"],
        _return_http_data_only=True)


def test_server_side_apply_yaml(api):
    created = apply_yaml(api, "py-ssa", 2, "py-one")
    assert created["spec"]["replicas"] == 2
    mf = created["metadata"]["managedFields"]
    assert [(m["manager"], m["operation"]) for m in mf] == [("py-one", "Apply")]
    with pytest.raises(ApiException) as e:
        apply_yaml(api, "py-ssa", 3, "py-two")
    assert e.value.status == 409
    st = json.loads(e.value.body)
    assert st["reason"] == "Conflict"
    assert st["details"]["causes"] == [{"reason": "FieldManagerConflict",
                                        "message": 'conflict with "py-one" using %s/%s' % (G, V),
                                        "field": ".spec.replicas"}]
    forced = apply_yaml(api, "py-ssa", 3, "py-two", force=True)
    assert forced["spec"]["replicas"] == 3
    owners = {m["manager"]: m["fieldsV1"] for m in forced["metadata"]["managedFields"]}
    assert "f:replicas" in owners["py-two"]["f:spec"]
    assert "f:replicas" not in owners["py-one"]["f:spec"]
    # an update by another client records an Update entry for it
    co = client.CustomObjectsApi(api)
    upd = co.patch_namespaced_custom_object(G, V, NS, "nodesets", "py-ssa",
                                            {"spec": {"replicas": 4}}, field_manager="py-edit")
    ops = {(m["manager"], m["operation"]) for m in upd["metadata"]["managedFields"]}
    assert ("py-edit", "Update") in ops
    owners = {m["manager"]: m["fieldsV1"] for m in upd["metadata"]["managedFields"]}
    assert "f:replicas" not in owners["py-two"]["f:spec"]
