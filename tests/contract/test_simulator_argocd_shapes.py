"""The simulator reads Applications with Argo CD's meaning, the same rules the gate uses:
``syncPolicy.automated: {}`` is automated sync, and repository URLs compare the way
Argo CD compares them (case, ``.git``, trailing slash)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.gates.deployed import assess, sync_revisions, synced_revisions
from orchestrator.simulator.argocd import ApiError, ArgoCDSimulator, GitController, git_resolver
from tests.support.gitops_repo import Repo, eventually

REPO_URL = "https://git.example.com/platform/deploy.git"
MIXED_CASE_URL = "https://Git.Example.com/Platform/Deploy.git/"
"""``REPO_URL`` as another tool may write it: Argo CD takes it for the same repository."""
SHA = "5b" * 20


def _empty_automated(sim: ArgoCDSimulator, name: str) -> None:
    def change(app: dict[str, Any]) -> None:
        app["spec"]["syncPolicy"] = {"automated": {}}

    sim.update(name, change)


@pytest.fixture
def sim() -> ArgoCDSimulator:
    simulator = ArgoCDSimulator()
    simulator.add_app("shop-dev", repo_url=REPO_URL, path="envs/dev/shop", revision="0a" * 20)
    _empty_automated(simulator, "shop-dev")
    return simulator


def test_empty_automated_block_refuses_a_sync_to_another_revision(sim: ArgoCDSimulator) -> None:
    with pytest.raises(ApiError) as refused:
        sim.request_sync("shop-dev", {"revision": "release"})
    assert refused.value.status == 400
    assert "auto-sync currently set to main" in refused.value.message
    assert sim.syncs == []


def test_empty_automated_block_operation_is_started_by_the_controller(
    sim: ArgoCDSimulator,
) -> None:
    sim.start_operation("shop-dev", SHA)
    app = sim.app("shop-dev")
    assert app is not None
    assert app["operation"]["initiatedBy"] == {"automated": True}


def test_manual_app_operation_is_started_by_a_user(sim: ArgoCDSimulator) -> None:
    sim.update("shop-dev", lambda app: app["spec"].pop("syncPolicy"))
    sim.start_operation("shop-dev", SHA)
    app = sim.app("shop-dev")
    assert app is not None
    assert app["operation"]["initiatedBy"] == {"username": "admin"}


def test_controller_syncs_an_app_with_an_empty_automated_block(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "deploy.git")
    first = repo.commit({"envs/dev/shop/values.yaml": "tag: 1\n"})
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO_URL, path="envs/dev/shop", revision=first)
    _empty_automated(sim, "shop-dev")
    resolve = git_resolver({REPO_URL: tmp_path / "deploy.git"})
    with GitController(sim, resolve, delay=0.05):
        second = repo.commit({"envs/dev/shop/values.yaml": "tag: 2\n"})

        def deployed() -> bool:
            app = sim.app("shop-dev")
            return app is not None and assess(app, "shop-dev", second).state == "deployed"

        eventually(deployed)
    assert sim.syncs == []  # nobody asked: the controller synced on its own


def test_resolver_matches_repository_urls_as_argocd_does(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "deploy.git")
    first = repo.commit({"envs/dev/shop/values.yaml": "tag: 1\n"})
    resolve = git_resolver({MIXED_CASE_URL: tmp_path / "deploy.git"})
    assert resolve("https://git.example.com/platform/deploy", "main", "envs/dev/shop") == first
    assert resolve("https://git.example.com/platform/deploy-config", "main", "") is None


def test_list_filters_by_repository_as_argocd_does(sim: ArgoCDSimulator) -> None:
    sim.add_app("cart-dev", repo_url="https://git.example.com/platform/cart", path="dev")
    with sim.serve() as server:
        listed = httpx.get(f"{server.url}/api/v1/applications", params={"repo": MIXED_CASE_URL})
    assert listed.status_code == 200
    assert [app["metadata"]["name"] for app in listed.json()["items"]] == ["shop-dev"]


def test_gate_picks_sources_by_repository_as_argocd_compares_them() -> None:
    other = "https://charts.example.com/shop"
    app = {
        "spec": {
            "sources": [
                {"repoURL": MIXED_CASE_URL, "targetRevision": "main"},
                {"repoURL": other, "targetRevision": "1.2.0"},
            ]
        },
        "status": {"sync": {"status": "Synced", "revisions": [SHA, "1.2.0"]}},
    }
    repo = "https://git.example.com/platform/deploy"
    assert synced_revisions(app, repo) == [SHA]
    assert sync_revisions(app, repo, SHA) == [SHA, "1.2.0"]
