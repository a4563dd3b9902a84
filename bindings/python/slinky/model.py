"""slinky.model: the Slinky resources (slinky.slurm.net/v1beta1).

Two ways to work with a resource:

- typed objects: :class:`NodeSet`, :class:`Controller`, :class:`LoginSet`,
  :class:`RestApi`, :class:`Accounting`, :class:`Token` with attribute access
  for schema fields (``ns.spec.replicas``, also ``ns.spec.scaling_mode`` for
  ``scalingMode``), ``to_dict()``, ``validate()`` and ``default()``;
- functions over plain dicts (or JSON/YAML text): :func:`parse`,
  :func:`validate`, :func:`default`, :func:`to_yaml`, :func:`spec_hash`...

The C library does the parsing, validation and defaulting; fields it does
not know are kept, so a round trip changes nothing.

>>> import slinky
>>> ns = slinky.model.NodeSet.from_yaml('''
... apiVersion: slinky.slurm.net/v1beta1
... kind: NodeSet
... metadata: {name: workers, namespace: slurm}
... spec:
...   controllerRef: {name: slurm}
...   replicas: 2
...   futureField: kept
... ''')
>>> ns.spec.replicas, ns.spec.controller_ref.name, ns.spec.partition
(2, 'slurm', None)
>>> ns.validate()
[]
>>> ns.spec.replicas = "two"
>>> [p.path for p in ns.validate()]
['spec.replicas']
>>> ns.to_dict()["spec"]["futureField"]
'kept'
>>> slinky.model.default(ns.to_dict())["spec"]["scalingMode"]
'StatefulSet'
"""
import copy as _copy
import json as _json
from collections import namedtuple as _namedtuple

from . import native as _nat
from .errors import InvalidError as _InvalidError

__all__ = ["parse", "validate", "validate_update", "problems", "default", "to_json",
           "to_yaml", "spec_hash", "get", "crd", "kind_lookup", "DEFAULT_CRD",
           "DEFAULT_OPERATOR", "DEFAULT_ALL", "Problem", "Resource", "Node", "NodeSet",
           "Controller", "LoginSet", "RestApi", "Accounting", "Token", "KINDS", "from_dict"]

DEFAULT_CRD = 1
DEFAULT_OPERATOR = 2
DEFAULT_ALL = 3

Problem = _namedtuple("Problem", "path message severity", defaults=("error",))
Problem.__doc__ = """One validation problem: the field path ("spec.replicas"), the message
and the severity ("error" or "warning")."""

_SAMPLE = ('{"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet", '
           '"metadata": {"name": "w"}, "spec": {"controllerRef": {"name": "slurm"}}}')


def _text(obj):
    if isinstance(obj, Resource):
        obj = obj._data
    if isinstance(obj, (str, bytes)):
        return obj
    if isinstance(obj, dict):
        return _json.dumps(obj)
    raise TypeError("expected a dict, a JSON/YAML str or bytes, got %s" % type(obj).__name__)


def parse(obj):
    """Parse a resource (dict, JSON or YAML) into a dict (first YAML document).
    Unknown kinds raise InvalidError, bad text ParseError.

    >>> parse("apiVersion: slinky.slurm.net/v1beta1\\nkind: Token\\nmetadata: {name: t}")["kind"]
    'Token'
    """
    return _json.loads(_nat.slinky_model_py_normalize(_text(obj)))


def problems(obj, old=None):
    """Every problem as (severity, path, message), severity "error" or "warning".
    With `old`, validate an update from `old` to `obj` (immutable fields).

    >>> problems(_SAMPLE)
    []
    """
    if old is None:
        out = _nat.slinky_model_py_validate(_text(obj))
    else:
        o, n = _text(old), _text(obj)
        o = o.decode() if isinstance(o, bytes) else o
        n = n.decode() if isinstance(n, bytes) else n
        out = _nat.slinky_model_py_validate_update(o, n)
    return [(p["severity"], p["path"], p["message"]) for p in _json.loads(out)]


def validate(obj):
    """The errors as a list of (path, message); empty when valid.

    >>> bad = parse(_SAMPLE); bad["spec"]["replicas"] = "two"
    >>> [path for path, msg in validate(bad)]
    ['spec.replicas']
    """
    return [(p, m) for (s, p, m) in problems(obj) if s == "error"]


def validate_update(old, new):
    """The errors of an update from `old` to `new` as (path, message).

    >>> validate_update(_SAMPLE, _SAMPLE)
    []
    """
    return [(p, m) for (s, p, m) in problems(new, old) if s == "error"]


