"""Benchmark: compile + schema-validate flows of 20 and 200 environments.

Each generated flow is a mix of chains and fan-outs with a production policy (approval,
sync, health, soak, HTTP check) on every fifth environment, so the DAG has ~5 tasks per
environment. Prints seconds and the ratio t(200)/t(20): compilation should grow about
linearly (target <= 15 for 10x the environments).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema

from bench._report import Row, finish
from orchestrator.compiler import PromotionRequest, compile_product
from orchestrator.loading.config import Config
from orchestrator.model import (
    Environment,
    Product,
    PromotionFlow,
    PromotionPolicy,
    PromotionTemplate,
)
from orchestrator.settings import StepSettings

SCHEMA = Path(__file__).resolve().parents[1] / "tests/refdata/argo-workflows/schema.json"


def config(count: int) -> Config:
    names = [f"env-{i:03d}" for i in range(count)]
    envs = [Environment.build(n, production=i % 5 == 4) for i, n in enumerate(names)]
    # Every environment depends on the one ~3 back: parallel chains that fan out.
    steps = [
        {"environment": n, "depends_on": [names[max(0, i - 3)]]} for i, n in enumerate(names) if i
    ]
    return Config(
        resources=[
            *envs,
            PromotionFlow.build("big", trigger=names[0], steps=steps),
            Product.build(
                "shop", repo={"url": "https://git.example.com/g.git"}, flow="big", template="t"
            ),
            PromotionTemplate.build(
                "t",
                version_source={"file": "values.yaml", "path": "image.tag"},
                files=[{"file": "values.yaml", "paths": ["image.tag"]}],
            ),
            PromotionPolicy.build("default", policy={"gates": [{"sync": {}}, {"health": {}}]}),
            PromotionPolicy.build(
                "prod",
                priority=10,
                selector={"environments": {"production": True}},
                policy={
                    "gates": [
                        {"approval": {}},
                        {"soak": {"duration": "10m"}},
                        {"http": {"url": "https://status.example.com"}},
                    ]
                },
            ),
        ]
    )


def validator(kind: str) -> jsonschema.Draft7Validator:
    defs: dict[str, Any] = json.loads(SCHEMA.read_text())["definitions"]
    defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["string", "integer"]}
    ref = {"$ref": f"#/definitions/io.argoproj.workflow.v1alpha1.{kind}", "definitions": defs}
    return jsonschema.Draft7Validator(ref)


def measure(
    count: int, validators: dict[str, jsonschema.Draft7Validator], repeats: int = 5
) -> float:
    cfg, settings = config(count), StepSettings.model_construct()
    request = PromotionRequest("shop", "1.0.0", "abc", "bench")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        compiled = compile_product(cfg, "shop", settings, request)
        for manifest in compiled.manifests():
            errors = list(validators[manifest["kind"]].iter_errors(manifest))
            if errors:
                sys.exit(f"invalid {manifest['kind']}: {errors[0].message}")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    validators = {k: validator(k) for k in ("Workflow", "WorkflowTemplate")}
    measure(5, validators, repeats=1)  # warm imports and caches
    small, large = measure(20, validators), measure(200, validators)
    print(f"compile+validate  t(20)={small * 1000:7.1f} ms  t(200)={large * 1000:7.1f} ms")
    finish(
        "compile",
        [
            Row(
                "t(200)/t(20) environments",
                large / small,
                f"{large * 1000:.0f} ms / {small * 1000:.0f} ms (linear: 10)",
                "<= 15",
                lambda ratio: ratio <= 15,
            )
        ],
    )


if __name__ == "__main__":
    main()
