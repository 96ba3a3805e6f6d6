"""A rollback's chain: one environment, its files copied from its own earlier promotion
commit. The same contributions lay it out as any promotion's (approval, window, deploy,
gates, record), so a rollback goes through the same policies and is verified the same
way; only the deploy's source differs."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.graph.plan import EnvironmentPlan

ROLLBACK_COMMIT = "{{workflow.parameters.rollback-commit}}"


def rollback_plan(env: EnvironmentPlan) -> EnvironmentPlan:
    """``env`` as its own source: nothing before it, its files from ``rollback-commit``."""
    return replace(env, depends_on=(), source=env.environment, source_app=env.app)


def is_rollback(env: EnvironmentPlan) -> bool:
    return env.source == env.environment
