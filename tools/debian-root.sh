#!/bin/sh
# debian-root.sh: print the path of a Debian 12 (bookworm) minbase root made by
# debootstrap once and cached in /var/cache/slinky/bookworm-pkgtest (gcc,
# libc6-dev, pkg-config and python3 included). Callers copy it; never change it.
# Needs root and deb.debian.org the first time.
set -eu
cache=/var/cache/slinky/bookworm-pkgtest
mkdir -p /var/cache/slinky
(
  flock 9
  if [ ! -e "$cache/.ready" ]; then
    rm -rf "$cache"
    debootstrap --variant=minbase --include=gcc,libc6-dev,pkg-config,python3 bookworm "$cache" \
      http://deb.debian.org/debian >"$cache.log" 2>&1 && touch "$cache/.ready"
  fi
) 9>/var/cache/slinky/bookworm-pkgtest.lock
[ -e "$cache/.ready" ] || { echo "debian-root.sh: debootstrap failed, see $cache.log" >&2; exit 1; }
echo "$cache"
