"""Resource models: defaults, application resolution, gates, serialisation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from orchestrator.model import (
    Environment,
    Gate,
    Product,
    PromotionFlow,
    PromotionPolicy,
    PromotionTemplate,
)
from orchestrator.model.gates.health import DEFAULT_HEALTH_TIMEOUT
from orchestrator.model.gates.sync import DEFAULT_SYNC_TIMEOUT


def _product(**spec: Any) -> Product:
    base: dict[str, Any] = {
        "repo": {"url": "https://git.example.com/gitops.git"},
        "flow": "standard",
        "template": "helm",
    }
    return Product.build("shop", **{**base, **spec})


def _errors(exc: pytest.ExceptionInfo[ValidationError]) -> list[tuple[tuple[Any, ...], str]]:
    return [(e["loc"], e["msg"]) for e in exc.value.errors()]


def test_application_defaults() -> None:
    app = _product().application("staging")
    assert app.model_dump() == {
        "environment": "staging",
        "argocd_app": "shop-staging",
        "path": "envs/staging/shop",
        "branch": "main",
    }


def test_application_override_replaces_only_what_it_sets() -> None:
    product = _product(
        applications=[
            {"environment": "prod-eu", "argocdApp": "shop-eu", "path": "regions/eu/shop"},
            {"environment": "prod-us", "argocdApp": "shop-us"},
        ]
    )
    eu, us, dev = (product.application(e) for e in ("prod-eu", "prod-us", "dev"))
    assert (eu.argocd_app, eu.path) == ("shop-eu", "regions/eu/shop")
    assert (us.argocd_app, us.path) == ("shop-us", "envs/prod-us/shop")
    assert (dev.argocd_app, dev.path) == ("shop-dev", "envs/dev/shop")


def test_application_name_and_path_templates() -> None:
    product = _product(
        appNameTemplate="{environment}-{product}", pathTemplate="overlays/{environment}"
    )
    app = product.application("dev")
    assert (app.argocd_app, app.path) == ("dev-shop", "overlays/dev")


def test_branch_layout_uses_the_branch_template() -> None:
    default = _product(repo={"url": "https://g/x.git", "branch": "trunk", "layout": "branch"})
    custom = _product(
        repo={
            "url": "https://g/x.git",
            "layout": "branch",
            "branchTemplate": "{product}/{environment}",
        }
    )
    directory = _product(repo={"url": "https://g/x.git", "branch": "trunk"})
    assert default.application("prod").branch == "env/prod"
    assert custom.application("prod").branch == "shop/prod"
    assert directory.application("prod").branch == "trunk"


@pytest.mark.parametrize("field", ["appNameTemplate", "pathTemplate"])
def test_templates_accept_only_product_and_environment(field: str) -> None:
    with pytest.raises(ValidationError) as exc:
        _product(**{field: "{product}-{env}"})
    assert _errors(exc) == [
        (
            ("spec", field),
            "Value error, '{product}-{env}': only {product} and {environment} may be used ('env')",
        )
    ]


@pytest.mark.parametrize(
    "template", ["{product:>999999999}", "{product.__class__}", "{environment!r}", "{product[0]}"]
)
def test_templates_take_no_format_spec_attribute_or_conversion(template: str) -> None:
    with pytest.raises(ValidationError) as exc:
        _product(appNameTemplate=template)
    [(where, message)] = _errors(exc)
    assert where == ("spec", "appNameTemplate")
    assert message == (
        f"Value error, {template!r}: only {{product}} and {{environment}} may be used "
        f"({template[1:-1]})"
    )


def test_bad_branch_template() -> None:
    with pytest.raises(ValidationError) as exc:
        _product(repo={"url": "https://g/x.git", "branchTemplate": "env/{0}"})
    assert _errors(exc) == [
        (
            ("spec", "repo", "branchTemplate"),
            "Value error, 'env/{0}': only {product} and {environment} may be used "
            "(Replacement index 0 out of range for positional args tuple)",
        )
    ]


def test_environment_defaults() -> None:
    env = Environment.build("dev")
    assert env.model_dump(by_alias=True) == {
        "apiVersion": "promoflow.dev/v1alpha1",
        "kind": "Environment",
        "metadata": {"name": "dev", "labels": {}, "annotations": {}},
        "spec": {"production": False, "description": "", "clusters": []},
    }
    assert env.production is False
    assert str(env.where("spec", "production")) == "<unknown>:1:1"


def test_flow_environments_trigger_first_each_once() -> None:
    flow = PromotionFlow.build(
        "f",
        trigger="dev",
        steps=[
            {"environment": "prod", "dependsOn": ["staging"]},
            {"environment": "staging", "dependsOn": ["dev"]},
            {"environment": "prod", "dependsOn": ["dev"]},
        ],
    )
    assert flow.environments == ["dev", "prod", "staging"]
    step = flow.step("staging")
    assert step is not None and step.depends_on == ["dev"]
    assert flow.step("qa") is None


def test_template_whole_file_and_paths() -> None:
    template = PromotionTemplate.build(
        "t", files=[{"file": "values.yaml", "paths": ["image.tag"]}, {"file": "config/*.json"}]
    )
    assert [f.whole_file for f in template.spec.files] == [False, True]


def test_kind_is_fixed_per_model() -> None:
    with pytest.raises(ValidationError) as exc:
        Environment.model_validate({"kind": "Product", "metadata": {"name": "x"}})
    assert _errors(exc) == [(("kind",), "Input should be 'Environment'")]


def test_gate_defaults_and_identity() -> None:
    sync = Gate.model_validate({"sync": {}})
    health = Gate.model_validate({"health": {}})
    http = Gate.model_validate({"http": {"url": "https://status.example.com/x"}})
    assert (sync.kind, sync.key, sync.body.timeout) == ("sync", "sync", DEFAULT_SYNC_TIMEOUT)
    assert health.body.timeout == DEFAULT_HEALTH_TIMEOUT == timedelta(minutes=15)
    assert (http.kind, http.key) == ("http", "http:https://status.example.com/x")
    assert (http.body.expect_status, http.body.retries) == (200, 3)


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"sync": {}, "health": {}},
        {"approval": {}, "sync": {}, "health": {}, "soak": {"duration": "1m"}},
    ],
)
def test_gate_has_exactly_one_kind(value: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as exc:
        Gate.model_validate(value)
    got = sum(1 for k in value)
    assert _errors(exc) == [
        (
            (),
            "Value error, a gate has exactly one of: approval, health, http, soak, sync "
            f"(got {got})",
        )
    ]


def test_http_gate_checks() -> None:
    with pytest.raises(ValidationError) as exc:
        Gate.model_validate({"http": {"url": "status.example.com"}})
    assert _errors(exc) == [
        (("http", "url"), "Value error, not an http(s) URL: it must start with http:// or https://")
    ]


def test_policy_serialises_durations_in_short_form() -> None:
    policy = PromotionPolicy.build(
        "p", policy={"gates": [{"soak": {"duration": 5400}}, {"sync": {"timeout": "90s"}}]}
    )
    dumped = policy.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    assert dumped["spec"]["policy"]["gates"] == [
        {"soak": {"duration": "1h30m"}},
        {"sync": {"timeout": "1m30s"}},
    ]
    # A JSON dump loads back into an equal model.
    again = PromotionPolicy.model_validate(policy.model_dump(mode="json", by_alias=True))
    assert again == policy
