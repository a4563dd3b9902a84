#!/usr/bin/env bash
# operator-e2e.sh: the main job end to end, with real peers only:
# slinky-apiserver (TLS + token) driven by kubectl, real Slurm 22.05 with
# MariaDB + slurmdbd on loopback (tests/harness), and slinky-operator.
#
#  1. the operator renders slurm.conf from the demo Controller/NodeSet/Accounting,
#     validates it with the real slurmctld, writes the ConfigMap and restarts the
#     cluster onto it: the NodeSet's dynamic node goes idle, srun works
#  2. extraConf += AccountingStorageEnforce=...: classified restart-slurmctld,
#     applied by restart, scontrol show config shows it
#  3. extraConf MinJobAge change: classified reconfigure, applied live (same slurmctld pid)
#  4. extraConf with an unknown key: rejected before Slurm sees it, file unchanged,
#     condition ConfigApplied=False naming the line
#  5. the long-running operator picks up a change by itself and stops on SIGTERM
set -eu   # no pipefail: "cmd | grep -q" may SIGPIPE cmd
src=${SLINKY_SOURCE_DIR:?}; build=${SLINKY_BUILD_DIR:?}
H=$src/tests/harness
W=$(mktemp -d /tmp/op-e2e.XXXXXX); chmod 755 "$W"
export SLURM_CI_DIR=$W/slurm SLURM_CI_CLUSTER=demo
oppid= a=
cleanup() {
  [ -n "$a" ] && kill "$a" 2>/dev/null || true
  [ -n "${OP_E2E_KEEP:-}" ] && { echo "kept $W" >&2; return; }
  [ -n "$oppid" ] && kill "$oppid" 2>/dev/null || true
  "$H/slurm-ci.sh" down >/dev/null 2>&1 || true
  "$src/tests/apiserver/stop-apiserver.sh" "$W/api" >/dev/null 2>&1 || true
  rm -rf "$W"
}
trap cleanup EXIT
[ -n "${OP_E2E_DEBUG:-}" ] && set -x
fail() { echo "FAIL: $*" >&2; echo "--- operator log" >&2; cat "$W"/op*.log >&2 2>/dev/null || true; exit 1; }
pass() { echo "ok: $*"; }

"$src/tests/apiserver/start-apiserver.sh" "$W/api"
export KUBECONFIG=$W/api/kubeconfig
kc() { kubectl --cache-dir "$W/kc" "$@"; }
"$build/tools/slinkyctl/slinkyctl" crd > "$W/crds.yaml"
kc apply -f "$W/crds.yaml" >/dev/null
kc apply -f "$src/examples/data/demo-cluster.yaml" >/dev/null
"$src/tools/slinky-operator/demo-secrets.sh" slurm | kc apply -f - >/dev/null

mkdir -p "$SLURM_CI_DIR"
"$H/slurm-ci.sh" up dbd >"$W/slurm-env.sh" 2>"$W/slurm-up.log" || { cat "$W/slurm-up.log"; fail "slurm up"; }
. "$W/slurm-env.sh"
op() {
  ${OP_EXEC:-} "$build/tools/slinky-operator/slinky-operator" --slurm-dir "$SLURM_CI_DIR" --namespace slurm \
    --ctld-port "$SLURM_CI_CTLD_PORT" --slurmd-port $((SLURM_CI_PORT_BASE + 10)) \
    --dbd-port "$SLURM_CI_DBD_PORT" --munge-socket "$MUNGE_SOCKET" \
    --restart-command "$src/tools/slinky-operator/slurm-local.sh restart" "$@"
}
cond() { kc -n slurm get controller demo -o "jsonpath={.status.conditions[?(@.type==\"ConfigApplied\")].$1}"; }
ctld_pid() { cat "$SLURM_CI_DIR/run/slurmctld.pid"; }
patch_extra() { kc -n slurm patch controller demo --type merge -p "{\"spec\":{\"extraConf\":\"$1\"}}" >/dev/null; }

