"""slinky.errors: one exception class per libslinky error code.

Every failure of the C library raises a subclass of :class:`slinky.Error`.
Each class also derives from the builtin exception a Python programmer
would reach for, so ``except LookupError`` catches a missing object and
``except ValueError`` catches bad input:

==================  =========================  ==============================
class               builtin base               raised for
==================  =========================  ==============================
NotFoundError       LookupError                a missing object, key or path
FileNotFoundError   builtins.FileNotFoundError a missing file (also NotFound)
ExistsError         --                         AlreadyExists
ConflictError       --                         resourceVersion conflicts
InvalidError        ValueError                 bad argument or value
ParseError          ValueError                 malformed input (.line/.column)
AuthError           PermissionError            Unauthorized
ForbiddenError      PermissionError            Forbidden
TimeoutError        builtins.TimeoutError      timeouts
UnavailableError    ConnectionError            a server that cannot be reached
IOError             OSError                    operating-system I/O failures
UnsupportedError    NotImplementedError        unsupported operation/version
NoMemoryError       MemoryError                out of memory
GoneError           --                         an expired resourceVersion (410)
BusyError           --                         429/503: try again later
CanceledError       --                         an operation stopped on request
HTTPError           --                         other HTTP/transport failures
GitError            --                         git repository failures
==================  =========================  ==============================

The attributes of every instance:

- ``code``: the negative libslinky status (``slinky.errors.ENOTFOUND``...);
- ``message``: the library's message (also ``str(e)``);
- ``http_status``: the HTTP status behind it, else 0;
- ``reason``: the Kubernetes ``Status.reason`` ("NotFound", ...), else "";
- ``details``: the Kubernetes ``Status.details`` as a dict
  (``name``, ``kind``, ``causes``: a list of ``{reason, message, field}``);
- ``line`` and ``column``: the 1-based input position of a parse error, else 0.

>>> import slinky
>>> try:
...     slinky.loads_json('{"a": }')
... except ValueError as e:
...     print(type(e).__name__, e.code == slinky.errors.EPARSE, e.line, e.column)
ParseError True 1 7
>>> issubclass(slinky.NotFoundError, LookupError)
True
"""
import builtins as _builtins

__all__ = ["Error", "GenericError", "NoMemoryError", "InvalidError", "NotFoundError",
           "FileNotFoundError", "ExistsError", "ConflictError", "AuthError", "TimeoutError",
           "HTTPError", "ParseError", "GitError", "IOError", "GoneError", "UnsupportedError",
           "BusyError", "ForbiddenError", "CanceledError", "UnavailableError", "error_class"]

ERROR, ENOMEM, EINVALID, ENOTFOUND, EEXISTS, ECONFLICT, EAUTH, ETIMEOUT = range(-1, -9, -1)
EHTTP, EPARSE, EGIT, ITEROVER, EIO, EGONE, EUNSUPPORTED, EBUSY = range(-9, -17, -1)
EFORBIDDEN, ECANCELED, EUNAVAILABLE = -17, -18, -19


class Error(Exception):
    """Base class of every libslinky failure.

    >>> e = Error("boom")
    >>> (str(e), e.message, e.code, e.http_status, e.reason, e.details)
    ('boom', 'boom', -1, 0, '', {})
    """

    _code = ERROR

    def __init__(self, message="", code=None, http_status=0, reason="", details=None,
                 line=0, column=0):
        Exception.__init__(self, message)
        self.message = message
        self.code = type(self)._code if code is None else code
        self.http_status = http_status
        self.reason = reason
        self.details = {} if details is None else details
        self.line = line
        self.column = column

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.code, self.http_status, self.reason,
                           self.details, self.line, self.column))


def _rebuild(cls, *args):
    return cls(*args)


class GenericError(Error):
    """A failure without a more precise code (SLINKY_ERROR)."""


class NoMemoryError(Error, MemoryError):
    """Out of memory (SLINKY_ENOMEM)."""


class InvalidError(Error, ValueError):
    """An invalid argument or value (SLINKY_EINVALID, Kubernetes Invalid/BadRequest).

    For a Kubernetes Invalid reply, ``details["causes"]`` names each field.
    """


