"""The Argo CD simulator with the faults tests inject: failing requests, dropped streams.

The product's :class:`~orchestrator.simulator.argocd.ArgoCDSimulator` (the demo's and local
runs' Argo CD) behaves like a healthy server; what a client must survive (unavailable
answers, streams cut by a failing server) is only ever asked for by tests, so it is added
here rather than shipped.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from orchestrator.simulator.argocd import ArgoCDSimulator, StreamEnd, grpc_error


class FaultyArgoCD(ArgoCDSimulator):
    """An :class:`ArgoCDSimulator` whose next requests can fail and whose streams can be
    dropped on demand."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fail: list[int] = []

    def fail_next(self, count: int, status: int = 503) -> None:
        """The next ``count`` API requests answer ``status`` (503: gRPC code 14, unavailable;
        other statuses the code grpc-gateway maps them from)."""
        with self._lock:
            self._fail.extend([status] * count)

    def drop_streams(self, error: str | None = None) -> None:
        """Close every open stream now (clients must reconnect); with ``error``, each
        stream first sends a grpc-gateway stream error, as a failing server does. Streams
        of the Kubernetes API on the same state end too."""
        with self._lock:
            for sub in self._subscribers:
                sub.push(StreamEnd(error))

    def _guard(self, request: Request) -> Response | None:
        with self._lock:
            fault = self._fail.pop(0) if self._fail else None
        if fault is None:
            return super()._guard(request)
        self._record(request)
        code = 14 if fault == 503 else None
        return grpc_error(fault, f"simulated failure ({fault})", code=code)
