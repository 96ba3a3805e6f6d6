"""``validate --repo-check``: read every environment's files from the products' repositories
and report the template paths they lack (:mod:`orchestrator.graph.repocheck` decides).

Credentials are the promote step's (``GIT_TOKEN``, ``GIT_SSH_KEY``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.loading import Config
    from orchestrator.problems import Problem


def repository_problems(config: Config) -> list[Problem]:
    """The problems of every product's template against its repository's branch tips;
    a repository that cannot be read is an ``error:`` line (exit 1)."""
    from orchestrator.adapters.git import GitError
    from orchestrator.commands.common import fail
    from orchestrator.graph.plan import plan_product
    from orchestrator.local.preflight import template_problems

    problems: list[Problem] = []
    for name in sorted(config.products):
        plan = plan_product(config, name)
        try:
            problems += template_problems(plan)
        except GitError as exc:
            fail(f"{name}: cannot read {plan.product.spec.repo.url}: {exc}")
    return problems
