"""``http-check``: a smoke test or status page check after the deployment, with retries
and an optional JSONPath comparison. Its deadline comes from the gate's timeout."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path

MAX_RETRIES = 100  # as the HTTP gate's ``retries`` (orchestrator.model.checks)


class Inputs(NamedTuple):
    """What the check reads: the URL, the expected answer and how often to try."""

    environment: str
    url: str
    expect_status: int
    jsonpath: str
    equals: str
    retries: int
    run: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """GET the URL until it answers as expected or the retries run out."""
    from orchestrator import progress
    from orchestrator.steps import support
    from orchestrator.steps.http_check import Check, CheckUsageError, run_check

    url, jsonpath, equals = inputs.url, inputs.jsonpath, inputs.equals
    support.checked_url(url, "--url")
    if equals and not jsonpath:
        support.usage("--equals needs --jsonpath")
    check = Check(url, inputs.expect_status, jsonpath, equals, inputs.retries)
    try:
        outcome = run_check(check, log=progress.log)
    except CheckUsageError as exc:
        support.usage(str(exc))
    progress.node_message(outcome.reason)
    support.write_outputs(
        support.outputs_dir(inputs.outputs), {"status": str(outcome.status or "")}
    )
    result = {"ok": outcome.ok, "reason": outcome.reason, "attempts": outcome.attempts}
    sys.stdout.write(json.dumps(result) + "\n")
    if not outcome.ok:
        support.fail(f"{url}: {outcome.reason} after {outcome.attempts} attempts")


SPEC = register(
    StepSpec(
        name="http-check",
        summary="Pass when URL answers EXPECT_STATUS (and JSONPATH equals EQUALS), with retries.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", cli_required=False, help="Environment (for messages)."),
            Input("url", help="URL to GET."),
            Input(
                "expect-status",
                "200",
                type="int",
                minimum=100,
                maximum=599,
                help="Expected HTTP status.",
            ),
            Input("jsonpath", "", help="Path of a value in the JSON body, e.g. status.ok."),
            Input("equals", "", help="The value that path must have."),
            Input(
                "retries",
                "3",
                type="int",
                minimum=0,
                maximum=MAX_RETRIES,
                help="Tries after the first one.",
            ),
            Input("run", cli_only=True, help="Promotion run name (for messages)."),
        ),
        deadline=300,
        deadline_input=True,
        run=run,
        takes=Inputs,
        tasks=(TaskKind("check", rank=80, indexed=True),),
    )
)
