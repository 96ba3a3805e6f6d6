"""The executor plugin API's shapes, as Argo's agent sends and reads them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from orchestrator.plugin.protocol import (
    CallError,
    NodeResult,
    go_duration,
    parse,
    reply,
)


def call(plugin: dict[str, Any] | None = None, **extra: Any) -> bytes:
    body: dict[str, Any] = {
        "workflow": {"metadata": {"name": "shop-1", "namespace": "argo", "uid": "u-1"}},
        "template": {
            "name": "promote",
            "plugin": plugin
            if plugin is not None
            else {
                "promoflow": {
                    "node": "shop-1.deploy-dev(0)",
                    "args": ["step", "promote", "--to", "dev"],
                    "outputs": ["commit", "changed"],
                    "deadline": "900",
                }
            },
        },
    }
    body.update(extra)
    return json.dumps(body).encode()


def test_a_promoflow_template_is_one_node_s_step() -> None:
    step = parse(call())
    assert step is not None
    assert step.key == ("u-1", "shop-1.deploy-dev(0)")
    assert step.step == "promote"
    assert step.args == ("step", "promote", "--to", "dev")
    assert step.outputs == ("commit", "changed")
    assert step.deadline == 900.0
    assert (step.workflow, step.namespace) == ("shop-1", "argo")


def test_another_plugin_s_template_is_not_ours() -> None:
    assert parse(call({"slack": {"text": "hi"}})) is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "not JSON"),
        (b"[]", "not a JSON object"),
        (json.dumps({"template": {}}).encode(), "needs 'workflow.metadata'"),
        (call({"promoflow": []}), "must be an object"),
        (call({"promoflow": {"node": "n", "args": ["promote"]}}), "must start with 'step <name>'"),
        (call({"promoflow": {"node": "n", "args": "step promote"}}), "list of strings"),
        (
            call({"promoflow": {"node": "{{node.name}}", "args": ["step", "x"]}}),
            "was not substituted",
        ),
        (
            call({"promoflow": {"node": "n", "args": ["step", "x"], "deadline": "-3"}}),
            "not a positive whole number",
        ),
        (
            call({"promoflow": {"node": "n", "args": ["step", "x"], "deadlin": "3"}}),
            "no field 'deadlin'",
        ),
    ],
)
def test_a_malformed_call_is_refused_with_its_reason(body: bytes, reason: str) -> None:
    with pytest.raises(CallError, match=reason):
        parse(body)


def test_a_finished_node_carries_outputs_and_exit_code() -> None:
    result = NodeResult("Succeeded", "committed", {"commit": "abc", "changed": ""}, 0)
    assert reply(result) == {
        "node": {
            "phase": "Succeeded",
            "message": "committed",
            "outputs": {
                "parameters": [
                    {"name": "commit", "value": "abc"},
                    {"name": "changed", "value": ""},
                ],
                "exitCode": "0",
            },
        }
    }


def test_a_running_node_is_asked_about_again_at_once() -> None:
    out = reply(NodeResult("Running", "waiting for shop-dev", progress="1/3"), 0.001)
    assert out == {
        "node": {"phase": "Running", "message": "waiting for shop-dev", "progress": "1/3"},
        "requeue": "1ms",
    }


def test_not_ours_is_an_empty_object() -> None:
    assert reply(None) == {}


@pytest.mark.parametrize(("seconds", "text"), [(0.001, "1ms"), (0.0001, "1ms"), (2.5, "2500ms")])
def test_requeues_are_go_durations(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


def test_a_requeue_is_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        go_duration(0)