# 1. first reconcile: the operator takes over slurm.conf
op --once >"$W/op1.log" 2>&1 || fail "first reconcile"
grep -q '^NodeSet=demo-cpu Feature=demo-cpu' "$SLURM_CONF" || fail "rendered file lacks the NodeSet"
[ "$(sinfo -h -n demo-cpu-0 -o %t)" = idle ] || fail "node demo-cpu-0 not idle"
[ "$(cd /tmp && srun -p demo-cpu -N1 hostname)" = "$(hostname)" ] || fail "srun hostname"
kc -n slurm get configmap demo-config -o 'jsonpath={.data.slurm\.conf}' > "$W/cm.conf"
diff -q <(cat "$W/cm.conf"; echo) "$SLURM_CONF" >/dev/null || cmp -s "$W/cm.conf" "$SLURM_CONF" ||
  fail "ConfigMap demo-config differs from the installed slurm.conf"
[ "$(cond status)" = True ] || fail "condition after first apply: $(cond message)"
nss() { kc -n slurm get nodeset demo-cpu -o "jsonpath={.status.$1}"; }
[ "$(nss slurmIdle)/$(nss readyReplicas)/$(nss desired)" = "1/1/1" ] ||
  fail "NodeSet status: idle=$(nss slurmIdle) ready=$(nss readyReplicas) desired=$(nss desired)"
pass "first reconcile: rendered, validated, ConfigMap written, node idle, srun ok, NodeSet status"

# 2. the seed scenario, as an admin types it
sctl() { "$build/tools/slinkyctl/slinkyctl" "$@"; }
if sctl conf set -n slurm NoSuchKey=1 >"$W/set0.log" 2>&1; then fail "slinkyctl accepted an unknown key"; fi
grep -q "unknown slurm.conf key 'NoSuchKey'" "$W/set0.log" || fail "unknown key message: $(cat "$W/set0.log")"
sctl conf set -n slurm AccountingStorageEnforce=associations,limits,qos >"$W/set1.log" 2>&1 ||
  fail "slinkyctl conf set: $(cat "$W/set1.log")"
grep -q '^AccountingStorageEnforce: restart-slurmctld' "$W/set1.log" || fail "set output: $(cat "$W/set1.log")"
[ "$(sctl conf get -n slurm MinJobAge)" = "MinJobAge=2" ] || fail "other extraConf lines lost"
op --once >"$W/op2.log" 2>&1 || fail "reconcile 2"
grep -q 'restart-slurmctld *global AccountingStorageEnforce' "$W/op2.log" || fail "class of AccountingStorageEnforce"
[ "$(cond reason)" = RestartedSlurmctld ] || fail "reason $(cond reason)"
scontrol show config | grep -q "AccountingStorageEnforce *= associations,limits,qos" || fail "show config: $(scontrol show config 2>&1 | grep -i -e enforce -e error)"
pass "AccountingStorageEnforce via extraConf: restart-slurmctld, applied, shown by scontrol"

# 3. a live change keeps the same slurmctld
pid=$(ctld_pid)
patch_extra 'MinJobAge=5\nAccountingStorageEnforce=associations,limits,qos\n'
op --once >"$W/op3.log" 2>&1 || fail "reconcile 3"
[ "$(cond reason)" = Reconfigured ] || fail "reason $(cond reason), want Reconfigured"
[ "$(ctld_pid)" = "$pid" ] || fail "slurmctld was restarted for a reconfigure change"
scontrol show config | grep -q 'MinJobAge *= 5 sec' || fail "MinJobAge not applied"
pass "MinJobAge: reconfigure, same slurmctld pid, applied"

# 4. a broken extraConf never reaches Slurm
sum=$(sha256sum < "$SLURM_CONF")
patch_extra 'MinJobAge=5\nAccountingStorageEnforce=associations,limits,qos\nBogusKey=1\n'
if op --once >"$W/op4.log" 2>&1; then fail "unknown key accepted"; fi
[ "$(sha256sum < "$SLURM_CONF")" = "$sum" ] || fail "slurm.conf changed"
[ "$(cond status)" = False ] && [ "$(cond reason)" = InvalidConfig ] || fail "condition $(cond reason)"
cond message | grep -q 'BogusKey' || fail "message does not name the key"
scontrol ping | grep -q UP || fail "slurmctld down"
pass "unknown key rejected statically, old file and daemons untouched"

