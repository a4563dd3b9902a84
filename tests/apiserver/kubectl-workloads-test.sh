#!/bin/bash
# Integration test: the built-in workload kinds (apps/v1, policy/v1 PDB, v1
# Endpoints/Node/PVC) with Kubernetes 1.32's defaults, required and immutable
# fields, their scale subresource, and garbage collection in the three
# `kubectl delete --cascade` modes, driven by the real kubectl 1.32.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
cleanup() {
    "$here/stop-apiserver.sh" "$tmp/srv"
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
"$here/start-apiserver.sh" "$tmp/srv"
export KUBECONFIG=$tmp/srv/kubeconfig
K() { /usr/bin/kubectl --cache-dir "$tmp/cache" "$@"; }
jp() { K get "$1" "$2" -o "jsonpath=$3"; }
# refused: the command fails and its message has the text
refused() {
    local want=$1; shift
    if "$@" > "$tmp/out" 2>&1; then cat "$tmp/out"; fail "accepted: $*"; fi
    grep -qF -- "$want" "$tmp/out" || { cat "$tmp/out"; fail "no '$want' in the error of: $*"; }
}

workload() { # kind name [selector-label [template-label]]
    cat <<YAML
apiVersion: apps/v1
kind: $1
metadata:
  name: $2
spec:
  selector:
    matchLabels: {app: ${3:-$2}}
  template:
    metadata:
      labels: {app: ${4:-${3:-$2}}}
    spec:
      containers:
      - name: main
        image: registry.local/app:1.0
        ports: [{containerPort: 8080}]
      - name: side
        image: registry.local/side
YAML
}

step "StatefulSet: created with the 1.32 defaults"
workload StatefulSet web | K apply -f -
[ "$(jp sts web '{.spec.replicas} {.spec.podManagementPolicy} {.spec.revisionHistoryLimit}')" = "1 OrderedReady 10" ] || fail "sts spec defaults"
[ "$(jp sts web '{.spec.updateStrategy.type} {.spec.updateStrategy.rollingUpdate.partition}')" = "RollingUpdate 0" ] || fail "sts updateStrategy"
[ "$(jp sts web '{.spec.persistentVolumeClaimRetentionPolicy.whenDeleted}/{.spec.persistentVolumeClaimRetentionPolicy.whenScaled}')" = "Retain/Retain" ] || fail "sts pvc policy"
t='{.spec.template.spec.restartPolicy} {.spec.template.spec.dnsPolicy} {.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.schedulerName}'
[ "$(jp sts web "$t")" = "Always ClusterFirst 30 default-scheduler" ] || fail "pod template defaults: $(jp sts web "$t")"
c='{.spec.template.spec.containers[*].imagePullPolicy} {.spec.template.spec.containers[0].terminationMessagePath} {.spec.template.spec.containers[0].ports[0].protocol}'
[ "$(jp sts web "$c")" = "IfNotPresent Always /dev/termination-log TCP" ] || fail "container defaults: $(jp sts web "$c")"
[ "$(jp sts web '{.metadata.generation}')" = 1 ] || fail "generation"

step "StatefulSet: kubectl scale (the scale subresource) bumps the generation"
K scale statefulset web --replicas 5
[ "$(jp sts web '{.spec.replicas} {.metadata.generation}')" = "5 2" ] || fail "scale"
K get --raw /apis/apps/v1/namespaces/default/statefulsets/web/scale | grep -q '"replicas":5' || fail "GET scale"

step "StatefulSet: only replicas/template/updateStrategy/... may change"
refused "updates to statefulset spec for fields other than" K patch sts web --type merge -p '{"spec":{"serviceName":"other"}}'
K patch sts web --type merge -p '{"spec":{"minReadySeconds":3}}' >/dev/null

step "Deployment and ReplicaSet: defaults, scale, immutable selector"
workload Deployment api | K apply -f -
[ "$(jp deploy api '{.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} {.spec.strategy.rollingUpdate.maxUnavailable} {.spec.progressDeadlineSeconds} {.spec.revisionHistoryLimit}')" = "RollingUpdate 25% 25% 600 10" ] || fail "deployment defaults"
K scale deployment api --replicas 3
[ "$(jp deploy api '{.spec.replicas}')" = 3 ] || fail "deployment scale"
refused "spec.selector: Invalid value" K patch deploy api --type merge -p '{"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}}}}}'
workload ReplicaSet rs1 | K apply -f -
[ "$(jp rs rs1 '{.spec.replicas}')" = 1 ] || fail "rs replicas"

step "DaemonSet defaults; kubectl get all lists the workloads"
workload DaemonSet agent | K apply -f -
[ "$(jp ds agent '{.spec.updateStrategy.rollingUpdate.maxUnavailable} {.spec.updateStrategy.rollingUpdate.maxSurge} {.spec.revisionHistoryLimit}')" = "1 0 10" ] || fail "ds defaults"
K get all > "$tmp/all"
for n in statefulset.apps/web deployment.apps/api replicaset.apps/rs1 daemonset.apps/agent; do
    grep -q "$n" "$tmp/all" || { cat "$tmp/all"; fail "get all: $n"; }
done

step "refused as kube-apiserver refuses them, with its field paths"
workload Deployment nosel | sed '/^  selector:/,/matchLabels/d' > "$tmp/nosel.yaml"
refused "spec.selector: Required value" K apply -f "$tmp/nosel.yaml"
workload Deployment mism a b | K apply -f - > "$tmp/out" 2>&1 && fail "mismatched labels accepted"
grep -qF '`selector` does not match template `labels`' "$tmp/out" || { cat "$tmp/out"; fail "mismatch message"; }
workload StatefulSet noimg | sed 's/^        image: registry.local\/side$//' | sed '/^$/d' > "$tmp/noimg.yaml"
refused "spec.template.spec.containers[1].image: Required value" K apply -f "$tmp/noimg.yaml"
workload Deployment never | sed 's/    spec:$/    spec:\n      restartPolicy: Never/' > "$tmp/never.yaml"
refused 'spec.template.spec.restartPolicy: Unsupported value: "Never"' K apply -f "$tmp/never.yaml"

step "PodDisruptionBudget, PersistentVolumeClaim, Endpoints, Node"
cat <<YAML | K apply -f -
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
YAML
[ "$(jp pdb web-pdb '{.spec.minAvailable}')" = 2 ] || fail "pdb"
refused "minAvailable and maxUnavailable cannot be both set" K patch pdb web-pdb --type merge -p '{"spec":{"maxUnavailable":1}}'
cat <<YAML | K apply -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
YAML
[ "$(jp pvc data '{.spec.volumeMode} {.status.phase}')" = "Filesystem Pending" ] || fail "pvc defaults"
refused "spec: Forbidden: spec is immutable after creation" K patch pvc data --type merge -p '{"spec":{"accessModes":["ReadWriteMany"]}}'
refused "spec.accessModes: Required value" K create -f - <<YAML
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: bad}
spec: {resources: {requests: {storage: 1Gi}}}
YAML
cat <<YAML | K apply -f -
apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets: [{addresses: [{ip: 10.0.0.5}], ports: [{port: 80}]}]
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
YAML
[ "$(jp endpoints web '{.subsets[0].ports[0].protocol}')" = TCP ] || fail "endpoints protocol"
K get nodes node-1 >/dev/null
K get node node-1 -n other-namespace >/dev/null  # cluster-scoped

