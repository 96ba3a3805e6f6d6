"""What validate shows: every product's environments that a window or freeze applies to."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from orchestrator.loading.config import load_config
from orchestrator.model.policy import PolicySelector
from orchestrator.windows.freeze import Freeze
from orchestrator.windows.outlook import outlook

EXAMPLES = Path(__file__).resolve().parents[2] / "environments"


def test_the_example_configuration_in_and_out_of_the_year_end_freeze(tmp_path: Path) -> None:
    """The example window, put on the production environments (it holds none as
    shipped, so the demo is never held)."""
    copy = tmp_path / "config"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    window = copy / "windows.yaml"
    window.write_text(
        window.read_text().replace("matchLabels: {promotion-window: year-end}", "production: true")
    )
    config, problems = load_config(copy)
    assert problems == []
    assert outlook(load_config(EXAMPLES)[0], datetime(2026, 12, 28, 12, tzinfo=UTC)) == []
    before = [o.line() for o in outlook(config, datetime(2026, 12, 10, 12, tzinfo=UTC))]
    assert before
    assert all(
        line.endswith("open now, closes at Thu 24 Dec 00:00 Europe/Berlin (year-end freeze)")
        for line in before
    )
    during = outlook(config, datetime(2026, 12, 28, 12, tzinfo=UTC))
    assert {o.line().split(": ", 1)[1] for o in during} == {
        "frozen until Sat 08:00 Europe/Berlin (year-end freeze)"
    }
    production = {name for name, env in config.environments.items() if env.production}
    assert {o.environment for o in during} == production


def test_a_freeze_shows_where_no_window_applies() -> None:
    config, _ = load_config(EXAMPLES)
    freeze = Freeze(
        "incident",
        "bob",
        datetime(2026, 6, 1, tzinfo=UTC),
        PolicySelector.model_validate({"environments": {"names": ["dev"]}}),
    )
    lines = [o.line() for o in outlook(config, datetime(2026, 6, 1, 1, tzinfo=UTC), [freeze])]
    dev = [line for line in lines if line.split(": ")[0].endswith("/dev")]
    assert dev and all(
        line.endswith("frozen until unfrozen (incident; by bob since Mon 00:00 UTC)")
        for line in dev
    )
