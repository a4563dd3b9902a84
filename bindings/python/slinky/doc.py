"""slinky.doc: JSON/YAML documents as plain Python values.

The functions take and return plain Python values (dict, list, str, int,
float, bool, None); parse errors raise slinky.ParseError with .line and
.column. Doc wraps a native document for path lookups and output.

>>> import slinky
>>> slinky.loads_yaml("replicas: 3\\nname: w")
{'replicas': 3, 'name': 'w'}
>>> print(slinky.dumps_json({"a": [1, True, None]}))
{"a":[1,true,null]}
>>> slinky.merge_patch({"a": 1, "b": 2}, {"b": None, "c": 3})
{'a': 1, 'c': 3}
"""
from . import native as _nat
from .errors import _on_file

__all__ = ["Doc", "loads_json", "loads_yaml", "loads_yaml_all", "dumps_json", "dumps_yaml",
           "merge_patch", "json_patch"]

_PRETTY = _nat.SLINKY_DOC_DUMP_PRETTY
_SORT = _nat.SLINKY_DOC_DUMP_SORT_KEYS


def _data(s):
    if isinstance(s, (bytes, bytearray, memoryview)):
        return bytes(s)
    if isinstance(s, str):
        return s
    raise TypeError("expected str or bytes, not %s" % type(s).__name__)


class Doc:
    """A JSON/YAML document (owned native tree). Values come out as Python copies.

    >>> d = Doc({"spec": {"nodes": [{"name": "n1"}]}})
    >>> d.path("spec.nodes[0].name"), d.pointer("/spec/nodes/0/name"), d.path("nope", 0)
    ('n1', 'n1', 0)
    >>> d.set_path("spec.replicas", 2); d.to_python()["spec"]["replicas"]
    2
    >>> d == Doc.from_json(d.dump_json())
    True
    """

    __slots__ = ("_doc",)

    def __init__(self, value=None):
        self._doc = _nat.slinky_doc_new()
        if value is not None:
            _nat.slinky_py_doc_set_python(self._root(), value)

    @classmethod
    def _wrap(cls, native_doc):
        d = cls.__new__(cls)
        d._doc = native_doc
        return d

    @classmethod
    def from_json(cls, s):
        """Parse JSON text (str or bytes); ParseError with .line/.column.

        >>> Doc.from_json(b'[1, 2]').to_python()
        [1, 2]
        """
        return cls._wrap(_nat.slinky_doc_parse_json(_data(s)))

    @classmethod
    def from_yaml(cls, s):
        """Parse the first YAML document of a stream.

        >>> Doc.from_yaml("a: 1\\n---\\na: 2").to_python()
        {'a': 1}
        """
        return cls._wrap(_nat.slinky_doc_parse_yaml(_data(s)))

    @classmethod
    def from_yaml_all(cls, s):
        """Parse every document of a YAML stream into a list.

        >>> Doc.from_yaml_all("a: 1\\n---\\na: 2").to_python()
        [{'a': 1}, {'a': 2}]
        """
        return cls._wrap(_nat.slinky_doc_parse_yaml_all(_data(s)))

    @classmethod
    def load(cls, path):
        """Read a JSON or YAML file; slinky.FileNotFoundError when it is missing."""
        return cls._wrap(_on_file(str(path), _nat.slinky_doc_load_file, str(path)))

    def _root(self):
        return _nat.slinky_doc_root(self._doc)

    def to_python(self):
        """The whole document as plain Python values."""
        return _nat.slinky_py_doc_to_python(self._root())

    def path(self, p, default=None):
        """The value at a dotted path ("spec.nodes[0].name"), or default when missing."""
        v = _nat.slinky_doc_value_path(self._root(), p)
        if v is None:
            return default
        return _nat.slinky_py_doc_to_python(v)

    def pointer(self, p, default=None):
        """The value at an RFC 6901 JSON pointer, or default when missing."""
        v = _nat.slinky_doc_value_pointer(self._root(), p)
        if v is None:
            return default
        return _nat.slinky_py_doc_to_python(v)

    def set_path(self, p, value):
        """Set the value at a dotted path, creating objects on the way."""
        v = _nat.slinky_doc_value_path_put(self._root(), p)
        _nat.slinky_py_doc_set_python(v, value)

    def dump_json(self, pretty=False, sort_keys=False):
        """JSON text (compact unless pretty).

        >>> Doc({"b": 1, "a": 2}).dump_json(sort_keys=True)
        '{"a":2,"b":1}'
        """
        flags = (_PRETTY if pretty else 0) | (_SORT if sort_keys else 0)
        return _nat.slinky_doc_value_dump_json(self._root(), flags)

    def dump_yaml(self, sort_keys=False):
        """YAML text (kubectl style).

        >>> print(Doc({"a": [1]}).dump_yaml(), end="")
        a:
        - 1
        """
        return _nat.slinky_doc_value_dump_yaml(self._root(), _SORT if sort_keys else 0)

    def save(self, path, yaml=False, pretty=False):
        """Write the document to a file atomically (JSON, or YAML with yaml=True).

        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "d.yaml")
        >>> Doc({"a": 1}).save(p, yaml=True); Doc.load(p).to_python()
        {'a': 1}
        """
        _nat.slinky_doc_value_save_file(self._root(), str(path), bool(yaml),
                                        _PRETTY if pretty else 0)

    def merge_patch(self, patch):
        """Apply an RFC 7386 merge patch (a Python value) in place.

        >>> d = Doc({"a": 1}); d.merge_patch({"a": None, "b": 2}); d.to_python()
        {'b': 2}
        """
        p = Doc(patch)
        _nat.slinky_doc_merge_patch_apply(self._root(), p._root())

    def json_patch(self, ops):
        """Apply an RFC 6902 JSON patch (a list of operations) in place, atomically.

        >>> d = Doc({"a": [1]}); d.json_patch([{"op": "add", "path": "/a/-", "value": 2}])
        >>> d.to_python()
        {'a': [1, 2]}
        """
        p = Doc(ops)
        _nat.slinky_doc_json_patch_apply(self._root(), p._root())

    def __eq__(self, other):
        if isinstance(other, Doc):
            return _nat.slinky_doc_value_equal(self._root(), other._root())
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "Doc(%s)" % self.dump_json()


