"""exporter/prometheus (integration): slinky-exporter against a real Slurm 24.11
slurmrestd with a running and a pending job, scraped by a real Prometheus on
loopback (scrape interval 1 s). After two scrapes the node and job series are
queried through Prometheus's HTTP API; `promtool check metrics` on the body is
clean; every expression of every panel in dashboards/ evaluates without error
and returns data; the --max-users cap folds users into "other"; an unreachable
slurmrestd gives slinky_slurm_up 0 and counted errors."""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import s24  # noqa: E402


@pytest.fixture(scope="module")
def env():
    c = s24.Cluster(nodes=2)
    procs = []
    try:
        c.exec("sbatch -Q -w node1 -t 10 --wrap 'sleep 600'")
        c.exec("sbatch -Q -t 10 --begin=now+3600 --wrap 'sleep 600'")
        s24.wait_for(lambda: "RUNNING" in c.exec("squeue -h -o %T"), 60, "a running job")
        hdir = os.path.join(c.work, "health")
        os.mkdir(hdir)
        conf = os.path.join(c.work, "health.conf")
        with open(conf, "w") as f:
            f.write("storage_free path=/tmp min_free=1M\nstorage_latency path=/tmp max=5s\nfabric_ib\n"
                    f"fabric_tcp target=127.0.0.1:{c.env['SLURM24_CTLD_PORT']} max=2s\n")
        for node in ("node1", "node2"):
            r = subprocess.run([s24.HEALTH, "run", "--config", conf, "--node", node, "--results-dir", hdir,
                                "--no-react"], capture_output=True, text=True)
            assert r.returncode == 0, r.stdout + r.stderr
        port_file = os.path.join(c.work, "exporter.port")
        exp = subprocess.Popen([s24.EXPORTER, "--url", c.url, "--user", "root", "--token-file", c.token_file,
                                "--listen", "127.0.0.1:0", "--port-file", port_file, "--health-dir", hdir],
                               stderr=open(os.path.join(c.work, "exporter.log"), "w"))
        procs.append(exp)
        port = int(s24.wait_for(lambda: open(port_file).read().strip(), 20, "the exporter's port"))
        prom_port = s24.free_port()
        pconf = os.path.join(c.work, "prometheus.yml")
        with open(pconf, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: slinky\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{port}']\n")
        prom = subprocess.Popen(["/usr/bin/prometheus", f"--config.file={pconf}",
                                 f"--storage.tsdb.path={c.work}/tsdb", f"--web.listen-address=127.0.0.1:{prom_port}",
                                 "--log.level=warn"], stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(c.work, "prometheus.log"), "w"))
        procs.append(prom)
        base = f"http://127.0.0.1:{prom_port}"
        s24.wait_for(lambda: s24.http_get(base + "/-/ready"), 60, "prometheus ready")
        yield {"cluster": c, "exporter": f"http://127.0.0.1:{port}", "prom": base, "health_dir": hdir}
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        c.down()


def two_scrapes(prom):
    """wait until Prometheus holds two scrapes of the exporter"""
    def done():
        r = s24.prom_query(prom, "max_over_time(slinky_exporter_scrapes_total[1m]) - min_over_time(slinky_exporter_scrapes_total[1m])")
        return r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) >= 1
    s24.wait_for(done, 60, "two scrapes")


def values(prom, expr):
    r = s24.prom_query(prom, expr)
    assert r["status"] == "success", (expr, r)
    return {json.dumps(x["metric"], sort_keys=True): float(x["value"][1]) for x in r["data"]["result"]}


def test_node_and_job_series(env):
    prom, c = env["prom"], env["cluster"]
    two_scrapes(prom)
    assert values(prom, 'up{job="slinky"}') == {json.dumps({"__name__": "up", "instance": env["exporter"][7:], "job": "slinky"}, sort_keys=True): 1.0}
    cpus = int(re.search(r"CPUTot=(\d+)", c.exec("scontrol show node node1")).group(1))
    v = values(prom, 'slinky_node_cpus{node="node1"}')
    assert list(v.values()) == [cpus]
    assert sum(values(prom, "slinky_nodes").values()) == 2
    alloc = values(prom, 'slinky_node_cpus_allocated{node="node1"}')
    assert list(alloc.values())[0] >= 1
    info = values(prom, 'slinky_node_info{node="node1"}')
    assert any('"state": "mixed' in k or '"state": "allocated' in k for k in info), info
    assert list(values(prom, 'slinky_jobs{partition="debug",state="running"}').values()) == [1]
    assert list(values(prom, 'slinky_jobs{partition="debug",state="pending"}').values()) == [1]
    assert list(values(prom, 'slinky_user_jobs{user="root",state="running"}').values()) == [1]
    assert list(values(prom, "slinky_scheduler_jobs_submitted_total").values())[0] >= 2
    assert list(values(prom, "slinky_slurm_up").values()) == [1]
    assert list(values(prom, 'slinky_partition_cpus{partition="debug"}').values()) == [2 * cpus]
    ok = values(prom, 'slinky_health_check_ok{node="node2",check="storage_free:/tmp"}')
    assert list(ok.values()) == [1]
    assert values(prom, 'slinky_health_check_result{check="fabric_ib",result="skip"}')


