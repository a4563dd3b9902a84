"""slinky.ledger: the identity ledger from Python."""
import os
import subprocess

import pytest

import slinky
from slinky.ledger import Ledger, sshd_config, name_is_valid, ssh_key_check


def _key(name):
    with open(os.path.join(os.environ["SLINKY_TEST_DATA"], "ledger", name)) as f:
        return f.read().strip()


def test_events_verify_replay(tmp_path):
    with Ledger.init(str(tmp_path / "l.git"), cluster="py") as l:
        r = l.append("user-add", "alice", gecos="Alice", request_id="r1")
        assert r["id"] == 65536 and r["duplicate"] is False
        again = l.append("user-add", "alice", request_id="r1")
        assert again["duplicate"] is True and again["id"] == 65536
        l.append("key-add", "alice", tag="laptop", key=_key("ed25519.pub"))
        g = l.append_json({"kind": "group-add", "name": "dev"})
        assert g["id"] == 65537
        l.append("member-add", "alice", target="dev")
        assert l.get("group", "dev")["members"] == ["alice"]
        assert l.keys("alice") == [_key("ed25519.pub")]
        assert [e["kind"] for e in l.history("alice")] == ["user-add", "key-add", "member-add"]
        assert l.verify() == 4
        show = l.show()
        assert show["ledger"]["cluster"] == "py" and len(show["users"]) == 1
        plan = l.replay(sinks=["posix"], root=str(tmp_path / "root"), incarnation="t")
        assert "posix: add etc/passwd alice" in plan
        assert l.replay(sinks=["posix"], root=str(tmp_path / "root"), incarnation="t") == []
        with open(tmp_path / "root" / "etc" / "passwd") as f:
            assert f.read() == "alice:x:65536:65536:Alice:/home/alice:/bin/bash\n"
        exported = l.export()
    with Ledger.init(str(tmp_path / "copy.git"), cluster="py") as c:
        assert c.import_lines(exported) == 4
        assert c.import_lines(exported) == 0
    trees = [subprocess.run(["git", "--git-dir", str(tmp_path / p), "rev-parse", "main^{tree}"],
                            capture_output=True, text=True, check=True).stdout
             for p in ("l.git", "copy.git")]
    assert trees[0] == trees[1]


def test_errors(tmp_path):
    with Ledger.init(str(tmp_path / "l.git")) as l:
        with pytest.raises(slinky.InvalidError, match="portable"):
            l.append("user-add", "Bad")
        l.append("user-add", "bob")
        with pytest.raises(slinky.ExistsError):
            l.append("user-add", "bob")
        with pytest.raises(slinky.NotFoundError):
            l.append("member-add", "bob", target="nogroup")
        with pytest.raises(slinky.InvalidError, match="type mismatch"):
            l.append("key-add", "bob", tag="k", key=_key("mismatch.pub"))
        with pytest.raises(slinky.NotFoundError):
            l.get("user", "nobody")
    with pytest.raises(slinky.NotFoundError):
        Ledger.open(str(tmp_path / "missing.git"))
    with pytest.raises(slinky.InvalidError):
        ssh_key_check("ssh-ed25519 !!!")
    assert name_is_valid("alice") and not name_is_valid("A")


def test_sshd_config():
    assert "AuthorizedKeysCommand none" in sshd_config()
    frag = sshd_config(enable_seamless=True, keys_command="/bin/k %u")
    assert "AuthorizedKeysCommand /bin/k %u" in frag and "Port 2222" in frag
