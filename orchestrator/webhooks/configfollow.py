"""The webhook service following its configuration in Git: a change is checked, its
templates applied, and only then does it serve; a broken one is refused and the last good
one keeps serving.

A refresh asks the branch's tip (one small request) on every push to that repository and
branch touching the folder (:meth:`Follower.nudge`, from the delivery) and every
``interval`` seconds as a fallback for a missed delivery. A new tip is read, loaded and
validated (:class:`~orchestrator.webhooks.configsource.GitSource`), every product compiled
and its WorkflowTemplate applied; then the service's configuration is swapped in one step
on the event loop (:meth:`Service.swap`). So a delivery is mapped with the old
configuration or the new one, never a mix, and never with products whose templates are not
installed yet.

A refused revision is remembered and not read again until the branch moves. Its problems
(``FILE:LINE:COL: error: ...``) are shown on ``/readyz`` (which stays 200 while a good
configuration serves: failing the probe would only take healthy pods out of the Service,
or restart them into the same broken tip), counted in ``promoflow_config_problems``, logged
and told as a Kubernetes Event (reason ``ConfigRefused``). A failure to reach the Git
server or the Argo Server is no refusal: it is retried at the next refresh, and shown as
``lastError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from orchestrator.errors import PromoflowError
from orchestrator.loading import Config
from orchestrator.problems import Problem
from orchestrator.webhooks.configsource import Candidate, Refusal
from orchestrator.webhooks.events import GitPush
from orchestrator.webhooks.metrics import Metrics

log = logging.getLogger("promoflow.webhooks.config")

DEFAULT_INTERVAL = 60.0
SHOWN_PROBLEMS = 50
"""Problems listed on ``/readyz`` and in an Event (the metric counts them all)."""
EVENT_MESSAGE = 1024
"""Characters of an Event's message (the API server's own limit is larger)."""


class Source(Protocol):
    def describe(self) -> str: ...

    def revision(self) -> str: ...

    def read(self) -> Candidate: ...

    def touched_by(self, push: GitPush) -> bool: ...


Notify = Callable[[str, str, str], None]
"""``(type, reason, message)``: a Kubernetes Event (``Normal``/``Warning``) or a log line."""
Report = Callable[[dict[str, Any]], None]
"""A ``ConfigResult`` to the reporters (``POST /reports``), which tell the sinks."""


@dataclass(frozen=True)
class Serving:
    revision: str
    config: Config
    loaded_at: float
    """Wall-clock seconds when it began to serve."""
    applied: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refused:
    revision: str
    problems: tuple[Problem, ...]
    at: float


class Follower:
    def __init__(
        self,
        source: Source,
        apply: Callable[[Config], list[str]] | None,
        swap: Callable[[Config], None],
        metrics: Metrics,
        notify: Notify | None = None,
        interval: float = DEFAULT_INTERVAL,
        report: Report | None = None,
    ) -> None:
        self.source = source
        self.interval = interval
        self.serving: Serving | None = None
        self.refused: Refused | None = None
        self.last_error = ""
        """Why the last refresh could not finish (Git or Argo unreachable): retried."""
        self._apply = apply
        self._swap = swap
        self._metrics = metrics
        self._notify = notify
        self._report = report
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self.refreshes = 0

    def nudge(self) -> None:
        """Refresh now (a push touched the configuration)."""
        self._wake.set()

    def wants(self, push: GitPush) -> bool:
        return self.source.touched_by(push)

    async def run(self) -> None:
        """Refresh now and then on every nudge or interval, until cancelled."""
        while True:
            self._wake.clear()
            try:
                await self.refresh()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug: logged in one line, the loop goes on
                log.error("configuration refresh failed: %s", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval):
                    await self._wake.wait()

    async def refresh(self) -> None:
        """Follow the branch once (one refresh at a time; a nudge meanwhile is kept)."""
        async with self._lock:
            self.refreshes += 1
            try:
                await self._refresh()
            except PromoflowError as exc:
                self._failed(str(exc))

    async def _refresh(self) -> None:
        revision = await asyncio.to_thread(self.source.revision)
        if self.serving is not None and revision == self.serving.revision:
            self.last_error = ""
            return
        if self.refused is not None and revision == self.refused.revision:
            self.last_error = ""
            return
        candidate = await asyncio.to_thread(self.source.read)
        if candidate.errors:
            self._refuse(candidate.revision, candidate.problems)
            return
        applied: list[str] = []
        if self._apply is not None:
            try:
                applied = await asyncio.to_thread(self._apply, candidate.config)
            except Refusal as exc:
                self._refuse(candidate.revision, [*candidate.problems, *exc.problems])
                return
        self._serve(candidate, applied)

    def _serve(self, candidate: Candidate, applied: list[str]) -> None:
        self._swap(candidate.config)  # on the event loop: no delivery sees half of it
        now = time.time()
        self.serving = Serving(candidate.revision, candidate.config, now, tuple(applied))
        self.refused = None
        self.last_error = ""
        metrics = self._metrics
        metrics.config_problems.set(0)
        metrics.config_revision.clear()
        metrics.config_revision.labels(candidate.revision).set(1)
        metrics.config_loaded.set(now)
        metrics.config_loads.labels("served").inc()
        products = ", ".join(sorted(candidate.config.products)) or "none"
        message = f"configuration {candidate.revision[:12]} serves (products: {products})"
        log.info("%s; templates: %s", message, ", ".join(applied) or "none")
        self._tell("Normal", "ConfigLoaded", f"{self.source.describe()}: {message}")
        self._send("Loaded", candidate.revision, [], sorted(candidate.config.products))

    def _refuse(self, revision: str, problems: list[Problem]) -> None:
        errors = [p for p in problems if p.severity == "error"]
        self.refused = Refused(revision, tuple(problems), time.time())
        self.last_error = ""
        metrics = self._metrics
        metrics.config_problems.set(len(errors))
        metrics.config_loads.labels("refused").inc()
        metrics.config_refused.set(self.refused.at)
        keeps = (
            f"{self.serving.revision[:12]} keeps serving"
            if self.serving is not None
            else "no configuration serves yet"
        )
        head = f"configuration {revision[:12] or '?'} refused ({len(errors)} errors); {keeps}"
        log.warning("%s", head)
        for problem in problems[:SHOWN_PROBLEMS]:
            log.warning("%s", problem)
        text = "; ".join(str(p) for p in errors[:5])
        self._tell("Warning", "ConfigRefused", f"{self.source.describe()}: {head}: {text}")
        self._send("Refused", revision, [str(p) for p in errors[:SHOWN_PROBLEMS]], [])

    def _failed(self, reason: str) -> None:
        self.last_error = reason
        self._metrics.config_loads.labels("failed").inc()
        log.warning("configuration not refreshed: %s", reason)

    def _tell(self, kind: str, reason: str, message: str) -> None:
        if self._notify is None:
            return
        try:
            self._notify(kind, reason, message[:EVENT_MESSAGE])
        except Exception as exc:  # an Event is a courtesy: its failure is logged, no more
            log.warning("event %s not recorded: %s", reason, type(exc).__name__)

    def _send(self, status: str, revision: str, problems: list[str], products: list[str]) -> None:
        """The result to the reporters, off the event loop (a reporter slow to answer must
        not hold deliveries); a failure is logged, no more: the Event and /readyz say it."""
        if self._report is None:
            return
        document = {
            "kind": "ConfigResult",
            "status": status,
            "source": self.source.describe(),
            "revision": revision,
            "serving": self.serving.revision if self.serving is not None else "",
            "problems": problems,
            "products": products,
        }
        report = self._report

        def send() -> None:
            try:
                report(document)
            except Exception as exc:
                log.warning("configuration %s not reported: %s", status.lower(), exc)

        asyncio.get_running_loop().run_in_executor(None, send)

    def not_ready(self) -> str | None:
        """Why the service cannot serve: no configuration passed yet."""
        if self.serving is not None:
            return None
        if self.refused is not None:
            first = next((p for p in self.refused.problems if p.severity == "error"), None)
            return f"no valid configuration yet: {first}"
        return f"no configuration loaded yet{': ' + self.last_error if self.last_error else ''}"

    def detail(self) -> dict[str, Any]:
        """What ``/readyz`` shows of the configuration."""
        data: dict[str, Any] = {"source": self.source.describe()}
        if self.serving is not None:
            data["revision"] = self.serving.revision
            data["loadedAt"] = _stamp(self.serving.loaded_at)
            data["products"] = sorted(self.serving.config.products)
        if self.refused is not None:
            data["refused"] = {
                "revision": self.refused.revision,
                "at": _stamp(self.refused.at),
                "problems": [str(p) for p in self.refused.problems[:SHOWN_PROBLEMS]],
            }
        if self.last_error:
            data["lastError"] = self.last_error
        return data


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
