"""Local promotions (``promote --local``: no Argo, so no product mutex between two runs)
never leave an environment on an older version than it held: the promote step refuses,
and the run's node says so with both versions."""

from __future__ import annotations

import threading
from pathlib import Path

import pygit2
import pytest
import yaml

from orchestrator.engine.model import Phase, RunRecord
from tests.support.local_runs import (
    Asked,
    credentials,
    promote_in_process,
    served_config,
)

ENVIRONMENTS = ("dev", "staging", "prod-eu", "prod-us")
__all__ = ["credentials", "served_config"]  # the fixture, used by name


def _tags(bare: Path) -> dict[str, str]:
    repo = pygit2.Repository(str(bare))
    tree = repo.revparse_single("refs/heads/main").peel(pygit2.Commit).tree
    return {
        env: yaml.safe_load(repo[tree[f"overlays/{env}/checkout/kustomization.yaml"].id].data)[
            "images"
        ][0]["newTag"]
        for env in ENVIRONMENTS
    }


@pytest.mark.usefixtures("credentials")
def test_a_late_run_of_an_older_version_fails_naming_both(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    newer, _ = promote_in_process(config_dir, "2.2.0", tmp_path, Asked())
    assert newer.phase is Phase.SUCCEEDED, newer.message
    head = pygit2.Repository(str(bare)).references["refs/heads/main"].target

    late, _ = promote_in_process(config_dir, "2.1.0", tmp_path, Asked())

    assert late.phase is Phase.FAILED
    [attempt] = late.nodes["deploy-dev"].attempts  # a refusal is not retried
    message = attempt.message
    assert "dev holds 2.2.0" in message and "newer than 2.1.0" in message
    assert pygit2.Repository(str(bare)).references["refs/heads/main"].target == head
    assert set(_tags(bare).values()) == {"2.2.0"}


@pytest.mark.usefixtures("credentials")
def test_two_versions_promoted_at_once_end_on_the_newer(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    records: dict[str, RunRecord] = {}
    barrier = threading.Barrier(2)

    def run(version: str) -> None:
        barrier.wait()
        records[version] = promote_in_process(config_dir, version, tmp_path / version, Asked())[0]

    threads = [threading.Thread(target=run, args=(v,)) for v in ("2.1.0", "2.2.0")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert records["2.2.0"].phase is Phase.SUCCEEDED, records["2.2.0"].message
    assert set(_tags(bare).values()) == {"2.2.0"}
    older = records["2.1.0"]
    if older.phase is Phase.FAILED:  # it met 2.2.0 somewhere: refused there, naming both
        said = [a.message for n in older.nodes.values() for a in n.attempts]
        refused = [m for m in said if "newer than 2.1.0" in m]
        assert refused and "holds 2.2.0" in refused[0]
