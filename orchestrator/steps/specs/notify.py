"""``notify``: the exit handler; reports the run's status and failures to the reporters
(the log, and PROMOFLOW_REPORT_URL when set). Runs once per workflow, not per environment,
so it is no task of the DAG."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import EXITS, Input, StepSpec, register

if TYPE_CHECKING:
    from pathlib import Path


class Inputs(NamedTuple):
    """What the exit handler reports: the promotion, and how Argo says it ended."""

    product: str
    version: str
    flow: str
    status: str
    failures: str
    run: str
    requested_by: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Report how the run ended (log, and PROMOFLOW_REPORT_URL when set)."""
    from orchestrator import progress
    from orchestrator.steps import support
    from orchestrator.steps.notify import NotifyError, build_report, deliver
    from orchestrator.urls import UrlError, check_url

    url = os.environ.get("PROMOFLOW_REPORT_URL", "")
    if url:  # a usage error, before anything is reported
        try:
            check_url(url)
        except UrlError as exc:
            support.fail(f"PROMOFLOW_REPORT_URL: {exc}", 2)
    product, version, status, run_name = inputs.product, inputs.version, inputs.status, inputs.run
    document = build_report(
        product=product,
        version=version,
        flow=inputs.flow,
        status=status,
        failures=inputs.failures,
        run=run_name,
        requested_by=inputs.requested_by,
    )
    failed = ", ".join(f["node"] for f in document["failures"])
    progress.log(
        f"{run_name or product}: {product} {version} {status}" + (f" ({failed})" if failed else "")
    )
    if url:
        token = os.environ.get("PROMOFLOW_REPORT_TOKEN", "")
        try:
            support.retry_transient(lambda: deliver(document, url, token=token))
        except NotifyError as exc:
            support.fail(str(exc), support.TRANSIENT_EXIT)
        except ValueError as exc:
            support.fail(str(exc))
    support.write_outputs(support.outputs_dir(inputs.outputs), {"status": status})
    sys.stdout.write(json.dumps(document) + "\n")


SPEC = register(
    StepSpec(
        name="notify",
        summary="Report how the run ended (log, and PROMOFLOW_REPORT_URL when set).",
        doc=__doc__ or "",
        inputs=(
            Input("product", short="-p", help="Product promoted."),
            Input("version", cli_required=False, help="Version promoted."),
            Input("flow", cli_required=False, help="Promotion flow."),
            Input("status", help="Workflow status: Succeeded, Failed or Error."),
            Input("failures", "", help="Argo's workflow.failures JSON."),
            Input("run", cli_required=False, help="Promotion run name."),
            Input("requested-by", "", help="Who asked for the promotion."),
        ),
        exits={**EXITS, 1: "the report was refused by PROMOFLOW_REPORT_URL"},
        deadline=300,
        needs=frozenset({"report"}),
        run=run,
        takes=Inputs,
    )
)
