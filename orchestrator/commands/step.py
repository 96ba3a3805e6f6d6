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
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.common import err, fail

if TYPE_CHECKING:
    from orchestrator.steps.promote import PromoteResult
    from orchestrator.steps.request import PromoteRequest

TRANSIENT_EXIT = 75
_APP_NAME = re.compile(
    r"(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?/)?"  # apps in any namespace: NAMESPACE/NAME
    r"[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?"
)
MAX_RETRIES = 100  # as the HTTP gate's ``retries`` (orchestrator.model.checks)

step_app = typer.Typer(
    name="step",
    help="Programs the promotion workflow runs (one per step kind).",
    no_args_is_help=True,
    add_completion=False,  # `promoflow --install-completion` covers `promoflow step` too
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
            keys = ("repo", "branch", "version_fields")
            overrides = {k: params[k] for k in keys if params.get(k)}
            return request.replace(**overrides) if overrides else request
        files = params.pop("files", None)
        if not files:
            raise RequestError("--files is required without --config")
        return build_request(**params, files=parse_files(files))
    except RequestError as exc:
        raise typer.BadParameter(str(exc)) from None


@step_app.command("promote")
def promote_cmd(
    product: Annotated[str, Opt("--product", "-p", help="Product to promote.")],
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
    version_fields: Annotated[
        str, Opt(help='JSON: values written with the version, e.g. {"image.digest": "sha256:..."}.')
    ] = "",
    version_field_paths: Annotated[
        str, Opt(help="Comma-separated fields a new version must come with (from the template).")
    ] = "",
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
        "version_fields": version_fields,
        "version_field_paths": version_field_paths,
        "action": action,
        "requested_by": requested_by,
        "run": run,
        "lock": lock,
    }
    request = resolve_promote(params, config)
    import pygit2

    from orchestrator.adapters.git import Credentials, GitError, GitRemote

    if plan:
        sys.stdout.write(request.to_json() + "\n")
        with GitRemote(request.repo, Credentials.from_env(), None, timeout=10) as remote:
            try:
                err.print(f"git: {remote.transport()}", highlight=False)
            except GitError as exc:
                err.print(f"git: cannot ask the server what it speaks: {exc}", highlight=False)
        return
    from orchestrator.adapters.scm import ScmError
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
            how = remote.transport()  # asked once during the run: no request now
    except (PromoteError, MessageError) as exc:
        fail(str(exc))
    except GitError as exc:
        fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    except ScmError as exc:  # opening the pull request (PROMOFLOW_SCM, _SCM_API_URL)
        fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    except pygit2.GitError as exc:  # the adapters wrap their own; this is the last line
        fail(f"git: {exc}")
    write_outputs(
        _outputs_dir(outputs),
        {
            "commit": result.commit,
            "changed": str(result.changed).lower(),
            "pull-request": getattr(result, "pull_request", "") or "",
        },
    )
    sys.stdout.write(json.dumps(result.as_json()) + "\n")
    err.print(f"git: {how}", highlight=False)
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
    from orchestrator.adapters.scm import ScmError
    from orchestrator.steps.wait_merge import MergeError, wait_for_merge

    limit = _seconds(timeout, "--timeout")
    interval = _env_seconds("PROMOFLOW_POLL_INTERVAL", 30.0)
    _checked_url(pull_request, "--pull-request")
    _checked_repo(repo)
    if not pull_request:
        if not commit:
            raise typer.BadParameter("give --pull-request, or --commit when nothing changed")
        merged = commit
    else:
        try:
            merged = wait_for_merge(
                pull_request, repo, limit, interval=interval, log=lambda m: err.print(m)
            )
        except (MergeError, ScmError) as exc:
            fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    write_outputs(_outputs_dir(outputs), {"commit": merged})
    sys.stdout.write(json.dumps({"environment": environment, "commit": merged}) + "\n")


def _env_seconds(name: str, default: float) -> float:
    """A number of seconds from the environment: finite, positive, at most an hour."""
    import math

    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        fail(f"{name}: not a number of seconds", 2)
    if not math.isfinite(value) or not 0 < value <= 3600:
        fail(f"{name}: must be more than 0 and at most 3600 seconds", 2)
    return value


def _checked_url(value: str, option: str) -> str:
    """An http(s) URL flag: well-formed and without credentials (the message never repeats
    the value, which may hold one)."""
    from orchestrator.urls import UrlError, check_url

    if value:
        try:
            check_url(value)
        except UrlError as exc:
            raise typer.BadParameter(str(exc), param_hint=option) from None
    return value


def _checked_repo(value: str) -> str:
    """``--repo`` of the gate steps only names which repository to match: a credential in it
    has no use and would be printed, so it is refused."""
    from orchestrator.urls import UrlError, check_git_url

    if value:
        try:
            check_git_url(value, hint="the steps read GIT_TOKEN for Git access")
        except UrlError as exc:
            raise typer.BadParameter(str(exc), param_hint="--repo") from None
    return value


def _seconds(value: str, option: str) -> float:
    from orchestrator.model.duration import parse_duration

    try:
        return parse_duration(value).total_seconds()
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


def _flag(value: str, option: str) -> bool:
    lowered = value.strip().lower()
    if lowered not in ("true", "false", "yes", "no", "1", "0"):
        raise typer.BadParameter(f"expected true or false, got {value!r}", param_hint=option)
    return lowered in ("true", "yes", "1")


@step_app.command("wait-argocd")
def wait_argocd_cmd(
    revision: Annotated[str, Opt(help="Commit the apps must run (the promote step's output).")],
    app: Annotated[str, Opt("--app", help="Application name(s), comma-separated.")] = "",
    selector: Annotated[str, Opt(help="Or: a label selector for the applications.")] = "",
    environment: Annotated[str, Opt(help="Environment (for messages).")] = "",
    timeout: Annotated[str, Opt(help="Sets both the sync and health timeouts.")] = "",
    sync_timeout: Annotated[str, Opt(help="How long to wait for Synced.")] = "15m",
    health_timeout: Annotated[str, Opt(help="How long to wait for Healthy after that.")] = "15m",
    health: Annotated[str, Opt(help="Require Healthy (true|false).")] = "true",
    repo: Annotated[str, Opt(help="Only check sources from this repository.")] = "",
    run: Annotated[str, Opt(help="Promotion run name (for messages).")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
) -> None:
    """Wait until Argo CD runs REVISION in every app, Synced and Healthy (exit 0)."""
    from orchestrator.commands.common import settings
    from orchestrator.gates.deployed import Verdict
    from orchestrator.gates.wait import SourceError, Waiter, WaitOptions
    from orchestrator.settings import ArgoCDSettings, GateSettings
    from orchestrator.steps import report

    names = [n.strip() for n in app.split(",") if n.strip()]
    if bool(names) == bool(selector):
        raise typer.BadParameter("give either --app NAME[,NAME...] or --selector LABELS")
    bad = next((n for n in names if not _APP_NAME.fullmatch(n)), None)
    if bad is not None:
        raise typer.BadParameter(
            f"{bad[:80]!r} is not an Argo CD application name (a DNS-1123 name, optionally "
            "NAMESPACE/NAME)",
            param_hint="--app",
        )
    if not revision.strip():
        raise typer.BadParameter("the revision is empty", param_hint="--revision")
    _checked_repo(repo)
    if timeout:
        sync_timeout = health_timeout = timeout
    gate = settings(GateSettings)
    argocd = settings(ArgoCDSettings)
    options = WaitOptions(
        sync_timeout=_seconds(sync_timeout, "--sync-timeout"),
        health_timeout=_seconds(health_timeout, "--health-timeout"),
        health=_flag(health, "--health"),
        repo=repo or None,
        poll_interval=gate.poll_interval,
        max_poll_interval=gate.max_poll_interval,
        stream=gate.stream,
    )
    where = f" in {environment}" if environment else ""

    def show(verdicts: list[Verdict]) -> None:
        done = sum(v.state == "deployed" for v in verdicts)
        report.progress(done, len(verdicts))
        for verdict in verdicts:
            report.log(f"{verdict.app}: {verdict.state}: {verdict.reason}")
        waiting = [str(v) for v in verdicts if v.state != "deployed"]
        report.node_message("; ".join(waiting) or f"deployed {revision[:12]}{where}")

    from orchestrator.gates.equivalence import GitEquivalence
    from orchestrator.gates.sources import open_source

    try:
        source = open_source(argocd, gate)
        if selector:
            names = source.names(selector)
            if not names:
                fail(f"no applications match {selector!r}")
        report.log(f"waiting for {', '.join(names)} to run {revision[:12]}{where}")
        same = GitEquivalence(repo or None, log=report.log)
        try:
            result = Waiter(
                source, names, revision.strip(), options, progress=show, equivalence=same
            ).run()
        finally:
            same.close()
    except SourceError as exc:
        report.node_message(str(exc))
        fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    report.node_message(result.reason)
    write_outputs(_outputs_dir(outputs), {"revision": revision.strip()})
    sys.stdout.write(
        json.dumps(
            {
                "state": result.state,
                "revision": revision.strip(),
                "seconds": round(result.seconds, 3),
                "apps": [
                    {"app": v.app, "state": v.state, "reason": v.reason} for v in result.verdicts
                ],
            }
        )
        + "\n"
    )
    if not result.ok:
        fail(result.reason)


@step_app.command("http-check")
def http_check_cmd(
    url: Annotated[str, Opt(help="URL to GET.")],
    expect_status: Annotated[int, Opt(min=100, max=599, help="Expected HTTP status.")] = 200,
    jsonpath: Annotated[str, Opt(help="Path of a value in the JSON body, e.g. status.ok.")] = "",
    equals: Annotated[str, Opt(help="The value that path must have.")] = "",
    retries: Annotated[int, Opt(min=0, max=MAX_RETRIES, help="Tries after the first one.")] = 3,
    environment: Annotated[str, Opt(help="Environment (for messages).")] = "",
    run: Annotated[str, Opt(help="Promotion run name (for messages).")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
) -> None:
    """Pass when URL answers EXPECT_STATUS (and JSONPATH equals EQUALS), with retries."""
    from orchestrator.steps import report
    from orchestrator.steps.http_check import Check, CheckUsageError, run_check

    _checked_url(url, "--url")
    if equals and not jsonpath:
        raise typer.BadParameter("--equals needs --jsonpath")
    check = Check(url, expect_status, jsonpath, equals, retries)
    try:
        outcome = run_check(check, log=report.log)
    except CheckUsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    report.node_message(outcome.reason)
    write_outputs(_outputs_dir(outputs), {"status": str(outcome.status or "")})
    result = {"ok": outcome.ok, "reason": outcome.reason, "attempts": outcome.attempts}
    sys.stdout.write(json.dumps(result) + "\n")
    if not outcome.ok:
        fail(f"{url}: {outcome.reason} after {outcome.attempts} attempts")


@step_app.command("notify")
def notify_cmd(
    product: Annotated[str, Opt("--product", "-p", help="Product promoted.")],
    status: Annotated[str, Opt(help="Workflow status: Succeeded, Failed or Error.")],
    version: Annotated[str, Opt(help="Version promoted.")] = "",
    flow: Annotated[str, Opt(help="Promotion flow.")] = "",
    failures: Annotated[str, Opt(help="Argo's workflow.failures JSON.")] = "",
    run: Annotated[str, Opt(help="Promotion run name.")] = "",
    requested_by: Annotated[str, Opt(help="Who asked for the promotion.")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
) -> None:
    """Report how the run ended (log, and PROMOFLOW_REPORT_URL when set)."""
    from orchestrator.steps import report
    from orchestrator.steps.notify import NotifyError, build_report, deliver
    from orchestrator.urls import UrlError, check_url

    url = os.environ.get("PROMOFLOW_REPORT_URL", "")
    if url:  # a usage error, before anything is reported
        try:
            check_url(url)
        except UrlError as exc:
            fail(f"PROMOFLOW_REPORT_URL: {exc}", 2)
    document = build_report(
        product=product,
        version=version,
        flow=flow,
        status=status,
        failures=failures,
        run=run,
        requested_by=requested_by,
    )
    failed = ", ".join(f["node"] for f in document["failures"])
    report.log(
        f"{run or product}: {product} {version} {status}" + (f" ({failed})" if failed else "")
    )
    if url:
        try:
            deliver(document, url)
        except NotifyError as exc:
            fail(str(exc), TRANSIENT_EXIT)
        except ValueError as exc:
            fail(str(exc))
    write_outputs(_outputs_dir(outputs), {"status": status})
    sys.stdout.write(json.dumps(document) + "\n")


@step_app.command("approver")
def approver_cmd(
    environment: Annotated[str, Opt(help="Environment whose approval is checked.")],
    approvers: Annotated[str, Opt(help="Comma-separated approvers (user:NAME or NAME).")],
    labels: Annotated[str, Opt(help="The Workflow's labels as JSON ({{workflow.labels}}).")],
    started_at: Annotated[str, Opt(help="When the approval node started (RFC 3339).")],
    finished_at: Annotated[str, Opt(help="When it was answered (RFC 3339).")],
    timeout: Annotated[str, Opt(help="The approval's timeout, e.g. 168h.")] = "168h",
    run: Annotated[str, Opt(help="Promotion run name (for messages).")] = "",
    outputs: Annotated[Path | None, Opt(help="Write Argo output parameters here.")] = None,
) -> None:
    """Let the promotion go on only if Argo recorded a listed approver as the answer's author."""
    from orchestrator.approvers import parse_approvers, verify
    from orchestrator.nesting import json_too_deep
    from orchestrator.steps import report

    try:
        recorded = json.loads(labels) if labels.strip() and not json_too_deep(labels) else {}
    except ValueError:
        recorded = None
    if labels.strip() and json_too_deep(labels):
        recorded = None
    if not isinstance(recorded, dict):
        raise typer.BadParameter("--labels must be a JSON object of label names to values")
    listed = parse_approvers(approvers)
    if not listed:
        raise typer.BadParameter("--approvers is empty: nothing to check")
    verdict = verify(
        environment,
        listed,
        {str(k): str(v) for k, v in recorded.items()},
        started_at,
        finished_at,
        _seconds(timeout, "--timeout"),
    )
    report.node_message(verdict.message)
    write_outputs(_outputs_dir(outputs), {"approved-by": verdict.message})
    sys.stdout.write(json.dumps({"approved": verdict.approved, "reason": verdict.message}) + "\n")
    if not verdict.approved:
        fail(verdict.message)
