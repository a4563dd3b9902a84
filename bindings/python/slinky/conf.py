"""slinky.conf: slurm.conf and the files beside it.

Configs are plain text; the C library parses them with Slurm's own grammar.

    >>> import slinky
    >>> text = "ClusterName=ci\\nSlurmctldHost=localhost\\nKillWait=30\\nNodeName=n[1-2] CPUs=2\\n"
    >>> slinky.conf.get(text, "KillWait")
    '30'
    >>> new = slinky.conf.set(text, "AccountingStorageEnforce", "associations,limits,qos")
    >>> slinky.conf.diff(text, new, version="22.05")["class"]
    'restart-slurmctld'
    >>> slinky.conf.hostlist_expand("node[001-003]")
    ['node001', 'node002', 'node003']
"""
import json as _json

from . import native as _nat

__all__ = ["KINDS", "check", "get", "set", "record_set", "diff", "hostlist_expand", "hostlist_compress",
           "merge_parameters", "render"]

_SAMPLE = "ClusterName=ci\nSlurmctldHost=localhost\nNodeName=n[1-2] CPUs=2\nPartitionName=p Nodes=ALL\n"

KINDS = ("slurm", "cgroup", "gres", "slurmdbd", "job_container", "plugstack")


def _version(v):
    if v is None or v == 0:
        return 0
    if isinstance(v, int):
        return v
    major, minor = str(v).split(".")
    return int(major) * 100 + int(minor)


def _kind(k):
    try:
        return KINDS.index(k)
    except ValueError:
        raise ValueError("kind must be one of %s" % (KINDS,)) from None


def _text(t):
    return t.decode() if isinstance(t, bytes) else t


def check(text, kind="slurm", version=None):
    """Static checks for a Slurm version ("22.05", "24.11", None = newest).
    Returns (ok, findings) with findings as (line, column, severity, message).
    Raises slinky.ParseError (with .line/.column) for grammar errors.

    >>> ok, findings = check(_SAMPLE + "FooBar=1\\n", version="22.05")
    >>> ok, [(f[0], f[2]) for f in findings if f[2] == "error"]
    (False, [(5, 'error')])
    """
    report = _nat.slinky_conf_py_check(_text(text), _kind(kind), _version(version)) or ""
    findings = []
    for line in report.splitlines():
        # FILE:LINE:COL: severity: message
        parts = line.split(":", 4)
        if len(parts) == 5:
            findings.append((int(parts[1]), int(parts[2]), parts[3].strip(), parts[4].strip()))
    return (not any(f[2] == "error" for f in findings), findings)


def get(text, key, kind="slurm"):
    """The effective value of a global key (last value wins, any case), or None.

    >>> get(_SAMPLE, "clustername"), get(_SAMPLE, "KillWait")
    ('ci', None)
    """
    return _nat.slinky_conf_py_get(_text(text), _kind(kind), key)


def set(text, key, value, kind="slurm"):  # noqa: A001 (the verb of the C API)
    """Return the text with `key` set to `value`: one line changes (or one is appended).

    >>> set(_SAMPLE, "ClusterName", "prod").splitlines()[0]
    'ClusterName=prod'
    """
    return _nat.slinky_conf_py_set(_text(text), _kind(kind), key, str(value))


def record_set(text, type, name, key, value):  # noqa: A002 (Slurm's word)
    """Return the slurm.conf text with `key` set in the record line `type`=`name`
    (e.g. "PartitionName", "debug", "MaxTime", "60"): only that line changes.

    >>> record_set(_SAMPLE, "PartitionName", "p", "MaxTime", 60).splitlines()[-1]
    'PartitionName=p Nodes=ALL MaxTime=60'
    """
    return _nat.slinky_conf_py_record_set(_text(text), type, name, key, str(value))


def diff(old, new, version=None):
    """Semantic diff of two slurm.conf texts: {"class": ..., "changes": [...]}, each change
    a dict with scope, name, key, old, new, class and reason.

    >>> d = diff(_SAMPLE, set(_SAMPLE, "KillWait", "45"), version="22.05")
    >>> d["class"], [(c["key"], c["old"], c["new"]) for c in d["changes"]]
    ('reconfigure', [('KillWait', None, '45')])
    """
    return _json.loads(_nat.slinky_conf_py_diff(_text(old), _text(new), _version(version)))


def hostlist_expand(expr):
    """Expand a Slurm hostlist expression into host names, in Slurm's order.

    >>> hostlist_expand("a[1-2],b3")
    ['a1', 'a2', 'b3']
    """
    out = _nat.slinky_conf_py_hostlist_expand(expr) or ""
    return out.splitlines()


def hostlist_compress(hosts):
    """Compress host names into a hostlist as `scontrol show hostlist` does.

    >>> hostlist_compress(["n1", "n2", "n3", "x"])
    'n[1-3],x'
    """
    hosts = list(hosts)
    for h in hosts:
        if not h or "\n" in h:
            raise ValueError("invalid host name %r" % (h,))
    return _nat.slinky_conf_py_hostlist_compress("\n".join(hosts)) or ""


def merge_parameters(conf_raw, params):
    """Merge option lists into key=value,value lines (upstream's BuildMergedConfig):
    params is {"Key": ["opt", ...]}; options already present are kept once.

    >>> print(merge_parameters("SlurmctldParameters=enable_configless", {"SlurmctldParameters": ["idle_on_node_suspend"]}).strip())
    SlurmctldParameters=enable_configless,idle_on_node_suspend
    """
    return _nat.slinky_conf_py_merge(_text(conf_raw), _json.dumps(params)) or ""


def render(resources, file="slurm", version=None, local_dir=None, ports=(0, 0, 0), munge=None):
    """Render slurm.conf ("slurm"), cgroup.conf or gres.conf from Slinky resources: a
    YAML/JSON stream (str) or a list of dicts holding a Controller, NodeSets and an
    optional Accounting. `local_dir` selects the local (127.0.0.1) profile.

    >>> ctl = {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "Controller",
    ...        "metadata": {"name": "slurm", "namespace": "slurm"}, "spec": {"clusterName": "demo"}}
    >>> "ClusterName=demo" in render([ctl]).splitlines()
    True
    """
    if not isinstance(resources, (str, bytes)):
        resources = "\n---\n".join(_json.dumps(r) for r in resources)
    ctld, slurmd, dbd = (list(ports) + [0, 0, 0])[:3]
    return _nat.slinky_conf_py_render(_text(resources), file, _version(version), local_dir or "",
                                      int(ctld), int(slurmd), int(dbd), munge or "")
