# tests/jail/lib.sh -- sourced by the jail tests and bench/jail: a private test root.
#
# jail_test_root W U: the job user U (created if missing) and W/{home/U, shared, local,
# scratch} with a marker in W/home/U/marker ("marker-$$") and W/shared/data ("dataset").
# jail_test_spec W FILE [LINES]: a spec (host root read-only) binding those folders at
# /home, /shared (read-only), /local, a per-job /tmp, /proc; LINES (YAML, top level) are
# appended. Sets jail_uid.
jail_test_root() {
  local w=$1 u=$2
  local try
  for try in 1 2 3 4 5 6 7 8 9 10; do  # other tests may be adding users at the same time
    id "$u" >/dev/null 2>&1 && break
    useradd -M -s /bin/sh "$u" 2>/dev/null && break
    sleep 0.3
  done
  jail_uid=$(id -u "$u")
  chmod 755 "$w"
  mkdir -p "$w/home/$u" "$w/shared" "$w/local" "$w/scratch"
  chown "$u:" "$w/home/$u"
  chmod 1777 "$w/local"
  echo "marker-$$" > "$w/home/$u/marker"
  echo dataset > "$w/shared/data"
}

jail_test_spec() {
  local w=$1 file=$2 extra=${3:-}
  cat > "$file" <<EOS
kind: JailSpec
root: {path: /, readOnly: true}
scratch: $w/scratch
mounts:
  - {type: bind, source: $w/home, destination: /home}
  - {type: bind, source: $w/shared, destination: /shared, readOnly: true}
  - {type: bind, source: $w/local, destination: /local}
  - {type: bind, source: tmp, destination: /tmp, lifetime: job}
  - {type: proc, destination: /proc}
EOS
  if [ -n "$extra" ]; then printf '%s\n' "$extra" >> "$file"; fi
}
