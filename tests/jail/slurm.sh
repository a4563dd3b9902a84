#!/usr/bin/env bash
# jail/slurm: real slurmctld + slurmd (22.05, loopback) with slinky_jail.so in plugstack.conf.
# Checks: srun and sbatch steps run in the jail; /tmp is private per job (invisible to a
# concurrent job, gone after the job); /local persists across jobs; --gpus=1 exposes exactly
# one GPU node, no --gpus none. Everything lives in a private test root (never /home etc.).
set -euo pipefail
: "${SLINKY_BUILD_DIR:?}" "${SLINKY_SOURCE_DIR:?}"
H=$SLINKY_SOURCE_DIR/tests/harness
PLUGIN=$SLINKY_BUILD_DIR/spank/slinky_jail.so
[ -f "$PLUGIN" ] || { echo "SKIP: $PLUGIN not built"; exit 77; }
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }

W=$(mktemp -d /tmp/jailslurm.XXXXXX)
export SLURM_CI_DIR=$W/c
mkdir -p "$SLURM_CI_DIR"
cleanup() {
  "$H/slurm-ci.sh" down >/dev/null 2>&1 || true
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$W"; fi
}
trap cleanup EXIT

U=alice
. "$SLINKY_SOURCE_DIR/tests/jail/lib.sh"
jail_test_root "$W" "$U"
uid=$jail_uid
# ipc stays shared (MPI); /dev/shm per job; GPUs are the harness's stand-in device nodes
jail_test_spec "$W" "$W/jail.yaml" "namespaces: {pid: true, ipc: false, uts: true}
devices:
  gpu: {source: \"$SLURM_CI_DIR/dev/gpu%i\", destination: \"/dev/nvidia%i\", control: [/dev/nvidiactl]}
process: {user: job, noNewPrivileges: true, capabilities: []}"
"$SLINKY_BUILD_DIR/tools/slinky-jail/slinky-jail" validate "$W/jail.yaml"

export SLURM_CI_PLUGSTACK="required $PLUGIN spec=$W/jail.yaml"
export SLURM_CI_NODE_EXTRA="Gres=gpu:2"
export SLURM_CI_GRES_CONF="Name=gpu File=@DIR@/dev/gpu[0-1]"
eval "$("$H/slurm-ci.sh" up)"
cd /tmp
as_user() { runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" "$@"; }

# 1. srun runs inside the jail, as the user, without capabilities
out=$(as_user srun -t 1 sh -c 'cat /home/'"$U"'/marker; id -u; grep CapEff /proc/self/status; grep CapBnd /proc/self/status; if touch /shared/x 2>/dev/null; then echo shared-rw; else echo shared-ro; fi; cat /shared/data; if mount -o remount,rw / 2>/dev/null || unshare -rm sh -c "mount -o remount,rw /" 2>/dev/null; then echo remount-allowed; else echo remount-denied; fi' 2>&1) || true
echo "$out" | sed 's/^/  srun: /'
if echo "$out" | grep -qx "marker-$$"; then ok "srun sees the jail's /home"; else bad "srun sees the jail's /home"; fi
if echo "$out" | grep -qx "$uid"; then ok "srun step runs as $U"; else bad "srun step runs as $U"; fi
if echo "$out" | grep -Eq 'CapEff:[[:space:]]+0+$'; then ok "srun step has CapEff 0"; else bad "CapEff 0"; fi
if echo "$out" | grep -Eq 'CapBnd:[[:space:]]+0+$'; then ok "srun step has an empty bounding set"; else bad "CapBnd 0"; fi
if echo "$out" | grep -qx shared-ro && echo "$out" | grep -qx dataset; then ok "/shared is read-only and readable"; else bad "/shared read-only"; fi
if [ -e "$W/shared/x" ]; then bad "write to /shared reached the host"; fi
if echo "$out" | grep -qx remount-denied; then ok "remounting / read-write fails in the step (also from a user namespace)"; else bad "remount / denied"; fi

# 2. an sbatch step runs inside the jail too
as_user sbatch --wait -t 1 -o /dev/null --wrap "cat /home/$U/marker > /local/from-batch; grep CapEff /proc/self/status >> /local/from-batch" >/dev/null 2>&1 || true
if grep -qx "marker-$$" "$W/local/from-batch" 2>/dev/null && grep -Eq 'CapEff:[[:space:]]+0+$' "$W/local/from-batch"; then
  ok "sbatch step runs in the jail (wrote /local/from-batch)"; else bad "sbatch step in the jail"; fi

# 3. /tmp is private per job and gone at job end; /local persists
a=$(as_user sbatch --parsable -t 2 -n1 -o /dev/null --wrap 'echo from-A > /tmp/a-file; echo from-A > /local/persist; sleep 6')
for _ in $(seq 1 100); do [ -e "$W/scratch/job-$a/tmp/a-file" ] && break; sleep 0.1; done
if [ -e "$W/scratch/job-$a/tmp/a-file" ]; then ok "job A's /tmp file lives in its scratch"; else bad "job A wrote /tmp (scratch/job-$a)"; fi
outb=$(as_user srun -t 1 -n1 sh -c 'ls -A /tmp; echo end' 2>&1 || true)
if echo "$outb" | grep -q a-file; then bad "concurrent job B sees A's /tmp file"; else ok "concurrent job B does not see A's /tmp file"; fi
if ls -A "$W/scratch" | grep -q "job-$a"; then :; fi
for _ in $(seq 1 150); do [ -e "$W/scratch/job-$a" ] || break; sleep 0.1; done
if [ -e "$W/scratch/job-$a" ]; then bad "job A's scratch removed at job end"; else ok "job A's scratch (its /tmp) is gone after the job"; fi
outc=$(as_user srun -t 1 cat /local/persist 2>/dev/null || true)
if [ "$outc" = from-A ]; then ok "the next job reads /local written by job A"; else bad "/local persists (got '$outc')"; fi

# 4. GPUs: --gpus=1 sees exactly one GPU node, no --gpus sees none
count='ls /dev | grep -c "^nvidia[0-9]"; true'
g1=$(as_user srun -t 1 --gpus=1 sh -c "$count" 2>/dev/null || true)
g0=$(as_user srun -t 1 sh -c "$count" 2>/dev/null || true)
g2=$(as_user srun -t 1 --gpus=2 sh -c "$count" 2>/dev/null || true)
if [ "$g1" = 1 ]; then ok "srun --gpus=1 sees exactly one GPU node"; else bad "--gpus=1 sees one GPU (got '$g1')"; fi
if [ "$g0" = 0 ]; then ok "srun without --gpus sees no GPU node"; else bad "no --gpus sees none (got '$g0')"; fi
if [ "$g2" = 2 ]; then ok "srun --gpus=2 sees two GPU nodes"; else bad "--gpus=2 sees two (got '$g2')"; fi
gf=$(runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" SLURM_JOB_GPUS=0,1 SLURM_STEP_GPUS=0,1 srun -t 1 sh -c "$count" 2>/dev/null || true)
if [ "$gf" = 0 ]; then ok "GPU variables forged in the user's environment expose nothing"; else bad "forged GPU env (got '$gf')"; fi
as_user sbatch --wait -t 1 --gpus=1 -o /dev/null --wrap "{ $count; } > /local/batch-gpus" >/dev/null 2>&1 || true
gb=$(cat "$W/local/batch-gpus" 2>/dev/null || true)
if [ "$gb" = 1 ]; then ok "sbatch --gpus=1: the batch step sees exactly one GPU node"; else bad "batch step GPUs (got '$gb')"; fi

# 5. GPU variables name the step's GPUs renumbered from 0, whatever the user exported;
#    host folders are bound nosuid,nodev; nested user+mount+pid namespaces work (Apptainer)
vis='echo cuda=${CUDA_VISIBLE_DEVICES-unset} nvidia=${NVIDIA_VISIBLE_DEVICES-unset}'
forge() { runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" CUDA_VISIBLE_DEVICES=5,7 NVIDIA_VISIBLE_DEVICES=5,7 "$@"; }
v0=$(forge srun -Q -t 1 sh -c "$vis" 2>/dev/null || true)
v1=$(forge srun -Q -t 1 --gpus=1 sh -c "$vis" 2>/dev/null || true)
v2=$(forge srun -Q -t 1 --gpus=2 sh -c "$vis" 2>/dev/null || true)
if [ "$v0" = "cuda=unset nvidia=unset" ]; then ok "no --gpus: the user's CUDA/NVIDIA_VISIBLE_DEVICES do not reach the step"; else bad "no --gpus GPU variables (got '$v0')"; fi
if [ "$v1" = "cuda=0 nvidia=0" ]; then ok "--gpus=1: CUDA/NVIDIA_VISIBLE_DEVICES=0"; else bad "--gpus=1 GPU variables (got '$v1')"; fi
if [ "$v2" = "cuda=0,1 nvidia=0,1" ]; then ok "--gpus=2: CUDA/NVIDIA_VISIBLE_DEVICES=0,1"; else bad "--gpus=2 GPU variables (got '$v2')"; fi
fl=$(as_user srun -Q -t 1 awk '$5 == "/usr" { print $6 }' /proc/self/mountinfo 2>&1 || true)
if echo ",$fl," | grep -q ',nosuid,' && echo ",$fl," | grep -q ',nodev,'; then ok "the step's /usr is nosuid,nodev"; else bad "/usr mount flags (got '$fl')"; fi
nu=$(as_user srun -Q -t 1 sh -c 'unshare --user --map-root-user --mount --pid --fork --mount-proc true && echo nested-ok' 2>&1 || true)
if [ "$nu" = nested-ok ]; then ok "unshare --user --map-root-user --mount --pid --fork --mount-proc works in a step"; else bad "nested namespaces in a step (got '$nu')"; fi

# 6. a jail that cannot be built fails the step instead of running it unjailed
sed -i "s#source: $W/shared,#source: $W/no-such-folder,#" "$W/jail.yaml"
if timeout 60 runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" srun -t 1 sh -c 'echo ran > /local/unjailed' >/dev/null 2>&1 ||
   [ -e "$W/local/unjailed" ]; then
  bad "a step whose jail cannot be built must fail"; else ok "a jail that cannot be built fails the step (never unjailed)"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
