"""Benchmark: load + validate generated configurations of 20 and 500 environments.

Two graph shapes (a fan-out from the trigger and a long chain), each with a product and two
policies so merging and conflict checks run too. Prints seconds per configuration and the
ratio t(500)/t(20); validation should grow about linearly (target: ratio <= 40, and 500
environments well under a second).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench._report import Row, finish
from orchestrator.graph import validate
from orchestrator.loading import load_config

HEADER = "apiVersion: promoflow.dev/v1alpha1\n"


def write_config(root: Path, count: int, shape: str) -> None:
    """A realistic layout: environments in one file, the flow in another, policies apart."""
    names = [f"env-{i:04d}" for i in range(count)]
    envs = "".join(
        f"---\n{HEADER}kind: Environment\nmetadata:\n  name: {n}\n"
        f"spec:\n  production: {str(i % 5 == 4).lower()}\n"
        f"  clusters:\n    - {{name: c{i % 3}, namespaces: [ns-{i}]}}\n"
        for i, n in enumerate(names)
    )
    (root / "environments.yaml").write_text(envs)
    steps = []
    for i, n in enumerate(names[1:], start=1):
        dep = names[0] if shape == "fan-out" else names[i - 1]
        steps.append(f"    - environment: {n}\n      dependsOn: [{dep}]\n")
    flow = (
        f"{HEADER}kind: PromotionFlow\nmetadata:\n  name: big\nspec:\n"
        f"  trigger: {names[0]}\n  steps:\n" + "".join(steps)
    )
    (root / "flow.yaml").write_text(flow)
    (root / "product.yaml").write_text(
        f"{HEADER}kind: Product\nmetadata:\n  name: shop\nspec:\n"
        "  repo: {url: https://git.example.com/gitops.git}\n  flow: big\n  template: t\n"
        f"---\n{HEADER}kind: PromotionTemplate\nmetadata:\n  name: t\nspec:\n"
        "  versionSource: {file: values.yaml, path: image.tag}\n"
        "  files:\n    - {file: values.yaml, paths: [image.tag, image.digest]}\n"
    )
    (root / "policies.yaml").write_text(
        f"{HEADER}kind: PromotionPolicy\nmetadata:\n  name: default\nspec:\n"
        "  policy:\n    gates: [{sync: {timeout: 10m}}, {health: {timeout: 10m}}]\n"
        f"---\n{HEADER}kind: PromotionPolicy\nmetadata:\n  name: prod\nspec:\n"
        "  priority: 10\n  selector: {environments: {production: true}}\n"
        "  policy:\n    gates: [{approval: {}}, {soak: {duration: 30m}}]\n"
    )


def measure(count: int, shape: str, repeats: int = 5) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_config(root, count, shape)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            config, problems = load_config(root)
            problems += validate(config)
            times.append(time.perf_counter() - start)
            if problems:
                sys.exit(f"generated config is invalid: {problems[0]}")
        return statistics.median(times)


def main() -> None:
    rows = []
    for shape in ("fan-out", "chain"):
        small, large = measure(20, shape), measure(500, shape)
        rows.append(
            Row(
                f"{shape}: t(500)/t(20) environments",
                large / small,
                f"{large * 1000:.0f} ms / {small * 1000:.0f} ms (linear: 25)",
                "<= 40",
                lambda ratio: ratio <= 40,
            )
        )
    finish("validate", rows)


if __name__ == "__main__":
    main()
