"""Start one slinky-apiserver (TLS + token, upstream CRDs pre-registered) per test session."""
import os
import shutil
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "..", "shared"))
UPSTREAM = os.path.join(SHARED, "upstream", "slinky")


@pytest.fixture(scope="session")
def server():
    tmp = tempfile.mkdtemp(prefix="slinky-apiserver-py-")
    srv = os.path.join(tmp, "srv")
    subprocess.run([os.path.join(HERE, "..", "start-apiserver.sh"), srv,
                    "--crd-dir", os.path.join(UPSTREAM, "crds"), "--bookmark-interval", "500"],
                   check=True)
    yield srv
    subprocess.run([os.path.join(HERE, "..", "stop-apiserver.sh"), srv], check=False)
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def api(server):
    from kubernetes import client, config
    cfg = client.Configuration()
    config.load_kube_config(config_file=os.path.join(server, "kubeconfig"),
                            client_configuration=cfg)
    api = client.ApiClient(cfg)
    core = client.CoreV1Api(api)
    for ns in ("test-namespace",):
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": ns}})
    yield api
    api.close()
