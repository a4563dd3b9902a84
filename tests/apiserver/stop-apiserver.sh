#!/bin/sh
# Stop a server started by start-apiserver.sh DIR (SIGTERM, then SIGKILL after 5 s).
set -u
dir=${1:?usage: stop-apiserver.sh DIR}
[ -s "$dir/pid" ] || exit 0
pid=$(cat "$dir/pid")
kill "$pid" 2>/dev/null || { rm -f "$dir/pid"; exit 0; }
i=0
while kill -0 "$pid" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 50 ]; then
        kill -9 "$pid" 2>/dev/null
        break
    fi
    sleep 0.1
done
rm -f "$dir/pid"
