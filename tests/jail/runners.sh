#!/usr/bin/env bash
# jail/runners: one spec, three runners -- the in-process applier (slinky-jail run), bwrap
# on the rendered argv, crun on the rendered config.json (private mount namespace with
# cgroup2, --cgroup-manager=disabled) -- must give the same observable jail: /home content
# visible, /shared read-only, /local writes persist after exit, /tmp starts empty and its
# files are gone after the job, not root, CapEff 0, / cannot be remounted.
# Then escape attempts: a destination through a symlink leading out, '..' in paths,
# regaining capabilities / remounting / inside the jail.
set -uo pipefail
: "${SLINKY_BUILD_DIR:?}"
J=$SLINKY_BUILD_DIR/tools/slinky-jail/slinky-jail
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

W=$(mktemp -d /tmp/jailrun.XXXXXX)
trap 'rm -rf "$W"' EXIT
U=alice
. "$(dirname "$0")/lib.sh"
jail_test_root "$W" "$U"
uid=$jail_uid
jail_test_spec "$W" "$W/jail.yaml" "namespaces: {pid: true, ipc: true, uts: true}
process: {user: job, cwd: /tmp, noNewPrivileges: true, capabilities: []}"
check "spec is valid" "$J" validate "$W/jail.yaml"

# The probe prints one key=value per line; the runner name goes into /local.
PROBE='
echo home=$(cat /home/'"$U"'/marker 2>/dev/null)
if touch /shared/x 2>/dev/null; then echo shared=rw; else echo shared=ro; fi
echo shared_data=$(cat /shared/data)
if [ -z "$(ls -A /tmp)" ]; then echo tmp=empty; else echo tmp=notempty; fi
echo left-behind > /tmp/leftover && echo tmp_write=ok
echo "$RUNNER" > /local/from-$RUNNER && echo local_write=ok
echo uid=$(id -u)
echo capeff=$(sed -n "s/^CapEff:[[:space:]]*//p" /proc/self/status)
echo capbnd=$(sed -n "s/^CapBnd:[[:space:]]*//p" /proc/self/status)
echo nnp=$(sed -n "s/^NoNewPrivs:[[:space:]]*//p" /proc/self/status)
if mount -o remount,rw / 2>/dev/null; then echo remount=allowed; else echo remount=denied; fi
if unshare -rm sh -c "mount -o remount,rw / && touch /escaped" 2>/dev/null; then echo userns_remount=allowed; else echo userns_remount=denied; fi
if touch /etc/slinky-jail-escape 2>/dev/null; then echo etc=rw; else echo etc=ro; fi
echo pid1=$(cat /proc/1/comm)
echo usr_flags=$(awk '\''$5 == "/usr" { n = split($6, f, ","); for (i = 1; i <= n; i++) if (f[i] == "nosuid" || f[i] == "nodev") printf "%s ", f[i] }'\'' /proc/self/mountinfo)
echo cuda=${CUDA_VISIBLE_DEVICES-unset} nvidia=${NVIDIA_VISIBLE_DEVICES-unset}
if unshare --user --map-root-user --mount --pid --fork --mount-proc true; then echo nested_userns=ok; else echo nested_userns=fail; fi
'
expected="home=marker-$$
shared=ro
shared_data=dataset
tmp=empty
tmp_write=ok
local_write=ok
uid=$uid
capeff=0000000000000000
capbnd=0000000000000000
nnp=1
remount=denied
userns_remount=denied
etc=ro
usr_flags=nosuid nodev
cuda=unset nvidia=unset
nested_userns=ok"

compare() { # runner output
  local r=$1 out=$2
  local got; got=$(printf '%s\n' "$out" | grep -v '^pid1=')
  if [ "$got" = "$expected" ]; then ok "$r: same observable jail as expected"; else
    bad "$r: observable jail"; diff <(echo "$expected") <(echo "$got") | sed 's/^/    /'; fi
  if [ "$(cat "$W/local/from-$r" 2>/dev/null)" = "$r" ]; then ok "$r: /local write persists after exit"; else bad "$r: /local persists"; fi
}
scratch_gone() { [ ! -e "$W/scratch/job-$1" ]; }
# the caller's GPU variables must not reach a jail with no GPU allocated
export CUDA_VISIBLE_DEVICES=5,7 NVIDIA_VISIBLE_DEVICES=5,7

# 1. the applier
out=$(RUNNER=applier "$J" run --spec "$W/jail.yaml" --job 101 --user "$U" -- sh -c "$PROBE" 2>&1)
echo "$out" | sed 's/^/  applier: /'
compare applier "$out"
check "applier: /tmp files gone after the job" scratch_gone 101

# 2. bwrap on the rendered argv, run as the job user (unprivileged bwrap)
"$J" setup --spec "$W/jail.yaml" --job 102 --user "$U"
mapfile -d '' args < <("$J" render bwrap --nul --spec "$W/jail.yaml" --job 102 --user "$U" -- sh -c "$PROBE")
out=$(RUNNER=bwrap setpriv --reuid="$U" --regid="$(id -g "$U")" --init-groups bwrap "${args[@]}" 2>&1)
echo "$out" | sed 's/^/  bwrap: /'
compare bwrap "$out"
[ -e "$W/scratch/job-102/tmp/leftover" ] && ok "bwrap: /tmp file was in the job's scratch" || bad "bwrap: /tmp in scratch"
"$J" cleanup --spec "$W/jail.yaml" --job 102
check "bwrap: /tmp files gone after the job" scratch_gone 102

