#!/bin/bash
# tools/install: `cmake --install` into a fresh prefix gives a tree that works
# where it lands and names nothing of the build: programs and the Python module
# carry RUNPATH $ORIGIN/.. (no RPATH, never a build path), the library none; the
# programs and the module run with no LD_LIBRARY_PATH; no installed file
# contains the build or source folder; `slinkyctl ledger sshd-config` names the
# installed slinky-ledger-keys; the SPANK plugin sits in the folder the
# installed slurmd loads plugins from (relative to the prefix).
# usage: install.sh BUILD_DIR   (a fully built tree; env SLINKY_SOURCE_DIR)
set -u
build=$(cd "${1:?usage: install.sh BUILD_DIR}" && pwd)
src=$(cd "${SLINKY_SOURCE_DIR:?}" && pwd)
W=$(mktemp -d /tmp/slinky-install.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$W/prefix
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
cmake --install "$build" --prefix "$P" >"$W/install.log" 2>&1 || { echo "FAIL - cmake --install: $(tail -5 "$W/install.log")"; exit 1; }

n=0
while IFS= read -r f; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  n=$((n + 1))
  rel=${f#"$P"/}
  dyn=$(readelf -d "$f" 2>/dev/null)
  rpath=$(echo "$dyn" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
  runpath=$(echo "$dyn" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  [ -n "$rpath" ] && bad "$rel has an RPATH ($rpath)"
  case $rel in
    bin/*|*/python3/dist-packages/slinky/_native*.so)
      if ! echo "$dyn" | grep -q 'NEEDED.*libslinky'; then
        continue # statically linked (slinky-jail): nothing to find
      fi
      case $runpath in
        '$ORIGIN/'*) target=$(dirname "$f")/${runpath#\$ORIGIN/}
          [ -e "$target/libslinky.so.0" ] && ok "$rel: RUNPATH $runpath finds libslinky.so.0" \
            || bad "$rel: RUNPATH $runpath does not lead to libslinky.so.0" ;;
        *) bad "$rel: RUNPATH '$runpath', want \$ORIGIN/..." ;;
      esac ;;
    *libslinky.so*)
      [ -z "$runpath" ] && ok "$rel: no RUNPATH" || bad "$rel: RUNPATH $runpath" ;;
  esac
done < <(find "$P" -type f)
[ $n -gt 0 ] || bad "no ELF files installed"

# the programs and the module work from the tree alone
env -u LD_LIBRARY_PATH "$P/bin/slinkyctl" --version >"$W/out" 2>&1 && ok "installed slinkyctl runs: $(cat "$W/out")" \
  || bad "installed slinkyctl: $(cat "$W/out")"
pydir=$(dirname "$(find "$P" -path '*/dist-packages/slinky/__init__.py' | head -1)")
if [ -d "$pydir" ]; then
  env -u LD_LIBRARY_PATH PYTHONPATH="$(dirname "$pydir")" /usr/bin/python3 -c 'import slinky; print(slinky.version())' >"$W/out" 2>&1 \
    && ok "installed Python module imports: $(cat "$W/out")" || bad "python import: $(cat "$W/out")"
else
  echo "skip - no Python module installed"
fi

# nothing installed names the build or source folder
hits=$(grep -rlaF -e "$build" "$P" 2>/dev/null; grep -rlaF -e "$src/" "$P" 2>/dev/null)
[ -z "$hits" ] && ok "no build or source path in $(find "$P" -type f | wc -l) installed files" \
  || bad "build/source paths in: $(echo "$hits" | sed "s|$P/||" | sort -u | paste -sd' ')"

# generated config: the keys command of the installed tree
"$P/bin/slinkyctl" ledger sshd-config --enable-seamless >"$W/out" 2>&1
grep -q "^AuthorizedKeysCommand $P/bin/slinky-ledger-keys " "$W/out" && ok "sshd-config names $P/bin/slinky-ledger-keys" \
  || bad "sshd-config: $(grep -i keyscommand "$W/out")"

# the SPANK plugin: where this host's slurmd loads plugins from
if command -v slurmd >/dev/null && [ -n "$(find "$P" -name slinky_jail.so)" ]; then
  sbin=$(dirname "$(command -v slurmd)")
  sprefix=$(dirname "$sbin")
  plugdir=$(grep -aoE '/[^[:space:][:cntrl:]]*slurm[^[:space:][:cntrl:]]*' "$(command -v slurmd)" | sort -u |
    while read -r d; do [ -e "$d/auth_munge.so" ] && echo "$d"; done | head -1)
  want=$P/${plugdir#"$sprefix"/}/slinky_jail.so
  [ -n "$plugdir" ] && [ -e "$want" ] && ok "SPANK plugin in PluginDir ${plugdir} (under the prefix)" \
    || bad "SPANK plugin at $(find "$P" -name slinky_jail.so), want $want"
fi
exit $fail
