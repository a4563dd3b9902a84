"""slinky.ledger: the identity ledger (a git repository of identity events).

Users, groups, SSH keys and Slurm accounts are recorded as events; uids and
gids are allocated by the ledger and never reused; replay converges the
sinks (POSIX files, Slurm accounting, Kanidm, a Kubernetes Secret).

>>> import os, tempfile, slinky
>>> d = tempfile.mkdtemp()
>>> key = os.path.join(os.environ["SLINKY_TEST_DATA"], "ledger", "ed25519.pub")
>>> with slinky.Ledger.init(os.path.join(d, "l.git"), cluster="c1") as l:
...     r = l.add_user("alice", keys=[key], groups=["dev"], account="physics")
...     print(r["uid"], [e["kind"] for e in r["recorded"]])
...     print(l.add_user("alice", keys=[key], groups=["dev"])["recorded"])   # idempotent
...     print(l.verify(), [e["kind"] for e in l.history("alice")][:2])
...     plan = l.replay(sinks=["posix"], root=os.path.join(d, "root"))
65536 ['user-add', 'key-add', 'group-add', 'member-add', 'account-add', 'assoc-add']
[]
6 ['user-add', 'key-add']
"""
import json
import os

from . import native as _nat
from .errors import InvalidError as _InvalidError, NotFoundError as _NotFoundError, \
    ConflictError as _ConflictError, _on_file, _file_missing

__all__ = ["Ledger", "sshd_config", "ssh_key_check", "name_is_valid"]

_SINKS = {"posix": _nat.SLINKY_LEDGER_SINK_POSIX, "slurm": _nat.SLINKY_LEDGER_SINK_SLURM,
          "kanidm": _nat.SLINKY_LEDGER_SINK_KANIDM, "kube": _nat.SLINKY_LEDGER_SINK_KUBE}
_TAG_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@")


def _kind(kind):
    if isinstance(kind, int):
        return kind
    return _nat.slinky_ledger_event_kind_parse(kind)


def _lines(text):
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def _one_line(key):
    return key.strip("\r\n") if isinstance(key, str) else key


def _tag(base, count):
    t = base[:64] if count == 0 else "%s-%d" % (base[:60], count + 1)
    return "".join(c if c in _TAG_CHARS else "_" for c in t)


