#!/bin/sh
# Test credential plugin: counts its runs in $COUNT_FILE, prints an
# ExecCredential whose token names the run and that expires after
# $EXPIRE_SECONDS (none when unset). Checks KUBERNETES_EXEC_INFO and args.
n=$(cat "$COUNT_FILE" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$COUNT_FILE"
case "$KUBERNETES_EXEC_INFO" in
  *'"kind":"ExecCredential"'*) ;;
  *) echo "no KUBERNETES_EXEC_INFO" >&2; exit 3 ;;
esac
[ "$1" = "--flag" ] || { echo "missing --flag argument" >&2; exit 4; }
[ "$PLUGIN_ENV" = "from-kubeconfig" ] || { echo "missing PLUGIN_ENV" >&2; exit 5; }
if [ -n "$EXPIRE_SECONDS" ]; then
  exp=$(date -u -d "@$(( $(date +%s) + EXPIRE_SECONDS ))" +%Y-%m-%dT%H:%M:%SZ)
  printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"run-%s","expirationTimestamp":"%s"}}\n' "$n" "$exp"
else
  printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"run-%s"}}\n' "$n"
fi
