#!/usr/bin/env bash
# harness_check/parallel: two 22.05 clusters at once (2 nodes + gres on one), no port clash,
# each answers only with its own munge key, down of one leaves the other running; a failing
# up (bad SLURM_CI_EXTRA_CONF) exits 1 with slurmctld's fatal line and leaves nothing behind.
. "$(dirname "$0")/common.sh"
# A has a long path (> 108 bytes for a socket under it): sockets and spool must move to a short dir
AP=$(mktemp -d /tmp/hcpa.XXXXXX) B=$(mktemp -d /tmp/hcpb.XXXXXX) C=$(mktemp -d /tmp/hcpc.XXXXXX)
A=$AP/$(printf 'long%.0s' $(seq 1 20))/cluster
mkdir -p "$A"
trap 'for d in "$A" "$B" "$C"; do SLURM_CI_DIR=$d "$H/slurm-ci.sh" down >/dev/null 2>&1 || true; done; rm -rf "$AP" "$B" "$C" "$B.env" "$B.err" "$C.env"' EXIT
cd /tmp

t=$(now)
SLURM_CI_DIR=$A SLURM_CI_NODES=2 "$H/slurm-ci.sh" up > "$A.env" 2> "$A.err" & pa=$!
SLURM_CI_DIR=$B SLURM_CI_NODE_EXTRA="Gres=gpu:2" SLURM_CI_GRES_CONF='Name=gpu File=@DIR@/dev/gpu[0-1]' \
  SLURM_CI_EXTRA_CONF="KillWait=41" "$H/slurm-ci.sh" up > "$B.env" 2> "$B.err" & pb=$!
wait $pa || { cat "$A.err" >&2; fail "up A"; }
wait $pb || { cat "$B.err" >&2; fail "up B"; }
echo "# two clusters up in parallel: $(elapsed "$t") s"
rm -f "$A.err" "$B.err"
pA=$(. "$A.env"; echo "$SLURM_CI_PORT_BASE") pB=$(. "$B.env"; echo "$SLURM_CI_PORT_BASE")
[ $((pA > pB ? pA - pB : pB - pA)) -ge 32 ] || fail "port blocks overlap: $pA $pB"
ok "distinct port blocks ($pA, $pB)"

(
  eval "$(cat "$A.env")"
  expect_eq "A: both nodes run a step" "$(srun -N2 -t 1 printenv SLURMD_NODENAME | sort | paste -sd,)" "node1,node2"
  expect_match "A: default KillWait" "$(scontrol show config)" "KillWait += 30 sec"
  expect_match "A: long dir: sockets in a short dir" "$MUNGE_SOCKET" "^/tmp/hxs\.[A-Za-z0-9]+/munge\.socket$"
  expect_match "A: plugstack.conf is the cluster's own" "$(scontrol show config)" "PlugStackConfig += $SLURM_CI_DIR/etc/plugstack.conf"
)
(
  eval "$(cat "$B.env")"
  expect_eq "B: gres gpu:2 allocatable" "$(srun -t 1 --gres=gpu:2 printenv CUDA_VISIBLE_DEVICES)" "0,1"
  if srun -t 1 --gres=gpu:3 true 2>/dev/null; then fail "B: gpu:3 was granted on a 2-gpu node"; fi
  ok "B: gpu:3 refused"
  expect_match "B: SLURM_CI_EXTRA_CONF applied" "$(scontrol show config)" "KillWait += 41 sec"
  # A's clients must not be able to talk to B: different munge keys
  if SLURM_CONF=$B/etc/slurm.conf munge -S "$A/s/munge.socket" -n | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; then
    fail "B's munged accepted a credential from A's munged (same key?)"
  fi
  ok "each cluster has its own munge key"
)

mapfile -t pidsA < <(pids_of "$A")
SLURM_CI_DIR=$A "$H/slurm-ci.sh" down 2>/dev/null || fail "down A"
expect_stopped "down A stopped A's daemons" "${pidsA[@]}"
expect_eq "B still runs jobs after A is down" "$(SLURM_CONF=$B/etc/slurm.conf srun -t 1 hostname)" "$(hostname)"
mapfile -t pidsB < <(pids_of "$B")
SLURM_CI_DIR=$B "$H/slurm-ci.sh" down 2>/dev/null || fail "down B"
expect_stopped "down B stopped B's daemons" "${pidsB[@]}"

# output through a pipe: `up | cat` must see EOF when up returns (daemons hold no caller fd)
set +e
SLURM_CI_DIR=$C timeout 30 bash -c '"$1/slurm-ci.sh" up 2>&1 | cat > /dev/null' _ "$H"; rc=$?
set -e
expect_eq "up | cat returns (no daemon holds the pipe)" "$rc" 0
SLURM_CI_DIR=$C "$H/slurm-ci.sh" down 2>/dev/null || fail "down C"

# a failing up: duplicate partition is fatal in slurmctld after it daemonized
set +e
err=$(SLURM_CI_DIR=$C SLURM_CI_EXTRA_CONF="PartitionName=debug Nodes=ALL" "$H/slurm-ci.sh" up 2>&1 >/dev/null); rc=$?
set -e
expect_eq "up with a bad extra line fails" "$rc" 1
expect_match "the failure shows slurmctld's fatal line" "$err" "duplicate entry for partition debug"
[ -z "$(pids_of "$C")" ] || fail "failed up left pid files: $(ls "$C/run")"
ok "failed up left no daemons"
done_checks