def default(obj, flags=DEFAULT_ALL):
    """The resource with defaults applied (CRD schema defaults, and with
    DEFAULT_OPERATOR the operator's: clusterName, replicas, updateStrategy...).

    >>> default(_SAMPLE)["spec"]["replicas"]
    1
    """
    return _json.loads(_nat.slinky_model_py_default(_text(obj), flags))


def to_json(obj):
    """Canonical JSON text of the resource (unknown fields kept).

    >>> to_json({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}'
    """
    return _nat.slinky_model_py_normalize(_text(obj))


def to_yaml(obj):
    """YAML text of the resource, like kubectl -o yaml.

    >>> print(to_yaml({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}), end="")
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: c
    """
    return _nat.slinky_model_py_dump_yaml(_text(obj))


def spec_hash(obj):
    """Stable SHA-256 (hex) of the canonical, defaulted spec.

    >>> len(spec_hash(_SAMPLE)) == 64 and spec_hash(_SAMPLE) == spec_hash(default(_SAMPLE))
    True
    """
    return _nat.slinky_model_py_spec_hash(_text(obj))


def get(obj, path):
    """The value at a schema path ("spec.replicas", "metadata.labels[\\"a/b\\"]").
    Raises slinky.NotFoundError when unset, slinky.InvalidError for a path the
    kind's schema does not have.

    >>> get(_SAMPLE, "spec.controllerRef.name")
    'slurm'
    """
    return _json.loads(_nat.slinky_model_py_get(_text(obj), path))


def crd(kind=None):
    """The CustomResourceDefinition YAML of one kind, or of all six.

    >>> "name: nodesets.slinky.slurm.net" in crd("NodeSet")
    True
    """
    return _nat.slinky_model_crd_dump(kind)


def kind_lookup(name):
    """Kind name ("NodeSet") for a Kind, plural, singular or short name, or None.

    >>> kind_lookup("nss"), kind_lookup("nothing")
    ('NodeSet', None)
    """
    k = _nat.slinky_model_kind_lookup(name)
    return _nat.slinky_model_kind_name(k) if k else None


# ---------------------------------------------------------------- typed objects

def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _seg(key):
    return key if key.replace("_", "").replace("-", "").isalnum() else '["%s"]' % key


class Node:
    """A view of one object field of a resource: attributes are its fields.

    Reading an attribute returns the value (a Node for an object, a list for an
    array), or None for a schema field that is unset; a name that is neither
    set nor in the schema raises AttributeError. snake_case names are looked up
    as camelCase. ``node["key"]`` reads keys that are not identifiers;
    assigning an attribute or item writes the underlying dict.
    """

    __slots__ = ("_kind", "_path", "_data")

    def __init__(self, kind, path, data):
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_data", data)

    def _key(self, name):
        if name in self._data:
            return name
        c = _camel(name)
        if c in self._data:
            return c
        for k in (name, c):
            if _nat.slinky_model_path_is_known(self._kind, self._sub(k)):
                return k
        return None

    def _sub(self, key):
        s = _seg(key)
        if not self._path:
            return s
        return self._path + ("" if s.startswith("[") else ".") + s

    def _wrap(self, key, v):
        if isinstance(v, dict):
            return Node(self._kind, self._sub(key), v)
        if isinstance(v, list):
            return [Node(self._kind, "%s[%d]" % (self._sub(key), i), x) if isinstance(x, dict)
                    else x for i, x in enumerate(v)]
        return v

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        key = self._key(name)
        if key is None:
            raise AttributeError("%s has no field %r" % (self._path or "the object", name))
        return self._wrap(key, self._data.get(key))

    def __setattr__(self, name, value):
        key = self._key(name) or name
        self._data[key] = value.to_dict() if isinstance(value, Node) else value

    def __getitem__(self, key):
        return self._wrap(key, self._data[key])

    def __setitem__(self, key, value):
        self._data[key] = value

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __dir__(self):
        return list(self._data)

    def get(self, key, default=None):
        """The value of a key (wrapped like an attribute), or default."""
        return self._wrap(key, self._data[key]) if key in self._data else default

    def to_dict(self):
        """A deep copy of the field as plain Python values."""
        return _copy.deepcopy(self._data)

    def __eq__(self, other):
        if isinstance(other, Node):
            return self._data == other._data
        return self._data == other

    __hash__ = None

    def __repr__(self):
        return "Node(%r)" % (self._data,)


