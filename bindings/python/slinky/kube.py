"""slinky.kube: a Kubernetes client with plain Python values.

Objects are dicts, exactly as the API server sends them. Resources are
named like kubectl names them: a plural ("configmaps"), a singular, a kind
("ConfigMap") or a short name ("cm", "nss"), optionally with the group
("nodesets.slinky.slurm.net"), all found through the server's discovery
documents (so custom resources, also cluster-scoped ones, work as soon as
their CRD is served); or "GROUP/VERSION/PLURAL" ("v1/PLURAL" for the core
group); or a :class:`Resource`.

>>> import slinky
>>> with slinky.Client() as c:             # the kubeconfig as kubectl finds it
...     _ = c.create("configmaps", {"metadata": {"name": "kube-doc"}, "data": {"a": "1"}})
...     print(c.get("cm", "kube-doc")["data"])
...     print(c.patch("cm", "kube-doc", {"data": {"b": "2"}})["data"])
...     _ = c.delete("configmaps", "kube-doc")
{'a': '1'}
{'a': '1', 'b': '2'}

Failures raise :mod:`slinky.errors` classes with the Kubernetes Status on
them (``http_status``, ``reason``, ``details``):

>>> with slinky.Client() as c:
...     try:
...         c.get("configmaps", "no-such-map")
...     except LookupError as e:
...         print(type(e).__name__, e.http_status, e.reason)
NotFoundError 404 NotFound
"""
import atexit as _atexit
import json as _json
import logging as _logging
import queue as _queue
import threading as _threading
import weakref as _weakref
from collections import namedtuple as _namedtuple

from . import native as _nat
from .errors import (CanceledError as _CanceledError, GoneError as _GoneError,
                     InvalidError as _InvalidError,
                     NotFoundError as _NotFoundError, _IterOver, _on_file)

__all__ = ["Client", "Resource", "Watch", "ListIterator", "Informer", "Event", "WorkQueue",
           "last_reason"]

Resource = _namedtuple("Resource", "group version plural namespaced kind", defaults=("",))
Resource.__doc__ = """A resource type: API group ("" for core), version, plural name, scope, kind.

>>> Resource("slinky.slurm.net", "v1beta1", "nodesets", True, "NodeSet").api_version
'slinky.slurm.net/v1beta1'
"""
Resource.api_version = property(lambda r: "%s/%s" % (r.group, r.version) if r.group else r.version,
                                doc="apiVersion of the objects (\"v1\", \"apps/v1\").")

Event = _namedtuple("Event", "type object old")
Event.__doc__ = """An informer event: type "ADDED", "MODIFIED" or "DELETED", the object
(a dict) and, for "MODIFIED", the old object (else None)."""

# resolved without a request (the most common names)
_KNOWN = {
    "configmaps": Resource("", "v1", "configmaps", True, "ConfigMap"),
    "secrets": Resource("", "v1", "secrets", True, "Secret"),
    "namespaces": Resource("", "v1", "namespaces", False, "Namespace"),
    "pods": Resource("", "v1", "pods", True, "Pod"),
    "services": Resource("", "v1", "services", True, "Service"),
    "events": Resource("", "v1", "events", True, "Event"),
    "leases": Resource("coordination.k8s.io", "v1", "leases", True, "Lease"),
    "nodesets": Resource("slinky.slurm.net", "v1beta1", "nodesets", True, "NodeSet"),
    "controllers": Resource("slinky.slurm.net", "v1beta1", "controllers", True, "Controller"),
    "loginsets": Resource("slinky.slurm.net", "v1beta1", "loginsets", True, "LoginSet"),
    "accountings": Resource("slinky.slurm.net", "v1beta1", "accountings", True, "Accounting"),
    "restapis": Resource("slinky.slurm.net", "v1beta1", "restapis", True, "RestApi"),
    "tokens": Resource("slinky.slurm.net", "v1beta1", "tokens", True, "Token"),
}

_log = _logging.getLogger(__name__)

