"""Pieces every command shares: consoles, the --config option, loading a valid config."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, cast

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from orchestrator.loading import Config


class _Lazy:
    """A rich Console made on first use: a workflow step that succeeds never prints
    through it, so it does not pay for importing rich at start-up."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)


err = cast("Console", _Lazy(stderr=True, highlight=False, soft_wrap=True))
out = cast("Console", _Lazy(highlight=False, soft_wrap=True))

ConfigOption = Annotated[
    Path,
    typer.Option(
        "--config",
        "-c",
        envvar="PROMOFLOW_CONFIG",
        help="Configuration directory or file (default: current directory).",
    ),
]


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` to stderr and exit with ``code`` (no traceback)."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


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


def check_product(config: Config, product: str) -> None:
    from orchestrator.problems import suggest

    if product not in config.products:
        raise typer.BadParameter(
            f"unknown product {product!r}{suggest(product, config.products)}",
            param_hint="--product",
        )
