#!/usr/bin/env bash
# harness_check/slurm22: slurm-ci.sh up dbd; srun, sbatch --wait, sacctmgr, reconfigure; down.
. "$(dirname "$0")/common.sh"
export SLURM_CI_DIR; SLURM_CI_DIR=$(mktemp -d /tmp/hc22.XXXXXX)
trap '"$H/slurm-ci.sh" down >/dev/null 2>&1 || true; rm -rf "$SLURM_CI_DIR"' EXIT
cd /tmp

t=$(now)
out=$("$H/slurm-ci.sh" up dbd) || fail "slurm-ci.sh up dbd failed"
echo "# up dbd: $(elapsed "$t") s"
eval "$out"
expect_eq "up prints SLURM_CONF" "$SLURM_CONF" "$SLURM_CI_DIR/etc/slurm.conf"
expect_eq "env prints the same lines" "$("$H/slurm-ci.sh" env)" "$out"
[ -S "$MUNGE_SOCKET" ] || fail "no munge socket at $MUNGE_SOCKET"; ok "private munge socket"
expect_match "slurmctld answers on its port" "$(scontrol ping)" "UP"
expect_match "slurmctld listens on 127.0.0.1:$SLURM_CI_CTLD_PORT" "$(ss -ltnH)" "127\.0\.0\.1:$SLURM_CI_CTLD_PORT "
expect_match "config has the dbd port" "$(scontrol show config)" "AccountingStoragePort += $SLURM_CI_DBD_PORT"

# The first batch job after a start waits for slurmctld's first scheduler pass (~3 s) and
# sbatch --wait polls at 2 s then 10 s: submit one now, and use --wait once that one ran.
first=$(sbatch --parsable -t 1 -o /dev/null --wrap true) || fail "sbatch"
expect_eq "srun hostname" "$(srun -t 1 hostname)" "$(hostname)"

sacctmgr -i add account hcacct Description=hc Organization=hc >/dev/null || fail "sacctmgr add account"
expect_match "account is in the database" "$(sacctmgr -n -P show assoc format=cluster,account,user)" "^ci\|hcacct\|$"
sacctmgr -i add user name=root account=hcacct >/dev/null || fail "sacctmgr add user"
expect_eq "srun with the new account" "$(srun -t 1 -A hcacct printenv SLURM_JOB_ACCOUNT)" "hcacct"
if srun -t 1 -A nosuchacct true 2>/dev/null; then fail "a job with an unknown account ran (enforcement off?)"; fi
ok "unknown account rejected (AccountingStorageEnforce)"

echo "KillWait=47" >> "$SLURM_CONF"
scontrol reconfigure || fail "scontrol reconfigure"
expect_match "reconfigure applied KillWait" "$(scontrol show config)" "KillWait += 47 sec"
expect_eq "srun after reconfigure" "$(srun -t 1 hostname)" "$(hostname)"

end=$((SECONDS + 30))
while [ -n "$(squeue -h -j "$first" 2>/dev/null)" ]; do [ $SECONDS -lt $end ] || fail "job $first still queued after 30 s"; sleep 0.2; done
o=$SLURM_CI_DIR/job.out
t=$(now)
sbatch --wait -t 1 -o "$o" --wrap 'echo "job $SLURM_JOB_ID on $SLURMD_NODENAME"' >/dev/null || fail "sbatch --wait failed"
echo "# sbatch --wait: $(elapsed "$t") s"
expect_match "sbatch --wait ran the script" "$(cat "$o")" "^job [0-9]+ on node1$"
expect_match "sacct knows the job" "$(sacct -n -X -j "$first" -o state -P)" "COMPLETED"

mapfile -t pids < <(pids_of "$SLURM_CI_DIR")
expect_eq "five daemons have pid files" "${#pids[@]}" 5   # munged mysqld slurmdbd slurmctld slurmd-node1
t=$(now)
"$H/slurm-ci.sh" down 2>/dev/null || fail "down failed"
echo "# down: $(elapsed "$t") s"
expect_stopped "down stopped every daemon" "${pids[@]}"
[ ! -d "/tmp/slurm-ci-ports/$SLURM_CI_PORT_BASE" ] || fail "port block $SLURM_CI_PORT_BASE still reserved"
ok "port block released"
if scontrol ping >/dev/null 2>&1; then fail "slurmctld still answers after down"; fi
ok "no controller after down"
done_checks
