"""The history benchmark's reference: the git recipe over real HTTP answers what the
generator wrote, cold and warm, without fetching a blob on the side; and the comparison
with the command's JSON finds every commit wherever the JSON keeps it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.history import allow_partial_clones, commits_in, compare, recipe_cold, recipe_warm
from bench.history_repo import generate
from orchestrator.simulator.git_http import GitHttpServer


def test_the_recipe_answers_what_the_generator_wrote(tmp_path: Path) -> None:
    summary = generate(tmp_path / "srv" / "gitops.git", 400, 4, seed=5)
    allow_partial_clones(summary.path)
    product = summary.products[1]
    with GitHttpServer(tmp_path / "srv") as server:
        url = server.repo_url("gitops")
        cold = recipe_cold(url, tmp_path / "clone", product, summary.environments)
        before = server.stats.requests
        warm = recipe_warm(url, tmp_path / "clone", product, summary.environments)
        fetches = server.stats.requests - before
    assert warm == cold
    assert len(cold) == summary.touching[product]
    assert sum(1 for entry in cold if entry["note"]) == summary.noted[product]
    assert fetches <= 6  # two fetches that bring nothing; no blob fetched one at a time
    promotions = [entry for entry in cold if entry["trailers"]]
    assert all(("Promotion-Product", product) in entry["trailers"] for entry in promotions)
    assert all(entry["author"] == "promoflow <promoflow@example.com>" for entry in promotions)
    assert [entry["committed"] for entry in cold] == sorted(
        (entry["committed"] for entry in cold), reverse=True
    )


def test_commits_are_found_wherever_the_json_keeps_them() -> None:
    document: Any = {
        "product": "shop",
        "environments": {
            "dev": [{"commit": "a" * 40, "version": "1.0.1"}],
            "staging": [{"commit": "b" * 40, "note": {"commit": "c" * 40}}],
        },
        "commit": 7,
    }
    assert commits_in(document) == {"a" * 40, "b" * 40, "c" * 40}
    assert commits_in([{"commit": "d" * 12}, "commit"]) == {"d" * 12}


def test_the_comparison_matches_abbreviated_hashes_and_names_hand_commits() -> None:
    recipe: list[dict[str, Any]] = [
        {"commit": "1" * 40, "trailers": [("Promotion-Run", "r")]},
        {"commit": "2" * 40, "trailers": []},
        {"commit": "3" * 40, "trailers": [("Promotion-Run", "r")]},
    ]
    assert compare(recipe, {"1" * 40, "2" * 40, "3" * 40})[0] == 1.0
    assert compare(recipe, {"1" * 12, "2" * 12, "3" * 12})[0] == 1.0
    share, detail = compare(recipe, {"1" * 40, "3" * 40, "4" * 40})
    assert share == 2 / 4
    assert detail == "2 in both, 1 only in git log (1 by hand), 1 only in promoflow"
