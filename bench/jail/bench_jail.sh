#!/usr/bin/env bash
# bench/jail: time to enter the jail and run /bin/true, one spec, three runners, same run:
# the in-process applier (slinky-jail run), bwrap (rendered argv, run as the job user),
# crun (rendered bundle, --cgroup-manager=disabled in a private mount namespace).
# Usage: bench_jail.sh SLINKY_JAIL_BINARY [ITERATIONS]   (root)
set -euo pipefail
J=${1:?slinky-jail binary}; N=${2:-100}
W=$(mktemp -d /tmp/jailbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
U=alice
. "$(dirname "$0")/../../tests/jail/lib.sh"
jail_test_root "$W" "$U"
jail_test_spec "$W" "$W/jail.yaml" "namespaces: {pid: true, ipc: true, uts: true}
process: {user: job, noNewPrivileges: true, capabilities: []}"
O=(--spec "$W/jail.yaml" --job 1 --user "$U")
"$J" setup "${O[@]}"
"$J" render oci "${O[@]}" --bundle "$W/bundle" -- /bin/true >/dev/null
g=$(id -g "$U")
export J U g N W
# One private mount namespace with cgroup2 mounted (crun needs it); the three runners are
# interleaved round by round, each timed with $EPOCHREALTIME; the median is reported (the
# machine is shared: medians resist the noise of other work).
unshare -m bash -c '
  set -e
  mount --make-rprivate / && mount -t cgroup2 none /sys/fs/cgroup
  mapfile -d "" args < <("$J" render bwrap --nul --spec "$W/jail.yaml" --job 1 --user "$U" -- /bin/true)
  us() { local s=${EPOCHREALTIME/./}; "$@"; local e=${EPOCHREALTIME/./}; echo $((e - s)); }
  # warm up (page cache) and fail early if a runner does not work
  "$J" run --keep --spec "$W/jail.yaml" --job 1 --user "$U" -- /bin/true
  setpriv --reuid="$U" --regid="$g" --init-groups bwrap "${args[@]}"
  crun --cgroup-manager=disabled run -b "$W/bundle" warm-$$
  for ((i = 0; i < N; i++)); do
    us "$J" run --keep --spec "$W/jail.yaml" --job 1 --user "$U" -- /bin/true >> "$W/t.applier"
    us setpriv --reuid="$U" --regid="$g" --init-groups bwrap "${args[@]}" >> "$W/t.bwrap"
    us crun --cgroup-manager=disabled run -b "$W/bundle" b-$$-$i >> "$W/t.crun"
  done'
"$J" cleanup --spec "$W/jail.yaml" --job 1
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
applier=$(median "$W/t.applier"); bwrap=$(median "$W/t.bwrap"); crun_ns=$(median "$W/t.crun")
# without setpriv, for reference: what launching a process costs here
t0=${EPOCHREALTIME/./}; for ((i = 0; i < N; i++)); do /bin/true; done; t1=${EPOCHREALTIME/./}
base=$(( (t1 - t0) / N ))

ms() { awk -v n="$1" 'BEGIN { printf "%.2f ms", n / 1e3 }'; }
echo "jail enter + /bin/true, $N runs each, interleaved (median wall time per run):"
echo "  applier (slinky-jail run):  $(ms "$applier")"
echo "  bwrap (rendered argv):      $(ms "$bwrap")"
echo "  crun (rendered bundle):     $(ms "$crun_ns")"
echo "  (plain fork+exec of /bin/true from bash: $(ms "$base"))"
awk -v a="$applier" -v b="$bwrap" -v c="$crun_ns" 'BEGIN {
  printf "  ratio applier/bwrap = %.2f (target <= 1.0)\n", a / b
  printf "  ratio crun/applier  = %.2f (applier %.1fx faster than crun)\n", c / a, c / a }'
awk -v a="$applier" -v b="$bwrap" 'BEGIN {
  printf "BENCH measure=jail.enter ours=%.2fms peer=bwrap:%.2fms ratio=%.2f target=ratio<=0.5\n",
    a / 1e3, b / 1e3, a / b }'
