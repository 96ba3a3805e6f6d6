"""``promoflow compile --events``: the Argo Events EventSource and Sensors.

The objects are checked against the vendored Argo Events schema (tests/refdata/argo-events,
strictly: unknown fields fail too), the Workflow a Sensor creates against the Argo Workflows
schema, and that Workflow against what :func:`promotion_workflow` builds for the same
request: everything a request does not change is identical, and every field it does change
is filled by a trigger parameter. The Go templates that compute the name and the version
label are rendered with Go in tests/e2e/test_events_name_parity.py.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from orchestrator.compiler.events import (
    EVENTS,
    FIELDS_TEMPLATE,
    IDEMPOTENCY_HEADER,
    PY_SPACE,
    REQUEST_PREFIX,
    checked_version_template,
    event_source,
    events_manifests,
    label_template,
    name_template,
    sensor,
)
from orchestrator.compiler.workflow import PromotionRequest, promotion_workflow
from orchestrator.graph.plan import ProductPlan, plan_product
from orchestrator.manifest import Manifest
from orchestrator.versionpattern import VersionRule
from tests.compiler.helpers import EXAMPLES, SCENARIOS, SETTINGS, load
from tests.support.argo_schema import REFDATA
from tests.support.argo_schema import schema_errors as workflow_schema_errors
from tests.support.argo_schema import unknown_fields as workflow_unknown_fields
from tests.support.compile_cli import run
from tests.support.sensor_trigger import created_workflow, get, path_of, put

EVENTS_SCHEMA = REFDATA / "argo-events" / "schema.json"
PREFIX = "io.argoproj.events.v1alpha1."


# -- a strict checker for the Argo Events definitions (as tests/support/argo_schema.py is
#    for Argo Workflows): the schema validates types and required fields, and, since it
#    allows unknown fields, a walk names every key it does not define.


@cache
def _definitions() -> dict[str, Any]:
    defs: dict[str, Any] = json.loads(EVENTS_SCHEMA.read_text())["definitions"]
    return defs


def events_schema_errors(obj: Manifest) -> list[str]:
    ref = {"$ref": f"#/definitions/{PREFIX}{obj['kind']}", "definitions": _definitions()}
    validator = jsonschema.Draft7Validator(ref)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)
    ]


def events_unknown_fields(obj: Manifest) -> list[str]:
    found: list[str] = []

    def resolve(schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = _definitions()[schema["$ref"].rsplit("/", 1)[-1]]
        return schema

    def walk(value: Any, schema: dict[str, Any], path: str) -> None:
        schema = resolve(schema)
        if isinstance(value, dict):
            props, extra = schema.get("properties"), schema.get("additionalProperties")
            for key, item in value.items():
                if props is not None and key in props:
                    walk(item, props[key], f"{path}.{key}")
                elif isinstance(extra, dict):
                    walk(item, extra, f"{path}.{key}")
                elif props is not None:
                    found.append(f"{path}.{key}")
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                walk(item, schema["items"], f"{path}[{i}]")

    walk(obj, {"$ref": f"#/definitions/{PREFIX}{obj['kind']}"}, "")
    return found


# -- helpers


def _plan(product: str = "shop", path: Path = EXAMPLES) -> ProductPlan:
    return plan_product(load(path), product)


def _sensor(product: str = "shop", path: Path = EXAMPLES) -> Manifest:
    return sensor(_plan(product, path), SETTINGS)


def _trigger(manifest: Manifest) -> dict[str, Any]:
    [trigger] = manifest["spec"]["triggers"]
    result: dict[str, Any] = trigger
    return result


def _parameters(manifest: Manifest) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = _trigger(manifest)["template"]["k8s"]["parameters"]
    return result


SCENARIO_IDS = [s[0] for s in SCENARIOS]


# -- the EventSource


def test_event_source_validates_strictly() -> None:
    manifest = event_source()
    assert events_schema_errors(manifest) == []
    assert events_unknown_fields(manifest) == []


def test_event_source_is_one_post_endpoint_behind_a_bearer_token_secret() -> None:
    manifest = event_source()
    assert (manifest["kind"], manifest["metadata"]["name"]) == ("EventSource", "promoflow")
    [(name, hook)] = manifest["spec"]["webhook"].items()
    assert name == EVENTS.event_name
    assert (hook["endpoint"], hook["method"], hook["port"]) == ("/promote", "POST", "12000")
    # a reference to the Secret, never a token
    assert hook["authSecret"] == {"name": "promoflow-webhook", "key": "token"}
    assert manifest["spec"]["service"]["ports"] == [{"port": 12000}]


def test_checker_catches_misspelt_and_mistyped_fields() -> None:
    manifest = _sensor()
    manifest["spec"]["triggers"][0]["template"]["k8s"]["paramters"] = []
    manifest["spec"]["dependencies"][0]["filters"]["data"][0]["pth"] = "body.product"
    assert sorted(events_unknown_fields(manifest)) == [
        ".spec.dependencies[0].filters.data[0].pth",
        ".spec.triggers[0].template.k8s.paramters",
    ]
    manifest["spec"]["triggers"][0]["retryStrategy"]["steps"] = "three"
    del manifest["spec"]["dependencies"][0]["eventName"]
    errors = events_schema_errors(manifest)
    assert any("retryStrategy/steps" in e for e in errors)
    assert any("'eventName' is a required property" in e for e in errors)


# -- the Sensors


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=SCENARIO_IDS)
def test_sensor_validates_strictly(scenario: str, path: Path, product: str) -> None:
    manifest = _sensor(product, path)
    assert events_schema_errors(manifest) == []
    assert events_unknown_fields(manifest) == []


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=SCENARIO_IDS)
def test_the_created_workflow_validates_as_a_workflow(
    scenario: str, path: Path, product: str
) -> None:
    workflow = _trigger(_sensor(product, path))["template"]["k8s"]["source"]["resource"]
    assert workflow_schema_errors(workflow) == []
    assert workflow_unknown_fields(workflow) == []


def test_sensor_creates_the_product_workflow_with_retries_as_its_own_account() -> None:
    manifest = _sensor("checkout")
    assert manifest["metadata"]["name"] == "promoflow-checkout"
    assert manifest["spec"]["template"] == {"serviceAccountName": "promoflow-events"}
    [dependency] = manifest["spec"]["dependencies"]
    assert (dependency["eventSourceName"], dependency["eventName"]) == ("promoflow", "promote")
    trigger = _trigger(manifest)
    assert trigger["retryStrategy"]["steps"] >= 2
    k8s = trigger["template"]["k8s"]
    assert k8s["operation"] == "create"
    assert k8s["source"]["resource"]["spec"]["workflowTemplateRef"] == {
        "name": "promoflow-checkout"
    }
    assert {p["src"]["dependencyName"] for p in k8s["parameters"]} == {dependency["name"]}


def _python_re(pattern: str) -> str:
    """An RE2 pattern of ours for Python's ``re``: only ``\\x{HHHH}`` is spelt otherwise."""
    return re.sub(r"\\x\{([0-9a-fA-F]+)\}", lambda m: f"\\U{int(m[1], 16):08x}", pattern)


