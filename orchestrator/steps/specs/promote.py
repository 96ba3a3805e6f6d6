"""``promote``: commit the promoted files (or open a pull request); output the commit.

Inputs name the product, the source and target environment, the repository, branch and
paths, and the files to promote (JSON). Pushes to one repository branch at once are
reconciled by the step's own fetch-rebase-push retry, with no mutex: ten promotions
pushing to one branch at once all land (``tests/git/test_concurrency.py``), while a
mutex held for a step's whole life made fanned-out environments deploy one after another.
The step
takes either the resolved form the compiler writes (every value as a flag) or
``--config PATH --product P`` to resolve the same request locally.

A version older than the one the target environment holds (in the product's version order)
is refused, naming both: whatever started the promotion, an environment never moves back.
A deliberate downgrade says so with ``--rollback true``; its commit then carries a
``Rollback: HELD -> VERSION`` trailer and the node's message says it was a rollback.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

from orchestrator.steps.registry import EXITS, Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path

    from orchestrator.loading import Config
    from orchestrator.steps.promote import PromoteResult
    from orchestrator.steps.request import PromoteRequest

_NOT_REQUESTED = ("config", "outputs", "cache_dir", "plan", "planned")
"""Inputs that steer the step rather than describe the promotion request."""


class Inputs(NamedTuple):
    """The promotion request as the compiler resolves it (or ``--config`` to resolve it
    here), and how the step runs: ``planned``, ``cache_dir``, ``plan``."""

    product: str
    environment: str
    source_environment: str
    source_commit: str
    version: str
    config: Config | None
    repo: str
    branch: str
    source_branch: str
    source_path: str
    target_path: str
    files: str
    version_file: str
    version_path: str
    version_fields: str
    version_field_paths: str
    version_kustomize_image: str
    action: str
    requested_by: str
    run: str
    planned: str
    image: str
    version_order: str
    rollback: str
    rollback_reason: str
    cache_dir: Path | None
    plan: bool
    outputs: Path | None


def resolve_promote(params: dict[str, Any], config: Config | None) -> PromoteRequest:
    """The request from --config (with overrides) or from the resolved flags alone."""
    from orchestrator.steps import support
    from orchestrator.steps.request import (
        RequestError,
        build_request,
        parse_files,
        request_from_config,
    )

    try:
        if config is not None:
            request = request_from_config(
                config,
                params["product"],
                params["environment"],
                source=params.get("source_environment") or None,
                version=params.get("version") or None,
                source_commit=params.get("source_commit") or None,
                requested_by=params.get("requested_by") or None,
                run=params.get("run") or None,
                rollback=_rollback(params.get("rollback") or "false"),
            )
            keys = ("repo", "branch", "version_fields", "image")
            overrides = {k: params[k] for k in keys if params.get(k)}
            return request.replace(**overrides) if overrides else request
        files = params.pop("files", None)
        if not files:
            raise RequestError("--files is required without --config")
        return build_request(**params, files=parse_files(files))
    except RequestError as exc:
        support.usage(str(exc))


def require_version(request: PromoteRequest) -> None:
    """The trigger environment is given its version (``--version``): a usage error (exit
    2) before any Git work when it is not, since the flag is missing, not the repository."""
    from orchestrator.steps import support

    if request.is_trigger and not request.version:
        support.usage(
            f"{request.environment} is where a new version enters the flow: give the "
            "version to promote (--version VERSION)",
            "--version",
        )


def _rollback(text: str) -> bool:
    """``--rollback`` with ``--config`` (the order is the configuration's there)."""
    from orchestrator.steps import support

    if text not in ("true", "false"):
        support.usage(f"expected true or false, got {text!r}", "--rollback")
    return text == "true"


def planned_changes(text: str) -> bool:
    """``--planned``: the ``changed`` output of the environment's plan step. ``false``: it
    found nothing to change, so no approval was asked, and no change may be committed now;
    ``true`` or empty (no plan): whatever the promotion changes is committed."""
    from orchestrator.steps import support

    if text not in ("", "true", "false"):
        support.usage(f"expected true, false or nothing, got {text!r}", "--planned")
    return text != "false"


def outcome(environment: str, result: PromoteResult) -> tuple[str, str]:
    """The ``state`` of the step's JSON line and its node message: ``unchanged`` when the
    environment already held the promoted values (no commit: its current commit is the
    output, and verification still waits for it), else what was committed or opened."""
    commit = result.commit[:12]
    if not result.changed:
        return "unchanged", f"unchanged: {environment} already holds the promoted values ({commit})"
    pull_request = getattr(result, "pull_request", "") or ""
    back = f", a rollback: {result.rollback}" if result.rollback else ""
    if pull_request:
        return "pull-request", f"opened {pull_request} ({len(result.files)} file(s){back})"
    return (
        "committed",
        f"committed {commit} to {result.branch} ({len(result.files)} file(s){back})",
    )


def run(inputs: Inputs) -> None:
    """Resolve the request, then commit (or open a pull request) and write the outputs."""
    from orchestrator.adapters import gitprefetch

    # the server builds the tip's pack while the rest of the step imports (gitprefetch);
    # from the flags as given where the compiler resolved them, else once resolved (a
    # remote takes a prefetch only of the URL and branch it fetches)
    given = inputs.config is None and not inputs.plan
    prefetch = (
        gitprefetch.start(inputs.repo, inputs.branch, cache_dir=inputs.cache_dir) if given else None
    )
    from orchestrator import progress
    from orchestrator.steps import support
    from orchestrator.steps.support import TRANSIENT_EXIT, outputs_dir, write_outputs

    params = {k: v for k, v in inputs._asdict().items() if k not in _NOT_REQUESTED}
    request = resolve_promote(params, inputs.config)
    if not inputs.plan:
        require_version(request)
    allow_changes = planned_changes(inputs.planned)
    if prefetch is None and not inputs.plan:
        prefetch = gitprefetch.start(request.repo, request.branch, cache_dir=inputs.cache_dir)
    import pygit2

    from orchestrator.adapters.git import Credentials, GitError, GitRemote

    if inputs.plan:
        sys.stdout.write(request.to_json() + "\n")
        with GitRemote(request.repo, Credentials.from_env(), None, timeout=10) as remote:
            try:
                support.say(f"git: {remote.transport()}")
            except GitError as exc:
                support.say(f"git: cannot ask the server what it speaks: {exc}")
        return
    from orchestrator.adapters.scm import ScmError
    from orchestrator.steps.edits import PromoteError
    from orchestrator.steps.message import MessageError
    from orchestrator.steps.promote import promote

    template = os.environ.get("PROMOFLOW_COMMIT_TEMPLATE") or None

    def once() -> tuple[PromoteResult, str]:
        with GitRemote(
            request.repo, Credentials.from_env(), inputs.cache_dir, prefetch=prefetch
        ) as remote:
            result: PromoteResult
            if request.action == "pull-request":
                from orchestrator.steps.pull_request import open_pull_request

                result = open_pull_request(
                    remote, request, template=template, allow_changes=allow_changes
                )
            else:
                result = promote(remote, request, template=template, allow_changes=allow_changes)
            return result, remote.transport()  # asked once during the run: no request now

    try:
        result, how = support.retry_transient(once)
    except (PromoteError, MessageError) as exc:
        support.fail(str(exc))
    except GitError as exc:
        support.fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    except ScmError as exc:  # opening the pull request (PROMOFLOW_SCM, _SCM_API_URL)
        support.fail(str(exc), TRANSIENT_EXIT if exc.transient else 1)
    except pygit2.GitError as exc:  # the adapters wrap their own; this is the last line
        support.fail(f"git: {exc}")
    finally:
        if prefetch is not None:
            prefetch.close()
    image = result.image
    write_outputs(
        outputs_dir(inputs.outputs),
        {
            "commit": result.commit,
            "changed": str(result.changed).lower(),
            "pull-request": getattr(result, "pull_request", "") or "",
            "image": image.reference if image is not None else "",
            "image-source": image.source if image is not None else "",
        },
    )
    if image is None and request.image:
        support.say(
            "image: the promoted file names no tag or digest of the template's image; "
            "there is nothing for the wait to check"
        )
    for note in result.notes:
        support.say(note)
    state, said = outcome(request.environment, result)
    progress.node_message(said)
    sys.stdout.write(json.dumps({**result.as_json(), "state": state}) + "\n")
    support.say(f"git: {how}")
    if result.attempts > 1:
        support.say(f"pushed after {result.attempts} attempts (the branch moved meanwhile)")


SPEC = register(
    StepSpec(
        name="promote",
        summary="Commit the promoted values into the target environment (or open a pull request).",
        doc=__doc__ or "",
        inputs=(
            Input("product", short="-p", help="Product to promote."),
            Input("environment", flag="to", help="Target environment."),
            Input(
                "source-environment",
                "",
                flag="from",
                help="Source environment (default: from the flow).",
            ),
            Input("source-commit", "", help="Read the source at this commit."),
            Input("version", "", help="Version to promote (set in the trigger environment)."),
            Input(
                "config", cli_only=True, type="config", short="-c", help="Resolve from this config."
            ),
            Input("repo", cli_required=False, help="Repository URL (overrides the product's)."),
            Input("branch", cli_required=False, help="Target branch."),
            Input("source-branch", "", help="Branch of the source environment."),
            Input("source-path", "", help="Product directory in the source environment."),
            Input(
                "target-path",
                cli_required=False,
                help="Product directory in the target environment.",
            ),
            Input(
                "files", cli_required=False, help='JSON: [{"file": "values.yaml", "paths": [...]}]'
            ),
            Input("version-file", "", help="File holding the version."),
            Input("version-path", "", help="YAML path of the version in that file."),
            Input(
                "version-fields",
                "",
                help='JSON: values written with the version, e.g. {"image.digest": "sha256:..."}.',
            ),
            Input(
                "version-field-paths",
                "",
                help="Comma-separated fields a new version must come with (from the template).",
            ),
            Input(
                "version-kustomize-image",
                "",
                help="The Kustomize image (name) whose newTag the version is.",
            ),
            Input("action", "commit", help="commit or pull-request."),
            Input("requested-by", "", help="Who asked for the promotion."),
            Input("run", cli_only=True, help="Promotion run (workflow) name, for the message."),
            Input(
                "planned",
                "",
                help="The plan step's 'changed' (true/false): false refuses to commit a change "
                "(no approval was asked for it). Empty: no plan.",
            ),
            Input(
                "image",
                "",
                help='JSON: the image the version is ({"file": ..., "repository": ..., '
                '"tagField": ...}); read from the promoted file into the outputs.',
            ),
            Input(
                "version-order",
                "",
                help="How versions are ordered (semver, numeric, lexical, none; empty: semver):"
                " a version older than the target's is refused.",
            ),
            Input(
                "rollback",
                "false",
                help="true: a deliberate downgrade, allowed to write an older version than the "
                "target holds; the commit says so (Rollback: trailer).",
            ),
            Input(
                "rollback-reason",
                "",
                help="Why the rollback was asked for; written in its commit "
                "(Rollback-Reason: trailer).",
            ),
            Input(
                "cache-dir",
                cli_only=True,
                type="path",
                envvar="PROMOFLOW_GIT_CACHE",
                help="Keep the bare repository here.",
            ),
            Input(
                "plan",
                "false",
                cli_only=True,
                type="bool",
                help="Print the resolved request; change nothing.",
            ),
        ),
        # image: REPOSITORY[:TAG][@DIGEST] the promoted file names, image-source: where
        # (``values.yaml image.tag``); empty when the template names no image
        outputs=("commit", "changed", "pull-request", "image", "image-source"),
        exits={**EXITS, 1: "cannot promote as asked (a missing file, a rejected push)"},
        deadline=900,
        needs=frozenset({"git"}),
        run=run,
        takes=Inputs,
        tasks=(TaskKind("deploy", rank=40),),
    )
)
