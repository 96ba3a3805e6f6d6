"""Admin kubeconfigs: the one users and tests get, and per-namespace copies for Argo.

Argo CD and Argo Workflows, run outside a cluster, take their own namespace from the
kubeconfig's context, hence one copy per namespace with everything else identical.
Certificates are embedded so the file can be copied anywhere.
"""

from __future__ import annotations

import base64
from pathlib import Path

import yaml

from .config import LOOPBACK, PATHS, PORTS
from .pki import PKI

CLUSTER = "promoflow-e2e"
SERVER = f"https://{LOOPBACK}:{PORTS.apiserver}"


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def render(namespace: str = "default") -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": CLUSTER,
                "cluster": {"server": SERVER, "certificate-authority-data": _b64(PKI.ca_crt)},
            }
        ],
        "users": [
            {
                "name": "admin",
                "user": {
                    "client-certificate-data": _b64(PKI.admin_crt),
                    "client-key-data": _b64(PKI.admin_key),
                },
            }
        ],
        "contexts": [
            {
                "name": CLUSTER,
                "context": {"cluster": CLUSTER, "user": "admin", "namespace": namespace},
            }
        ],
        "current-context": CLUSTER,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def write_kubeconfigs(namespaces: tuple[str, ...] = ("argocd", "argo")) -> None:
    targets = [(PATHS.kubeconfig, "default")]
    targets += [(PATHS.kubeconfig_for(ns), ns) for ns in namespaces]
    for path, ns in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = render(ns)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            path.chmod(0o600)
