"""The ``promoflow`` command line: parse arguments, call the library, print.

Exit codes: 0 success, 1 the configuration (or the operation) has problems, 2 usage errors.
A user mistake never prints a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from orchestrator import __version__

if TYPE_CHECKING:
    from orchestrator.loading import Config
    from orchestrator.model import Resource

app = typer.Typer(
    name="promoflow",
    help="Promote versions through environments with Argo Workflows and Argo CD.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)

ConfigOption = Annotated[
    Path,
    typer.Option(
        "--config",
        "-c",
        envvar="PROMOFLOW_CONFIG",
        help="Configuration directory or file (default: current directory).",
    ),
]


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


def load_valid(config: Path) -> Config:
    """Load and validate; print problems and exit 1 if there are any."""
    from orchestrator.graph import validate
    from orchestrator.loading import load_config
    from orchestrator.problems import sort_problems

    if not config.exists():
        raise typer.BadParameter(f"{config} does not exist", param_hint="--config")
    loaded, problems = load_config(config)
    problems = sort_problems([*problems, *validate(loaded)])
    if problems:
        for problem in problems:
            err.print(str(problem), markup=False)
        raise typer.Exit(1)
    return loaded


@app.command("validate")
def validate_cmd(config: ConfigOption = Path(".")) -> None:
    """Check the configuration; print FILE:LINE:COL: error: ... for each problem."""
    loaded = load_valid(config)
    counts = ", ".join(f"{len(loaded.of(cls))} {cls.KIND}" for cls in _kinds() if loaded.of(cls))
    out.print(f"valid: {counts or 'no resources'}", markup=False)


def _kinds() -> list[type[Resource]]:
    from orchestrator.model import RESOURCE_KINDS

    return list(RESOURCE_KINDS.values())


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
    from orchestrator.problems import suggest

    if fmt not in FORMATS:
        raise typer.BadParameter(
            f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}", param_hint="--format"
        )
    loaded = load_valid(config)
    if product is not None and product not in loaded.products:
        raise typer.BadParameter(
            f"unknown product {product!r}{suggest(product, loaded.products)}",
            param_hint="--product",
        )
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


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
