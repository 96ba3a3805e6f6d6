"""``diff``: the exact change a promotion would commit, computed against the repository
as it is now, with nothing committed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.commands.argo import ProductOption
from orchestrator.commands.choices import check_product, version_fields
from orchestrator.commands.common import ConfigOption, err, fail, load_valid, out


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

    Examples:
      $ promoflow diff -c environments -p shop --to prod-eu
      $ promoflow diff -c environments -p shop --to dev -v 1.4.2
    """
    from orchestrator.adapters.git import Credentials, GitError, GitRemote
    from orchestrator.steps.diff import promotion_diff
    from orchestrator.steps.promote import PromoteError
    from orchestrator.steps.request import RequestError, request_from_config
    from orchestrator.urls import UrlError, check_git_url

    loaded = load_valid(config)
    check_product(loaded, product)
    try:
        request = request_from_config(
            loaded,
            product,
            to,
            source=source,
            version=version,
            version_fields=version_fields(set_fields) or None,
        )
    except RequestError as exc:
        raise typer.BadParameter(str(exc)) from None
    if repo:
        # as git (and the promote step) do, user:token@ is accepted here: GitRemote moves it
        # out of the URL into a header, and every message is scrubbed of it
        try:
            check_git_url(repo, allow_credentials=True)
        except UrlError as exc:
            fail(f"--repo: {exc}", 2)
        request = request.replace(repo=repo)
    try:
        with GitRemote(request.repo, Credentials.from_env()) as remote:
            tip, diffs = promotion_diff(remote, request)
    except PromoteError as exc:
        fail(str(exc))
    except GitError as exc:
        fail(str(exc))
    if not diffs:
        out.print(f"{product}: {to} already holds the promoted values (at {tip[:12]})")
        return
    for item in diffs:
        sys.stdout.write(item.text)
    err.print(f"{len(diffs)} file(s) would change on {request.branch} (at {tip[:12]})")
