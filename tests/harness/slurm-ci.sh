#!/usr/bin/env bash
# slurm-ci.sh -- a real single-host Slurm 22.05 cluster (Debian 12 packages) on 127.0.0.1, with
# every file under one directory, started and stopped by pid (no systemd, never by name).
#
#   slurm-ci.sh up [dbd] [restd]   install what is missing, start munged, (mariadb + slurmdbd),
#                                  slurmctld, slurmd x SLURM_CI_NODES, (slurmrestd); wait until
#                                  every node is idle; print the `env` lines on stdout
#   slurm-ci.sh down               cancel jobs, stop every daemon this dir started (pid files)
#   slurm-ci.sh env                print `export ...` lines for a test to eval
#   slurm-ci.sh status             exit 0 if slurmctld of this dir answers
#
# Env (all optional):
#   SLURM_CI_DIR         cluster dir; default for `up`: a new /tmp/sci.XXXXXX (printed as
#                        `export SLURM_CI_DIR=...`). `down`/`env` need it.
#   SLURM_CI_PORT_BASE   first of 32 ports; default: a free block in 20000-32000 picked and
#                        reserved automatically (see lib.sh). Layout: +0 mariadb, +1 slurmctld,
#                        +2 slurmdbd, +3 slurmrestd, +10.. slurmd of node1..nodeN.
#   SLURM_CI_NODES       number of slurmd (node1..nodeN, each its own port), default 1, max 20
#   SLURM_CI_CLUSTER     ClusterName, default ci
#   SLURM_CI_EXTRA_CONF  lines appended to slurm.conf (last value wins)
#   SLURM_CI_NODE_EXTRA  extra words on every NodeName line (e.g. Gres=gpu:2; GresTypes is
#                        derived from it automatically)
#   SLURM_CI_GRES_CONF   content of gres.conf        (default: no gres.conf)
#   SLURM_CI_PLUGSTACK   content of plugstack.conf   (default: empty file; /etc/slurm's unused)
#   SLURM_CI_CGROUP_CONF content of cgroup.conf      (default: no cgroup.conf)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

