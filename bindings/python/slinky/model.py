"""slinky.model: Slinky resources (slinky.slurm.net/v1beta1) as plain dicts.

Resources go in as a dict, a JSON or a YAML string (or bytes) and come back
as dicts; the C library does the parsing, validation and defaulting, and
fields it does not know are kept.

    >>> import slinky
    >>> ns = slinky.model.parse(open("nodeset.yaml").read())
    >>> slinky.model.validate(ns)            # [] when valid
    [('spec.replicas', 'Invalid value: "string": must be of type integer')]
    >>> slinky.model.default(ns)["spec"]["scalingMode"]
    'StatefulSet'
"""
import json as _json

from . import native as _nat

__all__ = ["parse", "validate", "validate_update", "problems", "default", "to_json",
           "to_yaml", "spec_hash", "get", "crd", "kind_lookup", "DEFAULT_CRD",
           "DEFAULT_OPERATOR", "DEFAULT_ALL"]

DEFAULT_CRD = 1
DEFAULT_OPERATOR = 2
DEFAULT_ALL = 3


def _text(obj):
    if isinstance(obj, (str, bytes)):
        return obj
    if isinstance(obj, dict):
        return _json.dumps(obj)
    raise TypeError("expected a dict, a JSON/YAML str or bytes, got %s" % type(obj).__name__)


def parse(obj):
    """Parse a resource (dict, JSON or YAML) into a dict (first YAML document)."""
    return _json.loads(_nat.slinky_model_py_normalize(_text(obj)))


def problems(obj, old=None):
    """Every problem as (severity, path, message), severity "error" or "warning".
    With `old`, validate an update from `old` to `obj` (immutable fields)."""
    if old is None:
        out = _nat.slinky_model_py_validate(_text(obj))
    else:
        o, n = _text(old), _text(obj)
        o = o.decode() if isinstance(o, bytes) else o
        n = n.decode() if isinstance(n, bytes) else n
        out = _nat.slinky_model_py_validate_update(o, n)
    return [(p["severity"], p["path"], p["message"]) for p in _json.loads(out)]


def validate(obj):
    """The errors as a list of (path, message); empty when valid."""
    return [(p, m) for (s, p, m) in problems(obj) if s == "error"]


def validate_update(old, new):
    """The errors of an update from `old` to `new` as (path, message)."""
    return [(p, m) for (s, p, m) in problems(new, old) if s == "error"]


def default(obj, flags=DEFAULT_ALL):
    """The resource with defaults applied (CRD schema defaults, and with
    DEFAULT_OPERATOR the operator's: clusterName, replicas, updateStrategy...)."""
    return _json.loads(_nat.slinky_model_py_default(_text(obj), flags))


def to_json(obj):
    """Canonical JSON text of the resource (unknown fields kept)."""
    return _nat.slinky_model_py_normalize(_text(obj))


def to_yaml(obj):
    """YAML text of the resource, like kubectl -o yaml."""
    return _nat.slinky_model_py_dump_yaml(_text(obj))


def spec_hash(obj):
    """Stable SHA-256 (hex) of the canonical, defaulted spec."""
    return _nat.slinky_model_py_spec_hash(_text(obj))


def get(obj, path):
    """The value at a schema path ("spec.replicas", "metadata.labels[\\"a/b\\"]").
    Raises slinky.NotFoundError when unset, slinky.InvalidError for a path the
    kind's schema does not have."""
    return _json.loads(_nat.slinky_model_py_get(_text(obj), path))


def crd(kind=None):
    """The CustomResourceDefinition YAML of one kind, or of all six."""
    return _nat.slinky_model_crd_dump(kind)


def kind_lookup(name):
    """Kind name ("NodeSet") for a Kind, plural, singular or short name, or None."""
    k = _nat.slinky_model_kind_lookup(name)
    return _nat.slinky_model_kind_name(k) if k else None