def _filter_passes(manifest: Manifest, event: dict[str, Any]) -> bool:
    """Argo Events' data filters (type string: a regex search per value, all filters ANDed);
    Python's ``re`` and Go's RE2 agree on these patterns."""
    for data_filter in manifest["spec"]["dependencies"][0]["filters"]["data"]:
        assert data_filter["type"] == "string"
        try:
            value = get(event, path_of(data_filter["path"]))
        except (KeyError, IndexError):
            return False
        if not any(re.search(_python_re(p), str(value)) for p in data_filter["value"]):
            return False
    return True


def _event(body: dict[str, Any], key: str | None = "ci-42") -> dict[str, Any]:
    header = {IDEMPOTENCY_HEADER: [key]} if key is not None else {}
    return {"header": {"Content-Type": ["application/json"], **header}, "body": body}


def test_dependency_takes_only_its_product_with_a_version_and_a_key() -> None:
    shop = _sensor("shop")
    assert _filter_passes(shop, _event({"product": "shop", "version": "1.0"}))
    assert _filter_passes(shop, _event({"product": " shop\n", "version": "\t1.0\u3000"}))
    assert not _filter_passes(shop, _event({"product": "checkout", "version": "1.0"}))
    assert not _filter_passes(shop, _event({"product": "shops", "version": "1.0"}))
    assert not _filter_passes(shop, _event({"product": "myshop", "version": "1.0"}))
    assert not _filter_passes(shop, _event({"product": "shop"}))
    assert not _filter_passes(shop, _event({"product": "shop", "version": " \x1f\u2003"}))
    assert not _filter_passes(shop, _event({"product": "shop", "version": "1.0"}, key=None))
    assert not _filter_passes(shop, _event({"product": "shop", "version": "1.0"}, key=""))
    assert not _filter_passes(shop, _event({"product": "shop", "version": "1.0"}, key="\x1c"))


