"""Writing a promotion run's message into its Workflow (``status.message``).

The one write the reporter makes to Kubernetes: the Argo list's MESSAGE column and the
run's summary then say where the run is or how it ended (``reporters/events/runmessage.py``).
The write is a JSON patch that tests the ``resourceVersion`` it was computed from, so it
never lands on a newer state: when the controller moved on meanwhile (``422``), the
watch brings the newer Workflow and its own message. The controller leaves the message
alone while the run goes on and rewrites it when the phase changes; the next event writes
it again. Step pods are never given this right: only the reporter's ServiceAccount is.

Writes run on a thread of their own, newest per run, so the pipeline never waits on the
API server.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from reporters.events.runmessage import run_message

Obj = dict[str, Any]
WORKFLOWS = ("argoproj.io", "v1alpha1", "workflows")
log = logging.getLogger("promoflow.reporter")


class RunMessages:
    """``offer`` each promotion Workflow the reporter sees; those whose message is not
    what it should be are patched in the background."""

    def __init__(self, api: Any, patch: Callable[..., Any] | None = None) -> None:
        self._patch = patch or api.patch_namespaced_custom_object
        self._pending: dict[tuple[str, str], tuple[str, str]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._complained: set[str] = set()
        self.written = 0
        self.stale = 0
        self.failed = 0

    def start(self) -> RunMessages:
        self._thread = threading.Thread(target=self._run, name="run messages", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)

    def offer(self, workflow: Obj) -> None:
        meta = workflow.get("metadata") or {}
        status = workflow.get("status") or {}
        version = str(meta.get("resourceVersion") or "")
        wanted = run_message(workflow)
        if not wanted or not version or wanted == (status.get("message") or ""):
            return
        key = (str(meta.get("namespace", "")), str(meta.get("name", "")))
        with self._lock:
            self._pending[key] = (version, wanted)
        self._wake.set()

    def flush(self) -> None:
        """Write what is pending now, on the caller's thread (tests, shutdown)."""
        while True:
            with self._lock:
                if not self._pending:
                    return
                key, (version, message) = self._pending.popitem()
            self._write(key, version, message)

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            self.flush()

    def _write(self, key: tuple[str, str], version: str, message: str) -> None:
        namespace, name = key
        body = [
            {"op": "test", "path": "/metadata/resourceVersion", "value": version},
            {"op": "add", "path": "/status/message", "value": message},
        ]
        try:
            self._patch(
                *WORKFLOWS[:2],
                namespace,
                WORKFLOWS[2],
                name,
                body,
                _content_type="application/json-patch+json",
            )
            self.written += 1
        except Exception as exc:  # the client's ApiException, or the connection's error
            status = getattr(exc, "status", None)
            if status in (404, 409, 422):
                self.stale += 1  # deleted, or changed since: the watch brings the newer one
                return
            self.failed += 1
            reason = (
                f"{status} {getattr(exc, 'reason', '')}".strip() if status else type(exc).__name__
            )
            if reason not in self._complained:  # once per kind of failure, not per run
                self._complained.add(reason)
                log.warning(
                    "cannot write the message of Workflow %s/%s (%s); the reporter needs "
                    "`patch` on workflows (the chart's reporters.runMessages grants it)",
                    namespace,
                    name,
                    reason,
                )
