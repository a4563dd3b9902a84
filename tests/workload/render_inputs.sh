# render_inputs UPSTREAM_EXAMPLES DIR: the upstream example resources as the cluster would
# hand them out (a metadata.uid each) plus the Secrets they reference, one file each in DIR.
render_inputs() {
  local f n
  mkdir -p "$2"
  for f in controller nodeset loginset restapi accounting token; do
    # uid after the resource's own name (the first "  name:" line under metadata)
    awk -v u="uid-$f" '!done && /^  name: / {print; print "  uid: " u; done=1; next} {print}' "$1/$f.yaml" |
      sed -e 's/^  namespace: slurm$/  namespace: test-namespace/' -e 's/name: slurm-auth-jwt$/name: test-release-slurm-auth-jwt/' > "$2/$f.yaml"
  done
  cat > "$2/secrets.yaml" <<'YAML'
apiVersion: v1
kind: Secret
metadata: {name: test-release-slurm-auth-jwt, namespace: test-namespace, uid: uid-jwt}
data: {jwt.key: c2VjcmV0LWtleQ==}
---
apiVersion: v1
kind: Secret
metadata: {name: test-release-slurm-auth-slurm, namespace: test-namespace, uid: uid-slurm}
data: {slurm.key: c2VjcmV0LWtleQ==}
---
apiVersion: v1
kind: Secret
metadata: {name: mariadb-password, namespace: test-namespace, uid: uid-db}
stringData: {password: dbpass}
---
apiVersion: v1
kind: Secret
metadata: {name: test-release-slurm-sssd-conf, namespace: test-namespace, uid: uid-sssd}
stringData: {sssd.conf: "[sssd]\n"}
YAML
}