step "batch/v1 Job and CronJob: defaults, generated selector, restartPolicy, schedule"
# (kubectl create job/cronjob send protobuf, which the server reads for four kinds only)
K create -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox:1.36}]}}}
YAML
[ "$(jp job once '{.spec.completions} {.spec.parallelism} {.spec.backoffLimit} {.spec.completionMode} {.spec.suspend} {.spec.podReplacementPolicy}')" = "1 1 6 NonIndexed false TerminatingOrFailed" ] || fail "job defaults: $(jp job once '{.spec}')"
juid=$(jp job once '{.metadata.uid}')
[ "$(jp job once '{.spec.selector.matchLabels.batch\.kubernetes\.io/controller-uid}')" = "$juid" ] || fail "job selector"
[ "$(jp job once '{.spec.template.metadata.labels.job-name} {.spec.template.spec.restartPolicy}')" = "once Never" ] || fail "job template labels"
refused "spec.completions: Invalid value" K patch job once --type merge -p '{"spec":{"completions":3}}'
refused 'spec.template.spec.restartPolicy: Unsupported value: "Always"' K create -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: always}
spec: {template: {spec: {containers: [{name: c, image: busybox:1.36}]}}}
YAML
K create -f - <<YAML
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox:1.36}]}}}
YAML
[ "$(jp cronjob nightly '{.spec.concurrencyPolicy} {.spec.suspend} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit}')" = "Allow false 3 1" ] || fail "cronjob defaults"
[ "$(jp cronjob nightly '{.spec.jobTemplate.spec.backoffLimit}')" = 6 ] || fail "cronjob job template defaults"
refused "spec.schedule: Required value" K patch cronjob nightly --type merge -p '{"spec":{"schedule":""}}'

