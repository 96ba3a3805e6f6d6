"""The whole object kept per app: read back exactly as it was given, and small."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from reporters.whole import WholeApps

LIVE = Path(__file__).resolve().parents[1] / "refdata/argo-cd/application-live-example.yaml"


@pytest.fixture
def live() -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(LIVE.read_text())
    return found


def test_an_app_reads_back_equal_in_its_key_order(live: dict[str, Any]) -> None:
    whole = WholeApps()
    whole.keep("argocd/a", live)
    back = whole.get("argocd/a")
    assert back == live
    assert json.dumps(back) == json.dumps(live)  # key order too: templates may range a map
    assert back is not live


def test_keeping_never_changes_the_callers_object_nor_reading_the_kept_one(
    live: dict[str, Any],
) -> None:
    before = copy.deepcopy(live)
    whole = WholeApps()
    whole.keep("argocd/a", live)
    assert live == before
    whole.get("argocd/a")["status"]["health"]["status"] = "Degraded"  # type: ignore[index]
    assert whole.get("argocd/a") == before


def test_the_latest_wins_and_a_dropped_app_is_gone(live: dict[str, Any]) -> None:
    whole = WholeApps()
    whole.keep("argocd/a", live)
    later = copy.deepcopy(live)
    later["metadata"]["resourceVersion"] = "99"
    whole.keep("argocd/a", later)
    assert whole.get("argocd/a") == later
    whole.drop("argocd/a")
    whole.drop("argocd/a")  # twice is fine: a delete may come after a relist dropped it
    assert whole.get("argocd/a") is None


def test_a_real_size_app_is_kept_in_a_sixth_of_its_json(live: dict[str, Any]) -> None:
    whole = WholeApps()
    whole.keep("argocd/a", live)
    assert len(whole.packed["argocd/a"]) * 6 < len(json.dumps(live))


def test_an_app_as_the_watch_decodes_it_is_marshalled_one_read_from_yaml_pickled(
    live: dict[str, Any],
) -> None:
    whole = WholeApps()
    decoded = json.loads(json.dumps(live))
    whole.keep("argocd/json", decoded)
    dated = {
        **decoded,
        "metadata": {
            **decoded["metadata"],
            "creationTimestamp": yaml.safe_load("2026-11-24T10:00:00Z"),
        },
    }
    whole.keep("argocd/yaml", dated)
    assert whole.packed["argocd/json"][:1] == b"m" and whole.packed["argocd/yaml"][:1] == b"p"
    assert whole.get("argocd/json") == decoded and whole.get("argocd/yaml") == dated
