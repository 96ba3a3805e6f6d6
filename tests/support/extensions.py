"""Extension modules written by tests: a gate kind (its settings and its tasks) and a
notification service, as a team would add them, each the text of one module that a test
puts in a temporary package."""

from __future__ import annotations

SMOKE_SETTINGS = '''
"""``smoke``: a smoke test's URL answers once the environment runs the new version."""

from typing import ClassVar

from orchestrator.model.checks import HttpUrl
from orchestrator.model.gates import GateSettings


class SmokeGate(GateSettings):
    KIND: ClassVar[str] = "smoke"

    url: HttpUrl
'''

SMOKE_TASKS = '''
"""The smoke gate's task: an ``http-check`` of its URL, at the HTTP checks' rank."""

from orchestrator.compiler.chain import Build, contributes
from orchestrator.model.gates.smoke import SmokeGate


@contributes("smoke", kind="check")
def add(build: Build) -> None:
    smoke = build.env.policy.gate(SmokeGate)
    if smoke is not None:
        n = build.env.environment
        build.chain.step(
            f"smoke-{n}", build.settings, "http-check", {"environment": n, "url": smoke.url}
        )
'''

PAGER = '''
"""``pager:URL``: a page, through an HTTP sink with the urgency in a header."""

from reporters.services import HttpUrl, Kind, Options, register


class PagerOptions(Options):
    url: HttpUrl
    urgency: str = "low"


def build(name, options):
    from reporters.sinks.http import HttpSink

    return HttpSink(options.url, name=name or "pager", headers={"X-Urgency": options.urgency})


def flags(value, given):
    if not value.startswith("pager:"):
        return None
    return build("pager", PagerOptions(url=value.removeprefix("pager:"), urgency="high"))


KIND = register(Kind("pager", PagerOptions, build, flags=flags, flag_help="pager:URL"))
'''
