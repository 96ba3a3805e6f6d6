"""The families of checks, each a module of :mod:`orchestrator.doctor.checks` with
``ORDER`` (where its lines go), ``TITLE`` and ``run(context) -> list[Line]``."""

from __future__ import annotations

from functools import cache
from types import ModuleType

from orchestrator import discovery
from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line

PACKAGE = "orchestrator.doctor.checks"


@cache
def families() -> tuple[ModuleType, ...]:
    return tuple(sorted(discovery.modules(PACKAGE), key=lambda module: module.ORDER))


def examine(context: Context) -> list[Line]:
    """Every family's lines, in order; a family that needs what an earlier one found
    missing says so in its own words rather than repeating the failure."""
    lines: list[Line] = []
    for family in families():
        lines += family.run(context, lines)
    return lines
