#!/usr/bin/env bash
# run_nodes_bench.sh BUILD_DIR [ITERS]: list 1,000 nodes.
#  1. a Slurm 24.11 cluster (tests/harness/slurm24.sh up restd) with 1,000 extra node
#     records b[0001-1000] in slurm.conf (one real slurmd, node1; the others are known
#     to slurmctld and listed by slurmrestd like any node);
#  2. the real slurmrestd's answer to GET /slurm/v0.0.42/nodes and its /openapi/v3 are
#     recorded into a temp dir (never committed), and timed with curl, beside
#     `scontrol show nodes --json` on the same cluster;
#  3. bench_slurm_nodes replays the recorded bytes from a loopback server and times
#     the client (list + decode into typed nodes) beside curl of the same URL.
# Everything it starts is stopped on exit.
set -euo pipefail
B=${1:?usage: run_nodes_bench.sh BUILD_DIR [ITERS]}
N=${2:-30}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
H=$HERE/../../tests/harness
W=$(mktemp -d /tmp/bench-slurm.XXXXXX)
cleanup() { if [ -n "${SLURM24_DIR:-}" ]; then "$H/slurm24.sh" down >/dev/null 2>&1 || true; fi; rm -rf "$W"; }
trap cleanup EXIT
SLURM_CI_NODES=1 SLURM_CI_EXTRA_CONF='NodeName=b[0001-1000] NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN' \
  "$H/slurm24.sh" up restd > "$W/env" 2>"$W/up.log" || { cat "$W/up.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$W/env"
TOK=$("$H/slurm24.sh" exec scontrol token username=root lifespan=600 | sed 's/^SLURM_JWT=//')
hdr=(-H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOK")
curl -sf "${hdr[@]}" -o "$W/openapi.json" "$SLURM24_RESTD/openapi/v3"
curl -sf "${hdr[@]}" -o "$W/nodes.json" "$SLURM24_RESTD/slurm/v0.0.42/nodes"
count=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$W/nodes.json")
echo "slurmrestd 24.11: $count nodes, $(stat -c %s "$W/nodes.json") bytes"
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { local t0 t1; t0=${EPOCHREALTIME//[.,]/}; "$@" >/dev/null 2>&1; t1=${EPOCHREALTIME//[.,]/}; echo $(( (t1 - t0) / 1000 )).$(( (t1 - t0) % 1000 / 100 )); }
real_curl=$(for _ in $(seq "$N"); do ms curl -sf "${hdr[@]}" -o /dev/null "$SLURM24_RESTD/slurm/v0.0.42/nodes"; done | med)
scontrol=$(for _ in $(seq "$N"); do ms "$H/slurm24.sh" exec scontrol show nodes --json; done | med)
chroot_true=$(for _ in $(seq "$N"); do ms "$H/slurm24.sh" exec true; done | med)
echo "real slurmrestd: curl -s -o /dev/null ${real_curl} ms (slurmrestd builds the answer each time)"
echo "scontrol show nodes --json: ${scontrol} ms (incl. ${chroot_true} ms of entering the chroot)"
"$B/bench/slurm/bench_slurm_nodes" "$W" "$N"