T0=${EPOCHREALTIME//[.,]/}
hx_close_fds
exec 3>&2   # log to the caller's stderr even inside the redirected wait loops (daemons get 3>&-)
log() { local ms=$(( (${EPOCHREALTIME//[.,]/} - T0) / 1000 )); printf '[slurm-ci %s +%d.%03ds] %s\n' "${T:-?}" $((ms / 1000)) $((ms % 1000)) "$*" >&3; }

cmd=${1:-}; shift || true
WITH_DBD=0 WITH_RESTD=0
for a in "$@"; do
  case $a in dbd) WITH_DBD=1 ;; restd) WITH_RESTD=1 ;; *) echo "slurm-ci.sh: unknown option $a" >&2; exit 2 ;; esac
done

# ---------------------------------------------------------------- locating the cluster
T=${SLURM_CI_DIR:-}
if [ -z "$T" ]; then
  case $cmd in
    up) T=$(mktemp -d /tmp/sci.XXXXXX) ;;
    down|env|status) echo "slurm-ci.sh $cmd: set SLURM_CI_DIR to the dir printed by 'up'" >&2; exit 2 ;;
  esac
fi
if [ -n "$T" ]; then mkdir -p "$T"; T=$(cd "$T" && pwd); chmod 755 "$T"; fi   # munged: socket path must be traversable by all
export SLURM_CONF=$T/etc/slurm.conf

# ---------------------------------------------------------------- failure handling
STARTED_UP=0
# die: on a failed `up`, stop what was started, show the relevant log lines, exit 1
die() {
  log "ERROR: $*"
  if [ "$STARTED_UP" = 1 ]; then
    local f
    for f in "$T"/log/*.log; do
      [ -s "$f" ] || continue
      if grep -qE 'fatal|error' "$f"; then
        echo "---- $f (error lines) ----" >&3
        grep -E 'fatal|error' "$f" | grep -vE 'pmix|PMIx|MPI|innodb_buffer_pool_size|specified more than once|NOTE: Trying backup|state file|fed_mgr|Domain socket directory|xcpuinfo_hwloc' | tail -8 >&3 || true
      fi
    done
    down_all >/dev/null 2>&1 || true
  fi
  exit 1
}

wait_for() {   # wait_for SECONDS WHAT CMD...
  local t=$1 what=$2; shift 2; local end=$((SECONDS + t))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || die "timeout (${t}s) waiting for $what"
    sleep 0.05
  done
}
# wait_daemon SECONDS WHAT PIDFILE LOG CMD...: like wait_for but fail fast if the daemon died.
# A daemonized slurmctld exits 0 and dies ~2 s later on semantic config errors.
wait_daemon() {
  local t=$1 what=$2 pf=$3 lg=$4 p; shift 4; local end=$((SECONDS + t)) seen=0
  until "$@" >/dev/null 2>&1; do
    p=$(hx_pid_of "$pf")
    if [ -n "$p" ]; then seen=1; fi
    if [ "$seen" = 1 ] && ! hx_alive "$p"; then
      die "$what exited: $(grep -E 'fatal|error' "$lg" 2>/dev/null | grep -vE 'pmix|PMIx|MPI' | tail -3)"
    fi
    [ $SECONDS -lt $end ] || die "timeout (${t}s) waiting for $what"
    sleep 0.05
  done
}

# ---------------------------------------------------------------- config
load_state() {   # ports and paths recorded by `up`
  if [ -s "$T/ci.state" ]; then . "$T/ci.state"; fi
}

pick_ports() {
  if [ -n "${SLURM_CI_PORT_BASE:-}" ]; then
    P=$SLURM_CI_PORT_BASE
    hx_ports_free "$P" 32 || die "a port in $P..$((P + 31)) (SLURM_CI_PORT_BASE) is already listening"
    RESERVED=""
  else
    P=$(hx_reserve_ports 32 "dir:$T") || die "no free block of 32 ports found in 20000-32000"
    RESERVED=$P
  fi
}

node_hw() {   # the host's topology as slurmd -C reports it, memory capped at 1000 MB
  local hw mem
  hw=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ *UpTime=.*//')
  mem=$(echo "$hw" | sed -E 's/.*RealMemory=([0-9]+).*/\1/')
  if [ "$mem" -gt 1000 ]; then mem=1000; fi
  echo "$hw" | sed -E "s/RealMemory=[0-9]+/RealMemory=$mem/"
}

write_confs() {
  local hw i gres_types
  hw=$(node_hw)
  cat > "$SLURM_CONF" <<EOF
# --- generated by tests/harness/slurm-ci.sh: single-host Slurm 22.05 on loopback ---
ClusterName=$CLUSTER
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT0
# listen on 127.0.0.1 (what localhost resolves to) instead of 0.0.0.0
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
# spool holds the slurmstepd sockets: keep it under the short socket dir
SlurmdSpoolDir=$SOCKDIR/spool/%n
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$T/etc/plugstack.conf
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
JobCompType=jobcomp/none
EOF
  if [ "$WITH_DBD" = 1 ]; then
    cat >> "$SLURM_CONF" <<EOF
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
# the munge socket for slurmdbd connections is AccountingStoragePass, not AuthInfo
AccountingStoragePass=$MUNGE_SOCKET
AccountingStorageEnforce=associations,limits,qos
EOF
  else
    printf 'JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n' >> "$SLURM_CONF"
  fi
  if [ "$WITH_RESTD" = 1 ]; then
    printf 'AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=%s\n' "$T/etc/jwt_hs256.key" >> "$SLURM_CONF"
  fi
  gres_types=$(printf '%s\n' "${SLURM_CI_NODE_EXTRA:-}" | grep -oE 'Gres=[^ ]+' | sed 's/^Gres=//' | tr ',' '\n' \
               | sed -E 's/[:(].*//' | sort -u | paste -sd, || true)
  if [ -n "$gres_types" ]; then echo "GresTypes=$gres_types" >> "$SLURM_CONF"; fi
  for i in $(seq 1 "$NODES"); do
    echo "NodeName=node$i NodeAddr=127.0.0.1 NodeHostname=localhost Port=$((SLURMD_PORT0 + i - 1)) $hw ${SLURM_CI_NODE_EXTRA:-} State=UNKNOWN" >> "$SLURM_CONF"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$SLURM_CONF"
  if [ -n "${SLURM_CI_EXTRA_CONF:-}" ]; then printf '%s\n' "$SLURM_CI_EXTRA_CONF" >> "$SLURM_CONF"; fi

  # plugstack.conf always exists (empty by default) so Debian's /etc/slurm/plugstack.conf is unused
  printf '%s\n' "${SLURM_CI_PLUGSTACK:-}" > "$T/etc/plugstack.conf"
  rm -f "$T/etc/gres.conf" "$T/etc/cgroup.conf"
  if [ -n "${SLURM_CI_GRES_CONF:-}" ]; then
    # gres/gpu counts only File= entries, and they must be device nodes: $T/dev/gpu0..7 are
    # char devices (1,3 like /dev/null). "@DIR@" in SLURM_CI_GRES_CONF becomes $T.
    mkdir -p "$T/dev"
    for i in 0 1 2 3 4 5 6 7; do [ -c "$T/dev/gpu$i" ] || rm -f "$T/dev/gpu$i"; [ -c "$T/dev/gpu$i" ] || mknod "$T/dev/gpu$i" c 1 3; done
    printf '%s\n' "${SLURM_CI_GRES_CONF//@DIR@/$T}" > "$T/etc/gres.conf"
  fi
  if [ -n "${SLURM_CI_CGROUP_CONF:-}" ]; then printf '%s\n' "$SLURM_CI_CGROUP_CONF" > "$T/etc/cgroup.conf"; fi

  if [ "$WITH_DBD" = 1 ]; then
    # slurmdbd has no -f: it reads slurmdbd.conf next to $SLURM_CONF (owner SlurmUser, 0600)
    cat > "$T/etc/slurmdbd.conf" <<EOF
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
PidFile=$T/run/slurmdbd.pid
LogFile=$T/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
EOF
    if [ "$WITH_RESTD" = 1 ]; then
      printf 'AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=%s\n' "$T/etc/jwt_hs256.key" >> "$T/etc/slurmdbd.conf"
    fi
    chmod 600 "$T/etc/slurmdbd.conf"
  fi
}

write_state() {
  cat > "$T/ci.state" <<EOF
P=$P
RESERVED=$RESERVED
NODES=$NODES
CLUSTER=$CLUSTER
SOCKDIR=$SOCKDIR
SOCKDIR_OWN=$SOCKDIR_OWN
WITH_DBD=$WITH_DBD
WITH_RESTD=$WITH_RESTD
EOF
  set_derived
  {
    echo "export SLURM_CI_DIR=$T"
    echo "export SLURM_CONF=$SLURM_CONF"
    echo "export MUNGE_SOCKET=$MUNGE_SOCKET"
    echo "export SLURM_CI_PORT_BASE=$P"
    echo "export SLURM_CI_CTLD_PORT=$CTLD_PORT"
    echo "export SLURM_CI_NODES=$NODES"
    echo "export SLURM_CI_CLUSTER=$CLUSTER"
    if [ "$WITH_DBD" = 1 ]; then
      echo "export SLURM_CI_DBD_PORT=$DBD_PORT"
      echo "export SLURM_CI_MYSQL_SOCKET=$SOCKDIR/mysqld.sock"
    fi
    if [ "$WITH_RESTD" = 1 ]; then echo "export SLURM_CI_RESTD=http://127.0.0.1:$RESTD_PORT"; fi
  } > "$T/env.sh"
}

set_derived() {
  DB_PORT=$((P + 0)) CTLD_PORT=$((P + 1)) DBD_PORT=$((P + 2)) RESTD_PORT=$((P + 3)) SLURMD_PORT0=$((P + 10))
  MUNGE_SOCKET=$SOCKDIR/munge.socket
}

# ---------------------------------------------------------------- daemons
start_munged() {
  # the socket dir must be executable by all; the key 0600 and owned by munged's user (root)
  mkdir -p "$T/munge" "$SOCKDIR"; chmod 755 "$T/munge" "$SOCKDIR"
  if [ ! -s "$T/munge/munge.key" ]; then
    mungekey --create --keyfile="$T/munge/munge.key" 2>/dev/null || head -c 1024 /dev/urandom > "$T/munge/munge.key"
  fi
  chmod 600 "$T/munge/munge.key"
  munged --key-file="$T/munge/munge.key" --socket="$MUNGE_SOCKET" --pid-file="$T/run/munged.pid" \
         --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" </dev/null >/dev/null 2>"$T/log/munged.err" 3>&- \
    || die "munged failed: $(cat "$T/log/munged.err")"
  wait_for 10 munged sh -c "munge -S '$MUNGE_SOCKET' -n | unmunge -S '$MUNGE_SOCKET'"
  log "munged up (pid $(hx_pid_of "$T/run/munged.pid"), socket $MUNGE_SOCKET)"
}

# A throwaway test database: no durability (no fsync), small redo log.
DB_OPTS=(--innodb-log-file-size=8M --innodb-flush-method=nosync --innodb-flush-log-at-trx-commit=0
         --innodb-doublewrite=0 --innodb-buffer-pool-size=64M --skip-name-resolve --skip-log-bin)
# mariadb-install-db is I/O bound (1-7 s on a busy machine): do it once per machine and MariaDB
# version into $SLURM_CI_CACHE (default /var/cache/slinky), then copy the datadir (~0.1 s).
db_template() {
  local cache=${SLURM_CI_CACHE:-/var/cache/slinky} ver tpl tmp
  ver=$(mariadbd --version 2>/dev/null | md5sum | cut -c1-12)
  tpl=$cache/mariadb-datadir-$ver
  if [ ! -e "$tpl/.ready" ]; then
    mkdir -p "$cache"
    exec 9>"$cache/mariadb-datadir.lock"; flock 9
    if [ ! -e "$tpl/.ready" ]; then
      tmp=$tpl.tmp.$$; rm -rf "$tmp"
      mariadb-install-db --no-defaults --datadir="$tmp" --user=root --auth-root-authentication-method=socket \
        --skip-test-db "${DB_OPTS[@]}" > "$T/log/mariadb-install.log" 2>&1 9>&- \
        || { rm -rf "$tmp"; die "mariadb-install-db failed: $(tail -5 "$T/log/mariadb-install.log")"; }
      touch "$tmp/.ready"; rm -rf "$tpl"; mv "$tmp" "$tpl"
    fi
    exec 9>&-
  fi
  echo "$tpl"
}

start_mariadb() {
  mkdir -p "$T/mysql"
  if [ ! -d "$T/mysql/data/mysql" ]; then
    local tpl; tpl=$(db_template)
    rm -rf "$T/mysql/data"; cp -a "$tpl" "$T/mysql/data"; rm -f "$T/mysql/data/.ready"
  fi
  # mariadbd stays in the foreground; its own pid file gives the pid
  mariadbd --no-defaults --datadir="$T/mysql/data" --socket="$SOCKDIR/mysqld.sock" \
    --port="$DB_PORT" --bind-address=127.0.0.1 --user=root --pid-file="$T/run/mysqld.pid" \
    --log-error="$T/log/mariadb.log" "${DB_OPTS[@]}" </dev/null >/dev/null 2>&1 3>&- &
  echo $! > "$T/run/mysqld.pid"          # mariadbd rewrites it with the same pid
  wait_daemon 60 mariadb "$T/run/mysqld.pid" "$T/log/mariadb.log" \
    mariadb-admin --no-defaults -S "$SOCKDIR/mysqld.sock" -uroot ping
  mariadb --no-defaults -S "$SOCKDIR/mysqld.sock" -uroot -e "
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';
    CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" || die "mariadb: cannot create the slurm user"
  log "mariadb up (pid $(hx_pid_of "$T/run/mysqld.pid"), port $DB_PORT)"
}

start_slurmdbd() {
  slurmdbd </dev/null >/dev/null 2>"$T/log/slurmdbd.err" 3>&- || die "slurmdbd refused to start: $(cat "$T/log/slurmdbd.err")"
  wait_daemon 60 slurmdbd "$T/run/slurmdbd.pid" "$T/log/slurmdbd.log" sacctmgr -n show cluster
  sacctmgr -i add cluster "$CLUSTER" >/dev/null 2>&1 || true
  log "slurmdbd up (pid $(hx_pid_of "$T/run/slurmdbd.pid"), port $DBD_PORT)"
}

# node_ready NODE: 0 when idle; dies at once when slurmctld rejected the node (INVAL/DRAIN/DOWN)
node_ready() {
  local st; st=$(sinfo -h -n "$1" -o '%t|%E' 2>/dev/null | head -1)
  case ${st%%|*} in
    idle) return 0 ;;
    inval|drain|drng|down) die "$1 is ${st%%|*}: ${st#*|} (see $T/log/slurmctld.log)" ;;
  esac
  return 1
}

