"""Object semantics of slinky-apiserver through python3-kubernetes: finalizers,
ownerReferences GC, generateName, events, watch resume/bookmarks/410, paging 410,
concurrent writers."""
import json
import threading
import time

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from test_apiserver import G, V, NS, nodeset


def test_finalizers_and_deletion_timestamp(api):
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(NS, {"metadata": {"name": "fin",
                                                        "finalizers": ["example.com/hold"]}})
    core.delete_namespaced_config_map("fin", NS)
    cm = core.read_namespaced_config_map("fin", NS)
    assert cm.metadata.deletion_timestamp is not None
    assert cm.metadata.finalizers == ["example.com/hold"]
    core.patch_namespaced_config_map("fin", NS, {"metadata": {"finalizers": None}})
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("fin", NS)
    assert e.value.status == 404


def test_owner_references_background_gc(api):
    core = client.CoreV1Api(api)
    co = client.CustomObjectsApi(api)
    owner = co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-owner"))
    ref = {"apiVersion": "%s/%s" % (G, V), "kind": "NodeSet", "name": "py-owner",
           "uid": owner["metadata"]["uid"]}
    for i in range(3):
        core.create_namespaced_config_map(NS, {"metadata": {"name": "dep-%d" % i,
                                                            "ownerReferences": [ref]}})
    core.create_namespaced_config_map(NS, {"metadata": {"name": "orphan-dep",
                                                        "ownerReferences": [ref]}})
    co.delete_namespaced_custom_object(G, V, NS, "nodesets", "py-owner",
                                       body={"propagationPolicy": "Background"})
    names = {c.metadata.name for c in core.list_namespaced_config_map(NS).items}
    assert not {"dep-0", "dep-1", "dep-2", "orphan-dep"} & names
    # orphan propagation keeps dependents and drops the reference
    owner = co.create_namespaced_custom_object(G, V, NS, "nodesets", nodeset("py-owner2"))
    ref["name"], ref["uid"] = "py-owner2", owner["metadata"]["uid"]
    core.create_namespaced_config_map(NS, {"metadata": {"name": "kept", "ownerReferences": [ref]}})
    co.delete_namespaced_custom_object(G, V, NS, "nodesets", "py-owner2",
                                       body={"propagationPolicy": "Orphan"})
    kept = core.read_namespaced_config_map("kept", NS)
    assert not kept.metadata.owner_references


def test_generate_name(api):
    core = client.CoreV1Api(api)
    a = core.create_namespaced_config_map(NS, {"metadata": {"generateName": "gen-"}})
    b = core.create_namespaced_config_map(NS, {"metadata": {"generateName": "gen-"}})
    assert a.metadata.name.startswith("gen-") and len(a.metadata.name) == 9
    assert a.metadata.name != b.metadata.name
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(NS, {"metadata": {}})
    assert e.value.status == 422


def test_events_accepted_and_listed(api):
    core = client.CoreV1Api(api)
    core.create_namespaced_event(NS, {
        "metadata": {"name": "ev1"}, "involvedObject": {"kind": "NodeSet", "name": "x",
                                                        "namespace": NS},
        "reason": "Scaled", "message": "scaled to 3", "type": "Normal"})
    evs = core.list_namespaced_event(NS, field_selector="involvedObject.name=x")
    assert [e.reason for e in evs.items] == ["Scaled"]
    assert core.list_namespaced_event(NS, field_selector="involvedObject.name=y").items == []


def test_watch_resume_bookmarks_and_410(api, server):
    core = client.CoreV1Api(api)
    rv0 = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, {"metadata": {"name": "w-a"}})
    core.create_namespaced_config_map(NS, {"metadata": {"name": "w-b"}})
    # resume from rv0: exactly the two creations, then a bookmark
    resp = core.list_namespaced_config_map(NS, watch=True, resource_version=rv0,
                                           allow_watch_bookmarks=True, timeout_seconds=2,
                                           _preload_content=False)
    lines = [json.loads(l) for l in resp.read().decode().splitlines() if l.strip()]
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in lines[:2]] == \
        [("ADDED", "w-a"), ("ADDED", "w-b")]
    assert lines[-1]["type"] == "BOOKMARK"
    assert int(lines[-1]["object"]["metadata"]["resourceVersion"]) >= int(rv0) + 2
    # resourceVersion "0": the current state first (both objects ADDED)
    resp = core.list_namespaced_config_map(NS, watch=True, resource_version="0",
                                           timeout_seconds=1, _preload_content=False)
    names = [json.loads(l)["object"]["metadata"]["name"]
             for l in resp.read().decode().splitlines() if l.strip()]
    assert "w-a" in names and "w-b" in names


