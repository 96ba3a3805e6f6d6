"""The seam every kind of task goes through: a module registers what it adds to an
environment's chain, the compiler lays it out in the place of its task kind's rank, and
the arguments of a promoflow step are checked against the step's inputs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from orchestrator.compiler import CompileError
from orchestrator.compiler import chain as chain_module
from orchestrator.compiler.chain import Build, check_arguments, contributes, contributions
from orchestrator.steps import registry
from tests.compiler.helpers import EXAMPLES, compiled, dag_tasks


@pytest.fixture
def scratch() -> Iterator[None]:
    """Contributions registered by a test are gone after it."""
    contributions()  # the package's own, loaded before the test adds any
    before = dict(chain_module._CONTRIBUTIONS)
    yield
    chain_module._CONTRIBUTIONS.clear()
    chain_module._CONTRIBUTIONS.update(before)
    chain_module._ordered = None


def test_every_kind_of_task_is_one_registered_module_in_the_kinds_order() -> None:
    found = contributions()
    assert [c.name for c in found] == [
        "approval", "pre-action", "window", "deploy", "merge", "verify", "soak", "http-check",
        "post-action", "record",
    ]  # fmt: skip
    ranks = {k.prefix: k.rank for k in registry.all_task_kinds()}
    assert [ranks[c.kind] for c in found] == sorted(ranks[c.kind] for c in found)
    assert {c.add.__module__ for c in found} <= {
        f"orchestrator.compiler.tasks.{m}"
        for m in (
            "approval",
            "actions",
            "deploy",
            "merge",
            "verify",
            "soak",
            "http_check",
            "record",
            "window",
        )
    }


def test_a_new_kind_of_task_lands_where_its_kind_runs(scratch: None) -> None:
    """A module of its own, registered at the soak's rank: it runs with the soak (before
    it, by name, as contributions of one rank are ordered), after the wait for Argo CD,
    each task depending on the one before."""

    @contributes("smoke", kind="soak")
    def add(build: Build) -> None:
        n = build.env.environment
        build.chain.step(
            f"smoke-{n}",
            build.settings,
            "http-check",
            {"environment": n, "url": f"https://{n}.example.com/smoke"},
        )

    tasks = {t["name"]: t for t in dag_tasks(compiled(EXAMPLES, "shop")[0])}
    smoke = tasks["smoke-prod-eu"]
    assert smoke["depends"] == "sync-prod-eu.Succeeded"
    assert tasks["soak-prod-eu"]["depends"] == "smoke-prod-eu.Succeeded"
    assert tasks["check-prod-eu"]["depends"] == "soak-prod-eu.Succeeded"
    url = {p["name"]: p["value"] for p in smoke["arguments"]["parameters"]}["url"]
    assert url == "https://prod-eu.example.com/smoke"


def test_a_contribution_in_no_kind_is_refused(scratch: None) -> None:
    contributes("nowhere", kind="teleport")(lambda build: None)
    with pytest.raises(ValueError, match="'teleport', which no step declares"):
        contributions()


def test_two_contributions_of_one_name_are_refused(scratch: None) -> None:
    with pytest.raises(ValueError, match="two task contributions are named 'soak'"):
        contributes("soak", kind="soak")(lambda build: None)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            {"environment": "dev", "url": "https://x", "expected-status": "200"},
            "task check-dev: the step http-check has no input expected-status",
        ),
        ({"environment": "dev"}, "task check-dev: the step http-check requires url"),
    ],
)
def test_a_step_task_takes_exactly_the_inputs_of_its_step(
    arguments: dict[str, str], said: str
) -> None:
    with pytest.raises(CompileError, match=said):
        check_arguments("check-dev", "http-check", arguments)
    check_arguments("check-dev", "http-check", {"environment": "dev", "url": "https://x"})