def loads_json(s):
    """Parse JSON text into plain Python values (strict RFC 8259).

    >>> loads_json('{"n": 12345678901234567890}')
    {'n': 12345678901234567890}
    """
    return Doc.from_json(s).to_python()


def loads_yaml(s):
    """Parse the first YAML document (kubectl's typing) into plain Python values.

    >>> loads_yaml("on: yes\\nv: '1'")
    {'on': True, 'v': '1'}
    """
    return Doc.from_yaml(s).to_python()


def loads_yaml_all(s):
    """Parse every non-empty document of a YAML stream into a list.

    >>> loads_yaml_all("a: 1\\n---\\n---\\nb: 2")
    [{'a': 1}, {'b': 2}]
    """
    return Doc.from_yaml_all(s).to_python()


def dumps_json(obj, pretty=False, sort_keys=False):
    """Serialize a Python value as JSON.

    >>> dumps_json([1, "x"])
    '[1,"x"]'
    """
    return Doc(obj).dump_json(pretty=pretty, sort_keys=sort_keys)


def dumps_yaml(obj, sort_keys=False):
    """Serialize a Python value as YAML (kubectl style).

    >>> dumps_yaml({"k": "v"})
    'k: v\\n'
    """
    return Doc(obj).dump_yaml(sort_keys=sort_keys)


def merge_patch(target, patch):
    """Return target with an RFC 7386 merge patch applied (both plain Python values).

    >>> merge_patch({"a": {"b": 1}}, {"a": {"c": 2}})
    {'a': {'b': 1, 'c': 2}}
    """
    d = Doc(target)
    d.merge_patch(patch)
    return d.to_python()


def json_patch(target, ops):
    """Return target with an RFC 6902 JSON patch applied; raises on any failed operation.

    >>> json_patch({"a": 1}, [{"op": "replace", "path": "/a", "value": 2}])
    {'a': 2}
    >>> json_patch({"a": 1}, [{"op": "test", "path": "/a", "value": 3}])
    Traceback (most recent call last):
    ...
    slinky.errors.ConflictError: ...
    """
    d = Doc(target)
    d.json_patch(ops)
    return d.to_python()
