"""Stable names for Argo objects: DAG tasks, workflows, mutexes and label values.

Names are derived only from their inputs, so compiling twice gives the same YAML, and
submitting the same promotion twice gives the same workflow name (the Argo Server answers
409 and the run is reported as already running instead of starting a second one). The
helpers the step programs share live in :mod:`orchestrator.names`, re-exported here.
"""

from __future__ import annotations

from orchestrator.names import (
    MAX_NAME,
    digest,
    label_value,
    product_lock,
    product_template,
    slug,
)

__all__ = [
    "MAX_NAME",
    "digest",
    "label_value",
    "product_lock",
    "product_template",
    "slug",
    "task",
    "workflow_name",
]


def workflow_name(product: str, version: str, request_id: str) -> str:
    """``shop-1-4-2-3f9a1c2e``: readable, unique per (product, version, request)."""
    suffix = digest(product, version, request_id)
    head = f"{product}-{slug(version)}".strip("-")[: MAX_NAME - len(suffix) - 1].rstrip("-")
    return f"{head}-{suffix}"


def task(kind: str, environment: str, index: int | None = None) -> str:
    """DAG task names read as what they do: ``approve-prod-eu``, ``deploy-staging``."""
    return f"{kind}-{environment}" + (f"-{index}" if index is not None else "")


def rollback_entrypoint(environment: str) -> str:
    """The product template's DAG that rolls one environment back: ``rollback-prod-eu``."""
    return f"rollback-{environment}"
