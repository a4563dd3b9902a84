"""slinky.ledger: the identity ledger (a git repository of identity events).

    from slinky import Ledger
    with Ledger.init("/tmp/l.git", cluster="c1") as l:
        r = l.append("user-add", "alice")          # -> {"id": 65536, ...}
        l.append("key-add", "alice", tag="laptop", key=open("id.pub").read())
        l.verify()                                  # -> number of events
        l.replay(sinks=["posix"], root="/tmp/root")
"""
import json

from . import native as _nat

__all__ = ["Ledger", "sshd_config", "ssh_key_check", "name_is_valid"]

_SINKS = {"posix": _nat.SLINKY_LEDGER_SINK_POSIX, "slurm": _nat.SLINKY_LEDGER_SINK_SLURM,
          "kanidm": _nat.SLINKY_LEDGER_SINK_KANIDM, "kube": _nat.SLINKY_LEDGER_SINK_KUBE}


def _kind(kind):
    if isinstance(kind, int):
        return kind
    return _nat.slinky_ledger_event_kind_parse(kind)


def _lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class Ledger:
    """An open ledger. Use Ledger.init() or Ledger.open(); closes on exit of a with-block."""

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def init(cls, path, cluster=None, id_min=0, id_max=0, actor=None):
        o = _nat.slinky_ledger_init_options()
        _nat.slinky_ledger_init_options_init(o, _nat.SLINKY_LEDGER_INIT_OPTIONS_VERSION)
        o.cluster_id = cluster
        o.id_min = id_min
        o.id_max = id_max
        o.actor = actor
        return cls(_nat.slinky_ledger_init(path, o))

    @classmethod
    def open(cls, path):
        return cls(_nat.slinky_ledger_open(path))

    def close(self):
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def path(self):
        return _nat.slinky_ledger_path(self._h)

    def append(self, kind, name, target=None, id=0, tag=None, key=None, gecos=None, home=None,
               shell=None, description=None, organization=None, actor=None, request_id=None):
        """Append one event ("user-add", "key-add", ...); returns the result dict."""
        ev = _nat.slinky_ledger_event()
        _nat.slinky_ledger_event_init(ev, _nat.SLINKY_LEDGER_EVENT_VERSION)
        ev.kind = _kind(kind)
        ev.name, ev.target, ev.id, ev.tag, ev.key = name, target, id, tag, key
        ev.gecos, ev.home, ev.shell = gecos, home, shell
        ev.description, ev.organization = description, organization
        ev.actor, ev.request_id = actor, request_id
        return json.loads(_nat.slinky_ledger_append(self._h, ev))

    def append_json(self, event):
        """Append an event given as a dict or a JSON string."""
        if not isinstance(event, (str, bytes)):
            event = json.dumps(event)
        return json.loads(_nat.slinky_ledger_append_json(self._h, event))

    def show(self):
        return json.loads(_nat.slinky_ledger_show(self._h))

    def get(self, kind, name):
        return json.loads(_nat.slinky_ledger_get(self._h, kind, name))

    def keys(self, user):
        return _nat.slinky_ledger_keys(self._h, user).splitlines()

    def history(self, subject=None):
        return _lines(_nat.slinky_ledger_history(self._h, subject))

    def verify(self):
        """Number of events checked; raises ConflictError naming the first bad commit."""
        r = _nat.slinky_ledger_verify(self._h)
        return r[0] if isinstance(r, (list, tuple)) else r

    def export(self):
        return _nat.slinky_ledger_export(self._h)

    def import_lines(self, text):
        return _nat.slinky_ledger_import(self._h, text)

    def push(self, remote):
        _nat.slinky_ledger_push(self._h, remote)

    def pull(self, remote):
        _nat.slinky_ledger_pull(self._h, remote)

    def replay(self, sinks=("posix",), root=None, incarnation=None, dry_run=False, force=False,
               sacctmgr=None, kanidm=None, kubeconfig=None, namespace=None, secret=None):
        """Converge sinks; returns the plan (list of lines)."""
        o = _nat.slinky_ledger_replay_options()
        _nat.slinky_ledger_replay_options_init(o, _nat.SLINKY_LEDGER_REPLAY_OPTIONS_VERSION)
        bits = 0
        for s in sinks:
            bits |= _SINKS[s]
        o.sinks = bits
        o.posix_root, o.incarnation, o.dry_run, o.force = root, incarnation, dry_run, force
        o.sacctmgr, o.kanidm = sacctmgr, kanidm
        o.kubeconfig, o.kube_namespace, o.kube_secret = kubeconfig, namespace, secret
        plan = _nat.slinky_ledger_replay(self._h, o)
        return plan.splitlines() if plan else []


def sshd_config(enable_seamless=False, port=0, keys_command=None, keys_command_user=None):
    """The login pod's sshd_config fragment (seamless SSH off unless asked)."""
    o = _nat.slinky_ledger_sshd_options()
    _nat.slinky_ledger_sshd_options_init(o, _nat.SLINKY_LEDGER_SSHD_OPTIONS_VERSION)
    o.enable_seamless, o.port = enable_seamless, port
    o.keys_command, o.keys_command_user = keys_command, keys_command_user
    return _nat.slinky_ledger_sshd_render(o)


def ssh_key_check(key):
    _nat.slinky_ledger_ssh_key_check(key)


def name_is_valid(name):
    return bool(_nat.slinky_ledger_name_is_valid(name))
