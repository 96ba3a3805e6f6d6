"""`promoflow compile` / `promote --dry-run` as a user runs them (subprocess)."""

from __future__ import annotations

from pathlib import Path

import yaml

from orchestrator.compiler.library import LIBRARY
from tests.compiler.helpers import EXAMPLES
from tests.support.compile_cli import run

SECRETS = {
    "ARGO_TOKEN": "argo-secret-token-value",
    "GIT_TOKEN": "ghp_gitsecretvalue123",
    "ARGOCD_AUTH_TOKEN": "argocd-secret-value",
}


def test_no_secret_value_reaches_the_yaml() -> None:
    result = run(
        "compile",
        "-c",
        str(EXAMPLES),
        "--library",
        "-p",
        "shop",
        "--version",
        "1.0",
        "--set",
        "image.digest=sha256:abcd",
        env=SECRETS,
    )
    assert result.returncode == 0, result.stderr
    for value in SECRETS.values():
        assert value not in result.stdout and value not in result.stderr
    assert "secretKeyRef" in result.stdout


def test_output_is_identical_across_processes() -> None:
    first = run(
        "compile", "-c", str(EXAMPLES), "--version", "2.0", "-p", "checkout", "--requested-by", "ci"
    )
    second = run(
        "compile", "-c", str(EXAMPLES), "--version", "2.0", "-p", "checkout", "--requested-by", "ci"
    )
    assert first.returncode == 0 and first.stdout == second.stdout


def test_compile_all_products_to_files(tmp_path: Path) -> None:
    result = run("compile", "-c", str(EXAMPLES), "--library", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "promoflow-shop.yaml" in names and "promoflow-checkout.yaml" in names
    assert "promoflow-promote.yaml" in names and len(names) == len(LIBRARY) + 2
    assert (
        yaml.safe_load((tmp_path / "promoflow-shop.yaml").read_text())["kind"] == "WorkflowTemplate"
    )


def test_dry_run_prints_the_workflow_without_a_server() -> None:
    result = run(
        "promote",
        "-c",
        str(EXAMPLES),
        "-p",
        "shop",
        "--version",
        "3.1.0",
        "--set",
        "image.digest=sha256:abcd",
        "--dry-run",
        "--requested-by",
        "bob",
    )
    assert result.returncode == 0, result.stderr
    workflow = yaml.safe_load(result.stdout)
    assert workflow["kind"] == "Workflow"
    params = {p["name"]: p["value"] for p in workflow["spec"]["arguments"]["parameters"]}
    assert params == {
        "product": "shop",
        "version": "3.1.0",
        "version-fields": '{"image.digest": "sha256:abcd"}',
        "source-commit": "",
        "requested-by": "bob",
    }


def test_usage_errors_exit_2() -> None:
    assert run("compile", "-c", str(EXAMPLES), "--version", "1").returncode == 2
    assert run("compile", "-c", str(EXAMPLES), "-p", "nope").returncode == 2
    result = run(
        "promote", "-c", str(EXAMPLES), "-p", "shop", "--version", "1",
        "--set", "image.digest=sha256:abcd", env={"ARGO_SERVER": ""},
    )  # fmt: skip
    assert result.returncode == 2
    assert "ARGO_SERVER" in result.stderr and "Traceback" not in result.stderr


def test_invalid_config_exits_1_with_positions(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\nkind: Product\nmetadata: {name: p}\n"
        "spec: {repo: {url: x}, flow: f, template: t, colour: red}\n"
    )
    result = run("compile", "-c", str(tmp_path))
    assert result.returncode == 1
    assert ":4:" in result.stderr and "unknown field 'spec.colour'" in result.stderr


def test_compile_version_takes_its_fields_as_promote_does() -> None:
    """``compile -v`` emits the Workflow ``promote`` would submit: the same --set, the same
    refusal when a field that moves with the version is missing."""
    base = ["compile", "-c", str(EXAMPLES), "-p", "shop", "-v", "3.1.0"]
    missing = run(*base)
    assert missing.returncode == 2 and missing.stdout == ""
    assert "add --set image.digest=VALUE" in missing.stderr
    loose = run("compile", "-c", str(EXAMPLES), "-p", "shop", "--set", "image.digest=sha256:ab")
    assert loose.returncode == 2 and "--set comes with --version" in loose.stderr
    twice = run(*base, "--set", "image.digest=sha256:ab", "--set", "image.digest=sha256:cd")
    assert twice.returncode == 2 and "image.digest is given twice" in twice.stderr
    result = run(*base, "--set", "image.digest=sha256:abcd")
    assert result.returncode == 0, result.stderr
    [workflow] = [d for d in yaml.safe_load_all(result.stdout) if d["kind"] == "Workflow"]
    params = {p["name"]: p["value"] for p in workflow["spec"]["arguments"]["parameters"]}
    assert params["version-fields"] == '{"image.digest": "sha256:abcd"}'
