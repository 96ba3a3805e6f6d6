"""``runs`` and ``status``: promotion runs, local (``promote --local``, ``demo``) and on
the Argo Server, as tables or data (``-o wide|json|yaml|name``), every cell scrubbed of
credentials. ``status --watch`` follows a run to its end, as ``argo watch`` does."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import (
    RUNS_FORMATS,
    STATUS_FORMATS,
    ArgoServerOption,
    NamespaceOption,
    argo_settings,
    client_for,
    data_text,
    output_option,
)
from orchestrator.commands.choices import output_format
from orchestrator.commands.common import RUNS_DIR, RunsDirOption, err, out

if TYPE_CHECKING:
    from rich.console import RenderableType

    from orchestrator.commands.runsource import RunSource
    from orchestrator.runs import RunSummary

FINAL = ("Succeeded", "Failed", "Error")
POLL_SECONDS = {"cluster": 2.0, "local": 0.5}
"""How often ``--watch`` reads the run again: the Argo Server's API, or a local file."""


def runs_cmd(
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="Only this product's runs.")
    ] = None,
    output: Annotated[str | None, output_option(RUNS_FORMATS, "a table")] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    runs_dir: RunsDirOption = RUNS_DIR,
) -> None:
    """List promotion runs (newest first): local runs, and the Argo Server's when one is
    configured.

    Examples:
      $ promoflow runs -p shop
      $ promoflow runs -o json | jq -r '.[] | select(.phase == "Failed") | .name'
    """
    from orchestrator.localruns import as_workflow, local_runs
    from orchestrator.runs import summarize
    from orchestrator.urls import scrub

    fmt = output_format(output, RUNS_FORMATS)
    found = [(summarize(as_workflow(r.record)), "local") for r in local_runs(runs_dir)]
    found = [(run, where) for run, where in found if product in (None, run.product)]
    cluster = bool(argo_settings(argo_server, namespace).server)
    if cluster:
        selector = "promoflow.dev/product" + (f"={product}" if product else "")
        client = client_for(argo_server, namespace)
        found += [(summarize(w), "cluster") for w in client.list_workflows(selector)]
    found.sort(key=lambda item: item[0].started or "~", reverse=True)
    if fmt in ("json", "yaml"):
        data = [{**run.as_dict(nodes=False), "where": where} for run, where in found]
        sys.stdout.write(data_text(data, fmt))
        return
    if fmt == "name":
        sys.stdout.write("".join(f"{scrub(run.name)}\n" for run, _ in found))
        return
    from rich.table import Table

    columns = ["RUN", "PRODUCT", "VERSION", "PHASE", "STARTED", "FINISHED"]
    table = Table(*columns, *(["FLOW", "WHERE", "MESSAGE"] if fmt == "wide" else []), box=None)
    for run, where in found:
        cells = [run.name, run.product, run.version, run.phase, run.started, run.finished]
        if fmt == "wide":
            cells += [run.flow, where, run.message]
        table.add_row(*(scrub(str(cell)) for cell in cells))
    out.print(table)
    if not found:
        from orchestrator.commands.runsource import NO_SERVER

        err.print("no promotion runs found" + ("" if cluster else f"; {NO_SERVER}"))


def status_cmd(
    run: Annotated[str, typer.Argument(help="Run name, as `promoflow runs` lists it.")],
    output: Annotated[str | None, output_option(STATUS_FORMATS, "a table")] = None,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            "-w",
            help="Follow the run until it ends; exit 0 when it succeeded, 1 when not.",
        ),
    ] = False,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    runs_dir: RunsDirOption = RUNS_DIR,
) -> None:
    """Show one run, local or on the Argo Server: its phase and what happened in each
    environment.

    Examples:
      $ promoflow status shop-1-4-2-3f9a1c2e
      $ promoflow status shop-1-4-2-3f9a1c2e --watch
      $ promoflow status shop-1-4-2-3f9a1c2e -o json | jq '.nodes[] | select(.phase != "Succeeded")'
    """
    from orchestrator.commands.runsource import locate

    fmt = output_format(output, STATUS_FORMATS)
    source = locate(run, runs_dir, argo_server, namespace)
    summary = follow(source, fmt) if watch else source.summary()
    if fmt in ("json", "yaml"):
        where = {"url": source.link()} if source.client else {"record": source.link()}
        sys.stdout.write(data_text({**summary.as_dict(), **where}, fmt))
    elif not watch:
        out.print(view(summary, source, fmt))
    if watch and summary.phase != "Succeeded":
        raise typer.Exit(1)


def follow(source: RunSource, fmt: str) -> RunSummary:
    """Read the run again until it ends, redrawing its table in place (the data formats
    print once, at the end); the last summary read."""
    summary = source.summary()
    pause = POLL_SECONDS[source.where]
    if fmt in ("json", "yaml"):
        while summary.phase not in FINAL:
            time.sleep(pause)
            summary = source.summary()
        return summary
    from rich.console import Console
    from rich.live import Live

    console = Console(highlight=False, emoji=False)
    if not console.is_terminal:  # a log, not a screen: the run as it ended, once
        while summary.phase not in FINAL:
            time.sleep(pause)
            summary = source.summary()
        out.print(view(summary, source, fmt))
        return summary
    first = view(summary, source, fmt)
    with Live(first, console=console, auto_refresh=False, vertical_overflow="visible") as live:
        while summary.phase not in FINAL:
            time.sleep(pause)
            summary = source.summary()
            live.update(view(summary, source, fmt), refresh=True)
    return summary


def view(summary: RunSummary, source: RunSource, fmt: str) -> RenderableType:
    """The run's line, a row per step of each environment, and where to look further."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from orchestrator.urls import scrub

    local = " (local)" if source.local is not None else ""
    head = f"{summary.name}: {summary.product} {summary.version} — {summary.phase}{local}"
    head += f" ({summary.message})" if summary.message else ""
    wide = ["STARTED", "FINISHED", "OUTPUTS"] if fmt == "wide" else []
    table = Table("ENVIRONMENT", "STEP", "PHASE", "MESSAGE", *wide, box=None)
    for env, nodes in summary.environments().items():
        for node in nodes:  # node messages are whatever a step wrote: scrubbed like all output
            cells = [env, node.kind, node.phase, node.message]
            if wide:
                outputs = " ".join(f"{k}={v}" for k, v in node.outputs.items() if v)
                cells += [node.started, node.finished, outputs]
            table.add_row(*(scrub(str(cell)) for cell in cells))
    return Group(Text(scrub(head)), table, Text(scrub(source.link())))
