"""The reporter's HTTP side: ``/stream`` (SSE), ``/metrics``, ``/healthz``, ``/shards``,
and ``POST /reports`` where promotions' exit handlers report how they ended.

Every route but the probe (``/healthz``) is guarded by :class:`orchestrator.access.Access`:
the shared token, or a Kubernetes identity granted the route's verb; never anonymous.

Metrics carry no per-app labels (thousands of apps would be thousands of series): counts
of changes received, events emitted, states coalesced, deliveries and failures per sink,
the queue's depth, watch restarts, relists and errors, read when scraped.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from orchestrator.access import (
    REPORTER_METRICS,
    REPORTS,
    SHARDS,
    STREAM,
    Access,
    Permission,
    decide,
)
from orchestrator.urls import scrub
from reporters.stream import Filter, Stream, sse_data


class _Numbers(Collector):
    def __init__(self, read: Callable[[], dict[str, Any]]) -> None:
        self.read = read

    def collect(self) -> Any:
        numbers = self.read()
        for name, help_text in (
            ("received", "Application changes read from the watch."),
            ("emitted", "Events made from them."),
            ("coalesced", "Queued states replaced by a newer one of the same app."),
            ("watch_restarts", "Watches that ended and were resumed."),
            ("watch_relists", "Lists made (the first one, and after each 410 Gone)."),
            ("watch_errors", "Watch failures retried after a backoff."),
            ("enrichment_failures", "Git or Jira lookups that failed (events sent without)."),
            ("notification_problems", "Subscriptions naming an unknown trigger or service."),
        ):
            yield CounterMetricFamily(f"promoflow_reporter_{name}", help_text, numbers[name])
        yield CounterMetricFamily(
            "promoflow_reporter_notification_reloads",
            "Notifications configurations applied after a change of the objects followed.",
            numbers.get("notification_reloads", 0),
        )
        yield GaugeMetricFamily(
            "promoflow_reporter_notification_config_refused",
            "1 while the newest notifications configuration is refused (the last good one "
            "serves; its problems are logged).",
            numbers.get("notification_config_refused", 0),
        )
        yield GaugeMetricFamily(
            "promoflow_reporter_queue_depth", "Apps waiting in the queue.", numbers["queue"]
        )
        yield GaugeMetricFamily(
            "promoflow_reporter_held",
            "Notifications held by a trigger's for: until their time comes.",
            numbers["held"],
        )
        dead = GaugeMetricFamily(
            "promoflow_reporter_dead_letters",
            "Events a sink did not take after the last attempt, kept in the store.",
            labels=["sink"],
        )
        for sink, count in numbers["dead"].items():
            dead.add_metric([scrub(sink)], count)
        yield dead
        delivered = CounterMetricFamily(
            "promoflow_reporter_delivered", "Events a sink took.", labels=["sink"]
        )
        failed = CounterMetricFamily(
            "promoflow_reporter_failed", "Failed attempts to deliver, per sink.", labels=["sink"]
        )
        for sink, (ok, bad) in numbers["sinks"].items():
            delivered.add_metric([scrub(sink)], ok)
            failed.add_metric([scrub(sink)], bad)
        yield delivered
        yield failed


MAX_REPORT = 64 * 1024
"""A report lists at most its failed steps: far less than this."""
MAX_DEPTH = 32
"""A report nests a few levels; deeper is refused before anything walks it."""


def _refuse(status: int, reason: str, **headers: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status, headers=headers or None)


def _depth(document: Any) -> int:
    """How deeply ``document`` nests, without recursion (it may be thousands deep)."""
    deepest, todo = 0, [(document, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            items = value.values() if isinstance(value, dict) else value
            todo.extend((item, depth + 1) for item in items)
    return deepest


def create_app(
    stream: Stream,
    numbers: Callable[[], dict[str, Any]],
    shards: Callable[[], dict[str, Any]],
    accept: Callable[[Any], tuple[int, dict[str, Any]]] | None = None,
    access: Access | None = None,
) -> Starlette:
    """``access``: who may use the routes (default: nobody, but the probe)."""
    guard = access if access is not None else Access()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Numbers(numbers))

    async def refused(request: Request, need: Permission) -> Response | None:
        decision = await decide(guard, request.headers.get("authorization", ""), need)
        if decision.admitted:
            return None
        return _refuse(decision.status, decision.reason, **decision.headers())

    async def report(request: Request) -> Response:
        if (refusal := await refused(request, REPORTS)) is not None:
            return refusal
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_REPORT:
                return _refuse(413, f"a report is at most {MAX_REPORT // 1024} KiB")
        try:
            document = json.loads(body)
        except RecursionError:
            return _refuse(400, f"the body nests deeper than {MAX_DEPTH} levels")
        except ValueError:
            return _refuse(400, "the body is not JSON (a PromotionResult)")
        if _depth(document) > MAX_DEPTH:
            return _refuse(400, f"the body nests deeper than {MAX_DEPTH} levels")
        if accept is None:
            return _refuse(404, "this reporter takes no reports")
        status, answer = await run_in_threadpool(accept, document)
        return JSONResponse(answer, status, headers={"Retry-After": "2"} if status == 503 else None)

    async def events(request: Request) -> Response:
        if (refusal := await refused(request, STREAM)) is not None:
            return refusal
        keep = Filter.of({k: request.query_params.getlist(k) for k in request.query_params})
        last = request.headers.get("last-event-id", "")

        async def source() -> AsyncIterator[dict[str, str]]:
            async for event in stream.follow(last, keep):
                yield {"id": event.id, "event": event.change.type, "data": sse_data(event)}

        return EventSourceResponse(source(), ping=15)

    async def metrics(request: Request) -> Response:
        if (refusal := await refused(request, REPORTER_METRICS)) is not None:
            return refusal
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def shard_view(request: Request) -> Response:
        if (refusal := await refused(request, SHARDS)) is not None:
            return refusal
        return JSONResponse(shards())

    return Starlette(
        routes=[
            Route("/stream", events),
            Route("/metrics", metrics),
            Route("/healthz", healthz),
            Route("/shards", shard_view),
            Route("/reports", report, methods=["POST"]),
        ]
    )