def test_one_sensor_per_product_after_one_event_source() -> None:
    config = load(EXAMPLES)
    plans = [plan_product(config, p) for p in sorted(config.products)]
    manifests = events_manifests(plans, SETTINGS)
    assert [(m["kind"], m["metadata"]["name"]) for m in manifests] == [
        ("EventSource", "promoflow"),
        ("Sensor", "promoflow-checkout"),
        ("Sensor", "promoflow-shop"),
    ]


@pytest.mark.parametrize("off", ["enabled", "generic"])
def test_a_product_that_takes_no_direct_requests_gets_no_sensor(off: str) -> None:
    config = load(EXAMPLES)
    plans = [plan_product(config, p) for p in sorted(config.products)]
    shop = next(p for p in plans if p.product.name == "shop")
    setattr(shop.product.spec.triggers, off, False)
    names = [m["metadata"]["name"] for m in events_manifests(plans, SETTINGS)]
    assert names == ["promoflow", "promoflow-checkout"]


# -- the Workflow a Sensor creates is promotion_workflow's


def _request(product: str) -> PromotionRequest:
    """Differs from the Sensor's placeholder in every value a request sets."""
    return PromotionRequest(
        product, "2.0.0-RC.1+b7", "0123abcd", "alice", REQUEST_PREFIX + "ci-7", {"a.b": "c"}
    )


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=SCENARIO_IDS)
def test_static_workflow_is_promotion_workflows_but_for_the_parameters(
    scenario: str, path: Path, product: str
) -> None:
    plan = _plan(product, path)
    manifest = sensor(plan, SETTINGS)
    static = copy.deepcopy(_trigger(manifest)["template"]["k8s"]["source"]["resource"])
    expected = promotion_workflow(plan, _request(product), SETTINGS).to_dict()
    dests = [path_of(p["dest"]) for p in _parameters(manifest)]
    for dest in dests:
        # a misspelt dest would make sjson add a new key instead of filling this one
        get(static, dest)
        get(expected, dest)
        put(static, dest, "")
        put(expected, dest, "")
    assert static == expected
    assert sorted(".".join(d) for d in dests) == sorted(
        [
            "metadata.name",
            "metadata.labels.promoflow.dev/version",
            "metadata.annotations.promoflow.dev/version",
            "metadata.annotations.workflows.argoproj.io/title",
            "metadata.annotations.workflows.argoproj.io/description",
            *(f"spec.arguments.parameters.{i}.value" for i in (1, 2, 3, 4)),
        ]
    )


def test_only_optional_values_fall_back_to_empty() -> None:
    """Optional texts, the fields and the version label may be empty; the name, the
    version and the texts built from it never fall back: a template that fails (the request
    check in the version's, a missing key) fails the trigger, rather than create a run
    named after the placeholder that every failed event would then share."""
    manifest = _sensor("shop")
    defaults = {p["dest"]: p["src"].get("value") for p in _parameters(manifest)}
    assert defaults == {
        "metadata.name": None,
        "metadata.labels.promoflow\\.dev/version": "",
        "metadata.annotations.promoflow\\.dev/version": None,
        "metadata.annotations.workflows\\.argoproj\\.io/title": None,
        "metadata.annotations.workflows\\.argoproj\\.io/description": None,
        "spec.arguments.parameters.1.value": None,
        "spec.arguments.parameters.2.value": "",
        "spec.arguments.parameters.3.value": "",
        "spec.arguments.parameters.4.value": "",
    }
    [name] = [p for p in _parameters(manifest) if p["dest"] == "metadata.name"]
    assert name["src"] == {"dependencyName": "promote", "dataTemplate": name_template("shop")}

    def optional_ones_empty(template: str, event: dict[str, Any]) -> str | None:
        return None if template in (label_template(), FIELDS_TEMPLATE) else "x"

    event = _event({"product": "shop", "version": "..."})
    bare = created_workflow(manifest, event, optional_ones_empty)
    args = {p["name"]: p["value"] for p in bare["spec"]["arguments"]["parameters"]}
    assert args["product"] == "shop" and args["version-fields"] == ""
    assert bare["metadata"]["labels"]["promoflow.dev/version"] == ""
    with pytest.raises(LookupError):
        created_workflow(manifest, event, lambda template, event: None)


