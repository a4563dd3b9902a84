#!/bin/sh
# Start slinky-apiserver in the background for a test.
#   start-apiserver.sh DIR [extra server flags...]
# Writes DIR/token (fresh random token), DIR/admin-token (for /admin/faults
# when --enable-faults is given), DIR/port, DIR/kubeconfig (TLS, CA data,
# token, namespace "default"), DIR/ca.crt, DIR/pid and DIR/apiserver.log, and
# returns once /readyz answers. Stop it with stop-apiserver.sh DIR.
# The binary: $SLINKY_APISERVER_BIN, else $SLINKY_BUILD_DIR/apiserver/slinky-apiserver.
set -eu
dir=${1:?usage: start-apiserver.sh DIR [server flags...]}
shift
bin=${SLINKY_APISERVER_BIN:-${SLINKY_BUILD_DIR:-$(dirname "$0")/../../build}/apiserver/slinky-apiserver}
if [ ! -x "$bin" ]; then
    echo "start-apiserver.sh: no server binary at $bin (set SLINKY_APISERVER_BIN or SLINKY_BUILD_DIR)" >&2
    exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/port" "$dir/kubeconfig" "$dir/pid"
od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$dir/token"
echo >> "$dir/token"
od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$dir/admin-token"
echo >> "$dir/admin-token"
chmod 600 "$dir/token" "$dir/admin-token"
"$bin" --port 0 --port-file "$dir/port" --token-file "$dir/token" \
    --kubeconfig "$dir/kubeconfig" --ca-file "$dir/ca.crt" \
    --admin-token-file "$dir/admin-token" "$@" \
    > "$dir/apiserver.log" 2>&1 &
echo $! > "$dir/pid"
i=0
while :; do
    if [ -s "$dir/port" ] && [ -s "$dir/kubeconfig" ]; then
        port=$(cat "$dir/port")
        if curl -sf --cacert "$dir/ca.crt" "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 ||
           curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
            exit 0
        fi
    fi
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
        echo "start-apiserver.sh: the server exited:" >&2
        cat "$dir/apiserver.log" >&2
        exit 1
    fi
    i=$((i + 1))
    if [ $i -gt 200 ]; then
        echo "start-apiserver.sh: the server did not become ready in 20 s" >&2
        cat "$dir/apiserver.log" >&2
        exit 1
    fi
    sleep 0.1
done
