"""Submitting promotions exactly once, whoever delivers the event and however often.

A run's name is derived from the product, the version and what identifies the event: the
pushed commit for a Git push, the pushed digest for a registry push, else the delivery
(``generic:<Idempotency-Key>``, or a hash of the payload where the sender gives no id). A
redelivery, a sender's retry, the same push reaching a second replica (or arriving through
a second hook) therefore names the same Workflow, and the Argo Server refuses the second
``create`` with 409 AlreadyExists: the reply is then the existing run. (Naming by the
commit rather than by GitHub's delivery GUID also makes a replayed body with a new GUID, an
unsigned header, a duplicate instead of a second promotion.) Within one process,
concurrent deliveries of one name wait for the first submission instead of sending their
own, and names submitted recently are answered without asking the server at all.

After a run is created, a product whose triggers say ``concurrency: supersede`` has its
older runs that wait at an approval stopped, with a message naming the newer one; with
``queue`` (the default) the newer run waits for them on the product's mutex.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from orchestrator.compiler import PromotionRequest
from orchestrator.compiler.workflow import promotion_workflow
from orchestrator.errors import PromoflowError
from orchestrator.graph.plan import ProductPlan
from orchestrator.loading import Config
from orchestrator.manifest import Manifest
from orchestrator.runs import summarize
from orchestrator.settings import StepSettings
from orchestrator.urls import find_credentials
from orchestrator.webhooks.logfields import printable
from orchestrator.webhooks.triggers import Start, plans_of

log = logging.getLogger("promoflow.webhooks")

RECENT = 10_000
"""Names remembered as submitted, per process (a few hundred kilobytes)."""


class Unavailable(PromoflowError):
    """Where runs are submitted cannot take them now: the sender should retry later."""


class Backend(Protocol):
    """Where promotions run: the Argo Server, or the local engine (``serve --local``)."""

    async def create(self, workflow: Manifest, request: PromotionRequest) -> bool:
        """Start the run; False when a run of that name exists. :class:`Unavailable`
        when trying later may succeed; another PromoflowError when it cannot."""
        ...

    async def runs(self, product: str) -> list[Manifest]:
        """The product's Workflows, with their status."""
        ...

    async def stop(self, name: str, message: str, nodes: list[str]) -> None:
        """Stop run ``name``, failing its waiting ``nodes`` with ``message``."""
        ...

    async def ready(self) -> None:
        """Raise :class:`Unavailable` unless runs can be submitted."""
        ...

    def link(self, name: str) -> str: ...


@dataclass(frozen=True)
class Run:
    product: str
    version: str
    name: str
    url: str
    created: bool
    """False: this promotion had been submitted already (a duplicate delivery)."""
    cause: str = ""
    superseded: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "product": self.product,
            "version": self.version,
            "run": self.name,
            "url": self.url,
            "status": "submitted" if self.created else "already submitted",
            "cause": self.cause,
        }
        if self.superseded:
            data["superseded"] = list(self.superseded)
        return data


@lru_cache(maxsize=4096)
def _run_name(product: str, version: str, request_id: str) -> str:
    """The run's name (:attr:`PromotionRequest.run_name`), remembered for duplicates."""
    return PromotionRequest(product, version, request_id=request_id).run_name


def waiting_approvals(workflow: Mapping[str, Any]) -> list[str]:
    """The approval tasks of an unfinished run that wait for their answer."""
    summary = summarize(dict(workflow))
    if summary.phase not in ("Running", "Pending"):
        return []
    return [n.task for n in summary.nodes if n.kind == "approve" and n.phase == "Running"]


class Submissions:
    def __init__(self, config: Config, settings: StepSettings, backend: Backend) -> None:
        self.settings = settings
        self.backend = backend
        self.plans = plans_of(config)
        """Every product's plan, made once: deliveries only look them up."""
        self._inflight: dict[str, asyncio.Future[bool]] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()

    def plan(self, product: str) -> ProductPlan:
        return self.plans[product]

    def request(self, start: Start, request_id: str) -> PromotionRequest:
        return PromotionRequest(
            start.product,
            start.version,
            start.source_commit,
            start.requested_by,
            request_id,
            dict(start.fields),
        )

    def seen(self, start: Start, request_id: str) -> bool:
        """Whether this process submitted ``start`` (or is submitting it) recently: its
        delivery is then answered as a duplicate and starts nothing, so it needs no check
        against the branch."""
        name = _run_name(start.product, start.version, request_id)
        return name in self._recent or name in self._inflight

    async def submit(self, start: Start, request_id: str) -> Run:
        """Submit ``start`` once per ``request_id``; :class:`Unavailable` to retry later."""
        name = _run_name(start.product, start.version, request_id)
        created = await self._create_once(name, start, request_id)
        superseded: tuple[str, ...] = ()
        plan = self.plan(start.product)
        if created and plan.product.spec.triggers.concurrency == "supersede":
            superseded = await self._supersede(start, name)
        return Run(
            start.product,
            start.version,
            name,
            self.backend.link(name),
            created,
            start.cause,
            superseded,
        )

    async def _create_once(self, name: str, start: Start, request_id: str) -> bool:
        if name in self._recent:
            self._recent.move_to_end(name)
            return False
        pending = self._inflight.get(name)
        if pending is not None:
            await asyncio.shield(pending)
            return False
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._inflight[name] = future
        request = self.request(start, request_id)
        try:
            workflow = promotion_workflow(self.plan(request.product), request, self.settings)
            manifest = workflow.to_dict()
            if next(find_credentials(manifest), None) is not None:
                raise PromoflowError(
                    f"the promotion of {request.product} {request.version} would carry a "
                    "credential in the Workflow; keep credentials in Secrets"
                )
            created = await self.backend.create(manifest, request)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marked as retrieved: the waiters re-raise it
            raise
        finally:
            del self._inflight[name]
        future.set_result(created)
        self._recent[name] = None
        if len(self._recent) > RECENT:
            self._recent.popitem(last=False)
        return created

    async def _supersede(self, start: Start, newer: str) -> tuple[str, ...]:
        stopped = []
        message = f"superseded by {newer} (version {start.version})"
        for workflow in await self.backend.runs(start.product):
            name = str(workflow.get("metadata", {}).get("name", ""))
            waiting = waiting_approvals(workflow)
            if name and name != newer and waiting:
                try:
                    await self.backend.stop(name, message, waiting)
                except PromoflowError as exc:  # the newer run exists: report, go on
                    log.warning(
                        "%s superseded by %s, not stopped: %s", name, newer, printable(str(exc))
                    )
                    continue
                stopped.append(name)
        return tuple(sorted(stopped))
