"""The write-ahead log against disk faults: a flipped bit before valid records
stops the server (naming the offset, changing nothing), a torn last record is
cut, the log is compacted while serving, stale temporary snapshots go."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

from hostile import Server, binary

CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def data():
    d = tempfile.mkdtemp(prefix="slinky-apiserver-wal-faults-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def fill(data, n):
    s = Server(data_dir=data)
    try:
        for i in range(n):
            st, _ = s.call("POST", CM, {"metadata": {"name": "cm%03d" % i}, "data": {"i": str(i)}})
            assert st == 201
    finally:
        s.proc.send_signal(signal.SIGKILL)  # no clean shutdown: everything is in the log
        s.proc.wait(10)
        s.stop()
    return os.path.join(data, "wal.log")


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.exists(path) else None


def names(s):
    st, doc = s.call("GET", CM)
    assert st == 200
    return sorted(o["metadata"]["name"] for o in doc["items"])


def test_flipped_bit_before_valid_records_refuses_to_start(data):
    log = fill(data, 40)
    raw = bytearray(open(log, "rb").read())
    records = [i for i in range(len(raw)) if raw.startswith(b"SLWAL", i)]
    assert len(records) >= 40
    pos = raw.index(b'"i":"10"') + 5
    victim = max(r for r in records if r < pos)
    assert victim != records[-1]
    raw[pos] ^= 0x01  # one bit in the 11th record's JSON
    open(log, "wb").write(raw)
    before = {f: digest(os.path.join(data, f)) for f in os.listdir(data)}
    p = subprocess.run([binary(), "--data-dir", data, "--insecure-http", "--port", "0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "offset %d" % victim in p.stderr, p.stderr
    assert "corrupt" in p.stderr
    after = {f: digest(os.path.join(data, f)) for f in os.listdir(data)}
    assert after == before


def test_flipped_bit_in_a_header_is_seen_too(data):
    log = fill(data, 5)
    raw = bytearray(open(log, "rb").read())
    records = [i for i in range(len(raw)) if raw.startswith(b"SLWAL", i)]
    head_end = raw.index(b"\n", records[1])
    raw[head_end - 10] ^= 0x04  # a digit of the resourceVersion or the length
    open(log, "wb").write(raw)
    p = subprocess.run([binary(), "--data-dir", data, "--insecure-http", "--port", "0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "offset %d" % records[1] in p.stderr, p.stderr


def test_torn_tail_is_cut(data):
    log = fill(data, 10)
    raw = open(log, "rb").read()
    last = raw.rindex(b"SLWAL")
    open(log, "wb").write(raw[: last + (len(raw) - last) // 2])  # half of the last record
    s = Server(data_dir=data)
    try:
        assert names(s) == ["cm%03d" % i for i in range(9)]
        assert "dropped" in s.stderr()
    finally:
        s.stop()


def test_stale_temporary_snapshots_are_removed(data):
    fill(data, 2)
    stale = os.path.join(data, "snapshot.json.tmp.4242")
    open(stale, "w").write('{"resourceVersion": 1, "obj')
    s = Server(data_dir=data)
    try:
        assert not os.path.exists(stale)
        assert names(s) == ["cm000", "cm001"]
    finally:
        s.stop()


def test_log_is_compacted_while_serving(data):
    s = Server(data_dir=data)
    log = os.path.join(data, "wal.log")
    try:
        assert s.call("POST", CM, {"metadata": {"name": "hot"}, "data": {"v": "0" * 20000}})[0] == 201
        peak = 0
        for i in range(400):  # ~8 MB of records for ~20 KB of live data
            st, _ = s.call("PATCH", CM + "/hot", json.dumps({"data": {"v": ("%04d" % i) * 5000}}),
                           ctype="application/merge-patch+json")
            assert st == 200
            peak = max(peak, os.path.getsize(log))
        live = 25000
        assert peak < 2 * live + 64 * 1024 + 25000, peak  # not 8 MB: live data and the floor
        assert os.path.getsize(os.path.join(data, "snapshot.json")) < 100000
    finally:
        s.proc.send_signal(signal.SIGKILL)
        s.proc.wait(10)
        s.stop()
    s = Server(data_dir=data)
    try:
        st, doc = s.call("GET", CM + "/hot")
        assert st == 200 and doc["data"]["v"] == "0399" * 5000
    finally:
        s.stop()
