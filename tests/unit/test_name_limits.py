"""Names are bounded so that every name derived from them fits, and ``validate`` says
which limit applies.

Product names of 54 to 63 characters used to pass ``validate`` and crash ``compile``
with an internal error: the product's WorkflowTemplate is ``promoflow-<product>``, and a
Kubernetes name (and Hera) allows 63 characters. The boundary is tested from both sides:
the longest accepted names compile to objects whose every derived name fits its limit,
one character more is refused with the message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.names import MAX_NAME, MAX_PRODUCT
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

ARGO_FIELD_MAX = 128
"""``workflowFieldMaxLength`` in Argo's validate.go: DAG task and template names."""
LONGEST_ENVIRONMENT = MAX_NAME  # no name is derived from it that a longer limit does not cover
HEADER = "apiVersion: promoflow.dev/v1alpha1"


def _name(prefix: str, length: int) -> str:
    return (prefix + "-" + "x" * length)[:length]


def write_config(ws: Workspace, product: str, environments: tuple[str, str]) -> None:
    """A product whose flow uses every kind of task: approval, pre/post actions, sync,
    health, soak and two HTTP checks (the checks' tasks get an index)."""
    first, second = environments
    ws.write(
        "config.yaml",
        f"""
        {HEADER}
        kind: Environment
        metadata: {{name: {first}}}
        ---
        {HEADER}
        kind: Environment
        metadata: {{name: {second}}}
        spec: {{production: true}}
        ---
        {HEADER}
        kind: PromotionFlow
        metadata: {{name: {_name("f", MAX_NAME)}}}
        spec:
          trigger: {first}
          steps:
            - {{environment: {second}, dependsOn: [{first}]}}
        ---
        {HEADER}
        kind: PromotionTemplate
        metadata: {{name: helm}}
        spec:
          versionSource: {{file: values.yaml, path: image.tag}}
          files:
            - {{file: values.yaml, paths: [image.tag]}}
        ---
        {HEADER}
        kind: Product
        metadata: {{name: {product}}}
        spec:
          repo: {{url: https://git.example.com/gitops.git}}
          flow: {_name("f", MAX_NAME)}
          template: helm
        ---
        {HEADER}
        kind: PromotionPolicy
        metadata: {{name: production}}
        spec:
          selector: {{environments: {{production: true}}}}
          policy:
            preAction: {{workflowTemplate: smoke-tests}}
            postAction: {{workflowTemplate: announce}}
            gates:
              - approval: {{approvers: [alice]}}
              - sync: {{timeout: 15m}}
              - health: {{timeout: 15m}}
              - soak: {{duration: 30m}}
              - http: {{url: https://status.example.com/a}}
              - http: {{url: https://status.example.com/b}}
        """,
    )


def _compiled(ws: Workspace, *extra: str, env: dict[str, str] | None = None) -> list[Any]:
    result = invoke("compile", "-c", ".", *extra, env=env)
    assert (result.code, result.stderr) == (0, ""), result.output
    return [m for m in yaml.safe_load_all(result.stdout) if m]


def _labels(manifest: Any) -> list[str]:
    found: list[str] = []
    if isinstance(manifest, dict):
        for key, value in manifest.items():
            if key == "labels" and isinstance(value, dict):
                found += [str(v) for v in value.values() if "{{" not in str(v)]
            else:
                found += _labels(value)
    elif isinstance(manifest, list):
        for item in manifest:
            found += _labels(item)
    return found


