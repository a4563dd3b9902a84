#!/usr/bin/env bash
# run_exporter_bench.sh BUILD_DIR [ITERS]: slinky-exporter's scrape of a 1,000-node cluster.
#  1. a Slurm 24.11 cluster (tests/harness/slurm24.sh up restd) with 1,000 extra node records
#     b[0001-1000] (as bench/slurm does) and 200 held jobs;
#  2. the real slurmrestd's answers (openapi, ping, diag, nodes, partitions, jobs) are recorded
#     into a temp dir (never committed) and the cluster is stopped;
#  3. bench_exporter_replay (libmicrohttpd) serves the recorded bytes on loopback; slinky-exporter scrapes them ITERS times
#     (GET /metrics; the first, negotiating scrape is reported apart), its RSS is read from /proc,
#     and python3 fetches + json-decodes the same bytes (a lower bound for a Python exporter).
# Everything it starts is stopped on exit.
set -euo pipefail
B=${1:?usage: run_exporter_bench.sh BUILD_DIR [ITERS]}
N=${2:-30}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
H=$HERE/../../tests/harness
W=$(mktemp -d /tmp/bench-exporter.XXXXXX)
cleanup() { if [ -n "${SLURM24_DIR:-}" ]; then "$H/slurm24.sh" down >/dev/null 2>&1 || true; fi; rm -rf "$W"; }
trap cleanup EXIT
SLURM_CI_NODES=1 SLURM_CI_EXTRA_CONF='NodeName=b[0001-1000] NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN' \
  "$H/slurm24.sh" up restd > "$W/env" 2>"$W/up.log" || { cat "$W/up.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$W/env"
"$H/slurm24.sh" exec sh -c 'for i in $(seq 200); do sbatch -Q -H -t 5 --wrap true; done' >/dev/null
TOK=$("$H/slurm24.sh" exec scontrol token username=root lifespan=600 | sed 's/^SLURM_JWT=//')
hdr=(-H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOK")
mkdir -p "$W/rec"
for p in openapi/v3 slurm/v0.0.42/ping slurm/v0.0.42/diag slurm/v0.0.42/nodes slurm/v0.0.42/partitions \
         slurm/v0.0.42/jobs; do
  curl -sf "${hdr[@]}" -o "$W/rec/$(echo "$p" | tr / _).json" "$SLURM24_RESTD/$p"
done
"$H/slurm24.sh" down >/dev/null 2>&1; unset SLURM24_DIR
/usr/bin/python3 "$HERE/replay.py" "$W/rec" "$B/tools/slinky-exporter/slinky-exporter" "$N" "$B/bench/exporter/bench_exporter_replay"
