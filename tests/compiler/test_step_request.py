"""A compiled run carries everything the promote step needs: the resolved flags in the
workflow give the same request as resolving from the configuration."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from orchestrator.steps import registry
from orchestrator.steps.request import (
    build_request,
    field_names,
    parse_files,
    request_from_config,
)
from tests.compiler.helpers import EXAMPLES, ROOT, compiled, dag_tasks, load

RUN_VALUES = {
    "{{workflow.parameters.version}}": "1.4.2",
    "{{workflow.parameters.version-fields}}": "",
    "{{workflow.parameters.source-commit}}": "",
    "{{workflow.parameters.requested-by}}": "alice",
    "{{workflow.parameters.rollback-reason}}": "",  # a promotion, not a rollback
}
SOURCE_SHA = "0123456789abcdef0123456789abcdef01234567"


def resolved_flags(product: str, environment: str, kind: str = "deploy") -> dict[str, str]:
    """The deploy (or plan) task's arguments as the step container receives them."""
    task = next(
        t for t in dag_tasks(compiled(EXAMPLES, product)[0]) if t["name"] == f"{kind}-{environment}"
    )
    values = {}
    for param in task["arguments"]["parameters"]:
        value = RUN_VALUES.get(param["value"], param["value"])
        if value.startswith("{{tasks."):
            value = SOURCE_SHA  # the source environment's deploy output at run time
        values[param["name"]] = value
    return values


@pytest.mark.parametrize("environment", ["dev", "staging", "prod-eu", "prod-us"])
def test_resolved_form_equals_config_form(environment: str) -> None:
    flags = resolved_flags("shop", environment)
    # Template parameter names are the request's field names (flags may differ: --to);
    # ``planned`` says what may be committed, not what is asked
    fields = set(field_names())
    values = {
        arg.key: flags[arg.name]
        for arg in registry.get("promote").template_inputs
        if arg.key in fields
    }
    assert {a.name for a in registry.get("promote").template_inputs} - set(flags) <= {"planned"}
    files = values.pop("files")
    from_flags = build_request(**values, files=parse_files(files))
    from_config = request_from_config(
        load(EXAMPLES),
        "shop",
        environment,
        version="1.4.2",
        source_commit=SOURCE_SHA if environment != "dev" else None,
        requested_by="alice",
    )
    assert from_flags == from_config


@pytest.mark.parametrize("environment", ["prod-eu", "prod-us"])
def test_the_plan_reads_the_request_its_deploy_commits(environment: str) -> None:
    """Where an approval is asked, ``plan-ENV`` decides whether to ask it: it must see the
    very request ``deploy-ENV`` then commits, flag for flag."""
    planned = resolved_flags("shop", environment, "plan")
    deployed = resolved_flags("shop", environment)
    assert deployed.pop("planned") == SOURCE_SHA  # the plan's output, at run time
    assert planned == deployed
    assert {a.name for a in registry.get("plan").template_inputs} == set(planned)


def test_cli_plan_is_the_same_for_both_forms() -> None:
    flags = resolved_flags("checkout", "prod-eu")
    resolved = [
        "--product", flags["product"], "--to", "prod-eu", "--from", flags["source-environment"],
        "--source-commit", SOURCE_SHA, "--version", "1.4.2", "--repo", flags["repo"],
        "--branch", flags["branch"], "--source-branch", flags["source-branch"],
        "--source-path", flags["source-path"], "--target-path", flags["target-path"],
        "--files", flags["files"], "--version-file", flags["version-file"],
        "--version-path", flags["version-path"],
        "--version-kustomize-image", flags["version-kustomize-image"], "--action", flags["action"],
        "--image", flags["image"],
        "--requested-by", "alice",
    ]  # fmt: skip
    configured = [
        "--config", str(EXAMPLES), "--product", "checkout", "--to", "prod-eu",
        "--source-commit", SOURCE_SHA, "--version", "1.4.2", "--requested-by", "alice",
    ]  # fmt: skip

    def plan(args: list[str]) -> dict[str, object]:
        result = subprocess.run(
            [sys.executable, "-m", "orchestrator.entry", "step", "promote", *args, "--plan"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        parsed: dict[str, object] = json.loads(result.stdout)
        return parsed

    first, second = plan(resolved), plan(configured)
    assert first == second
    assert first["target_path"] == "overlays/prod-eu/checkout"


def test_bad_files_flag_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "step", "promote", "--product", "p",
         "--to", "e", "--repo", "r", "--branch", "main", "--target-path", "t",
         "--files", '[{"file": "../../etc/passwd"}]', "--plan"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 2
    assert "escapes the product directory" in result.stderr and "Traceback" not in result.stderr
