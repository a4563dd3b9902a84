#!/usr/bin/env bash
# run_health_bench.sh BUILD_DIR [ITERS]: one full slinky-health pass on one node, as
# HealthCheckProgram would run it: every built-in check kind (node checks against what slurmd
# registered, storage on /tmp, fabric_ib, TCP to slurmctld), the node read and the reaction
# through a real Slurm 24.11 slurmrestd (tests/harness/slurm24.sh up restd). Prints the median
# and max wall time of ITERS passes (whole process: start, config, client, checks, reaction),
# beside the same pass with no slurmrestd. Target: < 1 s. Everything started is stopped on exit.
set -euo pipefail
B=${1:?usage: run_health_bench.sh BUILD_DIR [ITERS]}
N=${2:-20}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
H=$HERE/../../tests/harness
HB=$B/tools/slinky-health/slinky-health
W=$(mktemp -d /tmp/bench-health.XXXXXX)
cleanup() { if [ -n "${SLURM24_DIR:-}" ]; then "$H/slurm24.sh" down >/dev/null 2>&1 || true; fi; rm -rf "$W"; }
trap cleanup EXIT
SLURM_CI_NODES=1 "$H/slurm24.sh" up restd > "$W/env" 2>"$W/up.log" || { cat "$W/up.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$W/env"
"$H/slurm24.sh" exec scontrol token username=root lifespan=600 > "$W/tok"
cat > "$W/health.conf" <<CONF
node_cpus
node_memory
node_gpus count=0
node_load max=50
storage_mounted path=/
storage_writable path=/tmp
storage_free path=/tmp min_free=100M warn_free=1G
storage_inodes path=/tmp min_free=1000
storage_latency path=/tmp max=500ms warn=100ms
fabric_ib
fabric_tcp target=127.0.0.1:$SLURM24_CTLD_PORT max=100ms
CONF
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mx() { sort -n | tail -1; }
ms() { local t0 t1; t0=${EPOCHREALTIME//[.,]/}; "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; t1=${EPOCHREALTIME//[.,]/}; echo $(( (t1 - t0) / 1000 )).$(( (t1 - t0) % 1000 / 100 )); }
"$HB" run --config "$W/health.conf" --node node1 --url "$SLURM24_RESTD" --user root --token-file "$W/tok"
for _ in $(seq "$N"); do ms "$HB" run --config "$W/health.conf" --node node1 --url "$SLURM24_RESTD" --user root --token-file "$W/tok"; done > "$W/t1"
for _ in $(seq "$N"); do ms env -u SLINKY_SLURM_URL "$HB" run --config "$W/health.conf" --node node1; done > "$W/t2"
echo "full pass with slurmrestd (11 checks + node read + reaction): median $(med < "$W/t1") ms, max $(mx < "$W/t1") ms over $N"
echo "same checks without slurmrestd (node checks skipped): median $(med < "$W/t2") ms, max $(mx < "$W/t2") ms"
awk '{ if ($1 >= 1000) bad = 1 } END { if (bad) { print "target: every pass < 1 s: NOT met"; exit 1 } print "target: every pass < 1 s: met" }' "$W/t1"
