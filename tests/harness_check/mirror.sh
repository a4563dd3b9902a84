#!/usr/bin/env bash
# harness_check/mirror: slurm24.sh takes its Debian mirror from the machine's apt configuration
# (hx_debian_mirror), never from a host written into the project. Fake apt roots only: nothing
# is downloaded and the cached chroot is not touched.
set -uo pipefail
H=$(cd "$(dirname "$0")/../harness" && pwd)
. "$H/lib.sh"
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }
expect() { # what want got
  if [ "$3" = "$2" ]; then ok "$1"; else bad "$1 (want '$2', got '$3')"; fi
}
W=$(mktemp -d /tmp/mirror-check.XXXXXX)
trap 'rm -rf "$W"' EXIT
unset SLURM24_MIRROR

# deb822: the first URIs: wins (comments and the security entry after it do not)
mkdir -p "$W/a/etc/apt/sources.list.d"
cat > "$W/a/etc/apt/sources.list.d/debian.sources" <<'EOS'
Types: deb
# URIs: http://commented.invalid/debian
URIs: http://mirror-a.invalid/debian http://second.invalid/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://security-a.invalid/debian-security
Suites: bookworm-security
EOS
echo "deb http://list-a.invalid/debian bookworm main" > "$W/a/etc/apt/sources.list"
expect "debian.sources: first URIs:" "http://mirror-a.invalid/debian" "$(hx_debian_mirror "$W/a")"

# sources.list only: the first deb line (not deb-src, options skipped)
mkdir -p "$W/b/etc/apt"
cat > "$W/b/etc/apt/sources.list" <<'EOS'
# deb http://commented.invalid/debian bookworm main
deb-src http://src.invalid/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] https://proxy-b.invalid:3142/debian bookworm main
deb http://later.invalid/debian bookworm main
EOS
expect "sources.list: first deb line, options skipped" "https://proxy-b.invalid:3142/debian" "$(hx_debian_mirror "$W/b")"

# the environment overrides the apt configuration
expect "SLURM24_MIRROR overrides" "http://override.invalid/d" "$(SLURM24_MIRROR=http://override.invalid/d hx_debian_mirror "$W/a")"

# nothing configured: an error naming the override, no silent default
mkdir -p "$W/c/etc/apt"
if out=$(hx_debian_mirror "$W/c" 2>&1); then bad "no apt sources must fail (got '$out')"
elif echo "$out" | grep -q SLURM24_MIRROR; then ok "no apt sources: fails and names SLURM24_MIRROR"
else bad "no apt sources: message ($out)"; fi

# this machine: the mirror apt itself uses
if [ -r /etc/apt/sources.list.d/debian.sources ] || [ -r /etc/apt/sources.list ]; then
  m=$(hx_debian_mirror) && [ -n "$m" ] && ok "this machine's mirror: $m" || bad "this machine's mirror"
fi

# no mirror host is written into the harness (only loopback URLs)
hosts=$(grep -hoE 'https?://[^/[:space:]"$]+' "$H"/*.sh "$H"/README.md "$(dirname "$0")"/*.sh "$(dirname "$0")"/tests.cmake |
  grep -vE '^https?://(127\.0\.0\.1|localhost)(:|$)' | grep -v '\.invalid' | sort -u)
hosts+=$(grep -lE 'debian\.org|ubuntu\.com' "$H"/*.sh "$H"/README.md "$(dirname "$0")"/*.sh "$(dirname "$0")"/tests.cmake)
if [ -z "$hosts" ]; then ok "no mirror host written in tests/harness or tests/harness_check"; else bad "hosts written in the harness: $hosts"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