class ParseError(Error, ValueError):
    """Malformed input (SLINKY_EPARSE); ``line`` and ``column`` locate it (1-based)."""


class NotFoundError(Error, LookupError):
    """A missing object, key, file or path (SLINKY_ENOTFOUND, Kubernetes NotFound)."""


class FileNotFoundError(NotFoundError, _builtins.FileNotFoundError):
    """A file that does not exist (a missing kubeconfig, ledger, document...).

    Also a NotFoundError, a LookupError and the builtin FileNotFoundError.
    """


class ExistsError(Error):
    """The object already exists (SLINKY_EEXISTS, Kubernetes AlreadyExists)."""


class ConflictError(Error):
    """A concurrent modification: a stale resourceVersion, a ledger CAS failure."""


class AuthError(Error, PermissionError):
    """Authentication failed (SLINKY_EAUTH, HTTP 401)."""


class ForbiddenError(Error, PermissionError):
    """Permission denied (SLINKY_EFORBIDDEN, HTTP 403)."""


class TimeoutError(Error, _builtins.TimeoutError):
    """The operation timed out (SLINKY_ETIMEOUT)."""


class UnavailableError(Error, ConnectionError):
    """The server could not be reached (SLINKY_EUNAVAILABLE): fail closed."""


class HTTPError(Error):
    """An HTTP or transport failure without a better code (SLINKY_EHTTP)."""


class GitError(Error):
    """A git repository failure (SLINKY_EGIT)."""


class IOError(Error, OSError):
    """An operating-system I/O failure (SLINKY_EIO); the message names errno."""


class GoneError(Error):
    """The resourceVersion expired (HTTP 410): list again."""


class UnsupportedError(Error, NotImplementedError):
    """The operation or version is not supported (SLINKY_EUNSUPPORTED)."""


class BusyError(Error):
    """Rate limited or temporarily unavailable (HTTP 429/503): retry later."""


class CanceledError(Error):
    """The operation was stopped on request (SLINKY_ECANCELED)."""


class _IterOver(Error):
    """End of an iteration (SLINKY_ITEROVER); turned into StopIteration."""


_BY_CODE = {ERROR: GenericError, ENOMEM: NoMemoryError, EINVALID: InvalidError,
            ENOTFOUND: NotFoundError, EEXISTS: ExistsError, ECONFLICT: ConflictError,
            EAUTH: AuthError, ETIMEOUT: TimeoutError, EHTTP: HTTPError, EPARSE: ParseError,
            EGIT: GitError, ITEROVER: _IterOver, EIO: IOError, EGONE: GoneError,
            EUNSUPPORTED: UnsupportedError, EBUSY: BusyError, EFORBIDDEN: ForbiddenError,
            ECANCELED: CanceledError, EUNAVAILABLE: UnavailableError}
for _c, _cls in _BY_CODE.items():
    _cls._code = _c
FileNotFoundError._code = ENOTFOUND
del _c, _cls


def error_class(code):
    """The exception class of a libslinky status code.

    >>> error_class(-4).__name__
    'NotFoundError'
    >>> error_class(-99).__name__
    'Error'
    """
    return _BY_CODE.get(code, Error)


def _make(code, message, http_status, reason, details, line, column):
    return error_class(code)(message, code, http_status, reason, details, line, column)


def _file_missing(err, path):
    """A NotFoundError of a file path as slinky.FileNotFoundError (same attributes)."""
    e = FileNotFoundError(err.message, err.code, err.http_status, err.reason, err.details,
                          err.line, err.column)
    e.filename = str(path)
    e.errno = 2
    e.strerror = err.message
    return e


def _on_file(path, fn, *args):
    """fn(*args); a NotFoundError while `path` does not exist becomes FileNotFoundError."""
    try:
        return fn(*args)
    except NotFoundError as e:
        import os
        if path is None or isinstance(e, FileNotFoundError) or os.path.exists(path):
            raise
        raise _file_missing(e, path) from None
