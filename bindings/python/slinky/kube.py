"""slinky.kube: a Kubernetes client with plain Python values.

    c = slinky.kube.Client()                       # kubeconfig as kubectl finds it
    cm = c.get("configmaps", "name")               # dict
    c.patch("configmaps", "name", {"data": {"a": "1"}})
    for ev_type, obj in c.watch("configmaps", resource_version=rv, timeout=5):
        ...

Resources are plural names of known kinds ("configmaps", "nodesets", ...),
"GROUP/VERSION/PLURAL" strings ("v1/PLURAL" for the core group) or
Resource tuples. Failures raise slinky.Error subclasses (NotFoundError,
ConflictError, ExistsError, InvalidError, GoneError, ...) with .http_status;
slinky.kube.last_reason() gives the Kubernetes Status reason.
"""
from collections import namedtuple

from . import native as _nat
from ._native import IterOver as _IterOver, CanceledError as _CanceledError

__all__ = ["Client", "Resource", "Watch", "last_reason"]

Resource = namedtuple("Resource", "group version plural namespaced")

_KNOWN = {
    "configmaps": Resource("", "v1", "configmaps", True),
    "secrets": Resource("", "v1", "secrets", True),
    "namespaces": Resource("", "v1", "namespaces", False),
    "pods": Resource("", "v1", "pods", True),
    "services": Resource("", "v1", "services", True),
    "events": Resource("", "v1", "events", True),
    "leases": Resource("coordination.k8s.io", "v1", "leases", True),
    "nodesets": Resource("slinky.slurm.net", "v1beta1", "nodesets", True),
    "controllers": Resource("slinky.slurm.net", "v1beta1", "controllers", True),
    "loginsets": Resource("slinky.slurm.net", "v1beta1", "loginsets", True),
    "accountings": Resource("slinky.slurm.net", "v1beta1", "accountings", True),
    "restapis": Resource("slinky.slurm.net", "v1beta1", "restapis", True),
    "tokens": Resource("slinky.slurm.net", "v1beta1", "tokens", True),
}

_PATCH_TYPES = {"merge": 0, "json": 1, "strategic": 2, "apply": 3}


def _resource(r, cluster_scoped=False):
    if isinstance(r, Resource):
        return r
    if r in _KNOWN:
        return _KNOWN[r]
    parts = r.split("/")
    if len(parts) == 2:
        return Resource("", parts[0], parts[1], not cluster_scoped)
    if len(parts) == 3:
        return Resource(parts[0], parts[1], parts[2], not cluster_scoped)
    raise ValueError("unknown resource %r (use GROUP/VERSION/PLURAL)" % (r,))


def last_reason():
    """The Kubernetes Status reason of the last failed call on this thread."""
    return _nat.slinky_py_kube_last_reason()


class Watch:
    """An iterator of (type, object) events; reconnects from the last resourceVersion.

    Raises slinky.GoneError when the resourceVersion expired (list again).
    With timeout (seconds), iteration ends when no event came in that time.
    stop() may be called from another thread.
    """

    def __init__(self, client, native_watch, timeout):
        self._client = client  # keeps the native client alive
        self._w = native_watch
        self._timeout_ms = -1 if timeout is None else int(timeout * 1000)

    def __iter__(self):
        return self

    def __next__(self):
        if self._w is None:
            raise StopIteration
        try:
            ev = _nat.slinky_py_kube_watch_next(self._w, self._timeout_ms)
        except (_IterOver, _CanceledError):
            raise StopIteration
        if ev is None:
            raise StopIteration
        return ev

    @property
    def resource_version(self):
        return _nat.slinky_py_kube_watch_resource_version(self._w) if self._w else ""

    def stop(self):
        if self._w is not None:
            _nat.slinky_py_kube_watch_stop(self._w)

    def close(self):
        self._w = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Client:
    """A Kubernetes API client (thread safe)."""

    def __init__(self, kubeconfig=None, context=None, namespace=None, in_cluster=False):
        self._c = _nat.slinky_py_kube_connect(kubeconfig, context, namespace, bool(in_cluster))

    @property
    def namespace(self):
        """The namespace of the context (or the one given), "default" when unset."""
        return _nat.slinky_py_kube_namespace(self._c)

    @property
    def server(self):
        return _nat.slinky_py_kube_server(self._c)

    def _ns(self, r, namespace):
        return (namespace or self.namespace) if r.namespaced else None

    def get(self, resource, name, namespace=None):
        r = _resource(resource)
        return _nat.slinky_py_kube_get(self._c, r.group, r.version, r.plural, r.namespaced,
                                       self._ns(r, namespace), name)

    def list(self, resource, namespace=None, label_selector=None, field_selector=None,
             limit=0, all_namespaces=False):
        """Every object (following pages) as a List dict: items, metadata.resourceVersion."""
        r = _resource(resource)
        ns = None if all_namespaces else self._ns(r, namespace)
        return _nat.slinky_py_kube_list(self._c, r.group, r.version, r.plural, r.namespaced, ns,
                                        label_selector, field_selector, int(limit))

    def _write(self, verb, resource, obj, namespace, field_manager, dry_run):
        r = _resource(resource)
        ns = namespace or (obj.get("metadata", {}).get("namespace") if isinstance(obj, dict) else None)
        return _nat.slinky_py_kube_write(self._c, verb, r.group, r.version, r.plural, r.namespaced,
                                         self._ns(r, ns), obj, field_manager, bool(dry_run))

    def create(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        return self._write("create", resource, obj, namespace, field_manager, dry_run)

    def update(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        return self._write("update", resource, obj, namespace, field_manager, dry_run)

    def update_status(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        return self._write("update_status", resource, obj, namespace, field_manager, dry_run)

    def patch(self, resource, name, patch, type="merge", namespace=None, field_manager=None,
              force=False, dry_run=False, subresource=None):
        """type: "merge", "json" (a list of operations), "strategic" or "apply" (needs field_manager)."""
        r = _resource(resource)
        if type not in _PATCH_TYPES:
            raise ValueError("patch type must be one of %s" % ", ".join(_PATCH_TYPES))
        return _nat.slinky_py_kube_patch(self._c, r.group, r.version, r.plural, r.namespaced,
                                         self._ns(r, namespace), name, _PATCH_TYPES[type], patch,
                                         field_manager, bool(force), bool(dry_run), subresource)

    def delete(self, resource, name, namespace=None, propagation_policy=None,
               grace_period_seconds=None, precondition_uid=None, dry_run=False):
        r = _resource(resource)
        grace = -1 if grace_period_seconds is None else int(grace_period_seconds)
        return _nat.slinky_py_kube_delete(self._c, r.group, r.version, r.plural, r.namespaced,
                                          self._ns(r, namespace), name, propagation_policy, grace,
                                          precondition_uid, bool(dry_run))

    def watch(self, resource, namespace=None, resource_version=None, label_selector=None,
              timeout=None, server_timeout_seconds=0):
        r = _resource(resource)
        w = _nat.slinky_py_kube_watch_new(self._c, r.group, r.version, r.plural, r.namespaced,
                                          self._ns(r, namespace), resource_version, label_selector,
                                          int(server_timeout_seconds))
        return Watch(self, w, timeout)