step "kubectl drain evicts through pods/eviction and honours the budget"
cat <<YAML | K apply -f -
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
apiVersion: v1
kind: Pod
metadata: {name: dr-1, labels: {app: dr}}
spec:
  nodeName: node-2
  containers: [{name: c, image: busybox:1.36}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: dr-pdb}
spec: {minAvailable: 1, selector: {matchLabels: {app: dr}}}
YAML
if K drain node-2 --force --timeout=4s > "$tmp/drain" 2>&1; then cat "$tmp/drain"; fail "drain ignored the budget"; fi
grep -q "disruption budget" "$tmp/drain" || { cat "$tmp/drain"; fail "drain: no budget message"; }
K get pod dr-1 >/dev/null || fail "the budget did not keep the pod"
K delete pdb dr-pdb
K drain node-2 --force --timeout=30s > "$tmp/drain" 2>&1 || { cat "$tmp/drain"; fail "drain"; }
grep -q 'evicted' "$tmp/drain" || { cat "$tmp/drain"; fail "drain did not evict"; }
K get pod dr-1 2>/dev/null && fail "drained pod still there"
[ "$(jp node node-2 '{.spec.unschedulable}')" = true ] || fail "node not cordoned"

step "Services: ClusterIP and NodePort allocation, defaults, immutable cluster IP"
svc() { # name type [nodePort] [clusterIP]
    cat <<YAML
apiVersion: v1
kind: Service
metadata: {name: $1}
spec:
  type: $2
  ${4:+clusterIP: $4}
  selector: {app: web}
  ports: [{name: http, port: 80${3:+, nodePort: $3}}]
YAML
}
svc a ClusterIP | K apply -f -
svc b NodePort | K apply -f -
ipa=$(jp svc a '{.spec.clusterIP}'); ipb=$(jp svc b '{.spec.clusterIP}')
case $ipa in 10.9[6-9].*|10.1[01][0-9].*) ;; *) fail "cluster IP $ipa not in 10.96.0.0/12" ;; esac
[ "$ipa" != "$ipb" ] || fail "two services got $ipa"
[ "$(jp svc a '{.spec.clusterIPs[0]} {.spec.sessionAffinity} {.spec.ports[0].protocol} {.spec.ports[0].targetPort} {.spec.internalTrafficPolicy} {.spec.ipFamilies[0]}')" = "$ipa None TCP 80 Cluster IPv4" ] || fail "service defaults: $(jp svc a '{.spec}')"
np=$(jp svc b '{.spec.ports[0].nodePort}')
[ "$np" -ge 30000 ] && [ "$np" -le 32767 ] || fail "node port $np"
[ "$(jp svc b '{.spec.externalTrafficPolicy}')" = Cluster ] || fail "externalTrafficPolicy"
refused "provided port is already allocated" bash -c "$(declare -f svc K); svc c NodePort $np | K apply -f -"
refused "provided port is not in the valid range" bash -c "$(declare -f svc K); svc c NodePort 80 | K apply -f -"
refused "provided IP is already allocated" bash -c "$(declare -f svc K); svc c ClusterIP '' $ipa | K apply -f -"
refused "may not change once set" K patch svc a --type merge -p '{"spec":{"clusterIP":"10.96.200.200","clusterIPs":["10.96.200.200"]}}'
K patch svc b --type merge -p '{"spec":{"ports":[{"name":"http","port":80}]}}' >/dev/null
[ "$(jp svc b '{.spec.ports[0].nodePort}')" = "$np" ] || fail "node port not kept on update"
refused "spec.ports: Required value" K create -f - <<YAML
apiVersion: v1
kind: Service
metadata: {name: noports}
spec: {selector: {app: web}}
YAML