_PATCH_TYPES = {"merge": 0, "json": 1, "strategic": 2, "apply": 3}


def last_reason():
    """The Kubernetes Status reason of the last failed call on this thread ("" when none).

    The same text is on the exception as ``e.reason``.

    >>> isinstance(last_reason(), str)
    True
    """
    return _nat.slinky_py_kube_last_reason()


class Watch:
    """An iterator of ``(type, object)`` events; reconnects from the last resourceVersion.

    Made by :meth:`Client.watch`. Types are "ADDED", "MODIFIED", "DELETED"
    and "BOOKMARK". Raises slinky.GoneError when the resourceVersion expired
    (list again). With a timeout (seconds), iteration ends when no event came
    in that time. :meth:`stop` may be called from another thread.

    >>> import slinky
    >>> with slinky.Client() as c:
    ...     rv = c.list("configmaps")["metadata"]["resourceVersion"]
    ...     with c.watch("configmaps", resource_version=rv, timeout=2) as w:
    ...         _ = c.create("configmaps", {"metadata": {"name": "watch-doc"}})
    ...         print(next(e for e in w if e[0] != "BOOKMARK")[0])
    ...     _ = c.delete("configmaps", "watch-doc")
    ADDED
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
            raise StopIteration from None
        if ev is None:
            raise StopIteration
        return ev

    @property
    def resource_version(self):
        """The resourceVersion of the last event seen ("" before any)."""
        return _nat.slinky_py_kube_watch_resource_version(self._w) if self._w else ""

    def stop(self):
        """End the iteration (from any thread): a waiting ``next()`` returns promptly."""
        if self._w is not None:
            _nat.slinky_py_kube_watch_stop(self._w)

    def close(self):
        """Release the connection; the iteration is over."""
        self._w = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class ListIterator:
    """Objects of a list, fetched one page at a time as iteration needs them.

    Made by :meth:`Client.iter`. When a continue token expires the listing
    restarts from the first page (``restarts`` grows by one).

    >>> import slinky
    >>> with slinky.Client() as c:
    ...     for i in range(3):
    ...         _ = c.create("configmaps", {"metadata": {"name": "iter-doc-%d" % i,
    ...                                                  "labels": {"doc": "iter"}}})
    ...     it = c.iter("configmaps", label_selector="doc=iter", page_size=2)
    ...     print([o["metadata"]["name"] for o in it], bool(it.resource_version))
    ...     for i in range(3):
    ...         _ = c.delete("configmaps", "iter-doc-%d" % i)
    ['iter-doc-0', 'iter-doc-1', 'iter-doc-2'] True
    """

    def __init__(self, native_iter):
        self._it = native_iter

    def __iter__(self):
        return self

    def __next__(self):
        if self._it is None:
            raise StopIteration
        o = _nat.slinky_py_list_iter_next(self._it)
        if o is None:
            self._done_rv = self.resource_version
            self._done_restarts = self.restarts
            self._it = None
            raise StopIteration
        return o

    @property
    def resource_version(self):
        """resourceVersion of the list (known after the first page)."""
        if self._it is None:
            return getattr(self, "_done_rv", "")
        return _nat.slinky_py_list_iter_resource_version(self._it) or ""

    @property
    def restarts(self):
        """How often the listing restarted after an expired continue token."""
        if self._it is None:
            return getattr(self, "_done_restarts", 0)
        return _nat.slinky_py_list_iter_restarts(self._it)


_live_informers = _weakref.WeakSet()


@_atexit.register
def _stop_informers():
    for inf in list(_live_informers):
        inf.stop()


class Informer:
    """A cache of every object of a resource, kept current by list + watch on a thread.

    Made by :meth:`Client.informer`. Handlers ``on_add(obj)``,
    ``on_update(old, new)`` and ``on_delete(obj)`` run on the informer's
    thread after the cache was updated (an exception a handler raises is
    logged on the "slinky.kube" logger); :meth:`events` iterates the same
    events instead. The cache is read with :meth:`get` and :meth:`list`
    (copies, safe from any thread), also after :meth:`stop`. A with-block
    starts the informer, waits for the first list and stops it at the end.

    >>> import slinky
    >>> with slinky.Client() as c:
    ...     _ = c.create("configmaps", {"metadata": {"name": "inf-doc", "labels": {"doc": "inf"}}})
    ...     with c.informer("configmaps", label_selector="doc=inf") as inf:
    ...         print(inf.get("default", "inf-doc")["metadata"]["name"], len(inf))
    ...         events = inf.events(timeout=5)
    ...         print(next(events).type)          # the cached object, replayed
    ...         _ = c.delete("configmaps", "inf-doc")
    ...         print(next(e for e in events if e.type == "DELETED").object["metadata"]["name"])
    ...     print(inf.list("doc=inf"))            # readable after stop
    inf-doc 1
    ADDED
    inf-doc
    []
    """

    def __init__(self, client, resource, namespace=None, label_selector=None, field_selector=None,
                 on_add=None, on_update=None, on_delete=None, watch_timeout=300):
        r = client.resource(resource)
        self.resource = r
        self._namespace = client._ns(r, namespace) if namespace != "" else None
        self._handlers = ([on_add] if on_add else [], [on_update] if on_update else [],
                          [on_delete] if on_delete else [])
        self._subscribers = []
        self._lock = _threading.Lock()
        self._started = False
        self._stopped = False
        self._thread = None
        ref = _weakref.ref(self)

        def dispatch(type, old, obj, _ref=ref):
            me = _ref()
            if me is not None:
                me._dispatch(type, old, obj)

        cn = client._native()
        self._inf = _nat.slinky_py_informer_new(cn, cn, r.group, r.version, r.plural, r.namespaced,
                                                self._namespace, label_selector, field_selector,
                                                int(watch_timeout), dispatch)
        _live_informers.add(self)

    def _dispatch(self, type, old, obj):
        self._thread = _threading.get_ident()
        with self._lock:
            subs = list(self._subscribers)
        for q in subs:
            q.put(Event(type, obj, old))
        adds, updates, deletes = self._handlers
        for h in (adds if type == "ADDED" else deletes if type == "DELETED" else ()):
            self._call(h, obj)
        if type == "MODIFIED":
            for h in updates:
                self._call(h, old, obj)

    @staticmethod
    def _call(h, *args):
        try:
            h(*args)
        except Exception:  # a handler's bug must not stop the informer: log it
            _log.exception("informer handler %r failed", h)

    def add_handlers(self, on_add=None, on_update=None, on_delete=None):
        """Add handler functions (any time; they see the events that follow).

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     inf = c.informer("configmaps", start=False)
        ...     inf.add_handlers(on_add=print)
        ...     inf.stop()
        """
        for lst, h in zip(self._handlers, (on_add, on_update, on_delete)):
            if h is not None:
                lst.append(h)

    def start(self):
        """Start listing and watching on the informer's thread (once).

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     inf = c.informer("configmaps", start=False)
        ...     inf.start()
        ...     print(inf.wait_synced(10))
        ...     inf.stop()
        True
        """
        if not self._started:
            _nat.slinky_py_informer_start(self._inf)
            self._started = True

    def wait_synced(self, timeout=None):
        """Wait until the first list is cached: True, or False after timeout seconds.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     with c.informer("configmaps") as inf:
        ...         print(inf.wait_synced(0), inf.has_synced)
        True True
        """
        return _nat.slinky_py_informer_wait_synced(self._inf, -1 if timeout is None
                                                   else int(timeout * 1000))

    @property
    def has_synced(self):
        """True once the first list has been stored in the cache."""
        return _nat.slinky_py_informer_has_synced(self._inf)

    def stop(self):
        """Stop the thread (safe to call twice); the cache stays readable.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     inf = c.informer("configmaps")
        ...     inf.stop(); inf.stop()
        ...     print(isinstance(inf.list(), list))
        True
        """
        if self._thread == _threading.get_ident():
            raise _InvalidError("Informer.stop() from one of its handlers would wait for "
                                "itself: stop it from another thread")
        _nat.slinky_py_informer_stop(self._inf)
        with self._lock:
            self._stopped = True
            subs, self._subscribers = self._subscribers, []
        for q in subs:
            q.put(None)

    def get(self, namespace, name=None):
        """The cached object (a dict copy), or None. ``get(name)`` for cluster-scoped kinds.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     with c.informer("namespaces") as inf:
        ...         print(inf.get("default")["metadata"]["name"], inf.get("no-such-ns"))
        default None
        """
        if name is None:
            namespace, name = "", namespace
        return _nat.slinky_py_informer_get(self._inf, namespace or "", name)

    def list(self, selector=None, namespace=None):
        """Cached objects (dict copies) sorted by namespace/name, filtered by a label
        selector and a namespace.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     with c.informer("namespaces") as inf:
        ...         print("default" in [o["metadata"]["name"] for o in inf.list()])
        True
        """
        return _nat.slinky_py_informer_list(self._inf, namespace, selector)

    def __len__(self):
        return _nat.slinky_py_informer_size(self._inf)

    @property
    def resource_version(self):
        """The resourceVersion the cache reflects."""
        return _nat.slinky_py_informer_resource_version(self._inf) or ""

    @property
    def list_count(self):
        """How many times the informer listed (1 after the first sync)."""
        return _nat.slinky_py_informer_list_count(self._inf)

    def events(self, timeout=None):
        """An iterator of :class:`Event` s: first an "ADDED" for each cached object,
        then every change. Ends after :meth:`stop`, or when nothing came for
        `timeout` seconds.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     with c.informer("namespaces") as inf:
        ...         print(next(inf.events()).type)
        ADDED
        """
        q = _queue.Queue()
        with self._lock:
            for o in self.list():
                q.put(Event("ADDED", o, None))
            if self._stopped:
                q.put(None)
            else:
                self._subscribers.append(q)
        return self._drain(q, timeout)

    def _drain(self, q, timeout):
        try:
            while True:
                try:
                    ev = q.get(timeout=timeout)
                except _queue.Empty:
                    return
                if ev is None:
                    return
                yield ev
        finally:
            with self._lock:
                if q in self._subscribers:
                    self._subscribers.remove(q)

    def __iter__(self):
        return self.events()

    def __enter__(self):
        self.start()
        self.wait_synced()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class WorkQueue:
    """A rate-limited work queue of string keys, like client-go's.

    A waiting key is held once; a key being processed (between :meth:`get`
    and :meth:`done`) is never handed to a second worker: adding it again
    queues it once more at done. Thread safe. Iterating yields keys until
    :meth:`shutdown` (call :meth:`done` for each).

    >>> q = WorkQueue()
    >>> q.add("default/a"); q.add("default/a"); q.add("default/b")
    >>> len(q)
    2
    >>> k = q.get(); print(k); q.done(k)
    default/a
    >>> q.add_rate_limited("default/b"); q.num_requeues("default/b")
    1
    >>> q.forget("default/b"); q.num_requeues("default/b")
    0
    >>> q.shutdown(); q.get(timeout=0.1) is None, q.is_shutdown
    (True, True)
    """

    def __init__(self, base_delay=0.005, max_delay=1000.0, qps=10.0, burst=100):
        self._q = _nat.slinky_py_workqueue_new(int(base_delay * 1000), int(max_delay * 1000),
                                               float(qps), int(burst))

    def add(self, key):
        """Queue a key now (ignored after shutdown)."""
        _nat.slinky_kube_workqueue_add(self._q, key)

    def add_after(self, key, delay):
        """Queue a key after `delay` seconds (a sooner pending add wins).

        >>> q = WorkQueue(); q.add_after("k", 0.05); q.get(timeout=5)
        'k'
        """
        _nat.slinky_kube_workqueue_add_after(self._q, key, int(delay * 1000))

    def add_rate_limited(self, key):
        """Queue a key after its backoff (base * 2**failures, capped) and the rate limit."""
        _nat.slinky_kube_workqueue_add_rate_limited(self._q, key)

    def forget(self, key):
        """Reset the key's failure count (after a success)."""
        _nat.slinky_kube_workqueue_forget(self._q, key)

    def num_requeues(self, key):
        """The key's failure count."""
        return _nat.slinky_kube_workqueue_num_requeues(self._q, key)

    def get(self, timeout=None):
        """The next key (wait up to `timeout` seconds; None: forever), or None on
        timeout or after shutdown."""
        try:
            return _nat.slinky_py_workqueue_get(self._q, -1 if timeout is None
                                                else int(timeout * 1000))
        except _CanceledError:
            return None

    def done(self, key):
        """Mark a key taken with get() as processed."""
        _nat.slinky_kube_workqueue_done(self._q, key)

    def __len__(self):
        return _nat.slinky_kube_workqueue_len(self._q)

    def shutdown(self):
        """Stop: waiting and later gets return None, iteration ends."""
        _nat.slinky_kube_workqueue_shutdown(self._q)

    @property
    def is_shutdown(self):
        """True after shutdown()."""
        return _nat.slinky_kube_workqueue_is_shutdown(self._q)

    def __iter__(self):
        while True:
            k = self.get()
            if k is None:
                return
            yield k

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        return False


