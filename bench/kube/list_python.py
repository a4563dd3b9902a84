"""List every NodeSet with the official Python client (python3-kubernetes)."""
import sys

from kubernetes import client, config

config.load_kube_config(config_file=sys.argv[1])
api = client.CustomObjectsApi()
res = api.list_namespaced_custom_object("slinky.slurm.net", "v1beta1", sys.argv[2], "nodesets")
items = res["items"]
replicas = sum(i["spec"].get("replicas", 0) for i in items)
print("items=%d replicas=%d" % (len(items), replicas))
