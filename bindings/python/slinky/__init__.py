"""libslinky for Python: Slurm on Kubernetes, the Slinky way.

The package wraps the C library libslinky with plain Python values (dicts,
lists, str), iterators, context managers and exceptions:

- :mod:`slinky.kube`: a Kubernetes client (``slinky.Client``), watches,
  informers with a readable cache, and a work queue;
- :mod:`slinky.model`: the Slinky resources (NodeSet, Controller, ...) as
  typed objects with attribute access, validation and defaults;
- :mod:`slinky.conf`: slurm.conf and friends: check, render, diff;
- :mod:`slinky.ledger`: the identity ledger (``slinky.Ledger``);
- :mod:`slinky.jail`: job-step sandboxes (``slinky.JailSpec``);
- :mod:`slinky.doc`: JSON/YAML documents, merge and JSON patches;
- :mod:`slinky.errors`: one exception class per error code, each also a
  subclass of the matching builtin (``NotFoundError`` is a ``LookupError``).

>>> import slinky
>>> slinky.__version__ == slinky.version()
True
>>> slinky.loads_yaml("a: [1, 2]")
{'a': [1, 2]}
>>> try:
...     slinky.Doc.load("/nonexistent.yaml")
... except FileNotFoundError as e:
...     print(type(e).__name__, isinstance(e, LookupError))
FileNotFoundError True
"""
import builtins as _builtins
import inspect as _inspect

from . import _native
from . import native as _nat
from . import errors
from .errors import (Error, GenericError, NoMemoryError, InvalidError, NotFoundError,
                     FileNotFoundError, ExistsError, ConflictError, AuthError, TimeoutError,
                     HTTPError, ParseError, GitError, IOError, GoneError, UnsupportedError,
                     BusyError, ForbiddenError, CanceledError, UnavailableError)

_native.slinky_py_set_error_factory(errors._make)

# Call the C functions directly rather than through SWIG's generated Python
# shims, so a traceback ends in the slinky.* wrapper that made the call.
for _n, _f in list(vars(_nat).items()):
    if (_inspect.isfunction(_f) and _f.__module__ == _nat.__name__
            and callable(getattr(_native, _n, None))):
        setattr(_nat, _n, getattr(_native, _n))
del _n, _f


def version():
    """The run-time library version, "MAJOR.MINOR.PATCH".

    >>> import re, slinky
    >>> bool(re.fullmatch(r"\\d+\\.\\d+\\.\\d+", slinky.version()))
    True
    """
    return _nat.slinky_version(None, None, None)


__version__ = version()

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

# `from slinky import *` never shadows a builtin: slinky.TimeoutError, slinky.IOError
# and slinky.FileNotFoundError (subclasses of the builtins) are reached as attributes.
__all__ = [n for n in (["__version__", "version", "errors", "doc", "kube", "model", "conf",
                        "ledger", "jail"] + errors.__all__[:-1] + doc.__all__ + kube.__all__
                       + ledger.__all__ + jail.__all__)
           if not hasattr(_builtins, n)]
