#!/usr/bin/env bash
# tools/run-main.sh [--keep]: set up and run the main job on the embedded defaults.
#
#  1. installs missing Debian packages, builds the tools (_build/main)
#  2. starts slinky-apiserver on 127.0.0.1 (TLS, token; state in $W/api-data),
#     registers the Slinky CRDs (slinkyctl crd | kubectl apply) and creates the
#     demo cluster: Controller, NodeSet, Accounting and their key Secrets
#  3. starts real Slurm 22.05 on loopback: munged, MariaDB, slurmdbd, slurmctld, slurmd
#  4. runs slinky-operator: it renders slurm.conf from the resources, validates it
#     with the real slurmctld, writes the ConfigMap and moves the cluster onto it
#  5. the admin's edit: `slinkyctl conf set AccountingStorageEnforce=...`; the
#     operator classifies it (restart-slurmctld), applies it, scontrol shows it
#  6. stops everything, or with --keep leaves it running and says how to use it
#
# Env: SLINKY_MAIN_DIR (default /tmp/slinky-main), JOBS.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[ "${1:-}" = --keep ] && keep=1
W=${SLINKY_MAIN_DIR:-/tmp/slinky-main}
B=$src/_build/main
mkdir -p "$src/_build"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "dependencies and build"
"$src/tools/deps.sh"
cmake -S "$src" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLINKY_BUILD_TESTS=OFF \
  -DSLINKY_BUILD_PYTHON=OFF -DSLINKY_BUILD_BENCH=OFF >"$B.configure.log" 2>&1 || { cat "$B.configure.log"; exit 1; }
cmake --build "$B" -j"${JOBS:-$(nproc)}" --target slinky-apiserver slinkyctl slinky-operator \
  >"$B.build.log" 2>&1 || { grep -E 'error' "$B.build.log" | head -20; exit 1; }
export SLINKY_BUILD_DIR=$B PATH=$B/tools/slinkyctl:$B/tools/slinky-operator:$PATH

# a fresh run folder (stop what a previous run left)
if [ -d "$W" ]; then
  SLURM_CI_DIR=$W/slurm "$src/tests/harness/slurm-ci.sh" down >/dev/null 2>&1 || true
  "$src/tests/apiserver/stop-apiserver.sh" "$W/api" >/dev/null 2>&1 || true
  [ -s "$W/operator.pid" ] && kill "$(cat "$W/operator.pid")" 2>/dev/null || true
  rm -rf "$W"
fi
mkdir -p "$W" && chmod 755 "$W"
oppid=
cleanup() {
  [ -n "$oppid" ] && kill "$oppid" 2>/dev/null && wait "$oppid" 2>/dev/null || true
  SLURM_CI_DIR=$W/slurm "$src/tests/harness/slurm-ci.sh" down >/dev/null 2>&1 || true
  "$src/tests/apiserver/stop-apiserver.sh" "$W/api" >/dev/null 2>&1 || true
}

step "local Kubernetes API server"
data_flag=()
"$B/apiserver/slinky-apiserver" --help 2>&1 | grep -q -- --data-dir && data_flag=(--data-dir "$W/api-data")
"$src/tests/apiserver/start-apiserver.sh" "$W/api" "${data_flag[@]}"
trap cleanup EXIT
export KUBECONFIG=$W/api/kubeconfig
kc() { kubectl --cache-dir "$W/kube-cache" "$@"; }
echo "server $(kc config view -o jsonpath='{.clusters[0].cluster.server}'), kubeconfig $KUBECONFIG"
slinkyctl crd | kc apply -f -
kc apply -f "$src/examples/data/demo-cluster.yaml"
"$src/tools/slinky-operator/demo-secrets.sh" slurm | kc apply -f -

step "real Slurm on loopback (munged, MariaDB, slurmdbd, slurmctld, slurmd)"
mkdir -p "$W/slurm"
SLURM_CI_DIR=$W/slurm SLURM_CI_CLUSTER=demo "$src/tests/harness/slurm-ci.sh" up dbd >"$W/slurm-env.sh"
. "$W/slurm-env.sh"

step "slinky-operator"
slinky-operator --slurm-dir "$SLURM_CI_DIR" --namespace slurm \
  --ctld-port "$SLURM_CI_CTLD_PORT" --slurmd-port $((SLURM_CI_PORT_BASE + 10)) \
  --dbd-port "$SLURM_CI_DBD_PORT" --munge-socket "$MUNGE_SOCKET" \
  --restart-command "$src/tools/slinky-operator/slurm-local.sh restart" >"$W/operator.log" 2>&1 &
oppid=$!; echo $oppid > "$W/operator.pid"
cond() { kc -n slurm get controller demo -o "jsonpath={.status.conditions[?(@.type==\"ConfigApplied\")].$1}"; }
for _ in $(seq 300); do [ "$(cond status)" = True ] && break; sleep 0.2; done
[ "$(cond status)" = True ] || { cat "$W/operator.log"; echo "the operator did not apply the config" >&2; exit 1; }
echo "operator: $(cond reason)"
kc -n slurm get controllers,nodesets,configmaps
sinfo
echo "srun -p demo-cpu hostname: $(cd /tmp && srun -p demo-cpu hostname)"

step "admin: slinkyctl conf set AccountingStorageEnforce=associations,limits,qos"
slinkyctl conf set -n slurm AccountingStorageEnforce=associations,limits,qos
for _ in $(seq 300); do
  scontrol show config 2>/dev/null | grep -q 'AccountingStorageEnforce *= associations,limits,qos' && break
  sleep 0.2
done
scontrol show config | grep AccountingStorageEnforce
echo "operator: $(cond reason) -- $(cond message | head -3 | tr '\n' ' ')"
echo "srun -p demo-cpu hostname: $(cd /tmp && srun -p demo-cpu hostname)"

if [ $keep -eq 1 ]; then
  trap - EXIT
  step "running; to use it:"
  cat <<EOF2
  export KUBECONFIG=$KUBECONFIG; . $W/slurm-env.sh
  kubectl --cache-dir $W/kube-cache -n slurm get controllers,nodesets
  slinkyctl conf set -n slurm MinJobAge=5      # watch $W/operator.log
  srun -p demo-cpu hostname
  stop: $0 again, or kill $oppid; SLURM_CI_DIR=$W/slurm $src/tests/harness/slurm-ci.sh down;
        $src/tests/apiserver/stop-apiserver.sh $W/api
EOF2
else
  step "stopping (run with --keep to leave it running)"
fi
echo "main job done"
