"""Documentation: every docstring example runs (doctest, against slinky-apiserver for the
kube examples), and every public class, method and function has a docstring."""
import doctest
import importlib
import inspect
import pydoc

import pytest

import slinky

MODULES = ["slinky", "slinky.errors", "slinky.doc", "slinky.kube", "slinky.model", "slinky.conf",
           "slinky.ledger", "slinky.jail"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, kubeconfig, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", kubeconfig)
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(mod, name, extraglobs={"slinky": slinky})
    out = []
    for t in tests:
        runner.run(t, out=out.append)
    res = runner.summarize(verbose=False)
    print("%s: %d examples in %d docstrings" % (name, res.attempted, len(tests)))
    assert res.failed == 0, "".join(out)
    assert res.attempted > 0


def public_members():
    for name in MODULES:
        mod = importlib.import_module(name)
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        for n in names:
            obj = getattr(mod, n)
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue
            if getattr(obj, "__module__", "").split(".")[0] != "slinky":
                continue
            yield "%s.%s" % (name, n), obj
            if inspect.isclass(obj):
                for m, v in vars(obj).items():
                    if m.startswith("_") or not (callable(v) or isinstance(v, (property, classmethod,
                                                                               staticmethod))):
                        continue
                    yield "%s.%s.%s" % (name, n, m), getattr(obj, m, v)


def test_every_public_thing_has_a_docstring():
    missing = [n for n, o in public_members() if not (inspect.getdoc(o) or "").strip()]
    assert missing == []
    assert len(list(public_members())) > 150


def test_help_is_readable():
    text = pydoc.render_doc(slinky, renderer=pydoc.plaintext)
    assert "Slurm on Kubernetes" in text and "slinky.kube" in text
    for m in (slinky.kube, slinky.model, slinky.ledger):
        assert len(pydoc.render_doc(m, renderer=pydoc.plaintext)) > 2000


def test_version():
    assert slinky.__version__ == slinky.version()
    assert tuple(int(x) for x in slinky.__version__.split(".")) >= (0, 1, 0)