step "more built-in kinds: PV, RC, LimitRange, ResourceQuota, RBAC, NetworkPolicy, Ingress, StorageClass, PriorityClass, HPA v2, APIService, EndpointSlice"
cat <<YAML | K apply -f -
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/pv1}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc1}
spec:
  template:
    metadata: {labels: {app: rc1}}
    spec: {containers: [{name: c, image: busybox:1.36}]}
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr}
spec: {limits: [{type: Container, default: {cpu: 500m}}]}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq}
spec: {hard: {pods: "10"}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: ServiceAccount, name: default, namespace: default}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: all-reader}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: [get]}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np}
spec: {podSelector: {}, egress: [{}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}]}}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/fast
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}, maxReplicas: 5}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec: {group: metrics.k8s.io, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.5]}]
ports: [{port: 80}]
YAML
[ "$(jp pv pv1 '{.spec.persistentVolumeReclaimPolicy} {.spec.volumeMode} {.status.phase}')" = "Retain Filesystem Pending" ] || fail "pv defaults"
[ "$(jp rc rc1 '{.spec.replicas} {.spec.selector.app} {.metadata.labels.app}')" = "1 rc1 rc1" ] || fail "rc defaults"
K scale rc rc1 --replicas 2 >/dev/null
[ "$(jp netpol np '{.spec.policyTypes[*]}')" = "Ingress Egress" ] || fail "netpol policyTypes"
[ "$(jp sc fast '{.reclaimPolicy} {.volumeBindingMode}')" = "Delete Immediate" ] || fail "storageclass defaults"
[ "$(jp pc high '{.preemptionPolicy}')" = PreemptLowerPriority ] || fail "priorityclass default"
[ "$(jp hpa api '{.spec.minReplicas} {.spec.metrics[0].resource.name} {.spec.metrics[0].resource.target.averageUtilization}')" = "1 cpu 80" ] || fail "hpa defaults"
K get apiservice v1beta1.metrics.k8s.io >/dev/null
K get endpointslices web-1 >/dev/null
refused "roleRef: Invalid value: cannot change roleRef" K patch rolebinding reader --type merge -p '{"roleRef":{"name":"other"}}'
refused "pathType must be specified" K create -f - <<YAML
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad}
spec: {rules: [{http: {paths: [{path: /, backend: {service: {name: a, port: {number: 80}}}}]}}]}
YAML
refused "Required value: must specify a volume type" K create -f - <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: bad}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}
YAML
refused "spec.maxReplicas: Invalid value: 0" K patch hpa api --type merge -p '{"spec":{"maxReplicas":0}}'
refused "value: Forbidden: may not be changed in an update" K patch pc high --type merge -p '{"value":5}'
refused "provisioner: Required value" K create -f - <<YAML
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: bad}
YAML

step "ServiceAccount tokens: kubectl create token, then the token authenticates"
K create serviceaccount builder
tok=$(K create token builder --duration=20m)
K --token="$tok" get configmaps >/dev/null || fail "the minted token was refused"
refused "Unauthorized" K --token="slinky-sa.0000" get configmaps
refused "may not specify a duration less than 10 minutes" K create token builder --duration=1m
refused 'serviceaccounts "nobody" not found' K create token nobody
K delete serviceaccount builder
refused "Unauthorized" K --token="$tok" get configmaps

