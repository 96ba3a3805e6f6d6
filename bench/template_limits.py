"""Benchmark: what the sandbox's limits cost a Jinja template.

The commit message template is written in Jinja by teams, and renders in
:mod:`orchestrator.sandbox` (a read-only copy of the data, operators and filters checked,
lines counted under ``sys.settrace``, the output built chunk by chunk). The same templates
(short messages, and a body looping over an app's 40 resources) and one expression render
on the same data, alternately, with Jinja's plain sandbox (``SandboxedEnvironment``, the
data as it is) and with the limits.

Printed: microseconds per round of templates both ways, the best of each, and the median
of the rounds' ratios; the same for one expression.
Information only: a commit message is rendered once per promotion, next to a push that
costs hundreds of milliseconds. (Notification templates are Go templates, bounded by
``reporters.gotemplate``'s own limits.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from jinja2 import ChainableUndefined
from jinja2.sandbox import SandboxedEnvironment

from bench._report import Row, finish
from orchestrator.sandbox.environment import BoundedEnvironment
from orchestrator.sandbox.frozen import freeze

ENVIRONMENT = BoundedEnvironment(undefined=ChainableUndefined, autoescape=False)
_NAME = "{{ event.data.app.split('/')[-1] }}"
_VERSION = "{{ event.data.version or event.data.revision[:12] }}"
MESSAGES = [
    f"Application {_NAME} is now running {_VERSION}.",
    f"Application {_NAME} is Degraded: {{{{ event.data.message or 'no message' }}}}",
    "Promotion of {{ event.data.product }} {{ event.data.version }} failed"
    "{% for f in event.data.failures or [] %}; {{ f.step }}: {{ f.message }}{% endfor %}.",
    "{{ event.data.product }} {{ event.data.version }} waits for approval to "
    "{{ event.data.environment }}: {{ event.data.link }}",
]


def frozen(data: dict[str, Any]) -> dict[str, Any]:
    return {name: freeze(value) for name, value in data.items()}


@lru_cache(maxsize=64)
def _template(text: str) -> Any:
    return ENVIRONMENT.from_string(text)


@lru_cache(maxsize=64)
def _expression(text: str) -> Any:
    return ENVIRONMENT.compile_expression(text, undefined_to_none=True)


def render(text: str, data: dict[str, Any]) -> str:
    return ENVIRONMENT.render(_template(text), data)


def evaluate(text: str, data: dict[str, Any]) -> Any:
    with ENVIRONMENT.bounded():
        return _expression(text)(**data)


ROUNDS = 15
EVENTS = 200

BODY = """{"app": "{{ app.metadata.name }}", "revision": "{{ event.data.revision }}",
"resources": [{% for r in app.status.resources %}{"kind": "{{ r.kind }}",
"name": "{{ r.name }}", "health": "{{ r.health.status }}"}{{ "," if not loop.last }}
{% endfor %}], "link": "{{ context.argocdUrl }}/applications/{{ app.metadata.name }}"}"""
TEMPLATES = [*MESSAGES, BODY]
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
        context = frozen(data)  # once per render, as the commit message does
        for text in TEMPLATES:
            render(text, context)

    def without_condition() -> None:
        expression(**data)

    def with_condition() -> None:
        evaluate(CONDITION, frozen(data))

    assert [t.render(**data) for t in compiled] == [render(t, frozen(data)) for t in TEMPLATES]
    assert ENVIRONMENT.limits.max_seconds > 0
    rows = [
        _row("templates per round", without_templates, with_templates),
        _row("one expression", without_condition, with_condition),
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
