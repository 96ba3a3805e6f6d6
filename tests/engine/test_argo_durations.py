"""The local engine reads durations with Argo's rule: what errors on a cluster errors here.

Before, an approval's suspend duration was never parsed locally, so ``7d`` (which the
controller refuses: "unable to parse 7d as a duration") ran fine in every local promotion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.engine.model import Phase
from orchestrator.engine.runner import Engine, EngineOptions
from orchestrator.engine.suspend import AutoApprover
from tests.engine.scripted import Scripted

APPROVAL = {
    "name": "ask",
    "inputs": {"parameters": [{"name": "timeout"}]},
    "suspend": {"duration": "{{inputs.parameters.timeout}}"},
    "outputs": {"parameters": [{"name": "approve", "valueFrom": {"supplied": {}}}]},
}


def _workflow(timeout: str, *templates: dict[str, Any]) -> dict[str, Any]:
    task = {
        "name": "approve",
        "template": "ask",
        "arguments": {"parameters": [{"name": "timeout", "value": timeout}]},
    }
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "wf"},
        "spec": {
            "entrypoint": "main",
            "templates": [{"name": "main", "dag": {"tasks": [task]}}, *templates],
        },
    }


def _run(wf: dict[str, Any], tmp_path: Path, slept: list[float] | None = None) -> Any:
    engine = Engine(
        wf,
        [],
        workdir=tmp_path,
        executor=Scripted(),
        approver=AutoApprover(who="ci"),
        options=EngineOptions(backoff_scale=0.0),
        sleep=(slept if slept is not None else []).append,
    )
    return engine.run()


@pytest.mark.parametrize("timeout", ["7d", "1d12h", "1 h", "15M", ""])
def test_an_approval_with_a_duration_argo_refuses_errors_its_node(
    tmp_path: Path, timeout: str
) -> None:
    record = _run(_workflow(timeout, APPROVAL), tmp_path)
    node = record.nodes["approve"]
    assert node.phase is Phase.ERROR
    assert f"suspend duration of {node.name}: unable to parse {timeout} as a duration" in (
        node.message
    )
    assert node.outputs == {}


@pytest.mark.parametrize("timeout", ["168h", "604800", "36h", "1h30m", "0"])
def test_an_approval_with_a_go_duration_is_asked(tmp_path: Path, timeout: str) -> None:
    record = _run(_workflow(timeout, APPROVAL), tmp_path)
    assert record.nodes["approve"].phase is Phase.SUCCEEDED
    assert record.nodes["approve"].outputs == {"approve": "YES"}


def test_a_soak_in_bare_seconds_sleeps_that_long(tmp_path: Path) -> None:
    soak = {
        "name": "ask",
        "inputs": {"parameters": [{"name": "timeout"}]},
        "suspend": {"duration": "{{inputs.parameters.timeout}}"},
    }
    slept: list[float] = []
    record = _run(_workflow("90", soak), tmp_path, slept)
    assert record.nodes["approve"].phase is Phase.SUCCEEDED
    assert slept == [90.0]
