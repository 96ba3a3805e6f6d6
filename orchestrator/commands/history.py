"""``history``: every promotion of a product, per environment, read back from the GitOps
repository (its commits' trailers and promoflow's notes) with nothing but Git access.

The repository is fetched without file contents into a cache (``--cache``), so a second
look only brings what is new. Output as a table per environment, or as data
(``-o json|yaml``) whose shape scripts can rely on.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.argo import (
    ArgoServerOption,
    NamespaceOption,
    argo_settings,
    client_for,
    data_text,
    output_option,
)
from orchestrator.commands.choices import check_product, output_format
from orchestrator.commands.common import ConfigOption, err, fail, load_valid, out

if TYPE_CHECKING:
    from orchestrator.graph.plan import ProductPlan
    from orchestrator.history.read import History

FORMATS = ("table", "wide", "json", "yaml")


def default_cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "promoflow"


def history_cmd(
    product: Annotated[str, typer.Option("--product", "-p", help="The product.")],
    environment: Annotated[
        list[str] | None,
        typer.Option("--environment", "-e", help="Only this environment (repeatable)."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            metavar="WHEN",
            help="Only promotions since then: a duration back (7d, 12h) or a date "
            "(2026-11-01, 2026-11-01T08:00:00Z).",
        ),
    ] = None,
    output: Annotated[str | None, output_option(FORMATS, "table")] = None,
    config: ConfigOption = Path("."),
    repo: Annotated[
        str | None, typer.Option(metavar="URL", help="Repository URL (overrides the product's).")
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR", help="Where fetched history is kept (default: ~/.cache/promoflow)."
        ),
    ] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """Every promotion of a product, newest first: version, commit, who asked and approved,
    the gates and the outcome, from the GitOps repository alone.

    Examples:
      $ promoflow history -c environments -p shop
      $ promoflow history -c environments -p shop -e prod-eu --since 30d -o json
    """
    from orchestrator.graph.plan import CompileError, plan_product

    fmt = output_format(output, FORMATS)
    since_seconds = since_time(since) if since else 0
    loaded = load_valid(config)
    check_product(loaded, product)
    try:
        plan = plan_product(loaded, product)
    except CompileError as exc:
        fail(str(exc), 1)
    names = [e.environment for e in plan.environments]
    for name in environment or []:
        if name not in names:
            raise typer.BadParameter(
                f"{name!r} is not an environment of {product} ({', '.join(names)})",
                param_hint="'--environment'",
            )
    found = history_of(plan, repo, cache, environment, since_seconds)
    _with_argo(found, product, argo_server, namespace)
    if fmt in ("json", "yaml"):
        sys.stdout.write(data_text(as_data(found), fmt))
        return
    _tables(found, [e for e in names if not environment or e in environment], fmt == "wide")


def history_of(
    plan: ProductPlan,
    repo: str | None,
    cache: Path | None,
    environments: list[str] | None = None,
    since: int = 0,
) -> History:
    """The product's history from its repository (or ``repo``), kept under ``cache``;
    what cannot be read is one ``error:`` line (exit 1), never a traceback."""
    from orchestrator.adapters.git import Credentials, GitError
    from orchestrator.adapters.githistory import HistoryRepository
    from orchestrator.history.read import read_history

    folder = cache or default_cache()
    product = plan.product.name
    try:
        repository = HistoryRepository(
            repo or plan.product.spec.repo.url, Credentials.from_env(), folder
        )
    except OSError as exc:
        fail(f"--cache {folder}: {exc.strerror or exc}")
    try:
        return read_history(plan, repository, environments, since)
    except GitError as exc:
        fail(f"history of {product}: {exc}")
    except OSError as exc:
        fail(f"history of {product}: --cache {folder}: {exc.strerror or exc}")
    finally:
        repository.close()


def _with_argo(
    found: History, product: str, argo_server: str | None, namespace: str | None
) -> None:
    """Where an Argo Server is configured, what it still knows of the runs (live and
    archived); out of reach, a warning and the history from Git alone."""
    if not argo_settings(argo_server, namespace).server or not found.promotions:
        return
    from orchestrator.adapters.argo import ArgoError
    from orchestrator.history.enrich import enrich
    from orchestrator.runs import summarize

    client = client_for(argo_server, namespace)
    selector = f"promoflow.dev/product={product}"
    try:
        workflows = client.list_workflows(selector)
    except ArgoError as exc:
        err.print(f"warning: runs not read from the Argo Server: {exc}", markup=False)
        return
    with contextlib.suppress(ArgoError):  # no archive (it needs a database): live runs only
        workflows += client.list_archived_workflows(selector)
    runs = {summary.name: summary for summary in map(summarize, workflows)}
    enrich(found, runs, client.ui_link)


def since_time(text: str) -> int:
    """Seconds since the epoch of ``--since``: a date, a time, or a duration back."""
    from orchestrator.durations import parse_duration

    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            return int(time.time() - parse_duration(text).total_seconds())
        except ValueError as exc:
            raise typer.BadParameter(
                f"{text!r} is neither a date (2026-11-01) nor a duration (7d, 12h): {exc}",
                param_hint="'--since'",
            ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp())


def as_data(found: History) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "product": found.product,
        "repository": found.repository,
        "promotions": [_camel(asdict(p)) for p in found.promotions],
        "orphanedNotes": found.orphaned_notes,
    }


def _camel(data: dict[str, Any]) -> dict[str, Any]:
    def name(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.title() for part in rest)

    return {name(k): v for k, v in data.items()}


OUTCOME = {"verified": "[green]verified[/]", "failed": "[red]failed[/]", "": "[dim]-[/]"}


def _tables(found: History, environments: list[str], wide: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    from orchestrator.urls import scrub

    if not found.promotions:
        out.print(f"no promotions of {found.product} found in {scrub(found.repository)}")
    for env in environments:
        rows = [p for p in found.promotions if p.environment == env]
        if not rows:
            continue
        columns = ["VERSION", "COMMIT", "LANDED", "OUTCOME", "BY", "APPROVED"]
        columns += ["GATES", "RUN", "NOTES"] if wide else ["NOTES"]
        table = Table(*columns, box=None, title=f"[bold]{env}[/]", title_justify="left")
        for p in rows:
            by = p.requested_by or p.author.split(" <")[0]
            gates = ", ".join(f"{g['gate']} {'ok' if g['passed'] else 'FAILED'}" for g in p.gates)
            notes = ", ".join(p.partial + ([f"rollback {p.rollback}"] if p.rollback else []))
            cells = [
                p.version or "?", p.commit[:12], p.committed_at.replace("T", " ")[:16],
                OUTCOME.get(p.outcome, p.outcome), by, ", ".join(p.approved_by),
            ]  # fmt: skip
            cells = [escape(scrub(c)) if i != 3 else c for i, c in enumerate(cells)]
            extra = [gates, p.run, notes] if wide else [notes]
            table.add_row(*cells, *(escape(scrub(c)) for c in extra))
        out.print(table)
    if found.orphaned_notes:
        out.print(
            f"[yellow]{found.orphaned_notes} notes name commits no longer on the branch "
            "(rewritten by a force-push)[/]"
        )
