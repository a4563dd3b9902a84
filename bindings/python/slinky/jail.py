"""slinky.jail: per-job jail specs, their renderers and the applier.

A JailSpec is read from YAML/JSON (or the built-in default profile), validated
(errors raise slinky.InvalidError naming the field, e.g. "mounts[2].destination:
..."), and rendered for crun (OCI config.json), bwrap (argv) and Slurm
(job_container.conf, slurm.conf keys, plugstack.conf line). A job is a dict:
{"job_id": "42", "user": "alice", "uid": 1000, "gid": 1000, "groups": [...],
"node": "n1", "gpus": "0,1", "cwd": "/home/alice"} (every key optional).
run(), setup() and cleanup() change the machine: they need root.

>>> import slinky
>>> spec = slinky.JailSpec.default()
>>> spec.destinations[:3]
['/home', '/shared', '/local']
>>> spec.render_bwrap({"job_id": "42", "uid": 1000, "gid": 1000})[:3]
['--die-with-parent', '--unshare-user', '--unshare-pid']
"""
import json as _json
import os as _os

from . import native as _nat
from .errors import _on_file

__all__ = ["JailSpec", "expand_template"]

_SLURM_FILES = {
    "job-container": _nat.SLINKY_JAIL_SLURM_JOB_CONTAINER,
    "slurm-conf": _nat.SLINKY_JAIL_SLURM_CONF,
    "plugstack": _nat.SLINKY_JAIL_SLURM_PLUGSTACK,
}


def _job(job_id=None, job=None):
    j = dict(job or {})
    if job_id is not None:
        j["job_id"] = str(job_id)
    return j


def expand_template(template, job):
    """Expand %j, %u, %n and %% in a path template for a job dict.

    >>> expand_template("/scratch/%u/%j", {"job_id": "7", "user": "bob"})
    '/scratch/bob/7'
    """
    return _nat.slinky_jail_expand(template, job)


class JailSpec:
    """A validated jail spec (owns a native slinky_jail_spec).

    Made by :meth:`default`, :meth:`loads` or :meth:`load`; bad specs raise
    InvalidError naming the field.

    >>> try:
    ...     JailSpec.loads("kind: JailSpec\\nmounts: [{destination: relative}]")
    ... except ValueError as e:
    ...     print(type(e).__name__, "mounts[0]" in str(e))
    InvalidError True
    """

    __slots__ = ("_spec",)

    def __init__(self, native_spec):
        self._spec = native_spec

    @classmethod
    def default(cls):
        """The built-in Slinky worker profile."""
        return cls(_nat.slinky_jail_spec_new_default())

    @classmethod
    def loads(cls, text):
        """Parse YAML or JSON text."""
        return cls(_nat.slinky_jail_spec_parse(text))

    @classmethod
    def load(cls, path):
        """Read and parse a spec file."""
        return cls(_on_file(_os.fspath(path), _nat.slinky_jail_spec_load, _os.fspath(path)))

    def copy(self):
        """An independent copy.

        >>> a = JailSpec.default(); b = a.copy(); b.scratch = "/other"
        >>> a.scratch != b.scratch
        True
        """
        return JailSpec(_nat.slinky_jail_spec_new_copy(self._spec))

    def validate(self):
        """Check the spec again after changes; InvalidError naming the field."""
        _nat.slinky_jail_spec_validate(self._spec)

    def dumps(self, yaml=True):
        """The spec as YAML (or JSON), defaults made explicit."""
        return _nat.slinky_jail_spec_dump(self._spec, yaml)

    def to_dict(self):
        """The spec as plain Python values.

        >>> sorted(JailSpec.default().to_dict())[:3]
        ['devices', 'environment', 'kind']
        """
        return _json.loads(self.dumps(yaml=False))

    @property
    def scratch(self):
        """The folder under which each job gets its scratch (settable)."""
        return _nat.slinky_jail_spec_get_scratch(self._spec)

    @scratch.setter
    def scratch(self, path):
        _nat.slinky_jail_spec_set_scratch(self._spec, path)

    def set_root(self, path, read_only=True):
        """Use `path` as the jail's root file system."""
        _nat.slinky_jail_spec_set_root(self._spec, path, read_only)

    def set_mount_source(self, destination, source):
        """Change the source of the mount at `destination` (NotFoundError if none)."""
        _nat.slinky_jail_spec_set_mount_source(self._spec, destination, source)

    def set_gpu_devices(self, source, destination=None):
        """Where the GPU device nodes come from (and go to) when a job asks for GPUs."""
        _nat.slinky_jail_spec_set_gpu_devices(self._spec, source, destination)

    def add_bind(self, source, destination, read_only=False):
        """Add a bind mount of `source` at `destination`.

        >>> s = JailSpec.default(); s.add_bind("/srv/data", "/data", read_only=True)
        >>> s.destinations[-1]
        '/data'
        """
        _nat.slinky_jail_spec_add_bind(self._spec, source, destination, read_only)

    @property
    def destinations(self):
        """Mount destinations, in order."""
        n = _nat.slinky_jail_spec_mount_count(self._spec)
        return [_nat.slinky_jail_spec_mount_destination(self._spec, i) for i in range(n)]

    def render_oci(self, job=None, argv=None, rootfs=None):
        """OCI runtime config as a dict.

        >>> JailSpec.default().render_oci({"job_id": "1"}, ["/bin/true"])["process"]["args"]
        ['/bin/true']
        """
        return _json.loads(_nat.slinky_jail_render_oci(self._spec, job, argv, rootfs))

    def bundle(self, directory, job=None, argv=None):
        """Write an OCI bundle (config.json + rootfs skeleton) into directory."""
        _nat.slinky_jail_bundle_create(_os.fspath(directory), self._spec, job, argv)

    def render_bwrap(self, job=None, argv=None):
        """bwrap arguments (without "bwrap")."""
        return _nat.slinky_jail_render_bwrap(self._spec, job, argv)

    def render_slurm(self, which, plugin=None, spec_path=None):
        """Slurm configuration lines; which: "job-container", "slurm-conf" or "plugstack".

        >>> JailSpec.default().render_slurm("plugstack").split()[:2]
        ['required', 'slinky_jail.so']
        """
        return _nat.slinky_jail_render_slurm(self._spec, _SLURM_FILES[which], plugin, spec_path)

    def environment(self, env=None):
        """The environment a jailed process gets from env (a dict; default os.environ)."""
        env = _os.environ if env is None else env
        lst = _nat.slinky_jail_environment(self._spec, ["%s=%s" % kv for kv in env.items()])
        return dict(e.split("=", 1) for e in lst)

    def setup(self, job_id, job=None, owner_pid=0):
        """Create the job's scratch (root)."""
        _nat.slinky_jail_setup(self._spec, _job(job_id, job), owner_pid)

    def cleanup(self, job_id):
        """Empty and remove the job's scratch."""
        _nat.slinky_jail_cleanup(self._spec, str(job_id))

    def cleanup_stale(self, keep_job_id=None):
        """Remove scratch left by crashed jobs; returns how many folders were removed."""
        return _nat.slinky_jail_cleanup_stale(self._spec, keep_job_id)

    def run(self, argv, job_id, job=None, cleanup=True):
        """Run argv in the jail (root); returns its exit status."""
        return _nat.slinky_jail_run(self._spec, _job(job_id, job), list(argv), cleanup)
