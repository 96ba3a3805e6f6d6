"""Shared by the Argo CD simulator tests: apps in known states, a stream reader, checks.

The simulator (:mod:`orchestrator.simulator.argocd`) and the fake Kubernetes API
(:mod:`tests.fakes.kube`) serve the same state; every object either one answers
goes through :func:`check_app`, so a shape the real servers would not produce fails the test
that saw it.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from orchestrator.simulator.argocd import ArgoCDSimulator
from tests.contract.argocd_schema import (
    crd_errors,
    crd_unknown_fields,
    response_errors,
    swagger_unknown_fields,
)

OLD = "0a" * 20
SHA = "5b" * 20
NEXT = "c7" * 20
REPO = "https://git.example.com/platform/deploy.git"
OTHER_REPO = "https://git.example.com/platform/charts.git"
APP_PATH = "/api/v1/applications/{name}"
LIST_PATH = "/api/v1/applications"
SYNC_PATH = "/api/v1/applications/{name}/sync"
STREAM_PATH = "/api/v1/stream/applications"


def populate(sim: ArgoCDSimulator) -> None:
    """``shop-dev`` (automated, single source), ``shop-prod`` (manual, two sources),
    ``cart-dev`` (automated, another product)."""
    sim.add_app(
        "shop-dev",
        repo_url=REPO,
        path="envs/dev/shop",
        revision=OLD,
        labels={"promoflow.dev/product": "shop", "promoflow.dev/environment": "dev"},
        images=["registry.example.com/shop:1.0.0"],
    )
    sim.add_app(
        "shop-prod",
        repo_url="",
        path="",
        revision=OLD,
        automated=False,
        labels={"promoflow.dev/product": "shop", "promoflow.dev/environment": "prod"},
        sources=[
            {"repoURL": REPO, "path": "envs/prod/shop", "targetRevision": "main"},
            {"repoURL": REPO, "path": "envs/prod/shop-config", "targetRevision": "main"},
        ],
    )
    sim.add_app(
        "cart-dev",
        repo_url=REPO,
        path="envs/dev/cart",
        revision=OLD,
        labels={"promoflow.dev/product": "cart", "promoflow.dev/environment": "dev"},
    )


def tour(sim: ArgoCDSimulator) -> None:
    """Every scenario helper once: each state the gate has to read is produced."""
    sim.set_sync("shop-dev", "OutOfSync", SHA)
    sim.start_operation("shop-dev", SHA)
    sim.finish_operation("shop-dev", reconcile=False)
    sim.reconcile("shop-dev")
    sim.set_health("shop-dev", "Progressing", "Waiting for rollout to finish")
    sim.set_health("shop-dev", "Suspended", "Rollout is paused")
    sim.set_health("shop-dev", "Healthy")
    sim.start_operation("shop-dev", NEXT)
    sim.finish_operation("shop-dev", "Failed", "one or more objects failed to apply")
    sim.deploy("shop-dev", NEXT, health="Degraded", message="Deployment exceeded its deadline")
    sim.set_sync("shop-prod", "OutOfSync", SHA, [SHA, OLD])
    sim.start_operation("shop-prod", SHA, [SHA, SHA])
    sim.finish_operation("shop-prod")
    sim.deploy("shop-prod", NEXT, revisions=[NEXT, NEXT])
    sim.set_sync("cart-dev", "Unknown", "", reconcile=False)
    sim.delete_app("cart-dev")


def app_problems(app: Any) -> list[str]:
    """CRD schema errors and undeclared fields (CRD and swagger) of one Application."""
    return [
        *crd_errors(app),
        *(f"not in the CRD: {p}" for p in crd_unknown_fields(app)),
        *(
            f"not in the swagger: {p}"
            for p in swagger_unknown_fields("v1alpha1Application", app, type_meta=True)
        ),
    ]


def check_app(app: Any) -> Any:
    assert app_problems(app) == [], json.dumps(app, indent=1)
    return app


def check_error(path: str, method: str, response: httpx.Response, status: int) -> Any:
    """An error answer: ``status``, and grpc-gateway's ``runtimeError`` body exactly."""
    assert response.status_code == status, response.text
    body = response.json()
    assert response_errors(path, method, status, body) == []
    assert swagger_unknown_fields("runtimeError", body) == []
    assert body["error"] == body["message"] and isinstance(body["code"], int)
    return body


class StreamReader:
    """Reads ``/api/v1/stream/applications`` in a thread: each parsed line into a queue,
    then ``None`` when the server ends the stream."""

    def __init__(
        self,
        url: str,
        token: str | None,
        params: Any = None,
        subscribed: Callable[[], bool] | None = None,
    ) -> None:
        """``subscribed``: says when the server holds the stream. A stream with nothing to
        send yet has no headers (grpc-gateway sends them with the first event), so only
        the server can tell that the request arrived."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(10))
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.status: int | None = None
        self.opened = threading.Event()
        self.params = params
        self.subscribed = subscribed
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> StreamReader:
        self.thread.start()
        if self.subscribed is not None:
            deadline = time.monotonic() + 5
            while not (self.subscribed() or self.opened.is_set()):
                assert time.monotonic() < deadline, "the server did not take the stream"
                time.sleep(0.005)
        else:
            assert self.opened.wait(5), "the stream did not open"
        return self

    def __exit__(self, *_: object) -> None:
        self.client.close()
        self.thread.join(5)

    def _run(self) -> None:
        try:
            with self.client.stream("GET", STREAM_PATH, params=self.params) as response:
                self.status = response.status_code
                self.opened.set()
                for line in response.iter_lines():
                    if line.strip():
                        self.lines.put(json.loads(line))
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()
            self.lines.put(None)

    def take(self, timeout: float = 5) -> dict[str, Any] | None:
        return self.lines.get(timeout=timeout)

    def until_end(self, timeout: float = 5) -> Iterator[dict[str, Any]]:
        while (line := self.take(timeout)) is not None:
            yield line


def when(
    ready: Callable[[], bool], *actions: Callable[[], object], gap: float = 0.05
) -> threading.Thread:
    """In a thread: wait (10 s at most) until ``ready()``, then run ``actions`` ``gap``
    seconds apart."""

    def run() -> None:
        deadline = time.monotonic() + 10
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.005)
        for action in actions:
            time.sleep(gap)
            action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def on_next_request(
    requests: list[str], marker: str, *actions: Callable[[], object], gap: float = 0.05
) -> threading.Thread:
    """Run ``actions`` once a new request containing ``marker`` is logged (a stream or
    watch opening: its subscription exists ``gap`` seconds later)."""
    seen = sum(marker in r for r in list(requests))
    return when(lambda: sum(marker in r for r in list(requests)) > seen, *actions, gap=gap)
