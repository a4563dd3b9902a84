#!/usr/bin/env bash
# slurm24.sh -- Slurm 24.11 (Debian 13 packages, AuthType=auth/slurm, no munged) on 127.0.0.1,
# run inside a cached Debian 13 (trixie) chroot built once per machine with debootstrap.
#
#   slurm24.sh build                 build the chroot if missing (~60 s, ~290 MB, needs network)
#   slurm24.sh up [restd]            start slurmctld + slurmd x SLURM_CI_NODES (+ slurmrestd);
#                                    print the `env` lines on stdout
#   slurm24.sh down                  stop this cluster's daemons by pid file
#   slurm24.sh env                   print `export ...` lines
#   slurm24.sh exec CMD [ARG...]     run CMD inside the chroot with SLURM_CONF of this cluster
#   slurm24.sh validate FILE         slurm-validate.sh with the 24.11 slurmctld (0/1/2 as there)
#
# Env: SLURM24_ROOT    chroot (default /var/cache/slinky/trixie)
#      SLURM24_DIR     cluster dir AS SEEN INSIDE the chroot (default for up: new /tmp/s24.XXXXXX,
#                      printed); on the host it is $SLURM24_ROOT$SLURM24_DIR
#      SLURM24_MIRROR  Debian mirror for debootstrap (default: the one apt uses here, first
#                      URIs: of /etc/apt/sources.list.d/debian.sources, else sources.list)
#      SLURM_CI_PORT_BASE, SLURM_CI_NODES, SLURM_CI_EXTRA_CONF, SLURM_CI_NODE_EXTRA,
#      SLURM_CI_GRES_CONF, SLURM_CI_PLUGSTACK, SLURM_CI_CGROUP_CONF (default CgroupPlugin=disabled)
#      -- as in slurm-ci.sh. Ports: +1 slurmctld, +3 slurmrestd, +10.. slurmd.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

