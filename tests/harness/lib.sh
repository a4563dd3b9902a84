# shellcheck shell=bash
# lib.sh -- helpers shared by slurm-ci.sh, slurm-validate.sh and slurm24.sh (sourced, not run).
#
# Port blocks: a caller asks for COUNT consecutive TCP ports below the kernel's ephemeral range.
# A block is claimed by an atomic mkdir under $SLURM_CI_PORT_DIR (default /tmp/slurm-ci-ports)
# recording its owner, and is only handed out if no listening socket uses any of its ports.
# So parallel clusters and validations on one machine never pick the same block, even before
# their daemons bind.

SLURM_CI_PORT_DIR=${SLURM_CI_PORT_DIR:-/tmp/slurm-ci-ports}

# hx_close_fds: close every inherited fd above 2, so daemons started later do not hold the
# caller's pipes open (a CI runner or `$(...)` waiting for EOF would hang until `down`).
hx_close_fds() {
  local f n
  for f in /proc/$$/fd/*; do
    n=${f##*/}
    case $n in 0|1|2|255) ;; *) if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-" 2>/dev/null || true; fi ;; esac
  done
}

# alive PID: exists and is not a zombie (kill -0 also succeeds on zombies; this init reaps late)
hx_alive() { [ -n "${1:-}" ] && [ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
hx_pid_of() { if [ -s "$1" ]; then tr -dc '0-9' < "$1"; fi; }

# hx_ports_free BASE COUNT: no listening TCP socket on BASE..BASE+COUNT-1
hx_ports_free() {
  local b=$1 n=$2
  ! ss -ltnH 2>/dev/null | awk -v lo="$b" -v hi="$((b + n - 1))" '
      { p = $4; sub(/.*:/, "", p); p += 0; if (p >= lo && p <= hi) { found = 1 } }
      END { exit !found }'
}

# A reservation is stale when its owner is gone: the owner file names a pid (a validation)
# or a cluster dir whose run/*.pid are all dead, and it is older than 60 s (time to start up).
hx_reservation_stale() {
  local r=$1 owner pid f age
  owner=$(cat "$r/owner" 2>/dev/null || true)
  age=$(( $(date +%s) - $(stat -c %Y "$r" 2>/dev/null || echo 0) ))
  [ "$age" -gt 60 ] || return 1
  case $owner in
    pid:*) pid=${owner#pid:}; ! hx_alive "$pid" ;;
    dir:*) for f in "${owner#dir:}"/run/*.pid; do
             if [ -e "$f" ] && hx_alive "$(hx_pid_of "$f")"; then return 1; fi
           done; return 0 ;;
    *) return 0 ;;
  esac
}

# hx_reserve_ports COUNT OWNER [LO HI]: print a free base (multiple of COUNT rounded to 8)
# and claim it; OWNER is "dir:/path" or "pid:N". Returns 1 after many failed attempts.
hx_reserve_ports() {
  local n=$1 owner=$2 lo=${3:-20000} hi=${4:-32000} step base r
  step=$(( (n + 7) / 8 * 8 ))
  mkdir -p "$SLURM_CI_PORT_DIR"; chmod 1777 "$SLURM_CI_PORT_DIR" 2>/dev/null || true
  for _ in $(seq 1 200); do
    base=$(( lo + (RANDOM * 32768 + RANDOM) % ((hi - lo - n) / step) * step ))
    r=$SLURM_CI_PORT_DIR/$base
    if [ -d "$r" ]; then
      if hx_reservation_stale "$r"; then rm -rf "$r"; else continue; fi
    fi
    hx_ports_free "$base" "$step" || continue
    mkdir "$r" 2>/dev/null || continue          # atomic: another process won the race
    echo "$owner" > "$r/owner"; echo "$n" > "$r/count"
    echo "$base"; return 0
  done
  return 1
}

# hx_release_ports BASE: drop a reservation (only if it exists)
hx_release_ports() { if [ -n "${1:-}" ] && [ -d "$SLURM_CI_PORT_DIR/$1" ]; then rm -rf "${SLURM_CI_PORT_DIR:?}/$1"; fi; }

# hx_stop_pid PID NAME [SECONDS]: TERM, wait, KILL as a last resort -- by pid, never by name
hx_stop_pid() {
  local p=$1 name=$2 t=${3:-30} end
  hx_alive "$p" || return 0
  kill -TERM "$p" 2>/dev/null || true
  end=$((SECONDS + t))
  while hx_alive "$p"; do
    if [ $SECONDS -ge $end ]; then
      echo "[harness] $name (pid $p) ignored TERM for ${t}s; KILL" >&2
      kill -KILL "$p" 2>/dev/null || true; sleep 0.3; break
    fi
    sleep 0.05
  done
}

# hx_apt_install PKG...: install the missing ones (no services started: policy-rc.d exit 101)
hx_apt_install() {
  local missing="" p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=" $p"
  done
  [ -z "$missing" ] && return 0
  echo "[harness] apt-get install$missing" >&2
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
  fi
  # shellcheck disable=SC2086
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
         -o DPkg::Lock::Timeout=600 $missing >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o DPkg::Lock::Timeout=600 $missing >/dev/null || return 1
  fi
}

# hx_short_dir DIR: a directory for UNIX sockets whose paths stay under the 108-byte limit.
# DIR/s when DIR is short, else a fresh /tmp/hxs.XXXXXX (the caller records and removes it).
hx_sock_dir_for() {
  if [ ${#1} -le 70 ]; then echo "$1/s"; else mktemp -d /tmp/hxs.XXXXXX; fi
}

# hx_debian_mirror [ROOT]: the Debian mirror this machine's apt already uses, for debootstrap:
# $SLURM24_MIRROR when set, else the first `URIs:` of ROOT/etc/apt/sources.list.d/debian.sources
# (deb822), else the first `deb` line's URI in ROOT/etc/apt/sources.list. Prints it; returns 1
# (message on stderr) when none is found. Sites with their own mirror or proxy work unchanged.
hx_debian_mirror() {
  local root=${1:-} m=
  if [ -n "${SLURM24_MIRROR:-}" ]; then echo "$SLURM24_MIRROR"; return 0; fi
  if [ -r "$root/etc/apt/sources.list.d/debian.sources" ]; then
    m=$(awk 'tolower($1) == "uris:" && NF >= 2 { print $2; exit }' "$root/etc/apt/sources.list.d/debian.sources")
  fi
  if [ -z "$m" ] && [ -r "$root/etc/apt/sources.list" ]; then
    # deb [options] URI suite components; options may hold spaces inside the brackets
    m=$(sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' "$root/etc/apt/sources.list" | head -n 1)
  fi
  if [ -z "$m" ]; then
    echo "no Debian mirror in $root/etc/apt/sources.list.d/debian.sources or $root/etc/apt/sources.list; set SLURM24_MIRROR" >&2
    return 1
  fi
  echo "$m"
}
