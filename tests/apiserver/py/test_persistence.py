"""--data-dir: objects, resourceVersions and uids survive a restart and a kill -9 mid-burst."""
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
START = os.path.join(HERE, "..", "start-apiserver.sh")
STOP = os.path.join(HERE, "..", "stop-apiserver.sh")
CM = "/api/v1/namespaces/default/configmaps"


class Srv:
    def __init__(self, d, data):
        subprocess.run([START, d, "--data-dir", data], check=True)
        self.port = int(open(os.path.join(d, "port")).read())
        self.token = open(os.path.join(d, "token")).read().split()[0]
        self.ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
        self.pid = int(open(os.path.join(d, "pid")).read())

    def conn(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=10)

    def call(self, method, path, body=None, conn=None):
        c = conn or self.conn()
        h = {"Authorization": "Bearer " + self.token}
        if body is not None:
            h["Content-Type"] = "application/json"
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
        r = c.getresponse()
        data = r.read()
        if conn is None:
            c.close()
        return r.status, data


def test_restart_and_kill9_mid_burst():
    tmp = tempfile.mkdtemp(prefix="slinky-apiserver-wal-")
    d, data = os.path.join(tmp, "srv"), os.path.join(tmp, "data")
    try:
        s = Srv(d, data)
        st, body = s.call("POST", CM, {"metadata": {"name": "before"}, "data": {"k": "v"}})
        assert st == 201
        before = json.loads(body)
        subprocess.run([STOP, d], check=True)

        s = Srv(d, data)
        st, body = s.call("GET", CM + "/before")
        assert st == 200
        again = json.loads(body)
        assert again["metadata"]["uid"] == before["metadata"]["uid"]
        assert again["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
        assert again["data"] == {"k": "v"}
        # the history starts over: an old resourceVersion gets 410 on watch
        st, body = s.call("GET", CM + "?watch=1&timeoutSeconds=2&resourceVersion=1")
        ev = json.loads(body.decode().splitlines()[0])
        assert ev["type"] == "ERROR" and ev["object"]["code"] == 410

        # a burst of 1000 writes from 4 clients, killed -9 in the middle
        acked, lock = [], threading.Lock()
        stop = threading.Event()

        def writer(w):
            c = s.conn()
            for i in range(250):
                if stop.is_set():
                    return
                name = "w%d-%d" % (w, i)
                try:
                    st, _ = s.call("POST", CM, {"metadata": {"name": name},
                                                "data": {"k": name * 20}}, conn=c)
                except (OSError, http.client.HTTPException):
                    return
                if st == 201:
                    with lock:
                        acked.append(name)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(acked) < 150 and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(s.pid, signal.SIGKILL)
        stop.set()
        for t in threads:
            t.join(20)
        n_acked = len(acked)
        assert 150 <= n_acked < 1000, n_acked

        s = Srv(d, data)
        st, body = s.call("GET", CM)
        assert st == 200
        items = {o["metadata"]["name"]: o for o in json.loads(body)["items"]}
        missing = [n for n in acked if n not in items]
        assert not missing, "acknowledged writes lost: %s" % missing[:10]
        for name, o in items.items():
            if name.startswith("w"):
                assert o["data"]["k"] == name * 20, "half-written object %s" % name
                assert o["metadata"]["uid"]
        rvs = [int(o["metadata"]["resourceVersion"]) for o in items.values()]
        assert len(set(rvs)) == len(rvs)
        st, body = s.call("POST", CM, {"metadata": {"name": "after"}})
        assert st == 201
        assert int(json.loads(body)["metadata"]["resourceVersion"]) > max(rvs)
        subprocess.run([STOP, d], check=True)
    finally:
        subprocess.run([STOP, d], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
