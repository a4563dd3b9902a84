"""List every NodeSet into Python dicts with slinky.Client.list (one process of the bench)."""
import sys

import slinky

c = slinky.Client(kubeconfig=sys.argv[1])
items = c.list("nodesets", namespace=sys.argv[2])["items"]
replicas = sum(i["spec"].get("replicas", 0) for i in items)
print("items=%d replicas=%d" % (len(items), replicas))
