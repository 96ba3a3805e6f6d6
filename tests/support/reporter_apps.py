"""Argo CD Applications as the reporter receives them from a watch, and the operation
states of their syncs: the shapes many reporter tests start from."""

from __future__ import annotations

from typing import Any

OLD, NEW = "a" * 40, "b" * 40


def app(
    revision: str = OLD,
    sync: str = "Synced",
    health: str = "Healthy",
    reconciled: str = "2026-11-24T10:00:10Z",
    op: dict[str, Any] | None = None,
    images: list[str] | None = None,
    running: bool = False,
) -> dict[str, Any]:
    status: dict[str, Any] = {
        "sync": {"status": sync, "revision": revision},
        "health": {"status": health},
        "reconciledAt": reconciled,
        "summary": {"images": images or ["ghcr.io/acme/shop:1.0.0"]},
    }
    if op is not None:
        status["operationState"] = op
    found: dict[str, Any] = {
        "metadata": {"name": "shop-dev", "namespace": "argocd", "resourceVersion": "1"},
        "status": status,
    }
    if running:
        found["operation"] = {"sync": {"revision": NEW}}
    return found


def finished(phase: str = "Succeeded", at: str = "2026-11-24T10:01:00Z") -> dict[str, Any]:
    return {
        "phase": phase,
        "startedAt": "2026-11-24T10:00:30Z",
        "finishedAt": at,
        "message": "successfully synced" if phase == "Succeeded" else "one or more objects failed",
        "syncResult": {"revision": NEW},
    }
