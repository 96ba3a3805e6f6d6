"""The kinds of object a reporter watches besides Argo CD's Applications
(``--resources``), by the name the flag takes."""

from __future__ import annotations

RESOURCE_KINDS = {
    "workflows": ("argoproj.io", "v1alpha1", "workflows"),
    "rollouts": ("argoproj.io", "v1alpha1", "rollouts"),
    "replicasets": ("apps", "v1", "replicasets"),
}
UNSHARDED = ("replicasets",)
"""Watched whole by every replica: a ReplicaSet belongs to the shard of its app, which
only the pipeline knows (it reports those of its own apps)."""