def _read_keys(source):
    """[(tag, key)] of a key file path or of key text (each non-comment line)."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source.strip()
                                           and not source.lstrip().startswith(("ssh-", "ecdsa-", "sk-"))):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            raise _file_missing(_NotFoundError("%s: No such file or directory" % path),
                                path) from None
        base = os.path.basename(path)
        base = base[:-4] if base.endswith(".pub") and len(base) > 4 else base
        where = path
    else:
        text, base, where = source, None, "key"
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _nat.slinky_ledger_ssh_key_check(line)
        except _InvalidError as e:
            raise _InvalidError("%s line %d: %s" % (where, n, e.message)) from None
        b = base or (line.split()[2] if len(line.split()) > 2 else "key")
        out.append((_tag(b, len(out)), line))
    if not out:
        raise _InvalidError("%s holds no public key" % (where,))
    return out


def _same_key(a, b):
    return a.split()[:2] == b.split()[:2]


class Ledger:
    """An open ledger. Use :meth:`Ledger.init` or :meth:`Ledger.open`; a with-block
    closes it at the end (later calls raise InvalidError)."""

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def init(cls, path, cluster=None, id_min=0, id_max=0, actor=None):
        """Create a ledger repository at `path` (ids from id_min, default 65536).

        >>> import tempfile
        >>> with Ledger.init(tempfile.mkdtemp() + "/l.git", cluster="c") as l:
        ...     print(l.show()["ledger"]["cluster"])
        c
        """
        o = _nat.slinky_ledger_init_options()
        _nat.slinky_ledger_init_options_init(o, _nat.SLINKY_LEDGER_INIT_OPTIONS_VERSION)
        o.cluster_id = cluster
        o.id_min = id_min
        o.id_max = id_max
        o.actor = actor
        return cls(_nat.slinky_ledger_init(os.fspath(path), o))

    @classmethod
    def open(cls, path):
        """Open an existing ledger; slinky.FileNotFoundError when `path` is missing.

        >>> try:
        ...     Ledger.open("/nonexistent/ledger.git")
        ... except FileNotFoundError as e:
        ...     print(type(e).__name__)
        FileNotFoundError
        """
        p = os.fspath(path)
        return cls(_on_file(p, _nat.slinky_ledger_open, p))

    def _l(self):
        if self._h is None:
            raise _InvalidError("the ledger is closed")
        return self._h

    def close(self):
        """Close the ledger (the repository stays on disk)."""
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def path(self):
        """The repository path."""
        return _nat.slinky_ledger_path(self._l())

    def append(self, kind, name, target=None, id=0, tag=None, key=None, gecos=None, home=None,
               shell=None, description=None, organization=None, actor=None, request_id=None):
        """Append one event ("user-add", "key-add", "group-add", "member-add",
        "account-add", "assoc-add", ...); returns the result dict (id,
        duplicate...). A key may end with a newline (as read from a file).
        ExistsError for a taken name, NotFoundError for a missing target.

        >>> import tempfile
        >>> with Ledger.init(tempfile.mkdtemp() + "/l.git") as l:
        ...     print(l.append("user-add", "bob")["id"])
        ...     try:
        ...         l.append("user-add", "bob")
        ...     except slinky.ExistsError:
        ...         print("exists")
        65536
        exists
        """
        ev = _nat.slinky_ledger_event()
        _nat.slinky_ledger_event_init(ev, _nat.SLINKY_LEDGER_EVENT_VERSION)
        ev.kind = _kind(kind)
        ev.name, ev.target, ev.id, ev.tag, ev.key = name, target, id, tag, _one_line(key)
        ev.gecos, ev.home, ev.shell = gecos, home, shell
        ev.description, ev.organization = description, organization
        ev.actor, ev.request_id = actor, request_id
        return json.loads(_nat.slinky_ledger_append(self._l(), ev))

    def append_json(self, event):
        """Append an event given as a dict or a JSON string.

        >>> import tempfile
        >>> with Ledger.init(tempfile.mkdtemp() + "/l.git") as l:
        ...     print(l.append_json({"kind": "group-add", "name": "dev"})["id"])
        65536
        """
        if not isinstance(event, (str, bytes)):
            event = json.dumps(event)
        return json.loads(_nat.slinky_ledger_append_json(self._l(), event))

    def _record(self, kind, name):
        try:
            return self.get(kind, name)
        except _NotFoundError:
            return None

    def add_user(self, name, keys=(), groups=(), account=None, uid=0, gecos=None, shell=None,
                 home=None, actor=None):
        """Record a user like ``slinky-user-add``: the user (uid allocated unless
        given), SSH keys (paths of key files, with or without a trailing
        newline, or key text; tags from the file names), group memberships
        (groups created when missing) and a Slurm account association. Only what
        is missing is recorded, so running it again changes nothing. Every input
        is checked before anything is written. Returns ``{"uid": N,
        "recorded": [event results]}``. ConflictError when the user was deleted,
        has another uid, or another key has the same tag.

        >>> import tempfile
        >>> k = open(os.path.join(os.environ["SLINKY_TEST_DATA"], "ledger/rsa.pub")).read()
        >>> with Ledger.init(tempfile.mkdtemp() + "/l.git") as l:
        ...     print(len(l.add_user("carol", keys=[k])["recorded"]),
        ...           len(l.add_user("carol", keys=[k])["recorded"]), len(l.keys("carol")))
        2 0 1
        """
        for what, n in [("user", name)] + [("group", g) for g in groups] + \
                [("account", a) for a in ([account] if account else [])]:
            if not name_is_valid(n):
                raise _InvalidError("%s name %r is not a portable name (lowercase letters, digits, "
                                    "'_', '-', '.', starting with a letter or '_', at most 32)"
                                    % (what, n))
        wanted = []
        for src in ([keys] if isinstance(keys, (str, os.PathLike)) else keys):
            wanted += _read_keys(src)
        recorded = []

        def rec(kind, n, **kw):
            recorded.append(self.append(kind, n, actor=actor, **kw))
            return recorded[-1]

        u = self._record("user", name)
        if u is None:
            have_uid = rec("user-add", name, id=uid, gecos=gecos, shell=shell, home=home)["id"]
            u = {"keys": []}
        elif u.get("state") == "deleted":
            raise _ConflictError("user %r was deleted; names and ids are never reused" % name)
        elif uid and u.get("uid") != uid:
            raise _ConflictError("user %r exists with uid %s, not %s" % (name, u.get("uid"), uid))
        else:
            have_uid = u.get("uid")
        have = [(k.get("tag", ""), k.get("key", "")) for k in u.get("keys", [])]
        for tag, key in wanted:
            if any(_same_key(k, key) for _, k in have):
                continue
            if any(t == tag for t, _ in have):
                raise _ConflictError("user %r has another key tagged %r" % (name, tag))
            rec("key-add", name, tag=tag, key=key)
            have.append((tag, key))
        for g in groups:
            rg = self._record("group", g)
            if rg is None:
                rec("group-add", g)
            if rg is None or name not in rg.get("members", []):
                rec("member-add", name, target=g)
        if account:
            ra = self._record("account", account)
            if ra is None:
                rec("account-add", account)
            if ra is None or name not in ra.get("users", []):
                rec("assoc-add", name, target=account)
        return {"uid": have_uid, "recorded": recorded}

    def show(self):
        """The whole state at the tip: ledger info, users, groups, accounts (a dict)."""
        return json.loads(_nat.slinky_ledger_show(self._l()))

    def get(self, kind, name):
        """One record ("user", "group" or "account"); NotFoundError when absent."""
        return json.loads(_nat.slinky_ledger_get(self._l(), kind, name))

    def keys(self, user):
        """The user's SSH public keys (lines, as sshd's AuthorizedKeysCommand prints)."""
        return _nat.slinky_ledger_keys(self._l(), user).splitlines()

    def history(self, subject=None):
        """An iterator of the events (dicts, oldest first) about `subject`
        ("alice", "user/alice") or all."""
        return _lines(_nat.slinky_ledger_history(self._l(), subject))

    def verify(self):
        """Number of events checked; raises ConflictError naming the first bad commit."""
        r = _nat.slinky_ledger_verify(self._l())
        return r[0] if isinstance(r, (list, tuple)) else r

    def export(self):
        """Every event as JSON lines (text), the input of :meth:`import_lines`."""
        return _nat.slinky_ledger_export(self._l())

    def import_lines(self, text):
        """Append the events of exported JSON lines not yet recorded; returns how many."""
        return _nat.slinky_ledger_import(self._l(), text)

    def push(self, remote):
        """Push the ledger to a git remote (path or URL); ConflictError when behind."""
        _nat.slinky_ledger_push(self._l(), remote)

    def pull(self, remote):
        """Fetch and fast-forward from a git remote."""
        _nat.slinky_ledger_pull(self._l(), remote)

    def replay(self, sinks=("posix",), root=None, incarnation=None, dry_run=False, force=False,
               sacctmgr=None, kanidm=None, kubeconfig=None, namespace=None, secret=None):
        """Converge sinks ("posix", "slurm", "kanidm", "kube"); returns the plan
        (a list of lines, empty when everything was up to date)."""
        o = _nat.slinky_ledger_replay_options()
        _nat.slinky_ledger_replay_options_init(o, _nat.SLINKY_LEDGER_REPLAY_OPTIONS_VERSION)
        bits = 0
        for s in sinks:
            if s not in _SINKS:
                raise _InvalidError("unknown sink %r (%s)" % (s, ", ".join(_SINKS)))
            bits |= _SINKS[s]
        o.sinks = bits
        o.posix_root, o.incarnation, o.dry_run, o.force = root, incarnation, dry_run, force
        o.sacctmgr, o.kanidm = sacctmgr, kanidm
        o.kubeconfig, o.kube_namespace, o.kube_secret = kubeconfig, namespace, secret
        plan = _nat.slinky_ledger_replay(self._l(), o)
        return plan.splitlines() if plan else []


def sshd_config(enable_seamless=False, port=0, keys_command=None, keys_command_user=None):
    """The login pod's sshd_config fragment (seamless SSH off unless asked).

    >>> "AuthorizedKeysCommand none" in sshd_config()
    True
    """
    o = _nat.slinky_ledger_sshd_options()
    _nat.slinky_ledger_sshd_options_init(o, _nat.SLINKY_LEDGER_SSHD_OPTIONS_VERSION)
    o.enable_seamless, o.port = enable_seamless, port
    o.keys_command, o.keys_command_user = keys_command, keys_command_user
    return _nat.slinky_ledger_sshd_render(o)


def ssh_key_check(key):
    """Check one OpenSSH public key line (a trailing newline is allowed);
    InvalidError naming what is wrong.

    >>> ssh_key_check("ssh-ed25519 !!!")
    Traceback (most recent call last):
    ...
    slinky.errors.InvalidError: ...
    """
    _nat.slinky_ledger_ssh_key_check(_one_line(key))


def name_is_valid(name):
    """True for a portable user/group name (lowercase, digits, '_', '-', '.').

    >>> name_is_valid("alice"), name_is_valid("Alice")
    (True, False)
    """
    return bool(_nat.slinky_ledger_name_is_valid(name))
