"""Commit statuses on the synced commit, against the fake GitHub REST API (answering as
GitHub does, 422 included)."""

from __future__ import annotations

from typing import Any

import pytest

from reporters.pipeline import Pipeline
from reporters.sinks.delivery import SinkError
from reporters.sinks.github import GitHubStatusSink
from reporters.sinks.github_api import GitHubApi
from reporters.state.store import Store
from tests.fakes.scm_server import FakeScm
from tests.support.reporter_apps import NEW, app, finished

TOKEN = "gh-token"


def test_a_deploy_sets_success_on_the_commit_of_the_apps_repository(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeScm("github", token=TOKEN, project="acme/gitops") as scm:
        monkeypatch.setenv("PROMOFLOW_SCM_API_URL", scm.url)
        monkeypatch.setenv("PROMOFLOW_SCM", "github")
        sink = GitHubStatusSink("https://argocd.example.com", api=GitHubApi(TOKEN))
        settled = app(NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
        settled["spec"] = {"source": {"repoURL": f"{scm.url}/acme/gitops.git", "path": "dev"}}
        events: list[Any] = []
        Pipeline(Store(), ["github-status"], on_events=events.extend).handle(
            "argocd/shop-dev", settled
        )
        for event in events:
            sink.send(event.cloudevent())
        last = next(e for e in events if e.change.type == "app.deployed").cloudevent()
        with pytest.raises(SinkError) as refused:
            sink.send({**last, "data": {**last["data"], "revision": "f" * 39 + "z"}})
        sink.close()
    assert [(sha, s["state"]) for sha, s in scm.statuses] == [(NEW, "pending"), (NEW, "success")]
    status = scm.statuses[-1][1]
    assert status["context"] == "argocd/shop-dev"
    assert status["target_url"] == "https://argocd.example.com/applications/argocd/shop-dev"
    assert refused.value.permanent and "No commit found" in str(refused.value)
