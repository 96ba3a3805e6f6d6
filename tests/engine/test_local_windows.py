"""``promote --local`` at a promotion window: the run is held before the production
deploys until the window opens, then goes on; a window that says fail stops the
environment with when it opens, and nothing is committed there."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2
import pytest
import yaml

from orchestrator.engine.model import Phase
from tests.support.local_runs import (
    Asked,
    credentials,
    promote_in_process,
    served_config,
)

__all__ = ["credentials", "served_config"]  # the fixture, used by name


def freeze_production(config_dir: Path, until: datetime, when_closed: str) -> None:
    """A one-off freeze of the production environments, from a minute ago to ``until``."""
    start = datetime.now(UTC) - timedelta(minutes=1)
    (config_dir / "windows.yaml").write_text(yaml.safe_dump({
        "apiVersion": "promoflow.dev/v1alpha1", "kind": "PromotionWindow",
        "metadata": {"name": "release-freeze"},
        "spec": {
            "selector": {"environments": {"production": True}},
            "whenClosed": when_closed,
            "deny": [{"name": "release freeze", "from": start.isoformat(timespec="seconds"),
                      "to": until.isoformat(timespec="seconds"), "timeZone": "UTC"}],
        },
    }))  # fmt: skip


def prod_tag(bare: Path) -> str:
    repo = pygit2.Repository(str(bare))
    tree = repo.revparse_single("refs/heads/main").peel(pygit2.Commit).tree
    data = yaml.safe_load(repo[tree["overlays/prod-eu/checkout/kustomization.yaml"].id].data)
    return str(data["images"][0]["newTag"])


@pytest.mark.usefixtures("credentials")
def test_a_run_waits_at_the_window_and_goes_on_when_it_opens(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    opens = datetime.now(UTC) + timedelta(seconds=6)
    freeze_production(config_dir, opens, "wait")
    record, _ = promote_in_process(config_dir, "2.1.0", tmp_path, Asked())
    assert record.phase is Phase.SUCCEEDED, record.message
    held = record.nodes["window-prod-eu"]
    assert held.phase is Phase.SUCCEEDED
    deployed = record.nodes["deploy-prod-eu"]
    assert deployed.started_at is not None
    assert deployed.started_at >= opens - timedelta(seconds=1)
    assert prod_tag(bare) == "2.1.0"
    assert "window-staging" not in record.nodes  # only production is held


@pytest.mark.usefixtures("credentials")
def test_a_window_that_says_fail_stops_the_environment_before_its_commit(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    before = prod_tag(bare)
    freeze_production(config_dir, datetime.now(UTC) + timedelta(days=3), "fail")
    started = time.monotonic()
    record, _ = promote_in_process(config_dir, "2.1.0", tmp_path, Asked())
    assert record.phase is Phase.FAILED
    [attempt] = record.nodes["window-prod-eu"].attempts
    assert "checkout into prod-eu: frozen until" in attempt.message
    assert "(release freeze)" in attempt.message
    assert "deploy-prod-eu" not in record.nodes or (
        record.nodes["deploy-prod-eu"].phase is not Phase.SUCCEEDED
    )
    assert prod_tag(bare) == before  # nothing committed into the frozen environment
    assert time.monotonic() - started < 120