def _not_found(what):
    return _NotFoundError('the server has no resource type "%s"' % (what,),
                          reason="NotFound")


class Client:
    """A Kubernetes API client (thread safe). Also a context manager (closes at exit).

    kubeconfig: a path (a missing file raises slinky.FileNotFoundError);
    None finds it like kubectl ($KUBECONFIG, ~/.kube/config). context and
    namespace override the kubeconfig's; in_cluster uses the pod's service
    account. timeout: seconds per request (None: 30, watches excepted);
    max_retries: retries of a failed or throttled request (None: 5; 0: none);
    user_agent: the User-Agent header.

    >>> import slinky
    >>> c = slinky.Client()
    >>> c.namespace, c.server.startswith("https://127.0.0.1:")
    ('default', True)
    >>> c.close(); c.closed
    True
    """

    def __init__(self, kubeconfig=None, context=None, namespace=None, in_cluster=False,
                 timeout=None, max_retries=None, user_agent=None):
        self._discovery = None
        tmo = 0 if timeout is None else max(1, int(timeout * 1000))
        retries = 0 if max_retries is None else (int(max_retries) if max_retries > 0 else -1)
        self._c = _on_file(kubeconfig, _nat.slinky_py_kube_connect, kubeconfig, context,
                           namespace, bool(in_cluster), tmo, retries, user_agent)

    def _native(self):
        c = self._c
        if c is None:
            raise _InvalidError("the client is closed")
        return c

    def close(self):
        """Release the client. Watches, iterators and informers made from it keep
        working until they are dropped; calls on the client raise InvalidError."""
        self._c = None

    @property
    def closed(self):
        """True after close()."""
        return self._c is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def namespace(self):
        """The namespace of the context (or the one given), "default" when unset."""
        return _nat.slinky_py_kube_namespace(self._native())

    @property
    def server(self):
        """The API server URL."""
        return _nat.slinky_py_kube_server(self._native())

    # ---------------------------------------------------------------- discovery

    def request(self, method, path, body=None, content_type=None):
        """A raw request: ``(http_status, body text)`` for any reply status.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     status, body = c.request("GET", "/version")
        ...     print(status, "gitVersion" in body)
        200 True
        """
        if body is not None and not isinstance(body, str):
            body = _json.dumps(body)
        return _nat.slinky_py_kube_request(self._native(), method, path, content_type, body)

    def _get_json(self, path):
        status, body = self.request("GET", path)
        if status != 200:
            return None
        return _json.loads(body)

    def _discover(self):
        names = {}
        every = []

        def add(group, version, lst):
            for res in (lst or {}).get("resources", []):
                if "/" in res["name"]:
                    continue
                r = Resource(group, version, res["name"], bool(res.get("namespaced")),
                             res.get("kind", ""))
                every.append(r)
                keys = [r.plural, res.get("singularName") or "", r.kind.lower()]
                keys += [s.lower() for s in res.get("shortNames") or []]
                for k in keys:
                    if k:
                        names.setdefault(k, r)
                        if group:
                            names.setdefault(k + "." + group, r)

        add("", "v1", self._get_json("/api/v1"))
        for g in (self._get_json("/apis") or {}).get("groups", []):
            gv = (g.get("preferredVersion") or (g.get("versions") or [{}])[0]).get("groupVersion")
            if gv:
                add(g["name"], gv.split("/", 1)[1], self._get_json("/apis/" + gv))
        self._discovery = (names, every)
        return self._discovery

    def api_resources(self):
        """Every resource type the server serves (preferred versions), like
        ``kubectl api-resources``, as :class:`Resource` tuples.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     print([r.kind for r in c.api_resources() if r.plural == "nodesets"])
        ['NodeSet']
        """
        return list(self._discover()[1])

    def resource(self, name):
        """The :class:`Resource` for a name as kubectl takes it: plural, singular,
        kind, short name, "plural.group" or "GROUP/VERSION/PLURAL". Unknown
        names raise NotFoundError (after refreshing discovery once).

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     print(c.resource("nss").plural, c.resource("ConfigMap").plural,
        ...           c.resource("namespaces").namespaced)
        nodesets configmaps False
        """
        if isinstance(name, Resource):
            return name
        if not isinstance(name, str) or not name:
            raise _InvalidError("resource must be a non-empty str or a Resource, not %r" % (name,))
        if name in _KNOWN:
            return _KNOWN[name]
        parts = name.split("/")
        if len(parts) in (2, 3):
            group, version, plural = ([""] + parts) if len(parts) == 2 else parts
            lst = self._get_json(("/apis/%s/%s" % (group, version)) if group
                                 else "/api/" + version)
            for res in (lst or {}).get("resources", []):
                if res["name"] == plural:
                    return Resource(group, version, plural, bool(res.get("namespaced")),
                                    res.get("kind", ""))
            if lst is None:
                raise _not_found(name)
            raise _not_found(name)
        key = name.lower()
        for attempt in range(2):
            if self._discovery is None or attempt == 1:
                self._discover()
            r = self._discovery[0].get(key)
            if r is not None:
                return r
        raise _not_found(name)

    def _ns(self, r, namespace):
        return (namespace or self.namespace) if r.namespaced else None

    def _for_object(self, resource, obj):
        if resource is not None:
            return self.resource(resource)
        if not isinstance(obj, dict) or not obj.get("kind"):
            raise _InvalidError("the object has no kind: name the resource")
        api = obj.get("apiVersion", "v1")
        group, _, version = api.rpartition("/")
        for r in self._discover()[1]:
            if r.kind == obj["kind"] and r.group == group:
                return r._replace(version=version)
        raise _not_found("%s %s" % (api, obj["kind"]))

    # ---------------------------------------------------------------- verbs

    def get(self, resource, name, namespace=None):
        """One object as a dict; NotFoundError (a LookupError) when absent.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     print(c.get("ns", "default")["kind"])
        Namespace
        """
        r = self.resource(resource)
        return _nat.slinky_py_kube_get(self._native(), r.group, r.version, r.plural, r.namespaced,
                                       self._ns(r, namespace), name)

    def list(self, resource, namespace=None, label_selector=None, field_selector=None,
             limit=0, all_namespaces=False):
        """Every object (following pages of `limit`, default 500) as a List dict:
        apiVersion, kind, metadata.resourceVersion, items. Items become dicts as
        they arrive; equal keys and short strings are shared between them. See
        :meth:`iter` to fetch pages lazily.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     lst = c.list("namespaces")
        ...     print(lst["kind"], "default" in [n["metadata"]["name"] for n in lst["items"]],
        ...           bool(lst["metadata"]["resourceVersion"]))
        NamespaceList True True
        """
        r = self.resource(resource)
        ns = None if all_namespaces else self._ns(r, namespace)
        for attempt in range(3):
            try:
                items, rv = _nat.slinky_py_kube_list_items(self._native(), r.group, r.version,
                                                           r.plural, r.namespaced, ns,
                                                           label_selector, field_selector,
                                                           int(limit))
                break
            except _GoneError:  # a continue token expired mid-way: list again
                if attempt == 2:
                    raise
        kind = (r.kind or "") + "List"
        return {"apiVersion": r.api_version, "kind": kind, "metadata": {"resourceVersion": rv},
                "items": items}

    def iter(self, resource, namespace=None, label_selector=None, field_selector=None,
             page_size=500, all_namespaces=False):
        """A :class:`ListIterator` of the objects: one page of `page_size` is
        fetched at a time, when the iteration reaches it."""
        r = self.resource(resource)
        ns = None if all_namespaces else self._ns(r, namespace)
        cn = self._native()
        return ListIterator(_nat.slinky_py_list_iter_new(cn, cn, r.group, r.version, r.plural,
                                                         r.namespaced, ns, label_selector,
                                                         field_selector, int(page_size)))

    def _write(self, verb, resource, obj, namespace, field_manager, dry_run):
        r = self._for_object(resource, obj)
        ns = namespace or (obj.get("metadata", {}).get("namespace") if isinstance(obj, dict) else None)
        return _nat.slinky_py_kube_write(self._native(), verb, r.group, r.version, r.plural,
                                         r.namespaced, self._ns(r, ns), obj, field_manager,
                                         bool(dry_run))

    def create(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        """Create an object (a dict); returns it as stored. ExistsError when taken.
        `resource` may be None: the object's apiVersion and kind name it.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     o = c.create(None, {"apiVersion": "v1", "kind": "ConfigMap",
        ...                         "metadata": {"name": "create-doc"}})
        ...     print(bool(o["metadata"]["uid"]))
        ...     try:
        ...         c.create("configmaps", o)
        ...     except slinky.ExistsError as e:
        ...         print(e.http_status, e.reason)
        ...     _ = c.delete("configmaps", "create-doc")
        True
        409 AlreadyExists
        """
        return self._write("create", resource, obj, namespace, field_manager, dry_run)

    def update(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        """Replace an object (PUT); ConflictError when its resourceVersion is stale.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     o = c.create("configmaps", {"metadata": {"name": "update-doc"}})
        ...     o["data"] = {"k": "v"}
        ...     print(c.update("configmaps", o)["data"])
        ...     try:
        ...         c.update("configmaps", o)       # o's resourceVersion is old now
        ...     except slinky.ConflictError as e:
        ...         print(e.http_status)
        ...     _ = c.delete("configmaps", "update-doc")
        {'k': 'v'}
        409
        """
        return self._write("update", resource, obj, namespace, field_manager, dry_run)

    def update_status(self, resource, obj, namespace=None, field_manager=None, dry_run=False):
        """Replace the status subresource of an object."""
        return self._write("update_status", resource, obj, namespace, field_manager, dry_run)

    def patch(self, resource, name, patch, type="merge", namespace=None, field_manager=None,
              force=False, dry_run=False, subresource=None):
        """Patch an object. type: "merge" (RFC 7386, a dict), "json" (RFC 6902, a
        list of operations), "strategic" or "apply" (server-side apply; needs
        field_manager). Returns the patched object.

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     _ = c.create("configmaps", {"metadata": {"name": "patch-doc"}, "data": {"a": "1"}})
        ...     print(c.patch("cm", "patch-doc", [{"op": "add", "path": "/data/b", "value": "2"}],
        ...                   type="json")["data"])
        ...     _ = c.delete("configmaps", "patch-doc")
        {'a': '1', 'b': '2'}
        """
        r = self.resource(resource)
        if type not in _PATCH_TYPES:
            raise _InvalidError("patch type must be one of %s" % ", ".join(_PATCH_TYPES))
        if type == "apply" and not field_manager:
            raise _InvalidError("an apply patch needs a field_manager")
        return _nat.slinky_py_kube_patch(self._native(), r.group, r.version, r.plural,
                                         r.namespaced, self._ns(r, namespace), name,
                                         _PATCH_TYPES[type], patch, field_manager, bool(force),
                                         bool(dry_run), subresource)

    def apply(self, obj, resource=None, namespace=None, field_manager="slinky-python",
              force=False, dry_run=False, subresource=None):
        """Server-side apply of an object (a dict with apiVersion, kind and
        metadata.name): creates it or merges the fields `field_manager` owns.
        ConflictError when another manager owns a field (unless force).

        >>> import slinky
        >>> cm = {"apiVersion": "v1", "kind": "ConfigMap",
        ...       "metadata": {"name": "apply-doc"}, "data": {"a": "1"}}
        >>> with slinky.Client() as c:
        ...     print(c.apply(cm)["data"])
        ...     cm["data"] = {"b": "2"}
        ...     print(c.apply(cm)["data"])        # "a" was ours: removed
        ...     _ = c.delete("configmaps", "apply-doc")
        {'a': '1'}
        {'b': '2'}
        """
        if not isinstance(obj, dict):
            raise _InvalidError("apply takes a dict, not %s" % type(obj).__name__)
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            raise _InvalidError("metadata.name: Required value")
        r = self._for_object(resource, obj)
        ns = namespace or obj["metadata"].get("namespace")
        return _nat.slinky_py_kube_patch(self._native(), r.group, r.version, r.plural,
                                         r.namespaced, self._ns(r, ns), name, _PATCH_TYPES["apply"],
                                         obj, field_manager, bool(force), bool(dry_run),
                                         subresource)

    def delete(self, resource, name, namespace=None, propagation_policy=None,
               grace_period_seconds=None, precondition_uid=None, dry_run=False):
        """Delete an object; returns the server's reply (the object or a Status).

        >>> import slinky
        >>> with slinky.Client() as c:
        ...     try:
        ...         c.delete("configmaps", "never-made")
        ...     except slinky.NotFoundError as e:
        ...         print(e.reason, e.details["name"])
        NotFound never-made
        """
        r = self.resource(resource)
        grace = -1 if grace_period_seconds is None else int(grace_period_seconds)
        return _nat.slinky_py_kube_delete(self._native(), r.group, r.version, r.plural,
                                          r.namespaced, self._ns(r, namespace), name,
                                          propagation_policy, grace, precondition_uid,
                                          bool(dry_run))

    def watch(self, resource, namespace=None, resource_version=None, label_selector=None,
              timeout=None, server_timeout_seconds=0):
        """A :class:`Watch` of changes after `resource_version` (None: from now).
        `timeout` (s) ends the iteration when nothing arrives for that long."""
        r = self.resource(resource)
        cn = self._native()
        w = _nat.slinky_py_kube_watch_new(cn, r.group, r.version, r.plural, r.namespaced,
                                          self._ns(r, namespace), resource_version,
                                          label_selector, int(server_timeout_seconds))
        return Watch(cn, w, timeout)

    def informer(self, resource, namespace=None, label_selector=None, field_selector=None,
                 on_add=None, on_update=None, on_delete=None, start=True, watch_timeout=300):
        """An :class:`Informer` of a resource (namespace "" or all: every
        namespace), started unless start=False."""
        inf = Informer(self, resource, namespace, label_selector, field_selector, on_add,
                       on_update, on_delete, watch_timeout)
        if start:
            inf.start()
        return inf
