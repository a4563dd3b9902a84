"""Built-in workload kinds through python3-kubernetes: a StatefulSet read back
with Kubernetes' defaults, scale, a PodDisruptionBudget, a refused Deployment
with kube-apiserver's field path, and foreground/orphan deletion."""
import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

NS = "test-namespace"


def sts_body(name, labels=None):
    labels = labels or {"app": name}
    return client.V1StatefulSet(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1StatefulSetSpec(
            service_name=name,
            selector=client.V1LabelSelector(match_labels={"app": name}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[
                    client.V1Container(name="c", image="busybox:1.36")]))))


def test_statefulset_defaults_and_scale(api):
    apps = client.AppsV1Api(api)
    apps.create_namespaced_stateful_set(NS, sts_body("db"))
    got = apps.read_namespaced_stateful_set("db", NS)
    assert got.spec.replicas == 1
    assert got.spec.pod_management_policy == "OrderedReady"
    assert got.spec.update_strategy.type == "RollingUpdate"
    assert got.spec.update_strategy.rolling_update.partition == 0
    assert got.spec.revision_history_limit == 10
    pod = got.spec.template.spec
    assert pod.restart_policy == "Always" and pod.dns_policy == "ClusterFirst"
    assert pod.termination_grace_period_seconds == 30
    assert pod.containers[0].image_pull_policy == "IfNotPresent"
    assert pod.containers[0].termination_message_policy == "File"
    apps.patch_namespaced_stateful_set_scale("db", NS, {"spec": {"replicas": 4}})
    assert apps.read_namespaced_stateful_set_scale("db", NS).spec.replicas == 4
    assert apps.read_namespaced_stateful_set("db", NS).metadata.generation == 2


def test_deployment_refused_with_the_field_path(api):
    apps = client.AppsV1Api(api)
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad"},
            "spec": {"selector": {"matchLabels": {"app": "a"}},
                     "template": {"metadata": {"labels": {"app": "b"}},
                                  "spec": {"containers": [{"name": "c"}]}}}}
    with pytest.raises(ApiException) as e:
        apps.create_namespaced_deployment(NS, body)
    assert e.value.status == 422
    assert "spec.template.metadata.labels" in e.value.body
    assert "spec.template.spec.containers[0].image" in e.value.body


def test_pod_disruption_budget(api):
    pol = client.PolicyV1Api(api)
    pdb = client.V1PodDisruptionBudget(
        metadata=client.V1ObjectMeta(name="db-pdb"),
        spec=client.V1PodDisruptionBudgetSpec(
            max_unavailable=1, selector=client.V1LabelSelector(match_labels={"app": "db"})))
    pol.create_namespaced_pod_disruption_budget(NS, pdb)
    assert pol.read_namespaced_pod_disruption_budget("db-pdb", NS).spec.max_unavailable == 1
    with pytest.raises(ApiException) as e:
        pol.patch_namespaced_pod_disruption_budget("db-pdb", NS, {"spec": {"minAvailable": 1}})
    assert e.value.status == 422


def test_foreground_and_orphan_deletion(api):
    core = client.CoreV1Api(api)
    apps = client.AppsV1Api(api)
    owner = apps.create_namespaced_stateful_set(NS, sts_body("fg"))
    ref = client.V1OwnerReference(api_version="apps/v1", kind="StatefulSet", name="fg",
                                  uid=owner.metadata.uid, block_owner_deletion=True)
    for n in ("fg-a", "fg-b"):
        core.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=n, owner_references=[ref],
                                         finalizers=["test/hold"] if n == "fg-b" else None)))
    apps.delete_namespaced_stateful_set("fg", NS, body=client.V1DeleteOptions(
        propagation_policy="Foreground"))
    held = apps.read_namespaced_stateful_set("fg", NS)
    assert held.metadata.finalizers == ["foregroundDeletion"]
    assert held.metadata.deletion_timestamp is not None
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("fg-a", NS)
    assert e.value.status == 404
    core.patch_namespaced_config_map("fg-b", NS, {"metadata": {"finalizers": None}})
    with pytest.raises(ApiException) as e:
        apps.read_namespaced_stateful_set("fg", NS)
    assert e.value.status == 404

    owner = apps.create_namespaced_stateful_set(NS, sts_body("orph"))
    ref.name, ref.uid = "orph", owner.metadata.uid
    core.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="orph-a", owner_references=[ref])))
    apps.delete_namespaced_stateful_set("orph", NS, body=client.V1DeleteOptions(
        propagation_policy="Orphan"))
    assert not core.read_namespaced_config_map("orph-a", NS).metadata.owner_references


def ready_pod(core, name, labels, ready=True):
    core.create_namespaced_pod(NS, client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1.36")])))
    core.patch_namespaced_pod_status(name, NS, {"status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True" if ready else "False"}]}})


def evict(core, name):
    body = client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=NS))
    return core.create_namespaced_pod_eviction(name, NS, body, _preload_content=False)


def test_eviction_honours_the_disruption_budget(api):
    core = client.CoreV1Api(api)
    pol = client.PolicyV1Api(api)
    pol.create_namespaced_pod_disruption_budget(NS, client.V1PodDisruptionBudget(
        metadata=client.V1ObjectMeta(name="ev-pdb"),
        spec=client.V1PodDisruptionBudgetSpec(
            min_available=2, selector=client.V1LabelSelector(match_labels={"app": "ev"}))))
    ready_pod(core, "ev-1", {"app": "ev"})
    ready_pod(core, "ev-2", {"app": "ev"})
    with pytest.raises(ApiException) as e:
        evict(core, "ev-1")
    assert e.value.status == 429
    assert b"disruption budget" in e.value.body
    assert core.read_namespaced_pod("ev-1", NS)
    ready_pod(core, "ev-3", {"app": "ev"})
    assert evict(core, "ev-1").status == 201
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod("ev-1", NS)
    assert e.value.status == 404
    # an unready pod may go while the budget is healthy; unselected pods always may
    ready_pod(core, "ev-4", {"app": "ev"}, ready=False)
    assert evict(core, "ev-4").status == 201
    ready_pod(core, "free", {"app": "other"})
    assert evict(core, "free").status == 201


def test_binding_assigns_a_node_once(api):
    core = client.CoreV1Api(api)
    ready_pod(core, "bind-me", {"app": "bind"})
    target = client.V1Binding(metadata=client.V1ObjectMeta(name="bind-me"),
                              target=client.V1ObjectReference(kind="Node", name="node-7"))
    r = core.create_namespaced_pod_binding("bind-me", NS, target, _preload_content=False)
    assert r.status == 201
    assert core.read_namespaced_pod("bind-me", NS).spec.node_name == "node-7"
    with pytest.raises(ApiException) as e:
        core.create_namespaced_pod_binding("bind-me", NS, target, _preload_content=False)
    assert e.value.status == 409