step "kubectl get events --sort-by=.lastTimestamp lists the events in order"
for e in "late 2026-01-02T00:00:00Z" "early 2026-01-01T00:00:00Z"; do
    set -- $e
    cat <<YAML | K create -f - >/dev/null
apiVersion: v1
kind: Event
metadata: {name: ev-$1}
involvedObject: {kind: Pod, name: p-$1, namespace: default}
reason: R$1
message: event $1
type: Normal
lastTimestamp: "$2"
YAML
done
K get events --sort-by=.lastTimestamp > "$tmp/events"
cat "$tmp/events"
[ "$(grep -o 'event [a-z]*' "$tmp/events" | tr '\n' ' ')" = "event early event late " ] || fail "events not listed in order"
# events.k8s.io/v1 serves the same events, converted (and the other way round)
[ "$(jp events.v1.events.k8s.io ev-early '{.note} {.regarding.name} {.deprecatedLastTimestamp}')" = "event early p-early 2026-01-01T00:00:00Z" ] || fail "events.k8s.io view"
[ "$(jp events.v1.events.k8s.io ev-early '{.metadata.uid}')" = "$(jp events.v1. ev-early '{.metadata.uid}')" ] || fail "not the same event"
cat <<YAML | K create -f - >/dev/null
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev-new}
eventTime: "2026-01-03T00:00:00.000000Z"
reportingController: test/ctl
reportingInstance: test-1
action: Tested
reason: Rnew
note: event new
type: Normal
regarding: {kind: Pod, name: p-new, namespace: default}
YAML
[ "$(jp events.v1. ev-new '{.message} {.involvedObject.name} {.reportingComponent}')" = "event new p-new test/ctl" ] || fail "core view of an events.k8s.io event"
K delete events.v1.events.k8s.io ev-new >/dev/null
K get events.v1. ev-new 2>/dev/null && fail "deleted in one group, still in the other"

step "garbage collection: kubectl delete --cascade=background|orphan|foreground"
owner_of() { # name owner-name owner-uid [finalizer]
    cat <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: $1
  finalizers: [${4:-}]
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: $2, uid: "$3", blockOwnerDeletion: true}
YAML
}
for mode in background orphan foreground; do
    K create configmap "o-$mode" >/dev/null
    uid=$(jp cm "o-$mode" '{.metadata.uid}')
    owner_of "d1-$mode" "o-$mode" "$uid" | K apply -f - >/dev/null
    owner_of "d2-$mode" "o-$mode" "$uid" | K apply -f - >/dev/null
done
K delete configmap o-background --cascade=background
K get cm d1-background d2-background 2>/dev/null && fail "background left dependents"
K delete configmap o-orphan --cascade=orphan
[ "$(jp cm d1-orphan '{.metadata.ownerReferences}')" = "" ] || fail "orphan kept the owner reference"
K get cm d2-orphan >/dev/null || fail "orphan deleted a dependent"
# foreground: a dependent held by a finalizer keeps the owner (with foregroundDeletion) until it goes
uid=$(jp cm o-foreground '{.metadata.uid}')
owner_of d3-foreground o-foreground "$uid" test/hold | K apply -f - >/dev/null
K delete configmap o-foreground --cascade=foreground --wait=false
[ "$(jp cm o-foreground '{.metadata.finalizers[*]}')" = foregroundDeletion ] || fail "owner not held by foregroundDeletion"
K get cm d1-foreground 2>/dev/null && fail "foreground left an unheld dependent"
[ -n "$(jp cm d3-foreground '{.metadata.deletionTimestamp}')" ] || fail "held dependent not marked"
K patch cm d3-foreground --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
K get cm o-foreground 2>/dev/null && fail "owner stayed after its last blocking dependent went"
K delete statefulset web --cascade=foreground
echo "workloads OK"