# 5. the long-running operator
patch_extra 'MinJobAge=5\nAccountingStorageEnforce=associations,limits,qos\n'
OP_EXEC=exec op >"$W/op5.log" 2>&1 & oppid=$!   # exec: $! is the operator itself
for _ in $(seq 150); do [ "$(cond status)" = True ] && break; sleep 0.2; done
[ "$(cond status)" = True ] || fail "watching operator did not recover"
patch_extra 'MinJobAge=7\nAccountingStorageEnforce=associations,limits,qos\n'
for _ in $(seq 150); do scontrol show config | grep -q 'MinJobAge *= 7 sec' && break; sleep 0.2; done
scontrol show config | grep -q 'MinJobAge *= 7 sec' || fail "watch-driven change not applied"
n=$(grep -c 'slurm.conf applied' "$W/op5.log")
sleep 2 # no reconcile storm from our own status writes
[ "$(grep -c 'slurm.conf applied' "$W/op5.log")" = "$n" ] || fail "reconcile loop"
kill -TERM "$oppid"; wait "$oppid" || fail "operator exit status $?"; oppid=
pass "watching operator applied a change on its own and stopped on SIGTERM"

# 6. two replicas with leader election: one works; when it dies the other takes over
holder() { kc -n slurm get lease slinky-operator -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
OP_EXEC=exec op --leader-elect --lease-duration 5 >"$W/op6a.log" 2>&1 & a=$!
for _ in $(seq 100); do case "$(holder)" in *_$a) break ;; esac; sleep 0.1; done
case "$(holder)" in *_$a) ;; *) fail "first replica did not take the lease: '$(holder)'" ;; esac
OP_EXEC=exec op --leader-elect --lease-duration 5 >"$W/op6b.log" 2>&1 & oppid=$!
sleep 2
grep -q 'leading; starting the workers' "$W/op6a.log" || fail "replica A not leading"
grep -q 'leading; starting the workers' "$W/op6b.log" && fail "two leaders at once"
kill -KILL "$a"; wait "$a" 2>/dev/null || true; a=   # a crash: the lease is not released
patch_extra 'MinJobAge=9\nAccountingStorageEnforce=associations,limits,qos\n'
for _ in $(seq 150); do scontrol show config | grep -q 'MinJobAge *= 9 sec' && break; sleep 0.2; done
scontrol show config | grep -q 'MinJobAge *= 9 sec' || fail "the standby replica did not take over"
case "$(holder)" in *_$oppid) ;; *) fail "lease holder '$(holder)' is not replica B" ;; esac
kill -TERM "$oppid"; wait "$oppid" || fail "replica B exit status $?"; oppid=
pass "leader election: one active replica, the standby took over after the leader was killed"

# 7. the Python scripter's view of the same cluster (examples/python/cluster_report.py)
if [ -d "$build/bindings/python/slinky" ]; then
  PYTHONPATH=$build/bindings/python /usr/bin/python3 "$src/examples/python/cluster_report.py" \
    -n slurm >"$W/report.txt" 2>&1 || fail "cluster_report.py: $(cat "$W/report.txt")"
  grep -q '^Controller slurm/demo: valid' "$W/report.txt" &&
    grep -q 'ConfigApplied=True' "$W/report.txt" &&
    grep -q 'ClusterName=demo' "$W/report.txt" &&
    grep -q 'NodeSet demo-cpu: desired=1 ready=1 idle=1' "$W/report.txt" ||
    fail "report: $(cat "$W/report.txt")"
  patch_extra 'MinJobAge=9\nNoSuchKey=1\n'
  if PYTHONPATH=$build/bindings/python /usr/bin/python3 "$src/examples/python/cluster_report.py" \
      -n slurm >"$W/report2.txt" 2>&1; then fail "report accepted a bad extraConf"; fi
  grep -q "line 2:1: error: .*NoSuchKey" "$W/report2.txt" || fail "report2: $(cat "$W/report2.txt")"
  pass "examples/python/cluster_report.py reports the cluster and a bad extraConf line"
  echo "7 passed, 0 failed"
else
  echo "6 passed, 0 failed (Python bindings not built: report skipped)"
fi
