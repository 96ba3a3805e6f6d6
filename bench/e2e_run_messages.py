"""Benchmark: what writing the run's message costs a promotion, on the real controller.

The reporter patches each promotion Workflow's ``status.message`` when the run moves to
another environment; when the controller is mid-update, its write then conflicts and it
merges its update onto the newer Workflow (``reapplyUpdate``), one more GET. This measures
whether that slows runs down: promotions of dev -> staging -> prod with a 1 s soak each,
alternately without and with a reporter writing messages (the baseline in the same run),
on the e2e cluster (``make cluster``, or one configured as in tests/e2e/README.md).

Figure: median run time (the Workflow's startedAt -> finishedAt) with messages over
without; target below 1.10, i.e. no regression beyond the noise of a 2-core machine.
Without a configured cluster it says so and measures nothing (exit 0).
"""

from __future__ import annotations

import statistics
import tempfile
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from bench._report import Row, below, finish

ROUNDS = 4
SOAKS = [{"priority": 0, "policy": {"action": "none", "gates": [{"soak": {"duration": "1s"}}]}}]
console = Console(highlight=False)


def _seconds(workflow: dict[str, Any]) -> float:
    def at(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    status = workflow["status"]
    return (at(status["finishedAt"]) - at(status["startedAt"])).total_seconds()


def main() -> None:
    from tests.e2e.settings import NotConfigured, load

    try:
        e2e = load()
    except NotConfigured as exc:
        console.print(f"e2e_run_messages: not measured, no cluster configured ({exc})")
        return
    from tests.e2e import conftest
    from tests.e2e.flows import argo_client, wait_for_end
    from tests.e2e.test_argo_server import submit
    from tests.e2e.test_run_messages import reporting

    times: dict[bool, list[float]] = {False: [], True: []}
    written = 0
    with tempfile.TemporaryDirectory() as work, ExitStack() as stack:
        identity = stack.enter_context(contextmanager(conftest.workflow_identity.__wrapped__)(e2e))
        stack.enter_context(contextmanager(conftest.pod_runner.__wrapped__)(e2e))
        flows = stack.enter_context(
            contextmanager(conftest.flows.__wrapped__)(e2e, Path(work), identity, None)
        )
        flow = flows(SOAKS)
        client = argo_client(e2e)
        with console.status("promotions") as status:
            for i in range(2 * ROUNDS):
                messages = i % 2 == 1
                status.update(
                    f"promotion {i + 1}/{2 * ROUNDS} ({'with' if messages else 'no'} messages)"
                )
                with ExitStack() as round_:
                    if messages:
                        writer = round_.enter_context(reporting(e2e, Path(work) / f"s{i}.db"))
                    name = submit(flow, f"1.0.{i}")
                    workflow = wait_for_end(client, name, e2e.timeout)
                    assert workflow["status"]["phase"] == "Succeeded", workflow["status"]
                    if messages:
                        writer.flush()
                        written += writer.written
                times[messages].append(_seconds(workflow))
    base, with_messages = statistics.median(times[False]), statistics.median(times[True])
    finish(
        "e2e_run_messages",
        [
            Row(
                "run time with messages / without (median)",
                with_messages / base,
                f"{with_messages:.1f} s vs {base:.1f} s over {ROUNDS} runs each; "
                f"{written} messages written",
                "< 1.10",
                below(1.10),
            ),
        ],
    )


if __name__ == "__main__":
    main()
