"""Compile the example and golden configurations the same way in every compiler test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.compiler import PromotionRequest, compile_product
from orchestrator.loading import Config, load_config
from orchestrator.settings import StepSettings

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "golden" / "configs"
EXPECTED = ROOT / "tests" / "golden" / "expected"
EXAMPLES = ROOT / "environments"

# (scenario, configuration directory, product)
SCENARIOS: list[tuple[str, Path, str]] = [
    ("example-shop", EXAMPLES, "shop"),
    ("example-checkout", EXAMPLES, "checkout"),
    ("fan-out", CONFIGS / "fan-out", "app"),
    ("diamond", CONFIGS / "diamond", "app"),
    ("chain-10", CONFIGS / "chain-10", "app"),
    ("pull-request", CONFIGS / "pull-request", "app"),
    ("no-gates", CONFIGS / "no-gates", "app"),
]
SETTINGS = StepSettings.model_construct()


def load(path: Path) -> Config:
    config, problems = load_config(path)
    assert problems == []
    return config


def request(product: str) -> PromotionRequest:
    return PromotionRequest(product, "1.4.2", "0123abcd", "alice", "req-1")


def compiled(path: Path, product: str) -> list[dict[str, Any]]:
    return compile_product(load(path), product, SETTINGS, request(product)).manifests()


def dag_tasks(template: dict[str, Any]) -> list[dict[str, Any]]:
    dag = next(t for t in template["spec"]["templates"] if t["name"] == "promote")
    tasks: list[dict[str, Any]] = dag["dag"]["tasks"]
    return tasks
