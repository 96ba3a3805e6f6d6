"""``diff``: the exact change a promotion would commit, computed against the repository
as it is now, with nothing committed.

The request is resolved as ``promote`` resolves it (:mod:`orchestrator.commands.promotion`),
so ``diff`` refuses what ``promote`` would refuse. Exit codes follow ``kubectl diff``: 0 no
changes, 1 changes, 2 an error of any kind (configuration, usage, repository), so a script
can tell "something to promote" from "could not tell".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.commands.argo import ProductOption
from orchestrator.commands.common import ConfigOption, err, fail, out

EXIT_CHANGES = 1
EXIT_ERROR = 2


def diff_cmd(
    product: ProductOption,
    to: Annotated[str, typer.Option("--to", help="Target environment.")],
    config: ConfigOption = Path("."),
    source: Annotated[str | None, typer.Option("--from", help="Source environment.")] = None,
    version: Annotated[str | None, typer.Option("--version", "-v", help="Version to set.")] = None,
    repo: Annotated[
        str | None, typer.Option(help="Repository URL (overrides the product's).")
    ] = None,
    set_fields: Annotated[
        list[str] | None,
        typer.Option("--set", help="A field that comes with the version, as PATH=VALUE."),
    ] = None,
) -> None:
    """Show the exact diff a promotion would commit, without committing anything.

    Exit 0 when nothing would change (the environment is unchanged), 1 when something
    would, 2 on any error (as kubectl diff).

    Examples:
      $ promoflow diff -c environments -p shop --to prod-eu
      $ promoflow diff -c environments -p shop --to dev -v 1.4.2 --set image.digest=sha256:...
    """
    try:
        changed = _diff(product, to, config, source, version, repo, set_fields)
    except typer.Exit as exc:
        if exc.exit_code == EXIT_CHANGES:  # a failure, already said: not "changes"
            raise typer.Exit(EXIT_ERROR) from None
        raise
    if changed:
        raise typer.Exit(EXIT_CHANGES)


def _diff(
    product: str,
    to: str,
    config: Path,
    source: str | None,
    version: str | None,
    repo: str | None,
    set_fields: list[str] | None,
) -> bool:
    """Print the diff; whether anything would change. Failures raise ``typer.Exit``."""
    from orchestrator.adapters.git import Credentials, GitError, GitRemote
    from orchestrator.commands.promotion import resolve_promotion
    from orchestrator.steps.diff import promotion_diff
    from orchestrator.steps.edits import PromoteError
    from orchestrator.steps.request import RequestError, request_from_config
    from orchestrator.urls import UrlError, check_git_url

    asked = resolve_promotion(config, product, version, set_fields)
    entry = asked.plan.flow.spec.trigger
    if to == entry and source is None and version is None:
        raise typer.BadParameter(
            f"{to} is where a new version enters the flow: give the version to diff "
            "(--version VERSION, with its --set fields)",
            param_hint="--version",
        )
    try:
        request = request_from_config(
            asked.config,
            product,
            to,
            source=source,
            version=version,
            version_fields=asked.fields or None,
        )
    except RequestError as exc:
        raise typer.BadParameter(str(exc)) from None
    if repo:
        # as git (and the promote step) do, user:token@ is accepted here: GitRemote moves it
        # out of the URL into a header, and every message is scrubbed of it
        try:
            check_git_url(repo, allow_credentials=True)
        except UrlError as exc:
            fail(f"--repo: {exc}", EXIT_ERROR)
        request = request.replace(repo=repo)
    try:
        with GitRemote(request.repo, Credentials.from_env()) as remote:
            tip, diffs = promotion_diff(remote, request)
    except (PromoteError, GitError) as exc:
        fail(str(exc), EXIT_ERROR)
    if not diffs:
        out.print(
            f"{product}: {to} unchanged: it already holds the promoted values (at {tip[:12]})",
            markup=False,
        )
        return False
    for item in diffs:
        sys.stdout.write(item.text)
    err.print(f"{len(diffs)} file(s) would change on {request.branch} (at {tip[:12]})")
    return True
