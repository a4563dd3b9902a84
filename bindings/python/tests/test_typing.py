"""The .pyi stubs type-check the examples and a sample with mypy (Debian python3-mypy), and
catch wrong types."""
import glob
import os
import subprocess
import sys

import pytest

import slinky
from conftest import SRC

HERE = os.path.dirname(os.path.abspath(__file__))


def mypy(*files, strict=False):
    pkg = os.path.dirname(os.path.dirname(slinky.__file__))
    env = dict(os.environ, MYPYPATH=pkg)
    argv = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null",
            "--python-version", "3.11", "--follow-imports", "silent"]
    if strict:
        argv.append("--strict")
    return subprocess.run(argv + list(files), capture_output=True, text=True, env=env,
                          cwd=pkg)


@pytest.fixture(scope="module", autouse=True)
def have_mypy():
    if subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode:
        pytest.fail("python3-mypy is missing (see .ci/packages.txt)")


def test_stubs_exist_for_every_module():
    pkg = os.path.dirname(slinky.__file__)
    for m in ("__init__", "errors", "doc", "kube", "model", "conf", "ledger", "jail"):
        assert os.path.exists(os.path.join(pkg, m + ".pyi")), m
    assert os.path.exists(os.path.join(pkg, "py.typed"))


def test_stubs_and_sample_strict():
    p = mypy(os.path.join(HERE, "typing_sample.py"), strict=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_examples_typecheck():
    files = sorted(glob.glob(os.path.join(SRC, "examples", "python", "*.py")))
    assert len(files) >= 5
    p = mypy(*files)
    assert p.returncode == 0, p.stdout + p.stderr


def test_wrong_types_are_caught():
    p = mypy(os.path.join(HERE, "typing_bad.py"))
    assert p.returncode == 1
    errs = [l for l in p.stdout.splitlines() if ": error:" in l]
    assert len(errs) == 3, p.stdout