def test_the_longest_names_compile_and_every_derived_name_fits(ws: Workspace) -> None:
    product = _name("p", MAX_PRODUCT)
    environments = (_name("a", LONGEST_ENVIRONMENT), _name("b", LONGEST_ENVIRONMENT))
    write_config(ws, product, environments)
    assert ws.problems() == []
    manifests = _compiled(ws, "-p", product, "--version", "1.2.3+" + "9" * 200)
    manifests += _compiled(ws, "-p", product, "--events")
    kinds = {m["kind"] for m in manifests}
    assert {"WorkflowTemplate", "Workflow", "Sensor"} <= kinds
    for manifest in manifests:
        name = manifest["metadata"]["name"]
        assert len(name) <= MAX_NAME, (manifest["kind"], name)
    assert all(len(value) <= MAX_NAME for m in manifests for value in _labels(m))
    template = next(m for m in manifests if m["kind"] == "WorkflowTemplate")
    assert template["metadata"]["name"] == f"promoflow-{product}"
    assert len(template["metadata"]["name"]) == MAX_NAME  # the bound is tight
    inner = [t["name"] for t in template["spec"]["templates"]]
    tasks = [
        t["name"] for t in template["spec"]["templates"] for t in t.get("dag", {}).get("tasks", [])
    ]
    assert f"approver-{environments[1]}" in tasks and f"check-{environments[1]}-2" in tasks
    assert all(len(name) <= ARGO_FIELD_MAX for name in inner + tasks)


@pytest.mark.parametrize("length", [MAX_PRODUCT + 1, MAX_NAME])
def test_a_longer_product_name_is_refused_by_validate_with_the_limit(
    ws: Workspace, length: int
) -> None:
    product = _name("p", length)
    write_config(ws, product, ("dev", "prod"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"config.yaml:28:12: error: metadata.name: {product!r} is too long for a product "
        f"name: at most {MAX_PRODUCT} characters (has {length}), so that its WorkflowTemplate "
        f"'promoflow-<product>' fits the {MAX_NAME} characters of a Kubernetes name"
    ]


def test_a_longer_environment_name_is_refused_by_validate_with_the_limit(
    ws: Workspace,
) -> None:
    longer = _name("a", MAX_NAME + 1)
    write_config(ws, _name("p", MAX_PRODUCT), (longer, "prod"))
    problems = ws.problems()
    assert problems[0] == (
        f"config.yaml:3:12: error: metadata.name: {longer!r} is not a valid name: at most "
        f"{MAX_NAME} characters (has {MAX_NAME + 1})"
    )


@pytest.mark.parametrize("prefix", ["$(id)", "Promoflow", "a_b", "x" * 64])
def test_a_template_prefix_that_is_no_kubernetes_name_is_refused(
    ws: Workspace, prefix: str
) -> None:
    write_config(ws, "shop", ("dev", "prod"))
    result = invoke("compile", "-c", ".", "-p", "shop", env={"PROMOFLOW_TEMPLATE_PREFIX": prefix})
    assert_clean_failure(result, 2)
    assert result.lines == [
        "error: PROMOFLOW_TEMPLATE_PREFIX: not a valid name prefix: lowercase letters, digits "
        "and '-', starting and ending with a letter or digit, at most 63 characters"
    ]


def test_a_longer_template_prefix_is_a_clean_compile_error(ws: Workspace) -> None:
    """``PROMOFLOW_TEMPLATE_PREFIX`` leaves less room than the default prefix."""
    product = _name("p", MAX_PRODUCT)
    write_config(ws, product, ("dev", "prod"))
    prefix = "promoflow-e2e"
    result = invoke("compile", "-c", ".", "-p", product, env={"PROMOFLOW_TEMPLATE_PREFIX": prefix})
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"error: the WorkflowTemplate name '{prefix}-{product}' has "
        f"{len(prefix) + 1 + MAX_PRODUCT} characters, more than the {MAX_NAME} of a "
        "Kubernetes name: with "
        f"PROMOFLOW_TEMPLATE_PREFIX='{prefix}', product names may have at most "
        f"{MAX_NAME - len(prefix) - 1}"
    ]


def test_the_schema_gives_editors_the_same_bound() -> None:
    from orchestrator.schema import kind_schema

    text = yaml.safe_dump(kind_schema("Product"))
    assert f"maxLength: {MAX_PRODUCT}" in text


def test_examples_are_within_the_bounds() -> None:
    examples = Path(__file__).resolve().parents[2] / "environments"
    result = invoke("validate", "-c", str(examples))
    assert result.code == 0, result.output
