#!/bin/sh
# deb-symbols.sh LIBRARY VERSION_SCRIPT VERSION: the libslinky0 symbols file
# (deb-symbols(5)): every exported symbol with the version node the version
# script gives it, minimal version VERSION.
set -eu
lib=$1 map=$2 ver=$3
node=$(sed -n 's/^\([A-Z0-9_.]*\) *{.*/\1/p' "$map" | tail -1)
echo "libslinky.so.0 libslinky0 #MINVER#"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRB]$/ {print $3}' | sed 's/@.*//' | grep '^slinky_' | sort -u |
  while read -r s; do printf ' %s@%s %s\n' "$s" "$node" "$ver"; done
