import os

import pytest

import slinky
from slinky import model

SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../../shared"))
EXAMPLES = os.path.join(SHARED, "upstream", "slinky", "examples")
KINDS = ["controller", "nodeset", "loginset", "restapi", "accounting", "token"]

NODESET = {
    "apiVersion": "slinky.slurm.net/v1beta1",
    "kind": "NodeSet",
    "metadata": {"name": "cpu", "namespace": "slinky"},
    "spec": {"controllerRef": {"name": "slurm"}, "futureField": {"x": 1}},
}


@pytest.mark.parametrize("kind", KINDS)
def test_examples_parse_validate_round_trip(kind):
    with open(os.path.join(EXAMPLES, kind + ".yaml")) as f:
        text = f.read()
    obj = model.parse(text)
    assert obj["kind"].lower() == kind
    assert model.validate(obj) == []
    assert model.parse(model.to_yaml(obj)) == obj
    assert model.parse(model.to_json(obj)) == obj


def test_unknown_fields_kept_and_warned():
    obj = model.parse(NODESET)
    assert obj["spec"]["futureField"] == {"x": 1}
    probs = model.problems(obj)
    assert ("warning", "spec.futureField", probs[0][2]) in probs
    assert model.validate(obj) == []


def test_validation_paths():
    bad = dict(NODESET, spec={"controllerRef": {"name": "slurm"}, "replicas": "two",
                              "scalingMode": "Foo"})
    errs = dict(model.validate(bad))
    assert "must be of type integer" in errs["spec.replicas"]
    assert "Unsupported value" in errs["spec.scalingMode"]


def test_update_immutable():
    new = dict(NODESET, spec={"controllerRef": {"name": "other"}})
    errs = model.validate_update(NODESET, new)
    assert [p for p, _ in errs] == ["spec.controllerRef"]
    assert model.validate_update(NODESET, NODESET) == []


def test_defaults_and_hash():
    d = model.default(NODESET)
    assert d["spec"]["replicas"] == 1
    assert d["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == "25%"
    crd_only = model.default(NODESET, model.DEFAULT_CRD)
    assert "updateStrategy" not in crd_only["spec"]
    assert model.spec_hash(NODESET) == model.spec_hash(d)
    assert len(model.spec_hash(NODESET)) == 64


def test_get_and_errors():
    assert model.get(NODESET, "spec.controllerRef.name") == "slurm"
    with pytest.raises(slinky.NotFoundError):
        model.get(NODESET, "spec.replicas")
    with pytest.raises(slinky.InvalidError):
        model.get(NODESET, "spec.nothing")
    with pytest.raises(slinky.ParseError):
        model.parse("{")
    with pytest.raises(slinky.InvalidError):
        model.parse({"apiVersion": "v1", "kind": "Pod"})


def test_crd():
    text = model.crd("nss")
    assert "name: nodesets.slinky.slurm.net" in text
    assert model.crd().count("kind: CustomResourceDefinition") == 6
    with pytest.raises(slinky.NotFoundError):
        model.crd("nothing")
    assert model.kind_lookup("slurmdbd") == "Accounting"
    assert model.kind_lookup("bogus") is None
