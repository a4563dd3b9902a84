"""Type-checked by test_typing.py (mypy --strict against the .pyi stubs); never run."""
from typing import List, Optional

import slinky
from slinky.model import NodeSet, Problem


def replicas(c: slinky.Client, name: str) -> int:
    obj = c.get("nss", name)
    ns: NodeSet = NodeSet.from_dict(obj)
    problems: List[Problem] = ns.validate()
    if problems:
        raise slinky.InvalidError(problems[0].path)
    return int(ns.spec.replicas or 0)


def keys(inf: slinky.Informer) -> List[str]:
    return [o["metadata"]["name"] for o in inf.list("app=x")]


def drain(q: slinky.WorkQueue) -> Optional[str]:
    key = q.get(timeout=1.0)
    if key is not None:
        q.done(key)
    return key


def users(path: str) -> int:
    with slinky.Ledger.open(path) as l:
        r = l.add_user("alice", keys=["id.pub"], groups=["dev"])
        return len(list(l.history("alice"))) + int(r["uid"])


def errors() -> str:
    try:
        slinky.loads_json("{")
    except slinky.ParseError as e:
        return "%d:%d %s" % (e.line, e.column, e.message)
    except LookupError:
        return ""
    return slinky.__version__
