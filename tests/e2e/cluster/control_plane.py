"""Kubernetes-side setup that belongs to no Argo: the kwok node and its readiness."""

from __future__ import annotations

from typing import Any

from .config import MANIFESTS
from .kube import apply, get_json

KWOK_STAGES = MANIFESTS / "kwok-stages.yaml"
KWOK_NODE = MANIFESTS / "kwok-node.yaml"
NODE_NAME = "kwok-node-0"


def prepare_kwok() -> None:
    """kwok only adopts nodes that exist and carry its annotation: create ours first."""
    apply(KWOK_NODE.read_text())


def _condition(obj: dict[str, Any], kind: str) -> str:
    for cond in obj.get("status", {}).get("conditions") or []:
        if cond.get("type") == kind:
            return str(cond.get("status"))
    return ""


def node_ready() -> bool:
    node = get_json("node", NODE_NAME)
    return node is not None and _condition(node, "Ready") == "True"
