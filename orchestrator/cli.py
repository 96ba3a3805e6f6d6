"""The ``promoflow`` command line: parse arguments, call the library, print.

Exit codes: 0 success, 1 the configuration (or the operation) has problems, 2 usage errors.
A user mistake never prints a traceback. Commands import what they need lazily, so that
``promoflow step ...`` inside a workflow pod starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from orchestrator import __version__
from orchestrator.commands import approval, argo, local, step
from orchestrator.commands.common import ConfigOption, check_product, load_valid, out

app = typer.Typer(
    name="promoflow",
    help="Promote versions through environments with Argo Workflows and Argo CD.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        out.print(f"promoflow {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """promoflow: GitOps promotions on Argo Workflows and Argo CD."""


@app.command("validate")
def validate_cmd(config: ConfigOption = Path(".")) -> None:
    """Check the configuration; print FILE:LINE:COL: error: ... for each problem."""
    from orchestrator.model import RESOURCE_KINDS

    loaded = load_valid(config)
    counts = ", ".join(
        f"{len(loaded.of(cls))} {cls.KIND}" for cls in RESOURCE_KINDS.values() if loaded.of(cls)
    )
    out.print(f"valid: {counts or 'no resources'}", markup=False)


@app.command("graph")
def graph_cmd(
    config: ConfigOption = Path("."),
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="Show one product's flow in detail.")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text, mermaid, dot or json.")
    ] = "text",
) -> None:
    """Show the environment graph of every flow (or of one product)."""
    from orchestrator.graph.render import FORMATS, render
    from orchestrator.graph.views import views

    if fmt not in FORMATS:
        raise typer.BadParameter(
            f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}", param_hint="--format"
        )
    loaded = load_valid(config)
    if product is not None:
        check_product(loaded, product)
    sys.stdout.write(render(views(loaded, product), fmt))


@app.command("schema")
def schema_cmd(
    kind: Annotated[str | None, typer.Argument(help="One kind, e.g. PromotionFlow.")] = None,
) -> None:
    """Print the JSON Schema of the resource formats (all kinds, or one)."""
    from orchestrator.model import RESOURCE_KINDS
    from orchestrator.problems import suggest
    from orchestrator.schema import combined_schema, kind_schema

    if kind is not None and kind not in RESOURCE_KINDS:
        raise typer.BadParameter(
            f"unknown kind {kind!r}{suggest(kind, RESOURCE_KINDS)}; one of: "
            + ", ".join(RESOURCE_KINDS),
            param_hint="KIND",
        )
    schema = kind_schema(kind) if kind else combined_schema()
    sys.stdout.write(json.dumps(schema, indent=2, sort_keys=True) + "\n")


app.command("compile")(argo.compile_cmd)
app.command("apply")(argo.apply_cmd)
app.command("promote")(argo.promote_cmd)
app.command("runs")(argo.runs_cmd)
app.command("status")(argo.status_cmd)
app.command("diff")(argo.diff_cmd)
app.command("approve")(approval.approve_cmd)
app.command("demo")(local.demo_cmd)
app.command("reject")(approval.reject_cmd)
app.add_typer(step.step_app, name="step")


def main() -> None:
    """Entry point (see orchestrator.entry, which the console script uses)."""
    from orchestrator.entry import main as entry

    entry()


if __name__ == "__main__":
    main()