class Resource(Node):
    """A typed Slinky resource; subclasses are the kinds (``NodeSet``...).

    Built with ``Kind.from_yaml(text)``, ``.from_json(text)``,
    ``.from_dict(d)``, or ``Kind(name, namespace=..., spec={...})``. The object
    holds only Python data, so it stays valid after the client that fetched
    it is closed.

    >>> t = Token("jwt", namespace="slurm", spec={"username": "slurm"})
    >>> t.metadata.name, t.api_version, t.spec.username
    ('jwt', 'slinky.slurm.net/v1beta1', 'slurm')
    >>> Token.from_dict(t.to_dict()) == t
    True
    """

    KIND = ""
    __slots__ = ()

    def __init__(self, name=None, namespace=None, spec=None, labels=None, _data=None):
        if _data is None:
            meta = {"name": name} if name else {}
            if namespace:
                meta["namespace"] = namespace
            if labels:
                meta["labels"] = dict(labels)
            _data = {"apiVersion": "slinky.slurm.net/v1beta1", "kind": self.KIND,
                     "metadata": meta}
            if spec is not None:
                _data["spec"] = spec
        Node.__init__(self, _nat.slinky_model_kind_lookup(self.KIND), "", _data)

    @classmethod
    def _load(cls, data):
        d = parse(data)
        if d.get("kind") != cls.KIND:
            raise _InvalidError("kind: %r is not %s" % (d.get("kind"), cls.KIND))
        return cls(_data=d)

    @classmethod
    def from_yaml(cls, text):
        """Parse YAML (the first document); ParseError/InvalidError when bad.

        >>> NodeSet.from_yaml("kind: NodeSet\\napiVersion: slinky.slurm.net/v1beta1\\n"
        ...                   "metadata: {name: w}").metadata.name
        'w'
        """
        return cls._load(text)

    @classmethod
    def from_json(cls, text):
        """Parse JSON text.

        >>> NodeSet.from_json(_SAMPLE).spec.controller_ref.name
        'slurm'
        """
        return cls._load(text)

    @classmethod
    def from_dict(cls, d):
        """Wrap a copy of a dict (as a client returns it).

        >>> NodeSet.from_dict({"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet",
        ...                    "metadata": {"name": "w"}}).kind
        'NodeSet'
        """
        return cls._load(d)

    @property
    def api_version(self):
        """The object's apiVersion."""
        return self._data.get("apiVersion")

    @property
    def kind(self):
        """The object's kind."""
        return self._data.get("kind")

    def validate(self):
        """The errors as :class:`Problem` s with field paths; empty when valid.

        >>> ns = NodeSet.from_json(_SAMPLE); ns.spec.replicas = "three"
        >>> ns.validate()[0].path
        'spec.replicas'
        """
        return [p for p in self.problems() if p.severity == "error"]

    def problems(self, old=None):
        """Errors and warnings as :class:`Problem` s (with `old`: of an update)."""
        return [Problem(p, m, s) for (s, p, m) in problems(self._data,
                                                           old._data if isinstance(old, Resource)
                                                           else old)]

    def default(self, flags=DEFAULT_ALL):
        """A copy with defaults applied.

        >>> NodeSet.from_json(_SAMPLE).default().spec.replicas
        1
        """
        return type(self)(_data=default(self._data, flags))

    def to_yaml(self):
        """YAML text (unknown fields kept)."""
        return to_yaml(self._data)

    def to_json(self):
        """Canonical JSON text (unknown fields kept)."""
        return to_json(self._data)

    def spec_hash(self):
        """SHA-256 (hex) of the canonical, defaulted spec."""
        return spec_hash(self._data)

    def __repr__(self):
        m = self._data.get("metadata") or {}
        return "%s(%r, namespace=%r)" % (self.KIND, m.get("name"), m.get("namespace"))


def _kind_class(kind, doc):
    return type(kind, (Resource,), {"KIND": kind, "__slots__": (), "__doc__": doc,
                                    "__module__": __name__})


NodeSet = _kind_class("NodeSet", "A NodeSet: slurmd pods (spec.replicas, spec.slurmd, spec.partition...).")
Controller = _kind_class("Controller", "A Controller: slurmctld and its slurm.conf (spec.extraConf...).")
LoginSet = _kind_class("LoginSet", "A LoginSet: login pods with sshd and sackd.")
RestApi = _kind_class("RestApi", "A RestApi: slurmrestd.")
Accounting = _kind_class("Accounting", "An Accounting: slurmdbd and its database.")
Token = _kind_class("Token", "A Token: a Slurm JWT kept in a Secret and refreshed.")
KINDS = {c.KIND: c for c in (NodeSet, Controller, LoginSet, RestApi, Accounting, Token)}


def from_dict(obj):
    """The typed object of any Slinky resource (a dict, JSON or YAML), by its kind.

    >>> from_dict(_SAMPLE)
    NodeSet('w', namespace=None)
    """
    d = parse(obj)
    cls = KINDS.get(d.get("kind"))
    if cls is None:
        raise _InvalidError("kind: %r is not a Slinky kind (%s)" % (d.get("kind"), ", ".join(KINDS)))
    return cls(_data=d)
