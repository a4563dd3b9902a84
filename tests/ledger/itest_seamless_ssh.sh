#!/usr/bin/env bash
# Seamless SSH for real: OpenSSH sshd on a free loopback port with the rendered
# login-pod fragment (AuthorizedKeysCommand = slinky-ledger-keys). A user added
# by slinky-user-add with a generated key logs in with `ssh -i` and `id -u`
# prints the ledger's uid; after the key is removed from the ledger the login
# is refused; with seamless off there is no login.
# sshd needs the user in the system passwd: it is created with useradd using
# the ledger's uid (password '*', as the POSIX sink writes) and removed after.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}
CTL=$B/tools/slinkyctl/slinkyctl
ADD=$B/tools/slinky-user-add/slinky-user-add
KEYS=$B/tools/slinky-ledger-keys/slinky-ledger-keys
U=lgsshuser
W=$(mktemp -d /tmp/ledger-ssh.XXXXXX)
chmod 755 "$W"           # the keys command runs as 'nobody' and reads the ledger
L=$W/ledger.git
SSHD_PID=
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; [ -f "$W/sshd.log" ] && tail -20 "$W/sshd.log" >&2; exit 1; }
stop_sshd() {
  if [ -n "$SSHD_PID" ]; then kill "$SSHD_PID" 2>/dev/null || true; wait "$SSHD_PID" 2>/dev/null || true; SSHD_PID=; fi
}
SAFE=
cleanup() { stop_sshd; userdel "$U" >/dev/null 2>&1 || true; rm -rf "$W"; [ -z "$SAFE" ] || rm -rf "$SAFE"; }
trap cleanup EXIT
[ -x /usr/sbin/sshd ] || die "openssh-server is not installed"
mkdir -p /run/sshd
# sshd refuses an AuthorizedKeysCommand below a group/world-writable directory
# (a build under /tmp is): run a copy from a root-owned 0755 folder, as an
# installed one would be (the tool is linked statically)
writable_parent() {
  local p=$1
  while p=$(dirname "$p"); [ "$p" != / ]; do
    [ $(( 0$(stat -c %a "$p") & 022 )) = 0 ] || return 0
  done
  return 1
}
if writable_parent "$KEYS"; then
  SAFE=$(mktemp -d /run/slinky-keys.XXXXXX); chmod 755 "$SAFE"
  cp "$KEYS" "$SAFE/"; KEYS=$SAFE/$(basename "$KEYS")
  ! writable_parent "$KEYS" || die "no safe folder for the AuthorizedKeysCommand ($KEYS)"
fi

"$CTL" ledger --ledger "$L" init --cluster ssh >/dev/null
ssh-keygen -q -t ed25519 -N '' -C "$U@test" -f "$W/id"
ssh-keygen -q -t ed25519 -N '' -f "$W/hostkey"
"$ADD" "$U" --ssh-key-file "$W/id.pub" --ledger "$L" > "$W/add.out"
uid=$(sed -n 's/.*"subject":"user\/'$U'","id":\([0-9]*\).*/\1/p' "$W/add.out")
[ -n "$uid" ] || die "no uid in: $(cat "$W/add.out")"
useradd -M -N -g 100 -u "$uid" -s /bin/sh "$U"
usermod -p '*' "$U"
ok "slinky-user-add recorded $U with uid $uid"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
start_sshd() {   # start_sshd FRAGMENT-ARGS...
  "$CTL" ledger sshd-config "$@" --keys-command "$KEYS --ledger $L %u" > "$W/fragment"
  { cat "$W/fragment"
    echo "ListenAddress 127.0.0.1"
    echo "HostKey $W/hostkey"
    echo "PidFile $W/sshd.pid"
    echo "UsePAM no"
    echo "LogLevel VERBOSE"
  } > "$W/sshd_config"
  for try in 1 2 3 4 5; do
    PORT=$(free_port)
    /usr/sbin/sshd -D -f "$W/sshd_config" -p "$PORT" -E "$W/sshd.log" &
    SSHD_PID=$!
    for _ in $(seq 50); do
      if [ -n "$(ss -ltnH "sport = :$PORT")" ]; then return 0; fi
      kill -0 "$SSHD_PID" 2>/dev/null || break
      sleep 0.1
    done
    stop_sshd
  done
  die "sshd did not start"
}
login() { ssh -i "$W/id" -p "$PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
  -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=10 -o LogLevel=ERROR "$U@127.0.0.1" "$@"; }

start_sshd --enable-seamless
grep -q "^Port 2222$" "$W/fragment" || die "fragment does not use the login pod port 2222"
grep -q "^AuthorizedKeysCommand $KEYS --ledger $L %u$" "$W/fragment" || die "fragment: $(cat "$W/fragment")"
got=$(login id -u) || die "login with the ledger key failed"
[ "$got" = "$uid" ] || die "id -u printed '$got', ledger uid is $uid"
ok "ssh -i logs in through the ledger; id -u = $got"

"$CTL" ledger --ledger "$L" apply "{\"kind\":\"key-remove\",\"name\":\"$U\",\"tag\":\"id\"}" >/dev/null
if login true 2>/dev/null; then die "login still works after the key was removed"; fi
ok "after key removal the login is refused"

# key back (slinky-user-add is idempotent and re-adds what is missing), then seamless off
out=$("$ADD" "$U" --ssh-key-file "$W/id.pub" --ledger "$L") || die "re-add: $out"
grep -q '"kind":"key-add"' <<<"$out" || die "re-add: $out"
login true || die "login with the re-added key failed"
stop_sshd
start_sshd
grep -q "^AuthorizedKeysCommand none$" "$W/fragment" || die "seamless-off fragment"
if login true 2>/dev/null; then die "login works with seamless off"; fi
ok "with seamless off there is no login"
"$CTL" ledger --ledger "$L" verify >/dev/null || die verify
echo "$pass passed"
