"""Check the objects libslinky's workload builders made for upstream's examples.

check_objects.py OURS.json KUBECTL.json
  OURS.json:    wl_render --json output (a v1 List)
  KUBECTL.json: the same objects after `kubectl create --dry-run=client -o json`

1. Round trip: kubectl gives back every object unchanged (apart from the
   `creationTimestamp: null` it adds), in the same order.
2. Structure: each kind's required fields (as the Kubernetes API requires them).
3. Hashes: the pod template annotations are crypto.CheckSumFromMap of what
   they cover (upstream internal/utils/crypto), recomputed with hashlib.
Exits non-zero with a message naming the object and field on the first failure.
"""
import base64
import hashlib
import json
import sys


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def strip(o):
    o = json.loads(json.dumps(o))
    md = o.get("metadata", {})
    if md.get("creationTimestamp", "x") is None:
        del md["creationTimestamp"]
    for t in (o.get("spec", {}).get("template", {}), ):
        tm = t.get("metadata", {})
        if tm.get("creationTimestamp", "x") is None:
            del tm["creationTimestamp"]
    for vct in o.get("spec", {}).get("volumeClaimTemplates", []) or []:
        if vct.get("metadata", {}).get("creationTimestamp", "x") is None:
            del vct["metadata"]["creationTimestamp"]
    if o.get("status") == {}:
        del o["status"]
    return o


def need(obj, path, kind=None):
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            fail("%s %s: missing %s" % (obj["kind"], obj["metadata"].get("name"), path))
        cur = cur[part]
    if kind is not None and not isinstance(cur, kind):
        fail("%s %s: %s is not %s" % (obj["kind"], obj["metadata"].get("name"), path, kind.__name__))
    return cur


def check_pod_spec(obj, spec, where):
    cs = spec.get("containers")
    if not isinstance(cs, list) or not cs:
        fail("%s: %s.containers is empty" % (obj["metadata"].get("name"), where))
    vols = {v["name"] for v in spec.get("volumes", [])}
    for c in cs + spec.get("initContainers", []):
        if not c.get("name") or not c.get("image"):
            fail("%s: %s container without name or image: %s" % (obj["metadata"].get("name"), where, c))
        for m in c.get("volumeMounts", []):
            if m["name"] not in vols and not any(
                    t["metadata"]["name"] == m["name"]
                    for t in obj.get("spec", {}).get("volumeClaimTemplates", [])):
                fail("%s: mount %s has no volume" % (obj["metadata"].get("name"), m["name"]))
    names = [v["name"] for v in spec.get("volumes", [])]
    if len(names) != len(set(names)):
        fail("%s: duplicate volume names %s" % (obj["metadata"].get("name"), names))


def check_selector(obj, sel, labels):
    for k, v in sel.items():
        if labels.get(k) != v:
            fail("%s %s: template labels do not match selector %s=%s"
                 % (obj["kind"], obj["metadata"]["name"], k, v))


def checksum_map(values):
    data = b"".join(values[k] for k in sorted(values))
    return hashlib.sha256(data).hexdigest() if data else ""


def main():
    ours = json.load(open(sys.argv[1]))["items"]
    text, theirs, dec, i = open(sys.argv[2]).read(), [], json.JSONDecoder(), 0
    while True:  # kubectl prints one JSON object per input object
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        obj, i = dec.raw_decode(text, i)
        theirs.extend(obj["items"] if obj.get("kind") == "List" else [obj])
    if len(ours) != len(theirs):
        fail("kubectl gave %d objects for %d" % (len(theirs), len(ours)))
    for a, b in zip(ours, theirs):
        if a != strip(b):
            fail("round trip changed %s %s:\n ours %s\n kubectl %s"
                 % (a["kind"], a["metadata"].get("name"), json.dumps(a, sort_keys=True),
                    json.dumps(strip(b), sort_keys=True)))
    by = {}
    secrets = {}
    for o in ours:
        need(o, "apiVersion", str)
        need(o, "kind", str)
        need(o, "metadata.namespace", str)
        if not o["metadata"].get("name") and not o["metadata"].get("generateName"):
            fail("%s without name or generateName" % o["kind"])
        by[(o["kind"], o["metadata"].get("name"))] = o
        k = o["kind"]
        if k == "Service":
            for p in need(o, "spec.ports", list):
                if not isinstance(p.get("port"), int) or not p.get("name"):
                    fail("Service %s: bad port %s" % (o["metadata"]["name"], p))
            need(o, "spec.selector", dict)
        elif k in ("StatefulSet", "Deployment"):
            sel = need(o, "spec.selector.matchLabels", dict)
            check_selector(o, sel, need(o, "spec.template.metadata.labels", dict))
            check_pod_spec(o, need(o, "spec.template.spec", dict), "spec.template.spec")
            if k == "StatefulSet":
                need(o, "spec.serviceName", str)
            refs = need(o, "metadata.ownerReferences", list)
            if not refs or not refs[0].get("controller") or not refs[0].get("uid"):
                fail("%s: no controller ownerReference" % o["metadata"]["name"])
        elif k == "Pod":
            check_pod_spec(o, need(o, "spec", dict), "spec")
            need(o, "metadata.ownerReferences", list)
        elif k == "ConfigMap":
            need(o, "data", dict)
        elif k == "Secret":
            if "stringData" in o:
                secrets[o["metadata"]["name"]] = {
                    k2: v.encode() for k2, v in o["stringData"].items()}
            else:
                need(o, "data", dict)
        elif k == "PodDisruptionBudget":
            need(o, "spec.selector.matchLabels", dict)
        elif k == "ServiceMonitor":
            need(o, "spec.endpoints", list)
        else:
            fail("unexpected kind %s" % k)
    # hashes (controller_app.go getHashes, accounting_app.go getHashes)
    cm = by.get(("ConfigMap", "test-release-slurm-config"))
    sts = by.get(("StatefulSet", "test-release-slurm-controller"))
    if not cm or not sts:
        fail("no controller ConfigMap/StatefulSet built")
    ann = sts["spec"]["template"]["metadata"]["annotations"]
    want = checksum_map({k: v.encode() for k, v in cm["data"].items()})
    if ann.get("slinky.slurm.net/slurm-config-hash") != want:
        fail("slurm-config-hash %s, want %s" % (ann.get("slinky.slurm.net/slurm-config-hash"), want))
    if ann.get("slinky.slurm.net/slurm-key-hash") != checksum_map({"slurm.key": b"slurm-key"}):
        fail("slurm-key-hash")
    if ann.get("slinky.slurm.net/jwt-key-hash") != checksum_map({"jwt.key": base64.b64decode("and0LWtleQ==")}):
        fail("jwt-key-hash")
    acct = by.get(("StatefulSet", "test-release-slurm-accounting"))
    conf = secrets.get("test-release-slurm-accounting")
    if not acct or not conf:
        fail("no accounting StatefulSet/Secret built")
    got = acct["spec"]["template"]["metadata"]["annotations"]["slinky.slurm.net/slurmdbd-conf-hash"]
    if got != checksum_map(conf):
        fail("slurmdbd-conf-hash")
    if b"StoragePass=secret\n" not in conf["slurmdbd.conf"]:
        fail("StoragePass from the mariadb-password Secret is not in slurmdbd.conf")
    kinds = sorted({o["kind"] for o in ours})
    print("ok: %d objects (%s) round-trip through kubectl and pass the checks"
          % (len(ours), ", ".join(kinds)))


main()
