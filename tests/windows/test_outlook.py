"""What validate shows: every product's environments that a window or freeze applies to."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from orchestrator.loading.config import load_config
from orchestrator.model.policy import PolicySelector
from orchestrator.windows.freeze import Freeze
from orchestrator.windows.outlook import outlook

EXAMPLES = Path(__file__).resolve().parents[2] / "environments"


def test_the_example_configuration_in_and_out_of_the_year_end_freeze() -> None:
    config, problems = load_config(EXAMPLES)
    assert problems == []
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
