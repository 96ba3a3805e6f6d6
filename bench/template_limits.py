"""Benchmark: what the template limits cost a notification.

The same templates (the catalog's, and a webhook body looping over an app's resources)
render on the same data, alternately, with Jinja's plain sandbox as promoflow used it
before (``SandboxedEnvironment``, the data as it is) and with the limits
(:mod:`orchestrator.sandbox`: a read-only copy of the data per event, operators and
filters checked, lines counted under ``sys.settrace``, the output built chunk by chunk).

Printed: microseconds per event (every template rendered once) both ways, the best of
each, and the median of the rounds' ratios; the same for one condition, as the notifier
evaluates it on every event.
Information only: a notification is rendered once per event and recipient, next to a
store transaction and an HTTP delivery that each cost milliseconds.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from jinja2 import ChainableUndefined
from jinja2.sandbox import SandboxedEnvironment

from bench._report import Row, finish
from reporters.notifications import catalog
from reporters.notifications.expressions import ENVIRONMENT, evaluate, frozen, render

ROUNDS = 15
EVENTS = 200

BODY = """{"app": "{{ app.metadata.name }}", "revision": "{{ event.data.revision }}",
"resources": [{% for r in app.status.resources %}{"kind": "{{ r.kind }}",
"name": "{{ r.name }}", "health": "{{ r.health.status }}"}{{ "," if not loop.last }}
{% endfor %}], "link": "{{ context.argocdUrl }}/applications/{{ app.metadata.name }}"}"""
TEMPLATES = [t["message"] for t in catalog.TEMPLATES.values()] + [BODY]
CONDITION = "event.type == 'app.deployed' and app.status.health.status == 'Healthy'"


def _data() -> dict[str, Any]:
    app = {
        "metadata": {"name": "shop-prod", "labels": {"promoflow.dev/product": "shop"}},
        "status": {
            "health": {"status": "Healthy"},
            "resources": [
                {"kind": "Deployment", "name": f"shop-{i}", "health": {"status": "Healthy"}}
                for i in range(40)
            ],
        },
    }
    event = {
        "type": "app.deployed",
        "data": {
            "app": "argocd/shop-prod",
            "revision": "c" * 40,
            "product": "shop",
            "version": "1.2.0",
            "environment": "prod",
            "link": "https://x",
            "failures": [{"step": "promote", "message": "conflict"}] * 5,
        },
    }
    return {"app": app, "event": event, "context": {"argocdUrl": "https://argocd.example.com"}}


def main() -> None:
    data = _data()
    plain = SandboxedEnvironment(undefined=ChainableUndefined, autoescape=False)
    compiled = [plain.from_string(t) for t in TEMPLATES]
    expression = plain.compile_expression(CONDITION, undefined_to_none=True)

    def without_templates() -> None:
        for template in compiled:
            template.render(**data)

    def with_templates() -> None:
        context = frozen(data)  # once per event, as the notifier does
        for text in TEMPLATES:
            render(text, context)

    def without_condition() -> None:
        expression(**data)

    def with_condition() -> None:
        evaluate(CONDITION, frozen(data))

    assert [t.render(**data) for t in compiled] == [render(t, frozen(data)) for t in TEMPLATES]
    assert ENVIRONMENT.limits.max_seconds > 0
    rows = [
        _row("templates per event", without_templates, with_templates),
        _row("one condition per event", without_condition, with_condition),
    ]
    finish("template limits: cost of a render with the limits, against without", rows)


def _best(work: Callable[[], None]) -> float:
    start = time.perf_counter()
    for _ in range(EVENTS):
        work()
    return (time.perf_counter() - start) / EVENTS


def _row(figure: str, without: Callable[[], None], limited: Callable[[], None]) -> Row:
    for work in (without, limited):  # warm: templates compiled and cached
        work()
    bare: list[float] = []
    bounded: list[float] = []
    for _ in range(ROUNDS):  # alternately, so both see the same machine
        bare.append(_best(without))
        bounded.append(_best(limited))
    # the median of each round's ratio: a round's two halves see the same load
    ratio = statistics.median(w / b for w, b in zip(bounded, bare, strict=True))
    b, w = min(bare), min(bounded)
    return Row(figure, ratio, f"{w * 1e6:,.0f} µs with limits, {b * 1e6:,.0f} µs without")


if __name__ == "__main__":
    main()
