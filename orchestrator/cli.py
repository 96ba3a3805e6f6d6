"""The ``promoflow`` command line: parse arguments, call the library, print.

Exit codes: 0 success, 1 the configuration (or the operation) has problems, 2 usage errors.
A user mistake never prints a traceback. Commands import what they need lazily, so that
``promoflow step ...`` inside a workflow pod starts fast.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from orchestrator import __version__
from orchestrator.commands import (
    approval,
    argo,
    compiling,
    configpack,
    diff,
    doctor,
    history,
    local,
    logs,
    plugin,
    reporter,
    rollback,
    runs,
    serve,
    step,
    version,
)
from orchestrator.commands.choices import check_product, completer, output_format
from orchestrator.commands.common import ConfigOption, err, load_valid, out
from orchestrator.commands.helpstyle import App

if TYPE_CHECKING:
    from orchestrator.graph.render import Format

# Shell completion (--install-completion, --show-completion) is typer's: the completion
# script calls `promoflow` itself, which answers from the same command tree. -h, the
# placeholders' names and the help's look are helpstyle's, for every command.
app = App(name="promoflow", no_args_is_help=True)

GRAPH_FORMATS = ("text", "mermaid", "dot", "json")
SCHEMA_FORMATS = ("json", "yaml")


def _version(value: bool) -> None:
    if value:
        out.print(f"promoflow {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        # no -v: promote, compile, diff and demo take -v VERSION (the version to promote)
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Promote versions through environments with Argo Workflows and Argo CD.

    Examples:
      $ promoflow validate -c environments
      $ promoflow demo
      $ promoflow promote -c environments -p shop -v 1.4.2
    """


@app.command("validate")
def validate_cmd(
    config: ConfigOption = Path("."),
    repo_check: Annotated[
        bool,
        typer.Option(
            "--repo-check",
            help="Also read every environment's files from the repository (GIT_TOKEN) and "
            "check that the templates' paths exist in them.",
        ),
    ] = False,
    at: Annotated[
        str | None,
        typer.Option(
            metavar="WHEN",
            help="Show the promotion windows as at this time (2026-12-24T09:00:00+01:00) "
            "instead of now.",
        ),
    ] = None,
) -> None:
    """Check the configuration; print FILE:LINE:COL: error: ... for each problem, then
    whether each environment a promotion window applies to is open, and until when.

    Exit 0 when it is valid, 1 when it has problems (all of them are printed) or holds no
    promoflow resource at all.

    Examples:
      $ promoflow validate -c environments
      $ promoflow validate -c environments --at 2026-12-24T09:00:00+01:00
    """
    from orchestrator.model import RESOURCE_KINDS

    when = _moment(at)
    loaded = load_valid(config)
    if repo_check:
        from orchestrator.commands.repocheck import repository_problems
        from orchestrator.problems import sort_problems

        found = sort_problems(repository_problems(loaded))
        for problem in found:
            err.print(str(problem), markup=False)
        if any(problem.severity == "error" for problem in found):
            raise typer.Exit(1)
    counts = ", ".join(
        f"{len(loaded.of(cls))} {cls.KIND}" for cls in RESOURCE_KINDS.values() if loaded.of(cls)
    )
    out.print(f"valid: {counts}", markup=False)
    if loaded.windows:
        from orchestrator.windows.outlook import outlook

        states = outlook(loaded, when)
        if states:
            out.print(f"promotion windows at {when.strftime('%a %d %b %Y %H:%M %Z')}:")
        for state in states:
            out.print(f"  {state.line()}", markup=False)


def _moment(at: str | None) -> datetime:
    """``--at``, or now: an aware time (a time without an offset is UTC)."""
    if at is None:
        return datetime.now(UTC)
    try:
        when = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{at!r} is not a time such as 2026-12-24T09:00:00+01:00", param_hint="'--at'"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@app.command("graph")
def graph_cmd(
    config: ConfigOption = Path("."),
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="Show one product's flow in detail.")
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FORMAT",
            help=f"Output format: {', '.join(GRAPH_FORMATS)} (default: text).",
            autocompletion=completer(GRAPH_FORMATS),
            show_default=False,
        ),
    ] = None,
    old_format: Annotated[
        str | None,
        typer.Option("--format", "-f", hidden=True, help="Former name of --output."),
    ] = None,
) -> None:
    """Show the environment graph of every flow (or of one product).

    Examples:
      $ promoflow graph -c environments
      $ promoflow graph -c environments -p shop -o mermaid > shop.mmd
      $ promoflow graph -c environments -o dot | dot -Tsvg > flows.svg
    """
    from orchestrator.graph.render import render
    from orchestrator.graph.views import views

    if output and old_format and output != old_format:
        raise typer.BadParameter("give the format once (-f is the former name of -o)")
    fmt = output_format(output or old_format, GRAPH_FORMATS, default="text")
    loaded = load_valid(config)
    if product is not None:
        check_product(loaded, product)
    sys.stdout.write(render(views(loaded, product), cast("Format", fmt)))


@app.command("schema")
def schema_cmd(
    kind: Annotated[str | None, typer.Argument(help="One kind, e.g. PromotionFlow.")] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FORMAT",
            help="Output format: json or yaml (default: json).",
            autocompletion=completer(SCHEMA_FORMATS),
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of the resource formats (all kinds, or one).

    Examples:
      $ promoflow schema > promoflow.schema.json
      $ promoflow schema PromotionFlow -o yaml
    """
    from orchestrator.model import RESOURCE_KINDS
    from orchestrator.problems import suggest
    from orchestrator.schema import combined_schema, kind_schema

    fmt = output_format(output, SCHEMA_FORMATS, default="json")
    if kind is not None and kind not in RESOURCE_KINDS:
        raise typer.BadParameter(
            f"unknown kind {kind!r}{suggest(kind, RESOURCE_KINDS)}; one of: "
            + ", ".join(RESOURCE_KINDS),
            param_hint="KIND",
        )
    schema = kind_schema(kind) if kind else combined_schema()
    if fmt == "yaml":
        import yaml

        sys.stdout.write(yaml.safe_dump(schema, sort_keys=True, allow_unicode=True))
        return
    sys.stdout.write(json.dumps(schema, indent=2, sort_keys=True) + "\n")


app.command("compile")(compiling.compile_cmd)
app.command("apply")(argo.apply_cmd)
app.command("promote")(argo.promote_cmd)
app.command("runs")(runs.runs_cmd)
app.command("status")(runs.status_cmd)
app.command("logs")(logs.logs_cmd)
app.command("diff")(diff.diff_cmd)
app.command("history")(history.history_cmd)
app.command("rollback")(rollback.rollback_cmd)
app.command("approve")(approval.approve_cmd)
app.command("demo")(local.demo_cmd)
app.command("reject")(approval.reject_cmd)
app.command("serve")(serve.serve_cmd)
app.command("doctor")(doctor.doctor_cmd)
app.add_typer(configpack.config_app, name="config")
app.command("version")(version.version_cmd)
app.add_typer(reporter.reporter_app, name="reporter")
app.add_typer(step.step_app, name="step")
app.add_typer(plugin.plugin_app, name="plugin")


def main() -> None:
    """``python -m orchestrator.cli``: the whole CLI (the console script starts in
    orchestrator.entry, which sends ``promoflow step`` past this module)."""
    from orchestrator.commands.invoke import run

    sys.exit(run(app, sys.argv[1:], "promoflow"))


if __name__ == "__main__":
    main()
