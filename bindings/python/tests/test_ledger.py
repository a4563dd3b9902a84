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


def test_add_user_idempotent_like_the_cli(tmp_path):
    key = _key("ed25519.pub")
    with_nl = tmp_path / "laptop.pub"
    with_nl.write_text(key + "\n")
    without_nl = tmp_path / "desk.pub"
    without_nl.write_text(_key("rsa.pub"))
    with Ledger.init(str(tmp_path / "l.git"), cluster="py") as l:
        r = l.add_user("dave", keys=[str(with_nl), without_nl], groups=["dev", "ops"],
                       account="physics", gecos="Dave")
        assert r["uid"] == 65536
        assert [e["kind"] for e in r["recorded"]] == [
            "user-add", "key-add", "key-add", "group-add", "member-add", "group-add",
            "member-add", "account-add", "assoc-add"]
        assert sorted(k.split()[0] for k in l.keys("dave")) == ["ssh-ed25519", "ssh-rsa"]
        assert {k["tag"] for k in l.get("user", "dave")["keys"]} == {"laptop", "desk"}
        n = l.verify()
        again = l.add_user("dave", keys=[str(with_nl), without_nl], groups=["dev", "ops"],
                           account="physics")
        assert again == {"uid": 65536, "recorded": []} and l.verify() == n
        # the same key as text, trailing newline and all: still nothing new
        assert l.add_user("dave", keys=[key + "\n"])["recorded"] == []
        # a second user joins an existing group: only the membership is recorded
        r = l.add_user("erin", groups=["dev"])
        assert [e["kind"] for e in r["recorded"]] == ["user-add", "member-add"]
        assert l.get("group", "dev")["members"] == ["dave", "erin"]
        # bad input is refused before anything is written
        for bad in (dict(name="Bad"), dict(name="frank", groups=["Bad Group"]),
                    dict(name="frank", keys=[_key("mismatch.pub")]),
                    dict(name="frank", account="BAD")):
            with pytest.raises(slinky.InvalidError):
                l.add_user(**bad)
        with pytest.raises(FileNotFoundError):
            l.add_user("frank", keys=[str(tmp_path / "missing.pub")])
        assert l.verify() == n + 2
        with pytest.raises(slinky.NotFoundError):
            l.get("user", "frank")
        # another key under a tag that is taken conflicts
        other = tmp_path / "x" / "laptop.pub"
        other.parent.mkdir()
        other.write_text(_key("ecdsa.pub") + "\n")
        with pytest.raises(slinky.ConflictError, match="tagged 'laptop'"):
            l.add_user("dave", keys=[str(other)])
        with pytest.raises(slinky.ConflictError, match="uid"):
            l.add_user("dave", uid=70000)
        # append() also takes a key read from a file as is
        l.append("key-add", "erin", tag="k", key=with_nl.read_text())
        assert l.keys("erin") == [key]


def test_history_is_an_iterator_and_closed_ledger_raises(tmp_path):
    l = Ledger.init(str(tmp_path / "l.git"))
    l.add_user("gail", groups=["g"])
    h = l.history("gail")
    assert iter(h) is h
    assert next(h)["kind"] == "user-add"
    assert [e["kind"] for e in h] == ["member-add"]
    assert len(list(l.history())) == 3
    with l:
        assert l.path.endswith("l.git")
    with pytest.raises(slinky.InvalidError, match="closed"):
        l.show()
    with Ledger.open(str(tmp_path / "l.git")) as again:
        assert again.get("user", "gail")["uid"] == 65536
