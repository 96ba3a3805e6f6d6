"""Verification by default: every environment waits for Argo CD unless a policy turns it off,
and ``validate`` warns where that happens for production."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.unit.invoke import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "environments"


def _config(tmp_path: Path, policy: str) -> Path:
    config = tmp_path / "config"
    shutil.copytree(EXAMPLES, config)
    (config / "no-verify.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\n"
        "kind: PromotionPolicy\n"
        "metadata: {name: prod-unverified}\n"
        "spec:\n"
        "  priority: 20\n"
        "  selector: {environments: {names: [prod-us]}}\n"
        f"  policy: {policy}\n"
    )
    return config


def test_production_without_verification_is_a_warning_at_the_policy(tmp_path: Path) -> None:
    config = _config(tmp_path, "{verify: false}")

    result = invoke("validate", "-c", str(config))

    assert result.code == 0, result.output
    assert result.stdout.startswith("valid: ")
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert [Path(line.split(":", 1)[0]).resolve() for line in warnings] == [
        (config / "no-verify.yaml").resolve()
    ] * 2
    assert [line.split(":", 1)[1] for line in warnings] == [
        f"7:3: warning: {product} is promoted into production environment 'prod-us' without "
        "waiting for Argo CD to sync the commit and report Healthy (verify is off)"
        for product in ("checkout", "shop")
    ]


def test_disabling_the_sync_gate_is_turning_verification_off(tmp_path: Path) -> None:
    config = _config(tmp_path, "{disableGates: [sync]}")
    result = invoke("validate", "-c", str(config))
    assert result.code == 0
    assert result.stderr.count("warning: ") == 2


def test_the_example_verifies_everywhere_and_graph_shows_the_trigger_gates() -> None:
    validated = invoke("validate", "-c", str(EXAMPLES))
    assert validated.code == 0 and "warning" not in validated.stderr
    graph = invoke("graph", "-c", str(EXAMPLES), "-p", "shop")
    assert graph.code == 0
    dev = next(line for line in graph.stdout.splitlines() if line.startswith("dev "))
    assert "sync 10m · health 10m" in dev