R=${SLURM24_ROOT:-/var/cache/slinky/trixie}
PKGS=slurmctld,slurmd,slurm-client,slurm-wlm-basic-plugins,slurmrestd,slurm-wlm-jwt-plugin,curl
T0=${EPOCHREALTIME//[.,]/}
hx_close_fds
exec 3>&2   # log fd; every daemon is started with 3>&- so it never holds it
log() { local ms=$(( (${EPOCHREALTIME//[.,]/} - T0) / 1000 )); printf '[slurm24 %s +%d.%03ds] %s\n' "${S:-}" $((ms / 1000)) $((ms % 1000)) "$*" >&3; }
STARTED_UP=0
die() {
  log "ERROR: $*"
  if [ "$STARTED_UP" = 1 ]; then
    local f
    for f in "$R$S"/log/*.log; do
      if [ -s "$f" ] && grep -qE 'fatal|error' "$f"; then
        echo "---- $f (error lines) ----" >&3
        grep -E 'fatal|error' "$f" | grep -vE 'pmix|PMIx|MPI|state file|NOTE: Trying|fed_mgr|hwloc' | tail -8 >&3 || true
      fi
    done
    down_all >/dev/null 2>&1 || true
  fi
  exit 1
}

# ------------------------------------------------------------------ the chroot
build() {
  [ -x "$R/usr/sbin/slurmctld" ] && [ -e "$R/.slinky-ready" ] && return 0
  mkdir -p "$(dirname "$R")"
  exec 9>"$R.lock"; flock 9                  # one build per machine; others wait for it
  if [ -x "$R/usr/sbin/slurmctld" ] && [ -e "$R/.slinky-ready" ]; then exec 9>&-; return 0; fi
  hx_apt_install debootstrap || die "cannot install debootstrap"
  local MIRROR
  MIRROR=$(hx_debian_mirror) || die "no Debian mirror for debootstrap"
  local tmp=$R.build.$$
  rm -rf "$tmp"
  log "debootstrap trixie into $R (about 60 s, ~290 MB)"
  if ! debootstrap --variant=minbase --include="$PKGS" trixie "$tmp" "$MIRROR" >"$R.debootstrap.log" 2>&1; then
    tail -5 "$R.debootstrap.log" >&3
    for m in proc sys; do if mountpoint -q "$tmp/$m"; then umount "$tmp/$m"; fi; done
    rm -rf "$tmp"; die "debootstrap failed (log: $R.debootstrap.log)"
  fi
  for m in proc sys; do if mountpoint -q "$tmp/$m"; then umount "$tmp/$m"; fi; done
  cp /etc/hosts "$tmp/etc/hosts"             # minbase has none: "localhost" would not resolve
  chroot "$tmp" id slurmrest >/dev/null 2>&1 || chroot "$tmp" useradd -r -M -s /usr/sbin/nologin slurmrest
  chroot "$tmp" slurmctld -V > "$tmp/.slinky-ready"
  rm -rf "$R"; mv "$tmp" "$R"
  log "chroot ready: $(cat "$R/.slinky-ready")"
  exec 9>&-
}

# /proc and /sys are mounted while a cluster or a validation uses the chroot; the last user
# to leave unmounts them. Users: live pids in $R/tmp/*/run/*.pid and $R/.users/<pid>.
mount_api() {
  exec 8>"$R.mount.lock"; flock 8
  mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
  mountpoint -q "$R/sys" || mount --bind /sys "$R/sys"   # hwloc needs sysfs for the topology
  exec 8>&-
}
umount_api_if_unused() {
  local f u
  exec 8>"$R.mount.lock"; flock 8
  for f in "$R"/tmp/*/run/*.pid; do
    if [ -e "$f" ] && hx_alive "$(hx_pid_of "$f")"; then exec 8>&-; return 0; fi
  done
  for u in "$R"/.users/*; do
    if [ -e "$u" ] && [ "$(basename "$u")" != "$$" ] && hx_alive "$(basename "$u")"; then exec 8>&-; return 0; fi
  done
  if mountpoint -q "$R/sys"; then umount "$R/sys" || umount -l "$R/sys"; fi
  if mountpoint -q "$R/proc"; then umount "$R/proc" || umount -l "$R/proc"; fi
  exec 8>&-
}

# ------------------------------------------------------------------ one cluster
# inroot CMD...: CMD in the chroot with this cluster's SLURM_CONF and its private /run (the
# auth/slurm "sack" sockets live at fixed /run paths; see inroot.sh)
inroot() { "$HERE/inroot.sh" "$R" "$R$S/sysrun" env SLURM_CONF="$S/etc/slurm.conf" "$@"; }

# shellcheck disable=SC1090
load_state() { if [ -s "$R$S/ci.state" ]; then . "$R$S/ci.state"; fi; }

write_conf() {
  local hw mem i gres_types C=$R$S/etc/slurm.conf
  hw=$(chroot "$R" slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ *UpTime=.*//')
  mem=$(echo "$hw" | sed -E 's/.*RealMemory=([0-9]+).*/\1/'); if [ "$mem" -gt 1000 ]; then mem=1000; fi
  hw=$(echo "$hw" | sed -E "s/RealMemory=[0-9]+/RealMemory=$mem/")
  cat > "$C" <<EOF
# --- generated by tests/harness/slurm24.sh: Slurm 24.11 in a trixie chroot, on loopback ---
ClusterName=ci24
SlurmctldHost=localhost
SlurmctldPort=$((P + 1))
SlurmdPort=$((P + 10))
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
# auth/slurm reads slurm.key from the slurm.conf directory (no munged)
AuthType=auth/slurm
CredType=cred/slurm
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$S/etc/jwt_hs256.key
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
PlugStackConfig=$S/etc/plugstack.conf
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
EOF
  gres_types=$(printf '%s\n' "${SLURM_CI_NODE_EXTRA:-}" | grep -oE 'Gres=[^ ]+' | sed 's/^Gres=//' | tr ',' '\n' \
               | sed -E 's/[:(].*//' | sort -u | paste -sd, || true)
  if [ -n "$gres_types" ]; then echo "GresTypes=$gres_types" >> "$C"; fi
  for i in $(seq 1 "$NODES"); do
    echo "NodeName=node$i NodeAddr=127.0.0.1 NodeHostname=localhost Port=$((P + 9 + i)) $hw ${SLURM_CI_NODE_EXTRA:-} State=UNKNOWN" >> "$C"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$C"
  if [ -n "${SLURM_CI_EXTRA_CONF:-}" ]; then printf '%s\n' "$SLURM_CI_EXTRA_CONF" >> "$C"; fi
  printf '%s\n' "${SLURM_CI_PLUGSTACK:-}" > "$R$S/etc/plugstack.conf"
  printf '%s\n' "${SLURM_CI_CGROUP_CONF:-CgroupPlugin=disabled}" > "$R$S/etc/cgroup.conf"
  rm -f "$R$S/etc/gres.conf"
  if [ -n "${SLURM_CI_GRES_CONF:-}" ]; then
    mkdir -p "$R$S/dev"
    for i in 0 1 2 3 4 5 6 7; do [ -c "$R$S/dev/gpu$i" ] || rm -f "$R$S/dev/gpu$i"; [ -c "$R$S/dev/gpu$i" ] || mknod "$R$S/dev/gpu$i" c 1 3; done
    printf '%s\n' "${SLURM_CI_GRES_CONF//@DIR@/$S}" > "$R$S/etc/gres.conf"
  fi
  [ -s "$R$S/etc/slurm.key" ] || { head -c 1024 /dev/urandom > "$R$S/etc/slurm.key"; chmod 600 "$R$S/etc/slurm.key"; }
  [ -s "$R$S/etc/jwt_hs256.key" ] || { head -c 32 /dev/urandom > "$R$S/etc/jwt_hs256.key"; chmod 600 "$R$S/etc/jwt_hs256.key"; }
}

wait_daemon() {   # SECONDS WHAT PIDFILE(host) LOG(host) CMD...
  local t=$1 what=$2 pf=$3 lg=$4 p seen=0; shift 4; local end=$((SECONDS + t))
  until "$@" >/dev/null 2>&1; do
    p=$(hx_pid_of "$pf"); if [ -n "$p" ]; then seen=1; fi
    if [ "$seen" = 1 ] && ! hx_alive "$p"; then
      die "$what exited: $(grep -E 'fatal|error' "$lg" 2>/dev/null | grep -vE 'pmix|PMIx|MPI' | tail -3)"
    fi
    [ $SECONDS -lt $end ] || die "timeout (${t}s) waiting for $what"
    sleep 0.05
  done
}
node_ready() {
  local st; st=$(inroot sinfo -h -n "$1" -o '%t|%E' 2>/dev/null | head -1)
  case ${st%%|*} in
    idle) return 0 ;;
    inval|drain|drng|down) die "$1 is ${st%%|*}: ${st#*|}" ;;
  esac
  return 1
}

up() {
  local i p
  build
  NODES=${SLURM_CI_NODES:-1}
  [[ "$NODES" =~ ^[0-9]+$ ]] && [ "$NODES" -ge 1 ] && [ "$NODES" -le 20 ] || { echo "SLURM_CI_NODES must be 1..20" >&2; exit 2; }
  if [ -z "${SLURM24_DIR:-}" ]; then
    mkdir -p "$R/tmp"; chmod 1777 "$R/tmp"
    S=$(mktemp -d "$R/tmp/s24.XXXXXX"); S=${S#"$R"}
  else
    S=$SLURM24_DIR
  fi
  for p in "$R$S"/run/*.pid; do
    if [ -e "$p" ] && hx_alive "$(hx_pid_of "$p")"; then echo "slurm24.sh up: $(basename "$p" .pid) of $S still running; run down first" >&2; exit 1; fi
  done
  STARTED_UP=1
  trap 'die "failed at line $LINENO: $BASH_COMMAND"' ERR
  rm -rf "$R$S"/{state,spool,log,run,sysrun}
  mkdir -p "$R$S"/{etc,state,spool,log,run,sysrun}; chmod 755 "$R$S"
  if [ -n "${SLURM_CI_PORT_BASE:-}" ]; then
    P=$SLURM_CI_PORT_BASE; RESERVED=""
    hx_ports_free "$P" 32 || die "a port in $P..$((P + 31)) is already listening"
  else
    P=$(hx_reserve_ports 32 "dir:$R$S") || die "no free block of 32 ports"; RESERVED=$P
  fi
  printf 'P=%s\nRESERVED=%s\nNODES=%s\nWITH_RESTD=%s\n' "$P" "$RESERVED" "$NODES" "$WITH_RESTD" > "$R$S/ci.state"
  {
    echo "export SLURM24_ROOT=$R"
    echo "export SLURM24_DIR=$S"
    echo "export SLURM24_CONF=$S/etc/slurm.conf"
    echo "export SLURM24_CONF_HOST=$R$S/etc/slurm.conf"
    echo "export SLURM24_PORT_BASE=$P"
    echo "export SLURM24_CTLD_PORT=$((P + 1))"
    if [ "$WITH_RESTD" = 1 ]; then echo "export SLURM24_RESTD=http://127.0.0.1:$((P + 3))"; fi
  } > "$R$S/env.sh"
  mount_api
  write_conf
  inroot slurmctld </dev/null >/dev/null 2>"$R$S/log/slurmctld.err" 3>&- || die "slurmctld refused to start: $(head -5 "$R$S/log/slurmctld.err")"
  wait_daemon 30 slurmctld "$R$S/run/slurmctld.pid" "$R$S/log/slurmctld.log" inroot scontrol ping
  log "$(chroot "$R" slurmctld -V) slurmctld up (pid $(hx_pid_of "$R$S/run/slurmctld.pid"), port $((P + 1)))"
  for i in $(seq 1 "$NODES"); do
    inroot slurmd -N "node$i" </dev/null >/dev/null 2>"$R$S/log/slurmd-node$i.err" 3>&- || die "slurmd node$i refused to start: $(head -5 "$R$S/log/slurmd-node$i.err")"
  done
  for i in $(seq 1 "$NODES"); do
    wait_daemon 30 "slurmd node$i" "$R$S/run/slurmd-node$i.pid" "$R$S/log/slurmd-node$i.log" node_ready "node$i"
  done
  log "$NODES node(s) idle"
  if [ "$WITH_RESTD" = 1 ]; then
    # non-root, SLURM_JWT=daemon, and -s openapi/slurmctld (no accounting: the default plugin
    # set dies with "Failure loading plugin path bindings"); setpriv execs, so $! is slurmrestd
    "$HERE/inroot.sh" "$R" "$R$S/sysrun" setpriv --reuid=slurmrest --regid="$(chroot "$R" id -g slurmrest)" --init-groups \
      env SLURM_CONF="$S/etc/slurm.conf" SLURM_JWT=daemon \
      slurmrestd -a rest_auth/jwt -s openapi/slurmctld "127.0.0.1:$((P + 3))" </dev/null >"$R$S/log/slurmrestd.log" 2>&1 3>&- &
    echo $! > "$R$S/run/slurmrestd.pid"
    local tok; tok=$(inroot scontrol token username=root lifespan=300 | sed 's/^SLURM_JWT=//')
    wait_daemon 30 slurmrestd "$R$S/run/slurmrestd.pid" "$R$S/log/slurmrestd.log" \
      curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $tok" "http://127.0.0.1:$((P + 3))/slurm/v0.0.42/ping"
    log "slurmrestd up (http://127.0.0.1:$((P + 3)))"
  fi
  STARTED_UP=0
  cat "$R$S/env.sh"
}

down_all() {
  local f
  load_state
  if hx_alive "$(hx_pid_of "$R$S/run/slurmctld.pid")" && [ -n "$(inroot squeue -h -o %i 2>/dev/null)" ]; then
    # shellcheck disable=SC2046  # job ids: split on purpose
    inroot scancel --full $(inroot squeue -h -o %i 2>/dev/null) 2>/dev/null || true
    local end=$((SECONDS + 15))
    while [ -n "$(inroot squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
  fi
  f=$R$S/run/slurmrestd.pid; hx_stop_pid "$(hx_pid_of "$f")" slurmrestd; rm -f "$f"
  for f in "$R$S"/run/slurmd-*.pid; do
    if [ -e "$f" ]; then hx_stop_pid "$(hx_pid_of "$f")" "$(basename "$f" .pid)"; rm -f "$f"; fi
  done
  f=$R$S/run/slurmctld.pid; hx_stop_pid "$(hx_pid_of "$f")" slurmctld; rm -f "$f"
  hx_release_ports "${RESERVED:-}"
  umount_api_if_unused
}

need_dir() {
  S=${SLURM24_DIR:-}
  if [ -z "$S" ]; then echo "slurm24.sh $1: set SLURM24_DIR (printed by 'up')" >&2; exit 2; fi
  [ -d "$R$S" ] || { echo "slurm24.sh $1: no cluster dir $R$S" >&2; exit 2; }
}

cmd=${1:-}; shift || true
WITH_RESTD=0 S=""
case $cmd in
  build) build ;;
  up) for a in "$@"; do case $a in restd) WITH_RESTD=1 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac; done; up ;;
  down) need_dir down; down_all; log "stopped" ;;
  env) need_dir env; cat "$R$S/env.sh" ;;
  exec) need_dir exec; [ $# -ge 1 ] || { echo "usage: slurm24.sh exec CMD [ARG...]" >&2; exit 2; }
        cd /; exec "$HERE/inroot.sh" "$R" "$R$S/sysrun" /usr/bin/env SLURM_CONF="$S/etc/slurm.conf" \
                     sh -c 'cd /tmp && exec "$@"' sh "$@" ;;
  validate)
    [ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: slurm24.sh validate FILE" >&2; exit 3; }
    build
    mkdir -p "$R/.users"; : > "$R/.users/$$"
    mount_api
    set +e
    SLURM_VALIDATE_CHROOT=$R MUNGE_SOCKET="" "$HERE/slurm-validate.sh" "$1"; rc=$?
    set -e
    rm -f "$R/.users/$$"; umount_api_if_unused
    exit $rc ;;
  *) echo "usage: slurm24.sh build | up [restd] | down | env | exec CMD... | validate FILE" >&2; exit 2 ;;
esac
