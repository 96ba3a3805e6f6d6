"""``runs`` and ``status``: what the Argo Server holds of promotion runs, as tables or data
(``-o wide|json|yaml|name``), every cell scrubbed of credentials."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from orchestrator.commands.argo import (
    RUNS_FORMATS,
    STATUS_FORMATS,
    ArgoServerOption,
    NamespaceOption,
    client_for,
    data_text,
    output_option,
)
from orchestrator.commands.choices import output_format
from orchestrator.commands.common import err, out


def runs_cmd(
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="Only this product's runs.")
    ] = None,
    output: Annotated[str | None, output_option(RUNS_FORMATS, "a table")] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """List promotion runs (newest first).

    Examples:
      $ promoflow runs -p shop
      $ promoflow runs -o json | jq -r '.[] | select(.phase == "Failed") | .name'
    """
    from orchestrator.runs import summarize
    from orchestrator.urls import scrub

    fmt = output_format(output, RUNS_FORMATS)
    selector = "promoflow.dev/product" + (f"={product}" if product else "")
    client = client_for(argo_server, namespace)
    runs = [summarize(w) for w in client.list_workflows(selector)]
    runs.sort(key=lambda r: r.started or "~", reverse=True)
    if fmt in ("json", "yaml"):
        sys.stdout.write(data_text([run.as_dict(nodes=False) for run in runs], fmt))
        return
    if fmt == "name":
        sys.stdout.write("".join(f"{scrub(run.name)}\n" for run in runs))
        return
    columns = ["RUN", "PRODUCT", "VERSION", "PHASE", "STARTED", "FINISHED"]
    from rich.table import Table

    table = Table(*columns, *(["FLOW", "MESSAGE"] if fmt == "wide" else []), box=None)
    for run in runs:
        cells = [run.name, run.product, run.version, run.phase, run.started, run.finished]
        if fmt == "wide":
            cells += [run.flow, run.message]
        table.add_row(*(scrub(str(cell)) for cell in cells))
    out.print(table)
    if not runs:
        err.print("no promotion runs found")


def status_cmd(
    run: Annotated[str, typer.Argument(help="Run (workflow) name, as `promoflow runs` lists.")],
    output: Annotated[str | None, output_option(STATUS_FORMATS, "a table")] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """Show one run: its phase and what happened in each environment.

    Examples:
      $ promoflow status shop-1-4-2-3f9a1c2e
      $ promoflow status shop-1-4-2-3f9a1c2e -o json | jq '.nodes[] | select(.phase != "Succeeded")'
    """
    from orchestrator.runs import summarize
    from orchestrator.urls import scrub

    fmt = output_format(output, STATUS_FORMATS)
    client = client_for(argo_server, namespace)
    summary = summarize(client.get_workflow(run))
    if fmt in ("json", "yaml"):
        sys.stdout.write(data_text({**summary.as_dict(), "url": client.ui_link(summary.name)}, fmt))
        return
    out.print(
        f"{summary.name}: {summary.product} {summary.version} — {summary.phase}"
        + (f" ({summary.message})" if summary.message else ""),
        markup=False,
    )
    wide = ["STARTED", "FINISHED", "OUTPUTS"] if fmt == "wide" else []
    from rich.table import Table

    table = Table("ENVIRONMENT", "STEP", "PHASE", "MESSAGE", *wide, box=None)
    for env, nodes in summary.environments().items():
        for node in nodes:  # node messages are whatever a step wrote: scrubbed like all output
            cells = [env, node.kind, node.phase, node.message]
            if wide:
                outputs = " ".join(f"{k}={v}" for k, v in node.outputs.items() if v)
                cells += [node.started, node.finished, outputs]
            table.add_row(*(scrub(str(cell)) for cell in cells))
    out.print(table)
    out.print(client.ui_link(summary.name), markup=False)
