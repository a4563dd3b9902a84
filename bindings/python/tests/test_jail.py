"""slinky.jail: specs, validation errors, renderers, environment, and (as root) a real run."""
import os
import shutil
import subprocess
import tempfile

import pytest

import slinky
from slinky.jail import JailSpec, expand_template

DATA = os.path.join(os.environ.get("SLINKY_TEST_DATA") or
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                 "tests", "data"), "jail")


def test_default_profile_is_the_worker_jail():
    d = JailSpec.default().to_dict()
    dests = [m["destination"] for m in d["mounts"]]
    assert dests[:4] == ["/home", "/shared", "/local", "/tmp"]
    shared = d["mounts"][1]
    assert shared["readOnly"] is True
    assert d["mounts"][3]["lifetime"] == "job"
    assert d["process"]["capabilities"] == []
    assert JailSpec.load(os.path.join(DATA, "worker.yaml")).to_dict() == d


def test_round_trip_and_copy():
    s = JailSpec.load(os.path.join(DATA, "templated.yaml"))
    assert JailSpec.loads(s.dumps()).to_dict() == s.to_dict()
    assert JailSpec.loads(s.dumps(yaml=False)).to_dict() == s.to_dict()
    c = s.copy()
    c.scratch = "/var/x"
    assert c.scratch == "/var/x" and s.scratch != "/var/x"


@pytest.mark.parametrize("text,field", [
    ("mounts: [{source: /a, destination: /x/../etc}]", "mounts[0].destination"),
    ("mounts: [{source: /a, destination: /opt/x}, {source: /b, destination: /opt}]",
     "mounts[1].destination"),
    ("mounts: [{source: /a, destination: /proc/x}]", "mounts[0].destination"),
    ("process: {capabilities: [CAP_NOPE]}", "process.capabilities[0]"),
    ("mounts: [{source: /a, destination: /x, bogus: 1}]", "mounts[0].bogus"),
])
def test_invalid_specs_name_the_field(text, field):
    with pytest.raises(slinky.InvalidError) as e:
        JailSpec.loads(text)
    assert field in e.value.message


def test_parse_error_has_position():
    with pytest.raises(slinky.ParseError) as e:
        JailSpec.loads("mounts: [a")
    assert e.value.line >= 1


def test_renderers():
    s = JailSpec.default()
    s.scratch = "/nvme/jobs"
    job = {"job_id": "7", "user": "u7", "uid": 4242, "gid": 4343, "gpus": "1"}
    args = s.render_bwrap(job, ["echo", "hi"])
    assert args[-3:] == ["--", "echo", "hi"]
    i = args.index("/nvme/jobs/job-7/tmp")
    assert args[i - 1] == "--bind" and args[i + 1] == "/tmp"
    assert "/dev/nvidia1" in args and "/dev/nvidia0" not in args
    oci = s.render_oci(job, ["/bin/true"], "rootfs")
    assert oci["process"]["user"]["uid"] == 4242
    assert oci["process"]["noNewPrivileges"] is True
    assert {n["type"] for n in oci["linux"]["namespaces"]} == {"mount", "pid", "uts"}
    assert "PrologFlags=Contain" in s.render_slurm("slurm-conf")
    assert s.render_slurm("plugstack", "/p/slinky_jail.so", "/etc/j.yaml") == \
        "required /p/slinky_jail.so spec=/etc/j.yaml\n"
    with pytest.raises(slinky.InvalidError):
        s.render_bwrap({"user": "u7", "uid": 1, "gid": 1})  # job-lifetime /tmp needs a job id


def test_environment_and_templates():
    s = JailSpec.default()
    env = s.environment({"PATH": "/usr/bin", "A": "b"})
    assert env["PATH"].startswith("/opt/hpcx/ompi/bin:/usr/local/cuda/bin:")
    assert env["A"] == "b"
    assert expand_template("/d/%u/%j", {"user": "al", "job_id": "3"}) == "/d/al/3"
    with pytest.raises(slinky.InvalidError):
        expand_template("/d/%u", {"user": ".."})


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root")
def test_run_in_the_jail():
    w = tempfile.mkdtemp(prefix="pyjail.")
    try:
        for d in ("home", "shared", "local", "scratch"):
            os.makedirs(os.path.join(w, d))
        os.chmod(os.path.join(w, "local"), 0o1777)
        with open(os.path.join(w, "shared", "data"), "w") as f:
            f.write("dataset\n")
        s = JailSpec.default()
        s.scratch = os.path.join(w, "scratch")
        for dest in ("/home", "/shared", "/local"):
            s.set_mount_source(dest, os.path.join(w, dest[1:]))
        script = ("cat /shared/data > /local/out && ! touch /shared/x 2>/dev/null "
                  "&& grep -q '^CapEff:.0000000000000000' /proc/self/status && [ $(id -u) = 65534 ]")
        rc = s.run(["sh", "-c", script], 11, {"user": "nobody"})
        assert rc == 0
        assert open(os.path.join(w, "local", "out")).read() == "dataset\n"
        assert not os.path.exists(os.path.join(w, "scratch", "job-11"))
        assert s.run(["sh", "-c", "exit 3"], 12, {"user": "nobody"}) == 3
    finally:
        subprocess.run(["rm", "-rf", w], check=False)
