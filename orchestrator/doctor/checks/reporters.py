"""The reporters' store: a file they keep each app's last state in, which must be
writable or every restart reports each app again (checked when its path is given)."""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok

ORDER = 80
TITLE = "Reporters"


def run(context: Context, earlier: list[Line]) -> list[Line]:
    path = context.reporter_state
    if not path:
        return []
    problem = context.probes.writable(path)
    if problem:
        return [
            fail(
                TITLE,
                "store",
                f"{path}: {problem}",
                "mount a writable volume there (the chart: reporters.persistence) or "
                "pass another --state",
            )
        ]
    return [ok(TITLE, "store", f"{path} is writable")]
