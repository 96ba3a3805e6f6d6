"""Plugin templates in a local run: each replaced by its plugin's stand-in, or refused.

The demo's promotion compiled for promoflow's executor plugin ends node for node as the
same promotion compiled for pods: the stand-in runs each plugin step as its pod would.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from orchestrator.demo.local import DemoOptions, run_demo
from orchestrator.engine.errors import EngineError
from orchestrator.engine.model import NodeRecord, Phase
from orchestrator.engine.plugins import expand
from orchestrator.loading import load_config

ROOT = Path(__file__).resolve().parents[2]


def demo(where: Path, **options: str) -> tuple[Phase, dict[str, NodeRecord]]:
    config, problems = load_config(ROOT / "environments")
    assert problems == []
    console = Console(file=io.StringIO(), width=200)
    result = run_demo(config, DemoOptions(keep=where, **options), console)  # type: ignore[arg-type]
    return result.record.phase, result.record.nodes


def workflow(*templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "WorkflowTemplate",
        "metadata": {"name": "steps"},
        "spec": {"templates": list(templates)},
    }


def stand_in(value: Any, where: str) -> dict[str, Any]:
    return {"container": {"image": "x", "args": list(value["args"])}}


def test_a_plugin_template_becomes_its_stand_in_s_container() -> None:
    template = {
        "name": "check",
        "inputs": {"parameters": [{"name": "url"}]},
        "outputs": {"parameters": [{"name": "ok", "valueFrom": {"supplied": {}}}]},
        "retryStrategy": {"limit": "3"},
        "synchronization": {"mutexes": [{"name": "m"}]},
        "plugin": {"mine": {"args": ["{{inputs.parameters.url}}"]}},
    }
    out = expand(workflow(template), {"mine": stand_in})
    (body,) = out["spec"]["templates"]
    assert body == {
        "name": "check",
        "inputs": {"parameters": [{"name": "url"}]},
        "retryStrategy": {"limit": "3"},
        "synchronization": {"mutexes": [{"name": "m"}]},
        "container": {"image": "x", "args": ["{{inputs.parameters.url}}"]},
    }


def test_a_manifest_without_plugins_is_left_as_it_is() -> None:
    manifest = workflow({"name": "a", "container": {"image": "x"}})
    assert expand(manifest, {}) is manifest


@pytest.mark.parametrize(
    ("plugin", "reason"),
    [
        ({"slack": {}}, "executor plugin 'slack' in template steps/t .no local stand-in"),
        ({}, "expected exactly one key, got 0"),
        ({"a": {}, "b": {}}, "expected exactly one key, got 2"),
    ],
)
def test_a_plugin_without_a_stand_in_is_refused_by_name(
    plugin: dict[str, Any], reason: str
) -> None:
    with pytest.raises(EngineError, match=reason):
        expand(workflow({"name": "t", "plugin": plugin}), {"mine": stand_in})


@pytest.mark.parametrize(
    "options", [{"reject": "prod-eu"}, {"fail": "staging"}], ids=["rejected", "failed"]
)
def test_plugin_steps_end_locally_as_their_pods_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, str]
) -> None:
    runs = {}
    for execution in ("pod", "plugin"):
        monkeypatch.setenv("PROMOFLOW_EXECUTION", execution)
        phase, nodes = demo(tmp_path / execution, **options)
        runs[execution] = (phase, {name: node.phase for name, node in nodes.items()})
    assert runs["plugin"] == runs["pod"]
    assert runs["plugin"][0] is Phase.FAILED
    assert any(phase is Phase.SUCCEEDED for phase in runs["plugin"][1].values())
