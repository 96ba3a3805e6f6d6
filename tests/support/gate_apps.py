"""Argo CD Applications as the deploy gate reads them: synced or not, healthy or not, with
or without an operation, at one commit or another."""

from __future__ import annotations

from typing import Any

SHA = "a" * 40
OLD = "b" * 40


def app(
    revision: str = SHA,
    sync: str = "Synced",
    health: str = "Healthy",
    phase: str | None = "Succeeded",
    finished: str | None = "2026-11-22T10:00:05Z",
    reconciled: str | None = "2026-11-22T10:00:10Z",
    message: str = "",
    **extra: Any,
) -> dict[str, Any]:
    status: dict[str, Any] = {
        "sync": {"status": sync, "revision": revision},
        "health": {"status": health, **({"message": message} if message else {})},
    }
    if phase is not None:
        status["operationState"] = {
            "phase": phase,
            "message": "successfully synced" if phase == "Succeeded" else "hook failed",
            "startedAt": "2026-11-22T10:00:00Z",
            "syncResult": {"revision": revision},
            **({"finishedAt": finished} if finished else {}),
        }
    if reconciled:
        status["reconciledAt"] = reconciled
    return {
        "metadata": {"name": "shop-dev"},
        "spec": {"source": {"repoURL": "r"}},
        "status": status,
        **extra,
    }