def test_promtool_check_metrics_clean(env):
    body = s24.http_get(env["exporter"] + "/metrics")
    assert "# HELP slinky_node_cpus " in body and "# TYPE slinky_jobs gauge" in body
    r = subprocess.run(["/usr/bin/promtool", "check", "metrics"], input=body, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "" and r.stderr.strip() == "", r.stdout + r.stderr
    # counters end in _total, every family has HELP and TYPE, names carry the prefix
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", body, re.M))
    helps = set(re.findall(r"^# HELP (\S+) ", body, re.M))
    assert set(types) == helps
    for name, t in types.items():
        assert name.startswith("slinky_"), name
        assert (t == "counter") == name.endswith("_total"), name


def dashboard_exprs():
    out = []
    for path in sorted(glob.glob(os.path.join(s24.SRC, "dashboards", "*.json"))):
        d = json.load(open(path))
        for p in d["panels"]:
            for t in p.get("targets", []):
                out.append((os.path.basename(path), p["title"], t["expr"]))
    return out


def test_dashboards_evaluate_with_data(env):
    prom = env["prom"]
    two_scrapes(prom)
    exprs = dashboard_exprs()
    assert len(exprs) >= 30
    files = {f for f, _, _ in exprs}
    assert files == {"slinky-cluster-overview.json", "slinky-nodes.json", "slinky-jobs-partitions.json",
                     "slinky-health.json"}
    body = s24.http_get(env["exporter"] + "/metrics")
    emitted = set(re.findall(r"^# TYPE (\S+) ", body, re.M)) | {"up"}
    bad = []
    for f, title, e in exprs:
        for name in re.findall(r"\b(slinky_[a-z0-9_]+)", e):
            if name not in emitted:
                bad.append(f"{f}: {title}: {name} is not emitted")
        q = e.replace("$node", ".+").replace("$partition", ".+")
        r = s24.prom_query(prom, q)
        if r.get("status") != "success":
            bad.append(f"{f}: {title}: {e}: {r.get('error')}")
        elif not r["data"]["result"]:
            bad.append(f"{f}: {title}: {e}: no data")
    # template variables resolve too
    for path in glob.glob(os.path.join(s24.SRC, "dashboards", "*.json")):
        for v in json.load(open(path))["templating"]["list"]:
            if v["type"] == "query":
                metric = re.search(r"label_values\((\w+), (\w+)\)", v["query"]["query"])
                if not values(prom, metric.group(1)):
                    bad.append(f"{path}: variable {v['name']}: no {metric.group(1)}")
    assert not bad, "\n".join(bad)


def test_max_users_folds_into_other(env):
    c = env["cluster"]
    r = subprocess.run([s24.EXPORTER, "--url", c.url, "--user", "root", "--token-file", c.token_file, "--once",
                        "--max-users", "0"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert 'slinky_user_jobs{user="other",state="running"} 1' in r.stdout
    assert 'user="root"' not in r.stdout
    assert "slinky_exporter_users_folded 1" in r.stdout


def test_unreachable_slurmrestd(env):
    c = env["cluster"]
    port = s24.free_port()
    t0 = time.time()
    r = subprocess.run([s24.EXPORTER, "--url", f"http://127.0.0.1:{port}", "--token-file", c.token_file, "--once",
                        "--timeout", "2000"], capture_output=True, text=True)
    assert time.time() - t0 < 10
    assert r.returncode == 1
    assert "slinky_slurm_up 0" in r.stdout
    assert 'slinky_exporter_scrape_errors_total{call="nodes"} 1' in r.stdout
    assert "slinky_node_cpus" not in r.stdout
    p = subprocess.run(["/usr/bin/promtool", "check", "metrics"], input=r.stdout, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_bad_flags():
    for args, msg in ((["--listen", "nowhere"], "--listen"), (["--max-users", "-1"], "--max-users"),
                      (["--bogus"], "usage")):
        r = subprocess.run([s24.EXPORTER] + args, capture_output=True, text=True)
        assert r.returncode == 2 and msg in r.stderr, (args, r.stderr)
