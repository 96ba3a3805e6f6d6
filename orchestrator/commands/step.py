"""``promoflow step ...``: the programs the workflow's containers run, and ``diff``.

Each step takes either the resolved form the compiler writes into the workflow (every value
as a flag) or ``--config PATH --product P`` to resolve the same request locally. Results go
to stdout as one JSON line and, with ``--outputs DIR``, to one file per Argo output
parameter. Exit codes: 0 done, 1 cannot be done as asked, 2 usage error, 75 transient
(the workflow's retryStrategy retries only that one).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.common import err, fail

if TYPE_CHECKING:
    from orchestrator.steps.promote import PromoteResult
    from orchestrator.steps.request import PromoteRequest

TRANSIENT_EXIT = 75

step_app = typer.Typer(
    name="step",
    help="Programs the promotion workflow runs (one per step kind).",
    no_args_is_help=True,
)

Opt = typer.Option


def write_outputs(directory: Path | None, values: dict[str, str]) -> None:
    """One file per output parameter, as Argo's ``valueFrom.path`` reads them."""
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        (directory / name).write_text(value)


def _outputs_dir(outputs: Path | None) -> Path | None:
    if outputs is not None:
        return outputs
    env = os.environ.get("PROMOFLOW_OUTPUTS")
    return Path(env) if env else None


def resolve_promote(params: dict[str, Any], config: Path | None) -> PromoteRequest:
    """The request from --config (with overrides) or from the resolved flags alone."""
    from orchestrator.steps.request import (
        RequestError,
        build_request,
        parse_files,
        request_from_config,
    )

    try:
        if config is not None:
            from orchestrator.commands.common import load_valid

            loaded = load_valid(config)
            request = request_from_config(
                loaded,
                params["product"],
                params["environment"],
                source=params.get("source_environment") or None,
                version=params.get("version") or None,
                source_commit=params.get("source_commit") or None,
                requested_by=params.get("requested_by") or None,
                run=params.get("run") or None,
            )
            overrides = {k: params[k] for k in ("repo", "branch") if params.get(k)}
            return request.model_copy(update=overrides) if overrides else request
        files = params.pop("files", None)
        if not files:
            raise RequestError("--files is required without --config")
        return build_request(**params, files=parse_files(files))
    except RequestError as exc:
        raise typer.BadParameter(str(exc)) from None


@step_app.command("promote")
def promote_cmd(
    product: Annotated[str, Opt(help="Product to promote.")],
    to: Annotated[str, Opt("--to", help="Target environment.")],
    source: Annotated[str, Opt("--from", help="Source environment (default: from the flow).")] = "",
    version: Annotated[str, Opt(help="Version to promote (set in the trigger environment).")] = "",
    config: Annotated[Path | None, Opt("--config", "-c", help="Resolve from this config.")] = None,
    repo: Annotated[str, Opt(help="Repository URL (overrides the product's).")] = "",
    branch: Annotated[str, Opt(help="Target branch.")] = "",
    source_commit: Annotated[str, Opt(help="Read the source at this commit.")] = "",
    source_branch: Annotated[str, Opt(help="Branch of the source environment.")] = "",
    source_path: Annotated[str, Opt(help="Product directory in the source environment.")] = "",
    target_path: Annotated[str, Opt(help="Product directory in the target environment.")] = "",
    files: Annotated[str, Opt(help='JSON: [{"file": "values.yaml", "paths": [...]}]')] = "",
    version_file: Annotated[str, Opt(help="File holding the version.")] = "",
    version_path: Annotated[str, Opt(help="YAML path of the version in that file.")] = "",
    action: Annotated[str, Opt(help="commit or pull-request.")] = "commit",
    requested_by: Annotated[str, Opt(help="Who asked for the promotion.")] = "",
    run: Annotated[str, Opt(help="Promotion run (workflow) name, for the message.")] = "",
    lock: Annotated[str, Opt(help="Mutex name (read by Argo; ignored here).")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
    cache_dir: Annotated[
        Path | None, Opt(envvar="PROMOFLOW_GIT_CACHE", help="Keep the bare repository here.")
    ] = None,
    plan: Annotated[
        bool, Opt("--plan", help="Print the resolved request; change nothing.")
    ] = False,
) -> None:
    """Commit the promoted values into the target environment (or open a pull request)."""
    params = {
        "product": product,
        "environment": to,
        "source_environment": source,
        "version": version,
        "repo": repo,
        "branch": branch,
        "source_commit": source_commit,
        "source_branch": source_branch,
        "source_path": source_path,
        "target_path": target_path,
        "files": files,
        "version_file": version_file,
        "version_path": version_path,
        "action": action,
        "requested_by": requested_by,
        "run": run,
        "lock": lock,
    }
    request = resolve_promote(params, config)
    if plan:
        sys.stdout.write(request.model_dump_json(indent=2) + "\n")
        return
    from orchestrator.adapters.git import Credentials, GitError, GitRemote
    from orchestrator.steps.message import MessageError
    from orchestrator.steps.promote import PromoteError, promote

    template = os.environ.get("PROMOFLOW_COMMIT_TEMPLATE") or None
    result: PromoteResult
    try:
        with GitRemote(request.repo, Credentials.from_env(), cache_dir) as remote:
            if request.action == "pull-request":
                from orchestrator.steps.pull_request import open_pull_request

                result = open_pull_request(remote, request, template=template)
            else:
                result = promote(remote, request, template=template)
    except (PromoteError, MessageError) as exc:
        fail(str(exc))
    except GitError as exc:
        fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    write_outputs(
        _outputs_dir(outputs),
        {
            "commit": result.commit,
            "changed": str(result.changed).lower(),
            "pull-request": getattr(result, "pull_request", "") or "",
        },
    )
    sys.stdout.write(json.dumps(result.as_json()) + "\n")
    if result.attempts > 1:
        err.print(f"pushed after {result.attempts} attempts (the branch moved meanwhile)")


@step_app.command("wait-merge")
def wait_merge_cmd(
    environment: Annotated[str, Opt(help="Target environment (for messages).")],
    pull_request: Annotated[str, Opt(help="Pull/merge request URL from the promote step.")] = "",
    commit: Annotated[str, Opt(help="Commit to output when there is no pull request.")] = "",
    repo: Annotated[str, Opt(help="Repository URL (selects GitHub or GitLab).")] = "",
    timeout: Annotated[str, Opt(help="Give up after this long, e.g. 24h.")] = "24h",
    run: Annotated[str, Opt(help="Promotion run name (unused; for symmetry).")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
) -> None:
    """Wait until the promotion's pull request is merged; output the merge commit."""
    from orchestrator.model.duration import parse_duration
    from orchestrator.steps.wait_merge import MergeError, wait_for_merge

    try:
        limit = parse_duration(timeout).total_seconds()
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--timeout") from None
    if not pull_request:
        if not commit:
            raise typer.BadParameter("give --pull-request, or --commit when nothing changed")
        merged = commit
    else:
        try:
            merged = wait_for_merge(pull_request, repo, limit, log=lambda m: err.print(m))
        except MergeError as exc:
            fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    write_outputs(_outputs_dir(outputs), {"commit": merged})
    sys.stdout.write(json.dumps({"environment": environment, "commit": merged}) + "\n")
