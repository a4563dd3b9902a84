from . import conf as conf, doc as doc, errors as errors, jail as jail, kube as kube, \
    ledger as ledger, model as model
from .doc import Doc as Doc, dumps_json as dumps_json, dumps_yaml as dumps_yaml, \
    json_patch as json_patch, loads_json as loads_json, loads_yaml as loads_yaml, \
    loads_yaml_all as loads_yaml_all, merge_patch as merge_patch
from .errors import AuthError as AuthError, BusyError as BusyError, \
    CanceledError as CanceledError, ConflictError as ConflictError, Error as Error, \
    ExistsError as ExistsError, FileNotFoundError as FileNotFoundError, \
    ForbiddenError as ForbiddenError, GenericError as GenericError, GitError as GitError, \
    GoneError as GoneError, HTTPError as HTTPError, InvalidError as InvalidError, \
    IOError as IOError, NoMemoryError as NoMemoryError, NotFoundError as NotFoundError, \
    ParseError as ParseError, TimeoutError as TimeoutError, \
    UnavailableError as UnavailableError, UnsupportedError as UnsupportedError
from .jail import JailSpec as JailSpec, expand_template as expand_template
from .kube import Client as Client, Event as Event, Informer as Informer, \
    ListIterator as ListIterator, Resource as Resource, Watch as Watch, \
    WorkQueue as WorkQueue, last_reason as last_reason
from .ledger import Ledger as Ledger, name_is_valid as name_is_valid, \
    ssh_key_check as ssh_key_check, sshd_config as sshd_config

__version__: str
__all__: list[str]

def version() -> str: ...