start_restd() {
  id slurmrest >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin slurmrest
  [ -s "$T/etc/jwt_hs256.key" ] || { head -c 32 /dev/urandom > "$T/etc/jwt_hs256.key"; chmod 600 "$T/etc/jwt_hs256.key"; }
  # slurmrestd refuses root and needs SLURM_JWT=daemon for rest_auth/jwt; setpriv execs in
  # place, so $! is slurmrestd's own pid.
  setpriv --reuid=slurmrest --regid="$(id -g slurmrest)" --init-groups \
    env SLURM_CONF="$SLURM_CONF" SLURM_JWT=daemon \
    slurmrestd -a rest_auth/jwt "127.0.0.1:$RESTD_PORT" </dev/null >"$T/log/slurmrestd.log" 2>&1 3>&- &
  echo $! > "$T/run/slurmrestd.pid"
  local tok; tok=$(scontrol token username=root lifespan=300 | sed 's/^SLURM_JWT=//')
  wait_daemon 30 slurmrestd "$T/run/slurmrestd.pid" "$T/log/slurmrestd.log" \
    curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $tok" "http://127.0.0.1:$RESTD_PORT/slurm/v0.0.38/ping"
  log "slurmrestd up (pid $(hx_pid_of "$T/run/slurmrestd.pid"), http://127.0.0.1:$RESTD_PORT)"
}

