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

A refused revision is remembered and not read again until the branch moves. A new tip
whose folder is the same as what serves or was refused (a promotion's commit elsewhere
in the repository) is fetched without files, compared by the folder's tree id, and only
remembered: not read, applied, told or counted again. Its problems
(``FILE:LINE:COL: error: ...``) are shown on ``/readyz`` (which stays 200 while a good
configuration serves: failing the probe would only take healthy pods out of the Service,
or restart them into the same broken tip), counted in ``promoflow_config_problems``, logged
and told as a Kubernetes Event (reason ``ConfigRefused``). A failure to reach the Git
server or the Argo Server is no refusal: it is retried at the next refresh, and shown as
``lastError``.

A service that starts while the tip is refused has no last good configuration in memory:
it walks back along the branch's first parents (at most :data:`WALK_BACK_COMMITS`) and
serves the newest earlier state of the folder that passes, so a restart, a rollout or a
node drain during a broken push does not take the webhooks down. ``/readyz`` then shows
both: the revision that serves (with ``fallback``) and the refused tip with its problems.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
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
WALK_BACK_COMMITS = 50
"""Commits a start-up on a refused tip looks back through (fetched without files)."""
WALK_BACK_TRIES = 10
"""Earlier states of the folder a start-up tries, newest first: each one is loaded,
validated and compiled, so a long broken stretch does not delay readiness for minutes."""


class Source(Protocol):
    def describe(self) -> str: ...

    def revision(self) -> str: ...

    def state(self) -> tuple[str, str]: ...

    def read(self, revision: str = "") -> Candidate: ...

    def earlier(self, revision: str, depth: int) -> list[str]: ...

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
    instead_of: str = ""
    """The refused tip this earlier revision serves in place of, at start-up."""
    state: str = ""
    """The id of what was read (:attr:`Candidate.state`)."""
    tip: str = ""
    """The newest tip seen holding the same files (``revision`` at first)."""


@dataclass(frozen=True)
class Refused:
    revision: str
    problems: tuple[Problem, ...]
    at: float
    state: str = ""
    tip: str = ""


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
        known = {self.serving.tip if self.serving else "", self.refused.tip if self.refused else ""}
        if revision in known:
            self.last_error = ""
            return
        revision, state = await asyncio.to_thread(self.source.state)
        if self._same(revision, state):
            self.last_error = ""
            return
        candidate = await asyncio.to_thread(self.source.read, revision)
        problems = await self._try(candidate)
        if problems is None:
            return
        if self.serving is None:
            await self._walk_back(candidate.revision)
        self._refuse(candidate, problems)

    def _same(self, revision: str, state: str) -> bool:
        """Whether the tip ``revision`` holds what serves or what was refused (then it is
        only remembered); a tip back at what serves ends a refusal."""
        serving, refused = self.serving, self.refused
        if not state:
            return False
        if serving is not None and state == serving.state:
            if refused is not None:
                log.info("the tip %s holds the configuration that serves", revision[:12])
                self._metrics.config_problems.set(0)
            self.serving = replace(serving, tip=revision, instead_of="")
            self.refused = None
            return True
        if refused is not None and state == refused.state:
            self.refused = replace(refused, tip=revision)
            return True
        return False

    async def _try(self, candidate: Candidate, instead_of: str = "") -> list[Problem] | None:
        """Serve ``candidate`` if it passes (None); else why not. Argo unreachable raises."""
        if candidate.errors:
            return candidate.problems
        applied: list[str] = []
        if self._apply is not None:
            try:
                applied = await asyncio.to_thread(self._apply, candidate.config)
            except Refusal as exc:
                return [*candidate.problems, *exc.problems]
        self._serve(candidate, applied, instead_of)
        return None

    async def _walk_back(self, tip: str) -> None:
        """Nothing serves and ``tip`` is refused: serve the newest earlier state of the
        folder that passes, if one does within reach."""
        try:
            revisions = await asyncio.to_thread(self.source.earlier, tip, WALK_BACK_COMMITS)
        except PromoflowError as exc:
            log.warning("earlier revisions not looked at: %s", exc)
            return
        for revision in revisions[:WALK_BACK_TRIES]:
            older = await asyncio.to_thread(self.source.read, revision)
            if await self._try(older, instead_of=tip) is None:
                return
            log.info("earlier configuration %s refused too", revision[:12])
        log.warning(
            "no earlier configuration passes (%d states of the folder in the last %d commits, "
            "%d tried)", len(revisions), WALK_BACK_COMMITS, min(len(revisions), WALK_BACK_TRIES),
        )  # fmt: skip

    def _serve(self, candidate: Candidate, applied: list[str], instead_of: str = "") -> None:
        self._swap(candidate.config)  # on the event loop: no delivery sees half of it
        now = time.time()
        self.serving = Serving(
            candidate.revision, candidate.config, now, tuple(applied), instead_of,
            candidate.state, candidate.revision,
        )  # fmt: skip
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
        if instead_of:
            message += f", the newest that passes before the refused tip {instead_of[:12]}"
        log.info("%s; templates: %s", message, ", ".join(applied) or "none")
        self._tell("Normal", "ConfigLoaded", f"{self.source.describe()}: {message}")
        self._send("Loaded", candidate.revision, [], sorted(candidate.config.products))

    def _refuse(self, candidate: Candidate, problems: list[Problem]) -> None:
        revision = candidate.revision
        errors = [p for p in problems if p.severity == "error"]
        self.refused = Refused(revision, tuple(problems), time.time(), candidate.state, revision)
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
            if self.serving.tip != self.serving.revision:
                data["tip"] = self.serving.tip  # checked: the same files
            if self.serving.instead_of:
                data["fallback"] = (
                    f"the tip {self.serving.instead_of[:12]} was refused at start-up: the "
                    "newest earlier revision of the folder that passes serves"
                )
        if self.refused is not None:
            data["refused"] = {
                "revision": self.refused.revision,
                "at": _stamp(self.refused.at),
                "problems": [str(p) for p in self.refused.problems[:SHOWN_PROBLEMS]],
            }
            if self.refused.tip != self.refused.revision:
                data["refused"]["tip"] = self.refused.tip  # checked: the same files
        if self.last_error:
            data["lastError"] = self.last_error
        return data


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
