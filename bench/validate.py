"""Benchmark: load + validate generated configurations of 20 and 500 environments.

Two graph shapes (a fan-out from the trigger and a long chain), each with a product and two
policies so merging and conflict checks run too. Prints seconds per configuration and the
ratio t(500)/t(20); validation should grow about linearly (target: ratio <= 40, and 500
environments well under a second).

Then the cost of reading only regular files (``orchestrator.loading.files``: one ``open``
with ``O_NOFOLLOW | O_NONBLOCK`` and an ``fstat`` per file) against reading each file with
``Path.read_bytes``, over a GitOps-like tree of 2,000 manifests, alternately in one run
(target: at most 1.10x).
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
from orchestrator.loading.files import candidates, read_regular

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


def write_manifests(root: Path, count: int) -> None:
    """Another tool's manifests in folders of 50, as a GitOps repository holds them."""
    for i in range(count):
        folder = root / f"apps-{i // 50:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"deploy-{i:04d}.yaml").write_text(
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: app-{i}}}\n"
            "spec:\n  replicas: 2\n" + "  # padding\n" * 40
        )


def measure_reads(count: int = 2000, repeats: int = 15) -> tuple[float, float]:
    """Median seconds to read every candidate: checked (regular files only) vs plain."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_manifests(root, count)
        resolved = root.resolve()
        paths = [p for p in candidates(root) if isinstance(p, Path)]
        checked, plain = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            for path in paths:
                read_regular(path, resolved)
            checked.append(time.perf_counter() - start)
            start = time.perf_counter()
            for path in paths:
                path.read_bytes()
            plain.append(time.perf_counter() - start)
        return statistics.median(checked), statistics.median(plain)


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
    checked, plain = measure_reads()
    rows.append(
        Row(
            "2,000 files: regular-file checks / plain reads",
            checked / plain,
            f"{checked * 1000:.1f} ms / {plain * 1000:.1f} ms",
            "<= 1.10",
            lambda ratio: ratio <= 1.10,
        )
    )
    finish("validate", rows)


if __name__ == "__main__":
    main()
