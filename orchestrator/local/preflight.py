"""Before a local run starts: has it what it needs, and can it reach its repository?

A run without the team's WorkflowTemplates, or that cannot read the repository, fails
anyway, but only after the stand-ins are up, the tree is drawn and a step process has
started (and, for an unreachable server, after the step has waited for it to come back,
which is what a cluster should do and a person at a terminal should not wait for). Both
are asked first: the templates from the flow, and one request, with the credentials the
steps will use, says whether the server answers, takes the credentials and has every
branch the flow writes to. Nothing here imports the compiler or the engine, so
``promote --local`` says so within a second or so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from orchestrator.adapters.branchfiles import BranchFiles
from orchestrator.adapters.git import Credentials, GitError, GitRemote
from orchestrator.graph.plan import EnvironmentPlan, ProductPlan
from orchestrator.graph.repocheck import check_product
from orchestrator.problems import Problem

TIMEOUT = 10.0
"""Seconds to wait for the server's answer (a host that drops packets)."""


def missing_templates(plan: ProductPlan, provided: Sequence[Mapping[str, Any]]) -> list[str]:
    """The team's WorkflowTemplates (pre/post actions) the flow names and nobody gave."""
    named = {
        ref.workflow_template
        for env in plan.environments
        for ref in (env.policy.pre_action, env.policy.post_action)
        if ref is not None
    }
    return sorted(named - {str(m["metadata"]["name"]) for m in provided})


def templates_message(absent: Sequence[str]) -> str:
    return (
        "the flow uses WorkflowTemplates that are not available locally: "
        f"{', '.join(absent)} (pass them with --templates DIR, or run stand-ins with "
        "--stand-ins)"
    )


class RepositoryError(GitError):
    """The run cannot start: the repository cannot be read as the steps would read it."""


def check_repository(
    plan: ProductPlan, env: Mapping[str, str], timeout: float = TIMEOUT
) -> dict[str, str]:
    """The tips of the branches ``plan`` promotes into, or :class:`RepositoryError`
    saying why the run would fail (unreachable, credentials refused, no such repository
    or branch). ``env`` holds the steps' variables (``GIT_TOKEN``, ``GIT_SSH_KEY``...)."""
    product = plan.product.name
    url = plan.product.spec.repo.url
    wanted: dict[str, list[str]] = {}
    for environment in plan.environments:
        wanted.setdefault(environment.app.branch, []).append(environment.environment)
    try:
        with GitRemote(url, Credentials.from_env(dict(env)), timeout=timeout) as remote:
            heads = remote.heads()
    except GitError as exc:
        raise RepositoryError(f"cannot promote {product}: {exc}") from None
    for branch, environments in sorted(wanted.items()):
        if branch not in heads:
            raise RepositoryError(
                f"cannot promote {product}: branch {branch!r} not found in {url} "
                f"(the branch of {', '.join(environments)})"
            )
    return {branch: heads[branch] for branch in wanted}


def template_problems(
    plan: ProductPlan, env: Mapping[str, str] | None = None, timeout: float = TIMEOUT
) -> list[Problem]:
    """The paths of ``plan``'s template that an environment's files lack, read at each
    branch tip (:mod:`orchestrator.graph.repocheck`): a typo found before the run starts
    leaves every environment as it was, where the promotion itself would find it only in
    the environment it reaches, after the ones before were promoted."""
    template = plan.template.spec
    names = {rule.file for rule in template.files}
    if template.version_source is not None:
        names.add(template.version_source.file)
    credentials = Credentials.from_env(dict(env)) if env is not None else Credentials.from_env()
    with GitRemote(plan.product.spec.repo.url, credentials, timeout=timeout) as remote:
        files = BranchFiles(remote, names)

        def read(environment: EnvironmentPlan, file: str) -> str | None:
            return files.read(environment.app.branch, environment.app.path, file)

        return check_product(plan, read)
