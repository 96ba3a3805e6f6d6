"""The history benchmark's repository: what ``generate`` says it wrote is what git reads back
(commits, notes, hand commits, trailers, the version files), its ``promoflow/`` folder is a
valid configuration, and a seed gives the same repository every time."""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest
import yaml

from bench._history_config import FOLDER, upstream
from bench.history_repo import NOTES_REF, Summary, generate
from orchestrator.graph import validate
from orchestrator.loading import load_config
from orchestrator.model import Product, PromotionTemplate

COMMITS, PRODUCTS, SEED = 300, 5, 11


@dataclass
class Commit:
    sha: str
    author: str
    committed: int
    message: str
    paths: list[str]
    note: str


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], input=stdin, capture_output=True, check=True
    ).stdout


def trailers(message: str) -> list[tuple[str, str]]:
    """As git itself parses them."""
    parsed = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=message, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return [(k, v.strip()) for k, _, v in (line.partition(":") for line in parsed.splitlines())]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Summary, list[Commit]]:
    summary = generate(tmp_path_factory.mktemp("history") / "gitops.git", COMMITS, PRODUCTS,
                       seed=SEED)  # fmt: skip
    out = git(summary.path, "log", "--reverse", f"--notes={NOTES_REF}", "--name-only",
              "--format=%x1e%H%x00%an <%ae>%x00%ct%x00%B%x00%N%x00", "main").decode()  # fmt: skip
    commits = []
    for record in out.split("\x1e")[1:]:
        sha, author, committed, message, note, paths = record.split("\x00")
        commits.append(Commit(sha, author, int(committed), message, paths.split(), note))
    return summary, commits


def test_counts_match_what_git_reads_back(repo: tuple[Summary, list[Commit]]) -> None:
    summary, commits = repo
    promotions = [c for c in commits if c.author == "promoflow <promoflow@example.com>"]
    hand = [c for c in commits[1:] if c not in promotions and c.paths[0].startswith("envs/")]
    notes = git(summary.path, "notes", f"--ref={NOTES_REF}", "list").decode().splitlines()
    assert len(commits) == summary.commits == COMMITS
    assert len(promotions) == summary.promotions
    assert len(hand) == summary.hand_commits > 0
    assert len(commits) - len(promotions) - len(hand) == summary.other_commits
    assert len(notes) == summary.notes == sum(1 for c in commits if c.note)
    assert 0 < summary.notes < summary.promotions  # some runs never finished
    assert sum("Promotion-Outcome: failed" in c.note for c in commits) == summary.failed_notes
    assert sum("\nRollback: " in c.message for c in commits) == summary.rollbacks
    assert all(not c.note for c in commits if c not in promotions)
    for product, count in summary.touching.items():
        assert sum(any(f"/{product}/" in p for p in c.paths) for c in commits) == count
    assert sum(summary.noted.values()) == summary.notes
    assert all(b.committed > a.committed for a, b in pairwise(commits))


def test_promotion_trailers_parse_and_point_at_the_source(
    repo: tuple[Summary, list[Commit]],
) -> None:
    summary, commits = repo
    envs, by_sha = summary.environments, {c.sha: c for c in commits}
    required = ["Promotion-Run", "Requested-By", "Promotion-Product", "Promotion-Environment",
                "Promotion-Version"]  # fmt: skip
    seen: Counter[str] = Counter()
    for commit in commits:
        if commit.author != "promoflow <promoflow@example.com>":
            assert trailers(commit.message) == []
            continue
        pairs = trailers(commit.message)
        found = dict(pairs)
        seen.update(key for key, _ in pairs)
        assert all(key in found for key in required), commit.message
        product, env = found["Promotion-Product"], found["Promotion-Environment"]
        assert commit.paths == [f"envs/{env}/{product}/values.yaml"]
        assert commit.message.startswith(f"Promote {product} {found['Promotion-Version']} to {env}")
        assert ("Built-From" in found) == (env == envs[0])
        if "Promoted-From" in found:
            source_env, source = found["Promoted-From"].split("@")
            assert source_env == upstream(envs, env) and len(source) == 12
            (full,) = [sha for sha in by_sha if sha.startswith(source)]
            assert f"Promotion-Environment: {source_env}\n" in by_sha[full].message
            assert f"Promotion-Version: {found['Promotion-Version']}\n" in by_sha[full].message
        else:
            assert env == envs[0] or "Rollback" in found
        if commit.note:
            note = dict(line.split(": ", 1) for line in commit.note.splitlines() if line)
            assert note["Promotion-Run"] == found["Promotion-Run"]
            assert note["Promotion-Outcome"] in ("verified", "failed")
    assert seen["Promoted-From"] and seen["Built-From"] and seen["Approved-By"]
    assert seen["Jira-Issues"] and seen["Promotion-Field"]


def test_each_version_file_holds_its_last_promotion(repo: tuple[Summary, list[Commit]]) -> None:
    summary, commits = repo
    last: dict[str, str] = {}
    for commit in commits:
        match = re.search(r"^Promotion-Version: (.+)$", commit.message, re.MULTILINE)
        if match:
            last[commit.paths[0]] = match.group(1)
    assert len(last) == len(summary.environments) * len(summary.products)
    for path, version in last.items():
        values = yaml.safe_load(git(summary.path, "show", f"main:{path}"))
        product = path.split("/")[2]
        assert values["image"] == {
            "repository": f"registry.example.com/acme/{product}",
            "tag": version,
        }


def test_the_configuration_folder_loads_and_names_the_version_files(
    repo: tuple[Summary, list[Commit]], tmp_path: Path
) -> None:
    summary, _ = repo
    archive = git(summary.path, "archive", "--format=tar", "main", FOLDER)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp_path, filter="data")
    config, problems = load_config(tmp_path / FOLDER)
    assert [*problems, *validate(config)] == []
    products = config.of(Product)
    assert sorted(p.name for p in products) == sorted(summary.products)
    (template,) = config.of(PromotionTemplate)
    source = template.spec.version_source
    assert source is not None and (source.file, source.path) == ("values.yaml", "image.tag")
    for product in products:
        for env in summary.environments:
            assert product.application(env).path == f"envs/{env}/{product.name}"


def test_a_seed_gives_the_same_repository(tmp_path: Path) -> None:
    def tips(seed: int, name: str) -> bytes:
        summary = generate(tmp_path / name, 120, 3, seed=seed)
        return git(summary.path, "rev-parse", "main", NOTES_REF)

    first = tips(3, "a.git")
    assert tips(3, "b.git") == first
    assert tips(4, "c.git") != first


def test_the_summary_survives_its_json(repo: tuple[Summary, list[Commit]]) -> None:
    summary, _ = repo
    assert Summary.from_json(summary.to_json()) == summary


def test_a_folder_in_use_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    with pytest.raises(ValueError, match="not empty; name a new folder"):
        generate(tmp_path, 10, 2)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
