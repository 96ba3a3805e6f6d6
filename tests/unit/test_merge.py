"""Policy merging: per field, highest priority wins; the flow step overrides; disableGates."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from orchestrator.model import Environment, PolicySpec, PromotionPolicy
from orchestrator.model.gates.sync import SyncGate
from orchestrator.model.merge import VERIFICATION, EffectivePolicy, matches, merge


# Built per call, never at module level: the loader collects module-level resources of any
# Python file that imports orchestrator under a configuration directory.
def _env(name: str) -> Environment:
    if name == "dev":
        return Environment.build("dev")
    return Environment.model_validate(
        {"metadata": {"name": name, "labels": {"region": "eu"}}, "spec": {"production": True}}
    )


def _policy(name: str, priority: int = 0, selector: Any = None, **policy: Any) -> PromotionPolicy:
    spec: dict[str, Any] = {"priority": priority, "policy": policy}
    if selector is not None:
        spec["selector"] = selector
    return PromotionPolicy.build(name, **spec)


def _step(**settings: Any) -> PolicySpec:
    return PolicySpec.model_validate(settings)


def _all_gates(effective: EffectivePolicy) -> dict[str, Any]:
    return {key: gate.body.model_dump(mode="json") for key, gate in effective.gates.items()}


def _gates(effective: EffectivePolicy) -> dict[str, Any]:
    """The gates policies wrote (not the sync/health verification adds by default)."""
    return {
        key: body
        for key, body in _all_gates(effective).items()
        if effective.sources.get(f"gates.{key}") != VERIFICATION
    }


def test_no_policy_means_commit_then_wait_for_argo_cd() -> None:
    """Verification is the default: promoted means synced at the commit and Healthy."""
    effective, conflicts = merge([], "shop", _env("dev"))
    assert (effective.action, conflicts) == ("commit", [])
    assert _all_gates(effective) == {"sync": {"timeout": "15m"}, "health": {"timeout": "15m"}}
    assert effective.sources == {"gates.sync": VERIFICATION, "gates.health": VERIFICATION}
    assert effective.verifies


def test_gates_written_without_sync_still_wait_for_argo_cd() -> None:
    prod = _policy("prod", gates=[{"approval": {}}, {"soak": {"duration": "30m"}}])
    effective, _ = merge([prod], "shop", _env("prod-eu"))
    assert set(_all_gates(effective)) == {"approval", "soak", "sync", "health"}
    assert effective.verifies


@pytest.mark.parametrize(
    ("settings", "left"),
    [
        ({"verify": False}, set()),
        ({"disableGates": ["health"]}, {"sync"}),
        ({"disableGates": ["sync", "health"]}, set()),
        ({"action": "none"}, set()),
    ],
)
def test_verification_is_turned_off_only_explicitly(
    settings: dict[str, Any], left: set[str]
) -> None:
    effective, _ = merge([_policy("off", **settings)], "shop", _env("dev"))
    assert set(_all_gates(effective)) == left
    assert not effective.verifies


def test_a_higher_priority_policy_turns_verification_back_on() -> None:
    off, on = _policy("off", 0, verify=False), _policy("on", 10, verify=True)
    effective, conflicts = merge([off, on], "shop", _env("dev"))
    assert conflicts == [] and effective.verifies and effective.sources["verify"] == "on"


def test_highest_priority_wins_per_field() -> None:
    low = _policy(
        "low",
        0,
        action="pull-request",
        preAction={"workflowTemplate": "lint"},
        gates=[{"sync": {"timeout": "10m"}}, {"health": {"timeout": "10m"}}],
    )
    high = _policy("high", 10, action="commit", gates=[{"sync": {"timeout": "20m"}}])
    # Declaration order does not matter, only priority.
    for order in ([low, high], [high, low]):
        effective, conflicts = merge(order, "shop", _env("prod-eu"))
        assert conflicts == []
        assert effective.action == "commit"
        assert effective.pre_action is not None
        assert effective.pre_action.workflow_template == "lint"
        assert _gates(effective) == {"sync": {"timeout": "20m"}, "health": {"timeout": "10m"}}
        assert effective.sources == {
            "action": "high",
            "gates.sync": "high",
            "preAction": "low",
            "gates.health": "low",
        }


def test_step_policy_overrides_every_policy_field_by_field() -> None:
    high = _policy(
        "high",
        100,
        action="commit",
        postAction={"workflowTemplate": "announce"},
        gates=[
            {"soak": {"duration": "30m"}},
            {"approval": {"approvers": ["user:sre@example.com"]}},
        ],
    )
    step = _step(action="pull-request", gates=[{"soak": {"duration": "5m"}}])
    effective, _ = merge([high], "shop", _env("prod-eu"), step)
    assert effective.action == "pull-request"
    assert effective.post_action is not None
    assert effective.post_action.workflow_template == "announce"
    assert _gates(effective) == {
        "soak": {"duration": "5m"},
        "approval": {"approvers": ["user:sre@example.com"], "timeout": None, "enforce": "workflow"},
    }
    assert effective.sources["action"] == effective.sources["gates.soak"] == "step"
    assert effective.sources["gates.approval"] == "high"


def test_disable_gates_on_a_step_removes_policy_gates() -> None:
    policy = _policy("p", 5, gates=[{"soak": {"duration": "30m"}}, {"sync": {}}])
    effective, _ = merge([policy], "shop", _env("prod-eu"), _step(disableGates=["soak"]))
    assert list(_gates(effective)) == ["sync"]
    assert effective.sources["gates.soak"] == "step"


def test_disable_gates_by_a_higher_policy_wins_over_a_lower_one() -> None:
    low = _policy("low", 0, gates=[{"approval": {}}, {"sync": {}}])
    high = _policy("high", 10, disableGates=["approval"])
    effective, _ = merge([low, high], "shop", _env("dev"))
    assert list(_gates(effective)) == ["sync"]


def test_a_lower_policy_cannot_disable_what_a_higher_one_sets() -> None:
    low = _policy("low", 0, disableGates=["approval"])
    high = _policy("high", 10, gates=[{"approval": {"approvers": ["a"]}}])
    effective, _ = merge([low, high], "shop", _env("dev"))
    assert list(_gates(effective)) == ["approval"]


def test_http_checks_are_one_unit_per_url_and_disable_removes_them_all() -> None:
    policy = _policy(
        "p",
        0,
        gates=[
            {"http": {"url": "https://a.example.com"}},
            {"http": {"url": "https://b.example.com", "expectStatus": 204}},
        ],
    )
    effective, _ = merge([policy], "shop", _env("dev"))
    assert [g.url for g in effective.http_gates] == [
        "https://a.example.com",
        "https://b.example.com",
    ]
    off, _ = merge([policy], "shop", _env("dev"), _step(disableGates=["http"]))
    assert off.http_gates == []
    assert _gates(off) == {}


def test_http_disabled_by_a_policy_does_not_drop_a_step_check() -> None:
    policy = _policy("p", 0, disableGates=["http"])
    step = _step(gates=[{"http": {"url": "https://status.example.com"}}])
    effective, _ = merge([policy], "shop", _env("dev"), step)
    assert [g.url for g in effective.http_gates] == ["https://status.example.com"]


def test_http_disabled_by_a_lower_policy_does_not_drop_a_higher_check() -> None:
    low = _policy("low", 0, disableGates=["http"])
    high = _policy("high", 10, gates=[{"http": {"url": "https://status.example.com"}}])
    mid = _policy("mid", 5, gates=[{"http": {"url": "https://other.example.com"}}])
    assert [g.url for g in merge([low, high, mid], "shop", _env("dev"))[0].http_gates] == [
        "https://status.example.com",
        "https://other.example.com",
    ]
    top = _policy("top", 20, disableGates=["http"])
    assert merge([low, high, mid, top], "shop", _env("dev"))[0].http_gates == []


def test_equal_priority_disagreement_is_a_conflict() -> None:
    a = _policy("a", 3, action="commit", gates=[{"sync": {"timeout": "5m"}}])
    b = _policy("b", 3, action="none", gates=[{"sync": {"timeout": "300s"}}])
    c = _policy("c", 3, disableGates=["sync"])
    effective, conflicts = merge([a, b, c], "shop", _env("prod-eu"))
    assert [(x.unit, x.environment, x.first.name, x.second.name) for x in conflicts] == [
        ("action", "prod-eu", "a", "b"),
        ("gates.sync", "prod-eu", "a", "c"),
    ]
    # The first declared one is kept meanwhile, so the outcome is still deterministic.
    assert effective.action == "commit"
    assert effective.gate(SyncGate).timeout == timedelta(minutes=5)


def test_equal_priority_agreement_is_not_a_conflict() -> None:
    a = _policy("a", 3, preAction={"workflowTemplate": "smoke"})
    b = _policy("b", 3, preAction={"workflowTemplate": "smoke"}, action="commit")
    effective, conflicts = merge([a, b], "shop", _env("prod-eu"))
    assert conflicts == []
    assert effective.sources == {
        "preAction": "a",
        "action": "b",
        "gates.sync": VERIFICATION,
        "gates.health": VERIFICATION,
    }


def test_a_step_does_not_resolve_a_conflict_between_policies() -> None:
    a = _policy("a", 3, action="commit")
    b = _policy("b", 3, action="none")
    effective, conflicts = merge([a, b], "shop", _env("prod-eu"), _step(action="pull-request"))
    assert effective.action == "pull-request"
    assert len(conflicts) == 1


@pytest.mark.parametrize(
    ("selector", "product", "env", "expected"),
    [
        (None, "shop", "dev", True),
        ({"products": ["shop"]}, "shop", "dev", True),
        ({"products": ["cart"]}, "shop", "dev", False),
        ({"environments": {"production": True}}, "shop", "prod-eu", True),
        ({"environments": {"production": True}}, "shop", "dev", False),
        ({"environments": {"production": False}}, "shop", "dev", True),
        ({"environments": {"names": ["dev", "qa"]}}, "shop", "dev", True),
        ({"environments": {"names": ["qa"]}}, "shop", "dev", False),
        ({"environments": {"names": []}}, "shop", "dev", False),
        ({"environments": {"matchLabels": {"region": "eu"}}}, "shop", "prod-eu", True),
        ({"environments": {"matchLabels": {"region": "us"}}}, "shop", "prod-eu", False),
        ({"environments": {"matchLabels": {"region": "eu"}}}, "shop", "dev", False),
        (
            {"products": ["shop"], "environments": {"production": True, "names": ["prod-eu"]}},
            "shop",
            "prod-eu",
            True,
        ),
    ],
)
def test_selector_matching(selector: Any, product: str, env: str, expected: bool) -> None:
    assert matches(_policy("p", selector=selector), product, _env(env)) is expected


def test_only_matching_policies_contribute() -> None:
    prod_only = _policy(
        "prod", 10, selector={"environments": {"production": True}}, gates=[{"approval": {}}]
    )
    default = _policy("default", 0, gates=[{"sync": {}}])
    assert list(_gates(merge([prod_only, default], "shop", _env("dev"))[0])) == ["sync"]
    assert list(_gates(merge([prod_only, default], "shop", _env("prod-eu"))[0])) == [
        "approval",
        "sync",
    ]


def test_verify_false_drops_waits_of_equal_or_lower_rank_only() -> None:
    written = _policy("written", 10, gates=[{"sync": {"timeout": "5m"}}, {"health": {}}])
    off = _policy("off", 20, verify=False)
    effective, _ = merge([written, off], "shop", _env("prod-eu"))
    assert _all_gates(effective) == {} and not effective.verifies
    higher = _policy("higher", 30, gates=[{"sync": {"timeout": "5m"}}])
    effective, _ = merge([written, off, higher], "shop", _env("prod-eu"))
    assert list(_all_gates(effective)) == ["sync"]
