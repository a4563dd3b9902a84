#!/usr/bin/env bash
# tools/deps.sh: install the Debian packages listed in .ci/packages.txt that are
# missing (apt-get; needs root). kubectl: the machine image ships 1.32 at
# /usr/bin/kubectl; a plain Debian 12 gets Debian's kubernetes-client instead.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
missing=()
while read -r p; do
  p=${p%%#*}; p=${p// /}
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done < "$src/.ci/packages.txt"
command -v kubectl >/dev/null || missing+=(kubernetes-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  # no service may start from a postinst (there is no systemd here)
  [ -e /usr/sbin/policy-rc.d ] || { printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; }
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
