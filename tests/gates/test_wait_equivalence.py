"""An app reported at a later commit of its branch still passes when its path is unchanged.

Argo CD reports the branch head it compared. When prod-eu and prod-us are promoted into one
branch together, prod-eu's app is soon reported at prod-us's commit: the gate must see
that prod-eu's directory is the same there, through Git, and must not pass when the later
commit changed that directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest

from orchestrator.demo.seed import commit_files
from orchestrator.gates.equivalence import GitEquivalence
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from tests.fakes.argocd import FaultyArgoCD

PROMOFLOW = Path(sys.executable).parent / "promoflow"
ARGOCD_TOKEN = "equivalence-argocd-token"
GIT_TOKEN = "equivalence-git-token"


@dataclass
class Setup:
    sim: FaultyArgoCD
    bare: Path
    url: str
    env: dict[str, str]

    def commit(self, files: dict[str, str], message: str) -> str:
        return commit_files(self.bare, {k: v.encode() for k, v in files.items()}, message, "main")


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    root = tmp_path / "srv"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git")
    with GitHttpServer(root, username="bot", password=GIT_TOKEN) as git:
        url = git.repo_url("gitops")
        sim = FaultyArgoCD(token=ARGOCD_TOKEN)
        with sim.serve() as server:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("ARGOCD_", "PROMOFLOW_", "GIT_", "KUBERNETES_"))
            }
            env |= {
                "ARGOCD_SERVER": server.url.removeprefix("http://"),
                "ARGOCD_OPTS": "--plaintext",
                "ARGOCD_AUTH_TOKEN": ARGOCD_TOKEN,
                "GIT_USERNAME": "bot",
                "GIT_TOKEN": GIT_TOKEN,
            }
            yield Setup(sim, bare, url, env)
            sim.drop_streams()


def wait(setup: Setup, sha: str, timeout: str = "20s") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PROMOFLOW), "step", "wait-argocd", "--app", "shop-prod-eu", "--revision", sha,
         "--timeout", timeout, "--repo", setup.url],
        env=setup.env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def seeded(setup: Setup) -> tuple[str, str]:
    """prod-eu promoted (its commit), then prod-us promoted on top (the branch head)."""
    base = {"regions/eu/shop/values.yaml": "tag: 1.4\n", "envs/us/shop/values.yaml": "tag: 1.4\n"}
    setup.commit(base, "seed")
    eu = setup.commit({**base, "regions/eu/shop/values.yaml": "tag: 1.5\n"}, "prod-eu")
    files = {"regions/eu/shop/values.yaml": "tag: 1.5\n", "envs/us/shop/values.yaml": "tag: 1.5\n"}
    us = setup.commit(files, "prod-us")
    return eu, us


def test_a_later_head_with_the_same_directory_passes(setup: Setup) -> None:
    eu, us = seeded(setup)
    setup.sim.add_app("shop-prod-eu", repo_url=setup.url, path="regions/eu/shop", revision=us)
    result = wait(setup, eu)
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["state"] == "deployed"
    assert f"same content as {eu[:12]}" in verdict["apps"][0]["reason"]
    assert GIT_TOKEN not in result.stdout + result.stderr


def test_a_later_head_that_changed_the_directory_does_not(setup: Setup) -> None:
    eu, _us = seeded(setup)
    files = {"regions/eu/shop/values.yaml": "tag: 1.6\n", "envs/us/shop/values.yaml": "tag: 1.5\n"}
    newer = setup.commit(files, "prod-eu again")
    setup.sim.add_app("shop-prod-eu", repo_url=setup.url, path="regions/eu/shop", revision=newer)
    result = wait(setup, eu, timeout="2s")
    assert result.returncode == 1
    assert "timed out" in result.stderr and newer[:12] in result.stderr


def test_without_git_access_only_the_exact_commit_counts(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    eu, us = seeded(setup)
    app = {"spec": {"source": {"repoURL": setup.url, "path": "regions/eu/shop"}}}
    monkeypatch.delenv("GIT_TOKEN", raising=False)
    lines: list[str] = []
    same = GitEquivalence(log=lines.append)
    try:
        assert not same(app, eu, us)  # no credentials: the server refuses, so no answer
    finally:
        same.close()
    assert lines and "cannot compare" in lines[0]
    repo = pygit2.Repository(str(setup.bare))
    assert repo[us].peel(pygit2.Commit).parents[0].id == pygit2.Oid(hex=eu)
