"""Every duration promoflow hands to Argo is one the controller parses (no ``7d``).

Walks the generated step templates (workflow_templates/*.yaml) and every golden workflow,
following ``{{inputs.parameters.X}}`` to the defaults and the arguments DAG tasks pass, and
checks each value with Argo's own rule (orchestrator/durations.py, tested against Go).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.durations import parse_argo
from tests.compiler.helpers import EXPECTED, ROOT, SCENARIOS, compiled
from tests.support.argo_durations import durations

TEMPLATES = sorted((ROOT / "workflow_templates").glob("*.yaml"))
LIBRARY = [yaml.safe_load(p.read_text()) for p in TEMPLATES]


def _refused(objects: list[dict[str, Any]]) -> list[str]:
    problems = []
    for where, value in durations(objects):
        try:
            parse_argo(value)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    return problems


def test_the_step_templates_use_durations_argo_parses() -> None:
    assert len(TEMPLATES) >= 7
    assert _refused(LIBRARY) == []


def test_the_compiled_pauses_carry_their_durations() -> None:
    """Approvals and soaks are compiled per task: their durations are written out."""
    found = dict(durations(compiled(ROOT / "environments", "shop")))
    assert found["promoflow-shop/approval-prod-eu: suspend.duration"] == "168h"
    assert found["promoflow-shop/soak-prod-eu: suspend.duration"] == "30m"


@pytest.mark.parametrize("scenario", [s[0] for s in SCENARIOS])
def test_every_golden_workflow_uses_durations_argo_parses(scenario: str) -> None:
    objects = list(yaml.safe_load_all((EXPECTED / f"{scenario}.yaml").read_text()))
    assert _refused([*LIBRARY, *objects]) == []


def test_the_walk_finds_a_day_duration_where_argo_would_error() -> None:
    """The check can fail: an approval compiled with ``7d``, as promoflow once wrote it."""
    objects = compiled(ROOT / "environments", "shop")
    wt = next(o for o in objects if o["kind"] == "WorkflowTemplate")
    approval = next(t for t in wt["spec"]["templates"] if t["name"] == "approval-prod-eu")
    approval["suspend"]["duration"] = "7d"
    assert _refused([wt]) == [
        "promoflow-shop/approval-prod-eu: suspend.duration: unable to parse 7d as a "
        'duration: time: unknown unit "d" in duration "7d"'
    ]


def test_day_durations_in_a_policy_compile_to_hours(tmp_path: Path) -> None:
    """The example configuration with ``approval: {timeout: 2d}`` and a ``1d12h`` soak."""
    config = tmp_path / "environments"
    shutil.copytree(ROOT / "environments", config)
    policies = config / "policies.yaml"
    text = policies.read_text()
    text = re.sub(r"approval: \{approvers: \[[^]]*\]\}", "approval: {timeout: 2d}", text)
    text = text.replace("soak: {duration: 30m}", "soak: {duration: 1d12h}")
    assert "2d" in text and "1d12h" in text
    policies.write_text(text)
    objects = compiled(config, "shop")
    values = dict(durations([*LIBRARY, *objects]))
    assert values["promoflow-shop/approval-prod-eu: suspend.duration"] == "48h"
    assert values["promoflow-shop/soak-prod-eu: suspend.duration"] == "36h"
    assert _refused([*LIBRARY, *objects]) == []