def test_the_version_check_knows_the_products_fields() -> None:
    """shop's template declares image.digest; checkout's none: each Sensor checks its own,
    and the version as the template's rule says."""
    checks = {
        product: next(
            p["src"]["dataTemplate"]
            for p in _parameters(_sensor(product))
            if p["dest"] == "spec.arguments.parameters.1.value"
        )
        for product in ("shop", "checkout")
    }
    tag = VersionRule(image_tag=True)  # both write the version as an image tag
    assert checks == {
        "shop": checked_version_template(["image.digest"], tag),
        "checkout": checked_version_template([], tag),
    }
    assert "an image tag's grammar" in checks["shop"]


def test_the_version_check_carries_the_templates_pattern() -> None:
    check = checked_version_template([], VersionRule(r"v?\d+\.\d+"))
    assert 'regexMatch "^(?:v?\\\\d+\\\\.\\\\d+)$" $v' in check
    assert "an image tag's grammar" not in check
    assert 'regexMatch "[\\\\p{Z}\\\\p{C}]" $v' in check  # whatever the pattern


def test_space_class_is_what_python_strips() -> None:
    """PY_SPACE (RE2 syntax) holds exactly the characters ``str.strip()`` removes."""
    every = "".join(map(chr, range(0x110000)))
    spaces = set(re.findall(f"[{_python_re(PY_SPACE)}]", every))
    assert spaces == {c for c in every if c.isspace()}
    assert "\x1f" in spaces and "\u3000" in spaces and "\u200b" not in spaces


def test_templates_quote_what_they_embed() -> None:
    """The product and route are Go string literals: a ``{{`` in them stays text."""
    assert '"we{{ird"' in name_template("we{{ird")
    assert "trunc 54" in name_template("shop") and "trunc 8" in name_template("shop")
    assert "trunc 63" in label_template()


# -- the command line


def test_compile_events_lists_the_event_source_and_a_sensor_per_product() -> None:
    result = run("compile", "-c", str(EXAMPLES), "--events", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "workflowtemplate/promoflow-checkout",
        "workflowtemplate/promoflow-shop",
        "eventsource/promoflow",
        "sensor/promoflow-checkout",
        "sensor/promoflow-shop",
    ]
    one = run("compile", "-c", str(EXAMPLES), "-p", "shop", "--events", "-o", "name")
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines() == [
        "workflowtemplate/promoflow-shop",
        "eventsource/promoflow",
        "sensor/promoflow-shop",
    ]


def test_compile_events_yaml_and_json_carry_the_same_objects() -> None:
    as_yaml = run("compile", "-c", str(EXAMPLES), "-p", "shop", "--events")
    as_json = run("compile", "-c", str(EXAMPLES), "-p", "shop", "--events", "-o", "json")
    assert as_yaml.returncode == 0 and as_json.returncode == 0, as_yaml.stderr + as_json.stderr
    documents = list(yaml.safe_load_all(as_yaml.stdout))
    assert documents == json.loads(as_json.stdout)["items"]
    assert [d["kind"] for d in documents] == ["WorkflowTemplate", "EventSource", "Sensor"]
    assert documents[2] == _sensor("shop")


def test_compile_events_to_files_keeps_templates_and_sensors_apart(tmp_path: Path) -> None:
    result = run("compile", "-c", str(EXAMPLES), "--events", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    kinds = {p.name: yaml.safe_load(p.read_text())["kind"] for p in tmp_path.iterdir()}
    assert kinds == {
        "promoflow-shop.yaml": "WorkflowTemplate",
        "promoflow-checkout.yaml": "WorkflowTemplate",
        "eventsource-promoflow.yaml": "EventSource",
        "sensor-promoflow-shop.yaml": "Sensor",
        "sensor-promoflow-checkout.yaml": "Sensor",
    }


def test_compile_events_refuses_a_version() -> None:
    result = run("compile", "-c", str(EXAMPLES), "-p", "shop", "--events", "--version", "1.0")
    assert result.returncode == 2 and result.stdout == ""
    assert "--events" in result.stderr and "--version" in result.stderr
    assert "Traceback" not in result.stderr
