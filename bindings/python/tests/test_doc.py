import gc
import json
import os

import pytest

import slinky

SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../../shared"))
EXAMPLES = os.path.join(SHARED, "upstream", "slinky", "examples")


def test_loads_json_plain_values():
    v = slinky.loads_json('{"a":[1,2.5,null,true,false,"x"],"big":18446744073709551616,"o":{}}')
    assert v == {"a": [1, 2.5, None, True, False, "x"], "big": 18446744073709551616, "o": {}}
    assert type(v["a"][0]) is int and type(v["a"][1]) is float
    assert list(slinky.loads_json('{"z":1,"a":2,"m":3}')) == ["z", "a", "m"]
    assert slinky.loads_json(b'"\\u00e9\\ud83d\\ude00"') == "\u00e9\U0001F600"


def test_parse_error_has_position():
    with pytest.raises(slinky.ParseError) as ei:
        slinky.loads_json('{\n  "a": 1,\n  "b": tru\n}')
    assert (ei.value.line, ei.value.column) == (3, 8)
    assert "line 3, column 8" in ei.value.message
    with pytest.raises(slinky.ParseError) as ei:
        slinky.loads_yaml("a: 1\nb: [1, 2\nc: 3\n")
    assert ei.value.line == 3
    with pytest.raises(slinky.ParseError):
        slinky.loads_json('"\\ud800"')
    with pytest.raises(slinky.ParseError):
        slinky.loads_json("[1,]")


def test_yaml_typing_and_streams():
    v = slinky.loads_yaml("a: yes\nb: 0777\nc: '0777'\nd: 1.0\ne: ~\nf: 0x1F\ng: 1_000\n")
    assert v == {"a": True, "b": 511, "c": "0777", "d": 1.0, "e": None, "f": 31, "g": 1000}
    docs = slinky.loads_yaml_all("---\na: 1\n---\n---\n- 2\n")
    assert docs == [{"a": 1}, [2]]
    assert slinky.loads_yaml("") is None
    assert slinky.loads_yaml("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n") == {
        "base": {"x": 1}, "use": {"x": 1, "y": 2}}


def test_dumps_round_trip():
    obj = {"s": ["yes", "no", "1.0", "", "null", "0777", "a: b", "multi\nline\n"],
           "n": [0, -1, 2 ** 63 - 1, 2 ** 64, 0.5], "b": [True, False, None], "e": {}, "l": []}
    assert slinky.loads_json(slinky.dumps_json(obj)) == obj
    assert slinky.loads_json(slinky.dumps_json(obj, pretty=True)) == obj
    assert slinky.loads_yaml(slinky.dumps_yaml(obj)) == obj
    assert json.loads(slinky.dumps_json(obj)) == obj
    assert slinky.dumps_json({"b": 1, "a": [1, 2]}) == '{"b":1,"a":[1,2]}'
    assert slinky.dumps_json({"b": 1, "a": 2}, sort_keys=True) == '{"a":2,"b":1}'
    assert slinky.dumps_yaml({"kind": "Pod", "y": "y"}) == 'kind: Pod\n"y": "y"\n'
    with pytest.raises(TypeError):
        slinky.dumps_json({1: "int key"})
    with pytest.raises(TypeError):
        slinky.dumps_json(object())
    with pytest.raises(slinky.InvalidError):
        slinky.dumps_json(float("nan"))
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError):
        slinky.dumps_json(loop)


def test_patches():
    target = {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
              "tags": ["example", "sample"], "content": "This will be unchanged"}
    patch = {"title": "Hello!", "phoneNumber": "+01-123-456-7890",
             "author": {"familyName": None}, "tags": ["example"]}
    assert slinky.merge_patch(target, patch) == {
        "title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
        "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"}
    assert target["author"]["familyName"] == "Doe"  # the input is not modified
    doc = {"foo": ["all", "grass", "cows", "eat"]}
    assert slinky.json_patch(doc, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}]) == {
        "foo": ["all", "cows", "eat", "grass"]}
    with pytest.raises(slinky.ConflictError) as ei:
        slinky.json_patch({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}])
    assert "operation 0" in ei.value.message
    with pytest.raises(slinky.NotFoundError):
        slinky.json_patch({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}])


def test_doc_class(tmp_path):
    d = slinky.Doc.from_yaml("spec:\n  containers:\n  - name: a\n  - name: b\n"
                             "metadata:\n  annotations:\n    example.com/x: z\n")
    assert d.path("spec.containers[1].name") == "b"
    assert d.path('metadata.annotations["example.com/x"]') == "z"
    assert d.path("spec.missing") is None
    assert d.path("spec.missing", 7) == 7
    assert d.pointer("/spec/containers/0/name") == "a"
    d.set_path("metadata.labels.app", "slurm")
    assert d.to_python()["metadata"]["labels"] == {"app": "slurm"}
    assert slinky.loads_json(d.dump_json()) == d.to_python()
    assert slinky.loads_yaml(d.dump_yaml()) == d.to_python()
    assert d == slinky.Doc(d.to_python())
    p = tmp_path / "x.yaml"
    d.save(p, yaml=True)
    assert slinky.Doc.load(p) == d
    j = tmp_path / "x.json"
    d.save(j, pretty=True)
    assert json.loads(j.read_text()) == d.to_python()
    with pytest.raises(slinky.NotFoundError):
        slinky.Doc.load(tmp_path / "missing.yaml")
    # values handed out are copies: they survive the document
    v = d.to_python()
    del d
    gc.collect()
    assert v["spec"]["containers"][0]["name"] == "a"


def test_upstream_examples():
    names = [n for n in sorted(os.listdir(EXAMPLES)) if n.endswith(".yaml")]
    assert names
    for n in names:
        d = slinky.Doc.load(os.path.join(EXAMPLES, n))
        v = d.to_python()
        assert isinstance(v, dict)
        assert slinky.loads_json(d.dump_json()) == v
        assert slinky.loads_yaml(d.dump_yaml()) == v


def test_upstream_examples_match_pyyaml():
    """An independent YAML 1.1 reader (PyYAML, a python3-kubernetes dependency) agrees."""
    yaml = pytest.importorskip("yaml")
    names = [n for n in sorted(os.listdir(EXAMPLES)) if n.endswith(".yaml")]
    for n in names:
        with open(os.path.join(EXAMPLES, n), "rb") as f:
            text = f.read()
        ours = slinky.loads_yaml_all(text)
        theirs = [d for d in yaml.safe_load_all(text) if d is not None]
        # normalize through JSON (PyYAML may return dates; there are none here)
        assert json.loads(json.dumps(ours)) == json.loads(json.dumps(theirs)), n
