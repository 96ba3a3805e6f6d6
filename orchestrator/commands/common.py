"""Pieces every command shares: consoles, the --config option, loading a valid config."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar, cast

import typer

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings
    from rich.console import Console

    from orchestrator.loading import Config


class _Lazy:
    """A rich Console made on first use: a workflow step that succeeds never prints
    through it, so it does not pay for importing rich at start-up.

    Every text printed through it is scrubbed of credentials (``orchestrator.urls.scrub``):
    one choke point for messages that quote a URL, a server's answer or an exception."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)

    def print(self, *objects: Any, **options: Any) -> None:
        from orchestrator.urls import scrub

        shown = [scrub(o) if isinstance(o, str) else o for o in objects]
        self.__getattr__("print")(*shown, **options)


# emoji=False: rich would print a user's "a:x:b" as "a❌b" (":x:" is an emoji code)
err = cast("Console", _Lazy(stderr=True, highlight=False, soft_wrap=True, emoji=False))
out = cast("Console", _Lazy(highlight=False, soft_wrap=True, emoji=False))

ConfigOption = Annotated[
    Path,
    typer.Option(
        "--config",
        "-c",
        envvar="PROMOFLOW_CONFIG",
        help="Configuration directory or file (default: current directory).",
    ),
]

# What ``promote --local`` and ``serve --local`` share: a local run's templates and records.
LocalTemplatesOption = Annotated[
    Path | None,
    typer.Option("--templates", help="Local: your WorkflowTemplates (pre/post actions)."),
]
StandInsOption = Annotated[
    bool, typer.Option("--stand-ins", help="Local: stand-ins for missing WorkflowTemplates.")
]
RunsDirOption = Annotated[Path, typer.Option(help="Local: where run records are kept.")]
RUNS_DIR = Path(".promoflow/runs")


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` to stderr and exit with ``code`` (no traceback).

    One line, whatever the message holds (an exception's text may have line breaks), and
    scrubbed of credentials by the console."""
    err.print(f"error: {' '.join(message.split())}", markup=False)
    raise typer.Exit(code)


S = TypeVar("S", bound="BaseSettings")


def settings(cls: type[S], **values: Any) -> S:
    """Settings from the environment, or ``error: VARIABLE: problem`` and exit 2."""
    from orchestrator.settings import SettingsError, load

    try:
        return load(cls, **values)
    except SettingsError as exc:
        fail(str(exc), 2)


def load_valid(config: Path) -> Config:
    """Load and validate; print problems (warnings too) and exit 1 if there are errors.

    A configuration without a single promoflow resource is an error too: promoflow reads
    only files that hold its documents, so a mistyped ``--config`` (the repository root
    instead of its ``promoflow/`` folder, an empty checkout) would otherwise be "valid"
    and every command would go on with nothing to promote."""
    from orchestrator.graph import validate
    from orchestrator.loading import load_config
    from orchestrator.problems import sort_problems
    from orchestrator.settings import ConfigSettings

    if not config.exists():
        raise typer.BadParameter(f"{config} does not exist", param_hint="--config")
    loaded, problems = load_config(config, settings(ConfigSettings).python)
    problems = sort_problems([*problems, *validate(loaded)])
    for problem in problems:
        err.print(str(problem), markup=False)
    if any(problem.severity == "error" for problem in problems):
        raise typer.Exit(1)
    if not loaded.resources:
        hint = ""
        if config.is_file() and _notifications_configmap(config):
            hint = (
                f": it is a notifications ConfigMap; check it with `promoflow reporter check "
                f"--notifications {config}`"
            )
        fail(f"no promoflow resources {'in' if config.is_file() else 'under'} {config}{hint}")
    return loaded


def _notifications_configmap(path: Path) -> bool:
    """Whether ``path`` is an argocd-notifications-cm (a ConfigMap of services, templates
    and triggers), which ``validate`` is sometimes given by mistake."""
    import yaml

    try:
        documents = list(yaml.safe_load_all(path.read_text()))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return False
    keys = ("service.", "template.", "trigger.", "subscriptions", "defaultTriggers")
    return any(
        isinstance(doc, dict)
        and doc.get("kind") == "ConfigMap"
        and isinstance(doc.get("data"), dict)
        and any(str(key).startswith(keys) for key in doc["data"])
        for doc in documents
    )


def finite(value: float, option: str, low: float, high: float) -> float:
    """A float flag within [low, high]: click's ranges let ``nan`` through (every comparison
    with it is false) and ``inf`` past an open upper end."""
    import math

    if not math.isfinite(value) or not low <= value <= high:
        raise typer.BadParameter(f"must be a number from {low:g} to {high:g}", param_hint=option)
    return value


def check_product(config: Config, product: str) -> None:
    from orchestrator.problems import suggest

    if product not in config.products:
        raise typer.BadParameter(
            f"unknown product {product!r}{suggest(product, config.products)}",
            param_hint="--product",
        )
