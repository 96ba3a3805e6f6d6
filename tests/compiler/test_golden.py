"""Compiled objects equal the committed golden YAML (regenerate with --update-golden)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from orchestrator.compiler.compile import dump_all
from tests.compiler.helpers import EXPECTED, SCENARIOS, compiled


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_compiles_to_golden(scenario: str, path: Path, product: str, update_golden: bool) -> None:
    manifests = compiled(path, product)
    golden = EXPECTED / f"{scenario}.yaml"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(dump_all(manifests))
    assert golden.exists(), f"{golden} missing: run pytest --update-golden and review it"
    assert manifests == list(yaml.safe_load_all(golden.read_text()))


def test_output_is_byte_identical_across_runs() -> None:
    scenario, path, product = SCENARIOS[0]
    assert dump_all(compiled(path, product)) == dump_all(compiled(path, product))
    assert dump_all(compiled(path, product)) == (EXPECTED / f"{scenario}.yaml").read_text()
