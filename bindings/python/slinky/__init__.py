"""libslinky for Python: Slurm on Kubernetes, the Slinky way.

Errors raise slinky.Error subclasses (NotFoundError, ConflictError, ...)
carrying .code, .http_status, .message, .line and .column.
"""
from . import native as _nat
from ._native import (Error, GenericError, NoMemoryError, InvalidError, NotFoundError,
                     ExistsError, ConflictError, AuthError, TimeoutError, HTTPError,
                     ParseError, GitError, IOError, GoneError, UnsupportedError,
                     BusyError, ForbiddenError, CanceledError)


def version():
    """The run-time library version, "MAJOR.MINOR.PATCH"."""
    return _nat.slinky_version(None, None, None)


def _error_message(self):
    return self.args[0] if self.args else ""


Error.message = property(_error_message)

_nat.slinky_global_init()

# Pythonic layers, one file per module. The document functions and the
# classes are also at the top level (slinky.loads_yaml, slinky.Client,
# slinky.Ledger, slinky.JailSpec); the function-style modules keep their own
# namespace, since their names overlap: slinky.model.validate, slinky.conf.check.
from .doc import *  # noqa: E402,F401,F403
from .kube import *  # noqa: E402,F401,F403
from .ledger import *  # noqa: E402,F401,F403
from .jail import *  # noqa: E402,F401,F403
from . import doc, kube, model, conf, ledger, jail  # noqa: E402,F401
