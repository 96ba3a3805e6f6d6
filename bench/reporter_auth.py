"""Benchmark: what authentication costs the reporter's ``/stream`` connect and ``/reports``.

Each request goes over real HTTP on loopback to the reporter's app (uvicorn), with four
guards, alternated in rounds so the machine's load falls on each alike:

- none: every request admitted (the baseline: the reporter before authentication);
- the shared token, compared in constant time;
- a Kubernetes identity whose review is remembered (a dashboard reconnecting);
- a Kubernetes identity reviewed every time (the cache off), with the reviews answered by
  an in-process stand-in of the API server, so the figure is promoflow's own cost, not
  the API server's latency (two round trips more on a real cluster).

Printed: the median time of a request with each guard (medians: the machine may be
shared), as the rate it allows against none's; the cached review keeps at least 0.8x of
the unauthenticated rate on both routes. Then the guard's own decision, in-process: what
a remembered review costs per request against the shared token's comparison.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

import httpx
from rich.console import Console

from bench._report import Row, at_least, finish
from orchestrator.access import Access, Decision, Permission
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.stream import Stream

ROUNDS = 6
PER_ROUND = 150
NAMESPACE = "promoflow"
SHARED = "bench-shared-token-0123456789"
IDENTITY = "eyJhbGciOiJSUzI1NiJ9.bench-service-account.sig"
NUMBERS = {
    "received": 0, "emitted": 0, "coalesced": 0, "queue": 0, "watch_restarts": 0,
    "watch_relists": 0, "watch_errors": 0, "sinks": {}, "dead": {}, "held": 0,
    "enrichment_failures": 0, "notification_problems": 0,
}  # fmt: skip
console = Console(highlight=False)


class Open(Access):
    """No authentication: what the routes cost without a guard."""

    def check(self, authorization: str, need: Permission) -> Decision:
        return Decision(200)

    def cached(self, authorization: str, need: Permission) -> Decision | None:
        return Decision(200)


class Uncached(Access):
    """Every request reviewed: the cost of a review without the cache."""

    def cached(self, authorization: str, need: Permission) -> Decision | None:
        return None if authorization.endswith(IDENTITY) else super().cached(authorization, need)

    def _recall(self, key: Any) -> Decision | None:
        return None


@dataclass
class StandIn:
    """Answers TokenReview and SubjectAccessReview as the API server does, in-process."""

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        if body["kind"] == "TokenReview":
            user = {"username": "system:serviceaccount:tools:dashboard", "uid": "u",
                    "groups": ["system:serviceaccounts"]}  # fmt: skip
            ok = body["spec"]["token"] == IDENTITY
            return {**body, "status": {"authenticated": ok, "user": user if ok else {}}}
        return {**body, "status": {"allowed": True}}


def _accept(document: Any) -> tuple[int, dict[str, Any]]:
    return 202, {"id": "accepted"}


def _connect(http: httpx.Client, url: str, headers: dict[str, str]) -> None:
    with http.stream("GET", f"{url}/stream", headers=headers) as response:
        assert response.status_code == 200, response.status_code


def _report(http: httpx.Client, url: str, headers: dict[str, str]) -> None:
    response = http.post(f"{url}/reports", headers=headers, content=b"{}")
    assert response.status_code == 202, response.status_code


def main() -> None:
    guards = {
        "none": (Open(), ""),
        "shared token": (Access(SHARED), SHARED),
        "cached review": (Access("", StandIn(), NAMESPACE), IDENTITY),
        "review every time": (Uncached("", StandIn(), NAMESPACE), IDENTITY),
    }
    servers = {}
    for name, (access, _) in guards.items():
        app = create_app(Stream(size=10), lambda: NUMBERS, lambda: {}, _accept, access)
        servers[name] = ServerThread(app).start()
    spent: dict[tuple[str, str], list[float]] = {
        (route, name): [] for route in ("stream", "reports") for name in guards
    }
    try:
        with httpx.Client(timeout=30) as http:
            names = list(guards)
            for round_ in range(ROUNDS):
                order = names[round_ % len(names) :] + names[: round_ % len(names)]
                for route, call in (("stream", _connect), ("reports", _report)):
                    for name in order:  # each guard first in turn
                        token = guards[name][1]
                        url = servers[name].url
                        headers = {"Authorization": f"Bearer {token}"} if token else {}
                        call(http, url, headers)  # warm: the connection, the cache
                        for _ in range(PER_ROUND):
                            started = time.perf_counter()
                            call(http, url, headers)
                            spent[(route, name)].append(time.perf_counter() - started)
    finally:
        for server in servers.values():
            server.stop()
    rows = []
    for route, label in (("stream", "/stream connect"), ("reports", "/reports")):
        base = statistics.median(spent[(route, "none")])
        for name in guards:
            each = statistics.median(spent[(route, name)])
            judged = name == "cached review"
            rows.append(
                Row(
                    f"{label}: {name}",
                    base / each,
                    f"{each * 1e3:.2f} ms vs {base * 1e3:.2f} ms without authentication "
                    f"(medians of {len(spent[(route, name)])})",
                    ">= 0.8x" if judged else "",
                    at_least(0.8) if judged else None,
                )
            )
    rows += _decisions()
    finish("reporter authentication: /stream connect and /reports", rows, console)


def _decisions(count: int = 20_000) -> list[Row]:
    """The guard alone: a remembered review against the shared token's comparison."""
    shared, cached = Access(SHARED), Access("", StandIn(), NAMESPACE)
    need = Permission("get", "reporters", "stream")
    cached.check(f"Bearer {IDENTITY}", need)
    times = {}
    for name, access, header in (("shared token", shared, f"Bearer {SHARED}"),
                                 ("cached review", cached, f"Bearer {IDENTITY}")):  # fmt: skip
        started = time.perf_counter()
        for _ in range(count):
            assert access.cached(header, need) is not None
        times[name] = (time.perf_counter() - started) / count
    base, each = times["shared token"], times["cached review"]
    return [
        Row(
            "decision: cached review",
            base / each,
            f"{each * 1e6:.1f} us vs {base * 1e6:.1f} us for the shared token "
            f"(mean of {count:,}; in-process)",
        )
    ]


if __name__ == "__main__":
    main()
