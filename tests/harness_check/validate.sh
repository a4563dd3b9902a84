#!/usr/bin/env bash
# harness_check/validate: slurm-validate.sh accepts a good file, rejects bad ones with
# slurmctld's own message (both stages), and runs in parallel.
. "$(dirname "$0")/common.sh"
W=$(mktemp -d /tmp/hcv.XXXXXX); trap 'rm -rf "$W"' EXIT
mkdir -p "$W/good" "$W/key" "$W/plugin" "$W/dup" "$W/node" "$W/jwt"
# a file rendered Slinky-style: MaxNodeCount, NodeSet by feature, auth/jwt, slurmdbd accounting
cat > "$W/good/slurm.conf" <<EOC
ClusterName=hcv
SlurmctldHost=ctld-0(ctld-0.example.invalid)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=/etc/slurm/jwt_hs256.key
SlurmUser=slurm
StateSaveLocation=/var/spool/slurmctld
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MaxNodeCount=64
SlurmctldParameters=enable_configless
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=slurmdbd.invalid
JobAcctGatherType=jobacct_gather/linux
NodeName=n1 NodeAddr=127.0.0.1 CPUs=2 RealMemory=900 Features=cpu State=UNKNOWN
NodeSet=cpu Feature=cpu
PartitionName=cpu Nodes=cpu Default=YES MaxTime=INFINITE State=UP
EOC
(cat "$W/good/slurm.conf"; echo "FooBar=1") > "$W/key/slurm.conf"
(cat "$W/good/slurm.conf"; echo "SchedulerType=sched/bogus") > "$W/plugin/slurm.conf"
(cat "$W/good/slurm.conf"; echo "PartitionName=cpu Nodes=n1") > "$W/dup/slurm.conf"
(cat "$W/good/slurm.conf"; echo "PartitionName=p2 Nodes=nosuchnode") > "$W/node/slurm.conf"

check() {  # check NAME WANT_RC REGEX
  local out rc t; t=$(now)
  set +e; out=$("$H/slurm-validate.sh" "$W/$1/slurm.conf" 2>&1); rc=$?; set -e
  echo "# validate $1: rc $rc in $(elapsed "$t") s"
  expect_eq "$1: exit status" "$rc" "$2"
  expect_match "$1: message" "$out" "$3"
}
check good   0 "^ACCEPTED$"
check key    1 "REJECTED \(parse\)|unrecognized key: FooBar"
check key    1 "unrecognized key: FooBar"
check plugin 1 "REJECTED \(slurmctld\)"
check plugin 1 "sched/bogus"
check dup    1 "duplicate entry for partition cpu"
check node   1 "Invalid node names in partition p2|nosuchnode"

# parallel: 4 good + 2 bad at once, each must get its own answer
t=$(now); pids=()
for i in 1 2 3 4; do "$H/slurm-validate.sh" "$W/good/slurm.conf" > "$W/p$i.out" 2>&1 & pids+=($!); done
"$H/slurm-validate.sh" "$W/dup/slurm.conf" > "$W/p5.out" 2>&1 & pids+=($!)
"$H/slurm-validate.sh" "$W/plugin/slurm.conf" > "$W/p6.out" 2>&1 & pids+=($!)
rcs=""; for p in "${pids[@]}"; do set +e; wait "$p"; rcs+="$? "; set -e; done
echo "# 6 parallel validations: $(elapsed "$t") s"
expect_eq "parallel exit statuses" "$rcs" "0 0 0 0 1 1 "
for i in 1 2 3 4; do expect_eq "parallel $i accepted" "$(head -1 "$W/p$i.out")" "ACCEPTED"; done
expect_match "parallel dup rejected" "$(cat "$W/p5.out")" "duplicate entry"
expect_match "parallel plugin rejected" "$(cat "$W/p6.out")" "sched/bogus"
leak=$(ps -eo pid,args | grep -E 'slurmctld -D -f /tmp/sv\.' | grep -v grep || true)
[ -z "$leak" ] || { sleep 2; leak=$(ps -eo pid,args | grep -E 'slurmctld -D -f /tmp/sv\.' | grep -v grep || true); }
[ -z "$leak" ] || fail "validation slurmctld left running: $leak"
ok "no slurmctld left behind"
done_checks