def test_too_old_continue_is_410(server):
    import subprocess, os, tempfile, shutil
    here = os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp()
    d = os.path.join(tmp, "s")
    subprocess.run([os.path.join(here, "..", "start-apiserver.sh"), d, "--history", "10"],
                   check=True)
    try:
        from kubernetes import config
        cfg = client.Configuration()
        config.load_kube_config(config_file=os.path.join(d, "kubeconfig"), client_configuration=cfg)
        with client.ApiClient(cfg) as a:
            core = client.CoreV1Api(a)
            for i in range(5):
                core.create_namespaced_config_map("default", {"metadata": {"name": "c%d" % i}})
            page = core.list_namespaced_config_map("default", limit=2)
            for i in range(20):
                core.create_namespaced_config_map("default", {"metadata": {"name": "x%d" % i}})
            with pytest.raises(ApiException) as e:
                core.list_namespaced_config_map("default", limit=2, _continue=page.metadata._continue)
            assert e.value.status == 410
            st = json.loads(e.value.body)
            assert st["reason"] == "Expired"
            r = core.list_namespaced_config_map("default", watch=True, resource_version="3",
                                                timeout_seconds=2, _preload_content=False)
            ev = json.loads(r.read().decode().splitlines()[0])
            assert ev["type"] == "ERROR" and ev["object"]["code"] == 410
    finally:
        subprocess.run([os.path.join(here, "..", "stop-apiserver.sh"), d])
        shutil.rmtree(tmp, ignore_errors=True)


def test_concurrent_writers_conflict_not_lost(api):
    """8 threads increment one counter with read-modify-replace; 409 means retry.
    No increment may be lost."""
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(NS, {"metadata": {"name": "counter"}, "data": {"n": "0"}})
    conflicts = [0]

    def worker():
        for _ in range(10):
            while True:
                cm = core.read_namespaced_config_map("counter", NS)
                cm.data["n"] = str(int(cm.data["n"]) + 1)
                try:
                    core.replace_namespaced_config_map("counter", NS, cm)
                    break
                except ApiException as e:
                    assert e.status == 409
                    conflicts[0] += 1

    th = [threading.Thread(target=worker) for _ in range(8)]
    [t.start() for t in th]
    [t.join(60) for t in th]
    assert core.read_namespaced_config_map("counter", NS).data["n"] == "80"
    assert conflicts[0] > 0


def test_list_exact_resource_version(api):
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(NS, {"metadata": {"name": "exact"}, "data": {"v": "1"}})
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    core.patch_namespaced_config_map("exact", NS, {"data": {"v": "2"}})
    core.create_namespaced_config_map(NS, {"metadata": {"name": "exact-later"}})
    old = core.list_namespaced_config_map(NS, resource_version=rv,
                                          resource_version_match="Exact")
    assert old.metadata.resource_version == rv
    by = {c.metadata.name: c for c in old.items}
    assert by["exact"].data == {"v": "1"} and "exact-later" not in by
    with pytest.raises(ApiException) as e:
        core.list_namespaced_config_map(NS, resource_version=str(int(rv) + 1000),
                                        resource_version_match="Exact")
    assert e.value.status == 504


def test_watch_send_initial_events(api):
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(NS, {"metadata": {"name": "init-ev"}})
    resp = api.call_api("/api/v1/namespaces/%s/configmaps" % NS, "GET",
                        query_params=[("watch", "true"), ("sendInitialEvents", "true"),
                                      ("resourceVersionMatch", "NotOlderThan"),
                                      ("allowWatchBookmarks", "true"), ("timeoutSeconds", "1")],
                        auth_settings=["BearerToken"], _preload_content=False,
                        _return_http_data_only=True)
    evs = [json.loads(l) for l in resp.read().decode().splitlines() if l.strip()]
    types = [e["type"] for e in evs]
    assert "ADDED" in types and types.index("BOOKMARK") > types.index("ADDED")
    first_bm = evs[types.index("BOOKMARK")]["object"]["metadata"]
    assert first_bm["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert "init-ev" in [e["object"]["metadata"].get("name") for e in evs if e["type"] == "ADDED"]