up() {
  local p i
  for p in "$T"/run/*.pid; do
    if [ -e "$p" ] && hx_alive "$(hx_pid_of "$p")"; then
      echo "slurm-ci.sh up: $(basename "$p" .pid) of $T is still running; run 'down' first" >&2; exit 1
    fi
  done
  NODES=${SLURM_CI_NODES:-1}
  [[ "$NODES" =~ ^[0-9]+$ ]] && [ "$NODES" -ge 1 ] && [ "$NODES" -le 20 ] || { echo "SLURM_CI_NODES must be 1..20" >&2; exit 2; }
  CLUSTER=${SLURM_CI_CLUSTER:-ci}
  local pkgs=(slurmctld slurmd slurm-client munge)
  if [ "$WITH_DBD" = 1 ]; then pkgs+=(slurmdbd slurm-wlm-mysql-plugin mariadb-server); fi
  if [ "$WITH_RESTD" = 1 ]; then pkgs+=(slurmrestd slurm-wlm-jwt-plugin curl); fi
  hx_apt_install "${pkgs[@]}" || { echo "slurm-ci.sh: apt-get install failed" >&2; exit 1; }

  STARTED_UP=1
  trap 'die "failed at line $LINENO: $BASH_COMMAND"' ERR
  rm -f "$T"/run/*.pid
  rm -rf "$T/state" "$T/log"   # fresh controller state and logs every up (MariaDB data is kept)
  mkdir -p "$T"/{etc,state,log,run,munge}
  # UNIX sockets (munge, mysqld, slurmstepd under spool/) need paths < 108 bytes
  SOCKDIR=$(hx_sock_dir_for "$T"); SOCKDIR_OWN=0
  if [ "$SOCKDIR" != "$T/s" ]; then SOCKDIR_OWN=1; fi
  rm -rf "$SOCKDIR/spool"; mkdir -p "$SOCKDIR/spool"
  pick_ports
  write_state                             # so `down` works even if `up` fails half-way
  write_confs
  log "$(slurmctld -V), ports $P..$((P + 31)), $NODES node(s)$([ "$WITH_DBD" = 1 ] && echo ', dbd')$([ "$WITH_RESTD" = 1 ] && echo ', restd')"
  if [ "$WITH_RESTD" = 1 ] && [ ! -s "$T/etc/jwt_hs256.key" ]; then
    head -c 32 /dev/urandom > "$T/etc/jwt_hs256.key"; chmod 600 "$T/etc/jwt_hs256.key"
  fi
  start_munged
  if [ "$WITH_DBD" = 1 ]; then start_mariadb; start_slurmdbd; fi
  slurmctld -f "$SLURM_CONF" </dev/null >/dev/null 2>"$T/log/slurmctld.err" 3>&- \
    || die "slurmctld refused to start: $(grep -vE 'pmix|MPI' "$T/log/slurmctld.err" | head -5)"
  wait_daemon 30 slurmctld "$T/run/slurmctld.pid" "$T/log/slurmctld.log" scontrol ping
  log "slurmctld up (pid $(hx_pid_of "$T/run/slurmctld.pid"), port $CTLD_PORT)"
  for i in $(seq 1 "$NODES"); do
    slurmd -f "$SLURM_CONF" -N "node$i" </dev/null >/dev/null 2>"$T/log/slurmd-node$i.err" 3>&- \
      || die "slurmd node$i refused to start: $(grep -vE 'pmix|MPI' "$T/log/slurmd-node$i.err" | head -5)"
  done
  for i in $(seq 1 "$NODES"); do
    wait_daemon 30 "slurmd node$i" "$T/run/slurmd-node$i.pid" "$T/log/slurmd-node$i.log" node_ready "node$i"
  done
  log "slurmd up, $NODES node(s) idle"
  if [ "$WITH_RESTD" = 1 ]; then start_restd; fi
  STARTED_UP=0
  log "cluster ready"
  cat "$T/env.sh"
}

down_all() {
  local f
  load_state
  if [ -s "$T/run/slurmctld.pid" ] && hx_alive "$(hx_pid_of "$T/run/slurmctld.pid")"; then
    # job steps (slurmstepd) outlive slurmd: cancel jobs and let the queue drain first
    if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
      # shellcheck disable=SC2046  # job ids: split on purpose
      scancel --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
      local end=$((SECONDS + 15))
      while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
    fi
  fi
  f=$T/run/slurmrestd.pid; hx_stop_pid "$(hx_pid_of "$f")" slurmrestd; rm -f "$f"
  for f in "$T"/run/slurmd-*.pid; do
    if [ -e "$f" ]; then hx_stop_pid "$(hx_pid_of "$f")" "$(basename "$f" .pid)"; rm -f "$f"; fi
  done
  for f in slurmctld slurmdbd; do hx_stop_pid "$(hx_pid_of "$T/run/$f.pid")" $f; rm -f "$T/run/$f.pid"; done
  hx_stop_pid "$(hx_pid_of "$T/run/mysqld.pid")" mariadbd 60; rm -f "$T/run/mysqld.pid"
  hx_stop_pid "$(hx_pid_of "$T/run/munged.pid")" munged; rm -f "$T/run/munged.pid"
  hx_release_ports "${RESERVED:-}"
  if [ "${SOCKDIR_OWN:-0}" = 1 ] && [ -d "${SOCKDIR:-}" ]; then rm -rf "$SOCKDIR"; fi
  return 0
}

case $cmd in
  up) up ;;
  down) down_all; log "stopped" ;;
  env) if [ -s "$T/env.sh" ]; then cat "$T/env.sh"; else echo "slurm-ci.sh env: no cluster in $T" >&2; exit 1; fi ;;
  status) scontrol ping >/dev/null 2>&1 ;;
  *) echo "usage: slurm-ci.sh up [dbd] [restd] | down | env | status   (see the header for env knobs)" >&2; exit 2 ;;
esac
