#!/usr/bin/env bash
# jail/job_container: the rendered Slurm files work in real Slurm 22.05: slurm.conf keys
# (JobContainerType=job_container/tmpfs, PrologFlags=Contain), job_container.conf
# (BasePath under the jail's scratch) and the plugstack.conf line. With the jail carrying
# the job's /tmp from job_container/tmpfs (a plain bind of /tmp), a step's /tmp file lands
# in job_container's per-job folder, is private to the job and is gone after it.
set -euo pipefail
: "${SLINKY_BUILD_DIR:?}" "${SLINKY_SOURCE_DIR:?}"
H=$SLINKY_SOURCE_DIR/tests/harness
J=$SLINKY_BUILD_DIR/tools/slinky-jail/slinky-jail
PLUGIN=$SLINKY_BUILD_DIR/spank/slinky_jail.so
[ -f "$PLUGIN" ] || { echo "SKIP: $PLUGIN not built"; exit 77; }
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }

# not under /tmp: slurmd refuses a job_container BasePath there
W=$(mktemp -d /var/tmp/jailjc.XXXXXX)
export SLURM_CI_DIR=$W/c
mkdir -p "$SLURM_CI_DIR/etc"
trap '"$H/slurm-ci.sh" down >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
U=alice
. "$SLINKY_SOURCE_DIR/tests/jail/lib.sh"
jail_test_root "$W" "$U"
# /tmp and /dev/shm come from job_container/tmpfs (the task's mount namespace)
cat > "$W/jail.yaml" <<EOS
kind: JailSpec
root: {path: /, readOnly: true}
scratch: $W/scratch
namespaces: {pid: true, ipc: false, uts: true}
mounts:
  - {type: bind, source: $W/home, destination: /home}
  - {type: bind, source: $W/shared, destination: /shared, readOnly: true}
  - {type: bind, source: $W/local, destination: /local}
  - {type: bind, source: /tmp, destination: /tmp}
  - {type: bind, source: /dev/shm, destination: /dev/shm}
  - {type: proc, destination: /proc}
EOS
"$J" render job-container --spec "$W/jail.yaml" > "$SLURM_CI_DIR/etc/job_container.conf"
base=$(sed -n 's/^BasePath=//p' "$SLURM_CI_DIR/etc/job_container.conf")
export SLURM_CI_EXTRA_CONF
SLURM_CI_EXTRA_CONF=$("$J" render slurm-conf --spec "$W/jail.yaml")
export SLURM_CI_PLUGSTACK
SLURM_CI_PLUGSTACK=$("$J" render plugstack --spec "$W/jail.yaml" | sed "s#slinky_jail.so#$PLUGIN#")
echo "$SLURM_CI_PLUGSTACK" | grep -q "spec=$W/jail.yaml" && ok "plugstack line names the spec" || bad "plugstack line"
eval "$("$H/slurm-ci.sh" up)"
cd /tmp
as_user() { runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" "$@"; }
grep -Eq 'JobContainerType += job_container/tmpfs' <(scontrol show config) && ok "slurmctld runs with JobContainerType=job_container/tmpfs" || bad "JobContainerType in effect"
grep -Eq 'PrologFlags += .*Contain' <(scontrol show config) && ok "PrologFlags=Contain in effect" || bad "PrologFlags"

a=$(as_user sbatch --parsable -t 2 -o /dev/null --wrap 'echo jc > /tmp/jc-file; cat /home/*/marker > /local/jc-marker; sleep 5')
# the plugin's layout is BasePath[/NODE]/JOBID/.JOBID (a node folder with multiple-slurmd builds)
jobdir() { for d in "$base/$a" "$base"/*/"$a"; do if [ -d "$d" ]; then echo "$d"; return; fi; done; }
for _ in $(seq 1 100); do d=$(jobdir); [ -n "$d" ] && [ -e "$d/.$a/jc-file" ] && break; sleep 0.1; done
d=$(jobdir)
[ -n "$d" ] && [ -e "$d/.$a/jc-file" ] && ok "the step's /tmp is job_container/tmpfs's per-job folder" || { bad "job_container /tmp"; find "$base" -maxdepth 3 2>&1 | sed 's/^/    /'; }
ext=no
while read -r pid _; do
  if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "\[$a.extern\]"; then ext=yes; fi
done < "$W/scratch/job-$a/.slinky-owners"
[ $ext = yes ] && ok "with PrologFlags=Contain the extern slurmstepd keeps the job's scratch alive" || bad "extern stepd recorded as an owner"
[ "$(cat "$W/local/jc-marker" 2>/dev/null)" = "marker-$$" ] && ok "the step runs in the jail (/home, /local)" || bad "step in the jail"
outb=$(as_user srun -t 1 sh -c 'ls -A /tmp; echo end' 2>/dev/null || true)
echo "$outb" | grep -q jc-file && bad "a concurrent job sees job A's /tmp" || ok "a concurrent job does not see job A's /tmp"
for _ in $(seq 1 150); do [ -z "$(jobdir)" ] && break; sleep 0.1; done
[ -z "$(jobdir)" ] && ok "job_container/tmpfs removed job A's /tmp at job end" || bad "job A's /tmp removed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
