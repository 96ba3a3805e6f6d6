"""The simulator's GitController: apps follow commits in a local repository the way Argo CD's
application controller moves them (OutOfSync, a Running operation, Synced + Progressing,
then Healthy or Degraded), and every state it writes is a valid Application.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from orchestrator.imagespec import ImageSpec
from orchestrator.simulator.argocd import ArgoCDSimulator, GitController, git_reader, git_resolver
from tests.contract.argocd_support import app_problems
from tests.fakes.kube import FakeKubeAPI
from tests.support.gitops_repo import Repo, eventually

REPO_URL = "https://git.example.com/platform/deploy.git"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "deploy.git")


def test_resolver_follows_the_path(repo: Repo, tmp_path: Path) -> None:
    first = repo.commit({"envs/dev/shop/values.yaml": "tag: 1\n"})
    other = repo.commit({"envs/prod/shop/values.yaml": "tag: 1\n"})
    resolve = git_resolver({REPO_URL: tmp_path / "deploy.git"})
    assert resolve(REPO_URL, "main", "envs/dev/shop") == first
    assert resolve(REPO_URL + "/", "HEAD", "envs/prod/shop") == other
    assert resolve(REPO_URL, first, "") == first
    assert resolve(REPO_URL, "nope", "envs/dev/shop") is None
    assert resolve("https://elsewhere/x.git", "main", "") is None
    head_only = git_resolver({REPO_URL: tmp_path / "deploy.git"}, by_path=False)
    assert head_only(REPO_URL, "main", "envs/dev/shop") == other


def test_automated_app_follows_new_commits(repo: Repo, tmp_path: Path) -> None:
    first = repo.commit({"envs/dev/shop/values.yaml": "tag: 1\n"})
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO_URL, path="envs/dev/shop", revision=first)
    resolve = git_resolver({REPO_URL: tmp_path / "deploy.git"})
    with GitController(sim, resolve, delay=0.1) as controller:
        second = repo.commit({"envs/dev/shop/values.yaml": "tag: 2\n"})

        def deployed(revision: str) -> Callable[[], bool]:
            def check() -> bool:
                status = (sim.app("shop-dev") or {}).get("status") or {}
                history = [h.get("revision") for h in status.get("history") or []]
                return bool(
                    status["sync"]["status"] == "Synced"
                    and status["sync"].get("revision") == revision
                    and status["health"]["status"] in ("Healthy", "Degraded")
                    and history[-1:] == [revision]
                    and "shop-dev" not in controller._plans  # the rollout is over
                )

            return check

        eventually(deployed(second))
        sim.fail_app("shop-dev", "CrashLoopBackOff")
        third = repo.commit({"envs/dev/shop/values.yaml": "tag: 3\n"})
        eventually(deployed(third))
    app = sim.app("shop-dev")
    assert app is not None and app["status"]["health"] == {
        "status": "Degraded",
        "lastTransitionTime": app["status"]["health"]["lastTransitionTime"],
    }  # Argo CD 3: the reason is on the workload, in the resource tree
    [workload] = sim.resource_tree("shop-dev")["nodes"]
    assert workload["health"] == {"status": "Degraded", "message": "CrashLoopBackOff"}
    assert [h["revision"] for h in app["status"]["history"]] == [second, third]
    states = [
        (
            e.app["status"]["sync"]["status"],
            (e.app["status"].get("operationState") or {}).get("phase"),
        )
        for e in sim.history()
    ]
    assert ("OutOfSync", None) in states and ("OutOfSync", "Running") in states
    for event in sim.history():
        assert app_problems(event.app) == [], event.resource_version


def test_manual_app_waits_for_a_sync_asked_through_kubernetes(repo: Repo, tmp_path: Path) -> None:
    first = repo.commit({"envs/prod/shop/values.yaml": "tag: 1\n"})
    sim = ArgoCDSimulator()
    sim.add_app(
        "shop-prod", repo_url=REPO_URL, path="envs/prod/shop", revision=first, automated=False
    )
    resolve = git_resolver({REPO_URL: tmp_path / "deploy.git"})
    kube = FakeKubeAPI(sim)
    with GitController(sim, resolve, delay=0.1), kube.serve() as served:
        second = repo.commit({"envs/prod/shop/values.yaml": "tag: 2\n"})
        eventually(lambda: (sim.app("shop-prod") or {})["status"]["sync"]["status"] == "OutOfSync")
        time.sleep(0.3)  # a manual app stays OutOfSync
        assert (sim.app("shop-prod") or {})["status"]["sync"]["revision"] == second
        assert "operation" not in (sim.app("shop-prod") or {})
        patch = {"operation": {"initiatedBy": {"username": "t"}, "sync": {"revision": "main"}}}
        response = httpx.patch(
            f"{served.url}/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/shop-prod",
            json=patch,
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert response.status_code == 200
        eventually(
            lambda: (
                (sim.app("shop-prod") or {})["status"]["health"]["status"] == "Healthy"
                and (sim.app("shop-prod") or {})["status"]["sync"]["status"] == "Synced"
            )
        )
    app = sim.app("shop-prod")
    assert app is not None and app["status"]["operationState"]["syncResult"]["revision"] == second
    assert app_problems(app) == []


VALUES = "image:\n  repository: registry.example.com/acme/shop\n  tag: {tag}\n"


def _image_app(repo: Repo, tmp_path: Path) -> tuple[ArgoCDSimulator, GitController]:
    first = repo.commit({"envs/dev/shop/values.yaml": VALUES.format(tag="1.0.0")})
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO_URL, path="envs/dev/shop", revision=first)
    sim.image_specs["shop-dev"] = ImageSpec(
        "values.yaml", "", "image.repository", "image.tag", "", "values.yaml image.tag"
    )
    local = {REPO_URL: tmp_path / "deploy.git"}
    controller = GitController(sim, git_resolver(local), delay=0.1, read=git_reader(local))
    assert controller.images_at("shop-dev", [first]) == ["registry.example.com/acme/shop:1.0.0"]
    return sim, controller


def _images(sim: ArgoCDSimulator) -> list[str]:
    return list(((sim.app("shop-dev") or {})["status"].get("summary") or {}).get("images") or [])


def test_a_deployment_shows_the_image_its_files_name(repo: Repo, tmp_path: Path) -> None:
    """What a cluster would run once the commit is applied: read from the same fields the
    promote step writes (a simulation, one Deployment per app)."""
    sim, controller = _image_app(repo, tmp_path)
    with controller:
        repo.commit({"envs/dev/shop/values.yaml": VALUES.format(tag="2.0.0")})
        eventually(lambda: _images(sim) == ["registry.example.com/acme/shop:2.0.0"])
    workload = sim.find_workload("shop-dev", "Deployment", "shop-dev") or {}
    [container] = workload["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "registry.example.com/acme/shop:2.0.0"
    for event in sim.history():
        assert app_problems(event.app) == [], event.resource_version


def test_a_stale_image_keeps_running_whatever_is_promoted(repo: Repo, tmp_path: Path) -> None:
    """The fault the image check exists for: Healthy at the new commit, old image."""
    sim, controller = _image_app(repo, tmp_path)
    sim.set_images("shop-dev", ["registry.example.com/acme/shop:1.0.0"])
    sim.stale_image("shop-dev")
    with controller:
        second = repo.commit({"envs/dev/shop/values.yaml": VALUES.format(tag="2.0.0")})
        eventually(
            lambda: (
                (sim.app("shop-dev") or {})["status"]["sync"].get("revision") == second
                and (sim.app("shop-dev") or {})["status"]["health"]["status"] == "Healthy"
                and "shop-dev" not in controller._plans
            )
        )
    assert _images(sim) == ["registry.example.com/acme/shop:1.0.0"]
