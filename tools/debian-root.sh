#!/usr/bin/env bash
# debian-root.sh: print the path of a Debian 12 (bookworm) minbase root made by
# debootstrap once and cached in /var/cache/slinky/bookworm-pkgtest (gcc,
# libc6-dev, pkg-config and python3 included). Callers copy it; never change it.
# Needs root the first time, and the Debian mirror this machine's apt already
# uses (tests/harness/lib.sh hx_debian_mirror; SLURM24_MIRROR overrides it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/harness/lib.sh
. "$here/../tests/harness/lib.sh"
cache=/var/cache/slinky/bookworm-pkgtest
mkdir -p /var/cache/slinky
(
  flock 9
  if [ ! -e "$cache/.ready" ]; then
    mirror=$(hx_debian_mirror) || exit 1
    rm -rf "$cache"
    debootstrap --variant=minbase --include=gcc,libc6-dev,pkg-config,python3 bookworm "$cache" \
      "$mirror" >"$cache.log" 2>&1 && touch "$cache/.ready"
  fi
) 9>/var/cache/slinky/bookworm-pkgtest.lock
[ -e "$cache/.ready" ] || { echo "debian-root.sh: debootstrap failed, see $cache.log" >&2; exit 1; }
echo "$cache"