# 3. crun on the rendered bundle
"$J" setup --spec "$W/jail.yaml" --job 103 --user "$U"
RUNNER=crun "$J" render oci --spec "$W/jail.yaml" --job 103 --user "$U" --bundle "$W/bundle" -- sh -c "$PROBE" >/dev/null
out=$(unshare -m sh -c "mount --make-rprivate / && mount -t cgroup2 none /sys/fs/cgroup && exec crun --cgroup-manager=disabled run -b '$W/bundle' slinky-jail-test-$$" 2>&1)
echo "$out" | sed 's/^/  crun: /'
compare crun "$out"
[ -e "$W/scratch/job-103/tmp/leftover" ] && ok "crun: /tmp file was in the job's scratch" || bad "crun: /tmp in scratch"
"$J" cleanup --spec "$W/jail.yaml" --job 103
check "crun: /tmp files gone after the job" scratch_gone 103

# 4. a crashed job's scratch is removed by the next setup
mkdir -p "$W/scratch/job-999/tmp" && echo stale > "$W/scratch/job-999/tmp/f"
echo "999999999 1" > "$W/scratch/job-999/.slinky-owners"   # owner long gone
"$J" run --spec "$W/jail.yaml" --job 104 --user "$U" -- true
check "a crashed job's scratch is removed at the next setup" scratch_gone 999

# 5. escapes
ln -s ../../../../../../../../etc "$W/home/escape"
cat > "$W/escape.yaml" <<EOS
kind: JailSpec
scratch: $W/scratch
mounts:
  - {type: bind, source: $W/home, destination: /home}
  - {type: bind, source: $W/shared, destination: /home/escape/slinky-escape, readOnly: true}
EOS
err=$("$J" run --spec "$W/escape.yaml" --job 105 --user "$U" -- true 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "leads out of the jail" && ok "applier refuses a destination through a symlink leading out" || bad "symlink escape refused ($rc: $err)"
[ ! -e /etc/slinky-escape ] && ok "nothing was created outside" || { bad "created /etc/slinky-escape"; rmdir /etc/slinky-escape; }
err=$("$J" render bwrap --spec "$W/escape.yaml" --job 105 --user "$U" -- true 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "leads out of the jail" && ok "bwrap renderer refuses it too" || bad "bwrap renderer refuses ($err)"
err=$("$J" render oci --spec "$W/escape.yaml" --job 105 --user "$U" -- true 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "leads out of the jail" && ok "OCI renderer refuses it too" || bad "OCI renderer refuses ($err)"
sed 's#destination: /home/escape/slinky-escape#destination: /home/../etc/x#' "$W/escape.yaml" > "$W/dotdot.yaml"
err=$("$J" validate "$W/dotdot.yaml" 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "mounts\[1\].destination: '..' is not allowed" && ok "'..' in a destination is rejected with its field path" || bad "dotdot ($err)"
sed "s#source: $W/shared#source: $W/shared/../../etc#" "$W/escape.yaml" > "$W/dotdot2.yaml"
err=$("$J" validate "$W/dotdot2.yaml" 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "mounts\[1\].source" && ok "'..' in a source is rejected with its field path" || bad "dotdot source ($err)"
err=$("$J" run --spec "$W/jail.yaml" --job .. --user "$U" -- true 2>&1); rc=$?
[ $rc -ne 0 ] && ok "a job id of '..' is refused" || bad "job id .."

# 6. a shared root folder (not the host root): the jail's / is that folder's content
R=$W/rootfs
mkdir -p "$R/usr" "$R/etc" "$R/data"
ln -s usr/bin "$R/bin"; ln -s usr/lib "$R/lib"; ln -s usr/lib64 "$R/lib64"
echo in-shared-root > "$R/data/hello"
cat > "$W/shared-root.yaml" <<EOS
kind: JailSpec
root: {path: $R, readOnly: true}
scratch: $W/scratch
mounts:
  - {type: bind, source: /usr, destination: /usr, readOnly: true}
  - {type: bind, source: /etc, destination: /etc, readOnly: true}
  - {type: bind, source: tmp, destination: /tmp, lifetime: job}
  - {type: proc, destination: /proc}
process: {user: job, cwd: /, noNewPrivileges: true}
EOS
SR='echo root=$(ls / | tr "\n" " "); cat /data/hello; if touch /data/x 2>/dev/null; then echo data=rw; else echo data=ro; fi'
want="root=bin data dev etc lib lib64 proc tmp usr
in-shared-root
data=ro"
got=$("$J" run --spec "$W/shared-root.yaml" --job 106 --user "$U" -- sh -c "$SR" 2>&1)
[ "$got" = "$want" ] && ok "applier: shared root folder" || { bad "applier: shared root folder"; echo "$got" | sed 's/^/    /'; }
"$J" setup --spec "$W/shared-root.yaml" --job 107 --user "$U"
mapfile -d '' args < <("$J" render bwrap --nul --spec "$W/shared-root.yaml" --job 107 --user "$U" -- sh -c "$SR")
got=$(setpriv --reuid="$U" --regid="$(id -g "$U")" --init-groups bwrap "${args[@]}" 2>&1)
[ "$got" = "$want" ] && ok "bwrap: shared root folder" || { bad "bwrap: shared root folder"; echo "$got" | sed 's/^/    /'; }
rm -rf "$W/bundle2"
"$J" render oci --spec "$W/shared-root.yaml" --job 107 --user "$U" --bundle "$W/bundle2" -- sh -c "$SR" >/dev/null
got=$(unshare -m sh -c "mount --make-rprivate / && mount -t cgroup2 none /sys/fs/cgroup && exec crun --cgroup-manager=disabled run -b '$W/bundle2' slinky-jail-test2-$$" 2>&1)
[ "$got" = "$want" ] && ok "crun: shared root folder" || { bad "crun: shared root folder"; echo "$got" | sed 's/^/    /'; }
"$J" cleanup --spec "$W/shared-root.yaml" --job 107

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
