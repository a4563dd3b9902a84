"""Typed models: attribute access, validation with field paths, round trips, kinds."""
import os

import pytest

import slinky
from slinky import model

SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../../shared"))
EXAMPLES = os.path.join(SHARED, "upstream", "slinky", "examples")


def example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read()


def test_nodeset_attributes():
    text = example("nodeset.yaml")
    ns = model.NodeSet.from_yaml(text)
    assert ns.kind == "NodeSet" and ns.api_version == "slinky.slurm.net/v1beta1"
    assert ns.metadata.name == "test-release-slurm-worker-slinky"
    assert ns.spec.replicas == 1 and ns.spec.scaling_mode == "StatefulSet"
    assert ns.spec.scalingMode == "StatefulSet"
    assert ns.spec.slurmd.image.startswith("ghcr.io/slinkyproject/slurmd")
    assert ns.spec.template.spec.node_selector["kubernetes.io/os"] == "linux"
    assert ns.metadata.labels["app.kubernetes.io/part-of"] == "slurm"
    assert ns.spec.update_strategy.rolling_update.max_unavailable == "25%"
    assert isinstance(ns.spec.slurmd.env, list)
    assert ns.status is None                       # in the schema, unset
    with pytest.raises(AttributeError, match="nosuchfield"):
        ns.spec.nosuchfield
    assert not hasattr(ns.spec, "nosuchfield")
    assert "replicas" in ns.spec and "nosuch" not in ns.spec


def test_round_trip_keeps_unknown_fields():
    text = example("nodeset.yaml").replace("spec:\n", "spec:\n  futureKnob: {deep: [1, 2]}\n", 1)
    ns = model.NodeSet.from_yaml(text)
    d = ns.to_dict()
    assert d["spec"]["futureKnob"] == {"deep": [1, 2]}
    assert ns.spec.futureKnob.deep == [1, 2]       # present unknown fields are readable
    assert d == slinky.loads_yaml(text)
    again = model.NodeSet.from_yaml(ns.to_yaml())
    assert again == ns and again.to_dict() == d
    assert model.NodeSet.from_json(ns.to_json()).to_dict() == d
    # to_dict is a copy
    d["spec"]["replicas"] = 99
    assert ns.spec.replicas == 1


def test_validate_with_field_paths():
    ns = model.NodeSet.from_yaml(example("nodeset.yaml"))
    assert ns.validate() == []
    ns.spec.replicas = "many"
    ns.spec.partition = {"enabled": "yes"}
    ns.spec.update_strategy.type = "Bogus"
    probs = ns.validate()
    assert [p.path for p in probs] == ["spec.partition.enabled", "spec.replicas",
                                       "spec.updateStrategy.type"]
    assert all(p.severity == "error" and p.message for p in probs)
    assert ns.to_dict()["spec"]["replicas"] == "many"   # the write went to the data


def test_kinds_and_errors():
    for kind, cls in model.KINDS.items():
        o = cls("x", namespace="slurm")
        assert o.kind == kind and o.metadata.namespace == "slurm"
        assert model.from_dict(o.to_dict()).__class__ is cls
    ctl = model.from_dict(example("controller.yaml")) if os.path.exists(
        os.path.join(EXAMPLES, "controller.yaml")) else model.Controller("c")
    assert isinstance(ctl, model.Controller)
    with pytest.raises(slinky.InvalidError, match="not NodeSet"):
        model.NodeSet.from_dict(model.Token("t").to_dict())
    with pytest.raises(ValueError):
        model.from_dict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    with pytest.raises(slinky.ParseError) as ei:
        model.NodeSet.from_yaml("kind: NodeSet\n  bad: indent\n")
    assert ei.value.line == 2


def test_default_and_hash():
    ns = model.NodeSet("w", spec={"controllerRef": {"name": "slurm"}})
    assert ns.spec.replicas is None
    d = ns.default()
    assert d.spec.replicas == 1 and d is not ns and ns.spec.replicas is None
    assert ns.spec_hash() == d.spec_hash() and len(ns.spec_hash()) == 64


def test_model_from_client_outlives_it(kubeconfig):
    c = slinky.Client(kubeconfig=kubeconfig)
    c.create("nss", {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet",
                     "metadata": {"name": "typed-a"},
                     "spec": {"controllerRef": {"name": "slurm"}, "replicas": 3}})
    ns = model.NodeSet.from_dict(c.get("nss", "typed-a"))
    c.delete("nss", "typed-a")
    c.close()
    del c
    assert ns.spec.replicas == 3 and ns.metadata.uid and ns.validate() == []
