"""GitHub deployments and their statuses, against the fake GitHub REST API over HTTP
(answering as GitHub does: 202, 409, 422, 401 and outages included)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from reporters.pipeline import Pipeline
from reporters.sinks.delivery import SinkError
from reporters.sinks.github_api import GitHubApi
from reporters.sinks.github_deployment import STATES, GitHubDeploymentSink
from reporters.state.store import Store
from tests.fakes.scm_server import FakeScm
from tests.support.reporter_apps import NEW, app, finished

TOKEN = "gh-token-5ecret"
UI = "https://argocd.example.com"


@pytest.fixture
def scm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeScm]:
    with FakeScm("github", token=TOKEN, project="acme/gitops") as fake:
        monkeypatch.setenv("PROMOFLOW_SCM_API_URL", fake.url)
        monkeypatch.setenv("PROMOFLOW_SCM", "github")
        yield fake


@pytest.fixture
def sink() -> Iterator[GitHubDeploymentSink]:
    sink = GitHubDeploymentSink(UI, api=GitHubApi(TOKEN))
    yield sink
    sink.close()


def event(kind: str, scm: FakeScm, **data: Any) -> dict[str, Any]:
    return {
        "specversion": "1.0",
        "id": f"{kind}-1",
        "source": "promoflow/reporter",
        "type": kind,
        "subject": "argocd/shop-dev",
        "time": "2026-11-24T10:01:05Z",
        "data": {
            "app": "argocd/shop-dev",
            "revision": NEW,
            "repo": f"{scm.url}/acme/gitops.git",
            **data,
        },
    }


def notified(kind: str, scm: FakeScm, message: str = "", **deployment: Any) -> dict[str, Any]:
    block = {"trigger": "on-deployed", "template": "app-deployed", "recipient": "github"}
    block.update(message=message, github={"deployment": deployment})
    return event(kind, scm, notification=block)


def posts(scm: FakeScm, suffix: str) -> int:
    return sum(1 for method, path, _ in scm.requests if method == "POST" and path.endswith(suffix))


def test_a_sync_and_a_deploy_make_one_deployment_in_progress_then_successful(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    settled = app(NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
    settled["spec"] = {"source": {"repoURL": f"{scm.url}/acme/gitops.git", "path": "dev"}}
    events: list[Any] = []
    Pipeline(Store(), ["github-deployment"], on_events=events.extend).handle(
        "argocd/shop-dev", settled
    )
    kinds = [e.change.type for e in events]
    assert "app.sync-started" in kinds and "app.deployed" in kinds
    for one in events:
        sink.send(one.cloudevent())

    [deployment] = scm.deployments.values()
    assert deployment["sha"] == deployment["ref"] == NEW
    assert deployment["environment"] == "shop-dev"  # no environment: the app's name
    assert deployment["production_environment"] is False
    assert deployment["transient_environment"] is False
    statuses = scm.deployment_statuses[deployment["id"]]
    assert [s["state"] for s in statuses] == ["in_progress", "success"]
    assert statuses[-1]["log_url"] == f"{UI}/applications/argocd/shop-dev"
    assert statuses[-1]["description"] == "shop-dev is deployed and Healthy"
    assert statuses[-1]["deployment_url"] == deployment["url"]
    assert posts(scm, "/deployments") == 1


def test_retries_and_later_events_of_a_commit_and_environment_reuse_its_deployment(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    started = event("app.sync-started", scm, environment="dev")
    sink.send(started)
    sink.send(started)  # delivered again: at least once
    sink.send(event("app.deployed", scm, environment="dev"))
    sink.send(event("app.health-degraded", scm, environment="dev", message="Pod crashloop"))
    sink.send(event("app.deployed", scm, environment="staging"))

    assert posts(scm, "/deployments") == 2
    first, second = scm.deployments.values()
    assert (first["environment"], second["environment"]) == ("dev", "staging")
    assert [s["state"] for s in scm.deployment_statuses[first["id"]]] == [
        "in_progress",
        "in_progress",
        "success",
        "failure",
    ]
    assert scm.deployment_statuses[first["id"]][-1]["description"] == (
        "shop-dev is Degraded: Pod crashloop"
    )
    assert [s["state"] for s in scm.deployment_statuses[second["id"]]] == ["success"]


def test_the_newest_deployment_of_the_commit_and_environment_is_the_one_updated(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    sink.send(event("app.sync-started", scm, environment="dev"))
    sink.send(event("app.deployed", scm, environment="dev"))
    # a deployment made elsewhere (by hand, another tool) for the same commit, later
    url = f"{scm.url}/repos/acme/gitops/deployments/99"
    scm.deployments[99] = {**scm.deployments[1], "id": 99, "url": url}
    scm.deployment_statuses[99] = []
    sink.send(event("app.deployed", scm, environment="dev"))
    assert [s["state"] for s in scm.deployment_statuses[99]] == ["success"]
    assert [s["state"] for s in scm.deployment_statuses[1]] == [
        "in_progress",
        "success",
        "inactive",  # auto_inactive: the newer deployment succeeded
    ]


def test_a_notification_block_overrides_state_environment_and_urls(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    sink.send(
        notified(
            "app.sync-succeeded",  # not reported by default: the template's state says
            scm,
            message="Application shop-dev is now running new version of deployments manifests.",
            state="success",
            environment="production",
            environmentURL="https://shop.example.com",
            logURL="https://argocd.example.com/applications/shop-dev?operation=true",
            requiredContexts=[],
            autoMerge=False,
            transientEnvironment=False,
        )
    )
    [deployment] = scm.deployments.values()
    assert deployment["environment"] == "production"
    assert deployment["production_environment"] is True  # GitHub's default for "production"
    [status] = scm.deployment_statuses[deployment["id"]]
    assert status["state"] == "success"
    assert status["environment"] == "production"
    assert status["environment_url"] == "https://shop.example.com"
    assert status["log_url"] == "https://argocd.example.com/applications/shop-dev?operation=true"
    assert status["description"].startswith("Application shop-dev is now running")


def test_a_block_without_a_state_keeps_the_events_and_an_empty_template_field_is_unset(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    sink.send(notified("app.sync-failed", scm, environment="", transientEnvironment="true"))
    [deployment] = scm.deployments.values()
    assert deployment["environment"] == "shop-dev"
    assert deployment["transient_environment"] is True
    assert [s["state"] for s in scm.deployment_statuses[deployment["id"]]] == ["failure"]


def test_a_state_github_does_not_know_is_a_permanent_error_naming_the_known_ones(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    with pytest.raises(SinkError) as refused:
        sink.send(notified("app.deployed", scm, state="deployed"))
    assert refused.value.permanent
    assert "'deployed'" in str(refused.value)
    assert all(state in str(refused.value) for state in STATES)
    assert scm.requests == []


def test_the_fake_refuses_a_status_in_a_state_github_does_not_know(scm: FakeScm) -> None:
    import httpx

    auth = {"Authorization": f"Bearer {TOKEN}"}
    api = f"{scm.url}/repos/acme/gitops/deployments"
    with httpx.Client(headers=auth) as client:
        missing = client.post(api, json={"environment": "dev"})
        created = client.post(api, json={"ref": NEW, "environment": "dev"})
        number = created.json()["id"]
        wrong = client.post(f"{api}/{number}/statuses", json={"state": "done"})
        unknown = client.post(f"{api}/{number + 1}/statuses", json={"state": "success"})
        ok = client.post(f"{api}/{number}/statuses", json={"state": "queued"})
        listed = client.get(f"{api}/{number}/statuses")
        found = client.get(api, params={"sha": NEW, "environment": "dev"})
        elsewhere = client.get(api, params={"sha": NEW, "environment": "prod"})
    assert missing.status_code == 422 and missing.json()["message"] == "Validation Failed"
    assert created.status_code == 201 and created.json()["production_environment"] is False
    assert wrong.status_code == 422 and wrong.json()["errors"][0]["field"] == "state"
    assert unknown.status_code == 404
    assert ok.status_code == 201 and ok.json()["deployment_url"] == f"{api}/{number}"
    assert [s["state"] for s in listed.json()] == ["queued"]
    assert [d["id"] for d in found.json()] == [number] and elsewhere.json() == []


def test_success_marks_earlier_deployments_of_the_environment_inactive(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    sink.send(event("app.deployed", scm, revision="c" * 40, environment="dev"))
    sink.send(event("app.deployed", scm, environment="dev"))
    first, second = scm.deployments
    assert [s["state"] for s in scm.deployment_statuses[first]] == ["success", "inactive"]
    assert [s["state"] for s in scm.deployment_statuses[second]] == ["success"]


@pytest.mark.parametrize(
    "change",
    [
        {"repo": ""},
        {"repo": "https://gitlab.com/acme/gitops.git"},
        {"revision": NEW[:12]},
    ],
    ids=["no repo", "not GitHub", "short sha"],
)
def test_events_without_a_github_commit_send_nothing(
    scm: FakeScm, sink: GitHubDeploymentSink, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    monkeypatch.delenv("PROMOFLOW_SCM")
    sink.send(event("app.deployed", scm, **change))
    overridden = notified("app.deployed", scm, state="success")
    overridden["data"].update(change)
    sink.send(overridden)
    assert scm.requests == []


def test_events_the_sink_does_not_report_send_nothing(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    sink.send(event("app.sync-succeeded", scm))
    sink.send(event("app.created", scm))
    assert scm.requests == []


def test_an_auto_merge_answer_is_retried_and_then_deploys(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    scm.behind_default.add("release")
    scm.branch_sha = lambda branch: NEW if branch in ("main", "release") else None
    deployed = notified("app.deployed", scm, reference="release", autoMerge=True)
    with pytest.raises(SinkError) as merged:
        sink.send(deployed)
    assert not merged.value.permanent and "merged the default branch" in str(merged.value)
    assert scm.deployments == {}
    sink.send(deployed)
    [deployment] = scm.deployments.values()
    assert deployment["ref"] == "release" and deployment["sha"] == NEW


def test_failing_required_contexts_are_a_permanent_error(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    with pytest.raises(SinkError) as refused:
        sink.send(notified("app.deployed", scm, requiredContexts=["ci/build"]))
    assert refused.value.permanent
    reason = f"GitHub answered 409: Conflict: Commit status checks failed for {NEW}."
    assert str(refused.value) == reason


def test_an_outage_is_transient_and_honours_retry_after(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    scm.fail_next(1, 503, retry_after=7)
    with pytest.raises(SinkError) as outage:
        sink.send(event("app.deployed", scm))
    assert not outage.value.permanent and outage.value.retry_after == 7
    assert "503" in str(outage.value)

    sink.send(event("app.sync-started", scm))
    scm.fail_next(1, 502)  # the deployment exists; its status is what failed
    with pytest.raises(SinkError) as again:
        sink.send(event("app.deployed", scm))
    assert not again.value.permanent
    sink.send(event("app.deployed", scm))
    [deployment] = scm.deployments
    assert [s["state"] for s in scm.deployment_statuses[deployment]] == ["in_progress", "success"]


def test_rate_limits_are_transient_only_with_retry_after(
    scm: FakeScm, sink: GitHubDeploymentSink
) -> None:
    scm.fail_next(1, 403, retry_after=60)
    with pytest.raises(SinkError) as limited:
        sink.send(event("app.deployed", scm))
    assert not limited.value.permanent and limited.value.retry_after == 60
    scm.fail_next(1, 403, message="Resource not accessible by integration")
    with pytest.raises(SinkError) as forbidden:
        sink.send(event("app.deployed", scm))
    assert forbidden.value.permanent
    assert "Resource not accessible by integration" in str(forbidden.value)


def test_a_refused_token_is_permanent_and_never_shown(scm: FakeScm) -> None:
    wrong = "ghp_not-the-right-one"
    sink = GitHubDeploymentSink(UI, api=GitHubApi(wrong))
    with pytest.raises(SinkError) as refused:
        sink.send(event("app.deployed", scm))
    sink.close()
    assert refused.value.permanent
    assert str(refused.value) == "GitHub answered 401: Bad credentials"
    assert wrong not in str(refused.value)


def test_the_token_never_appears_in_an_error(
    scm: FakeScm, sink: GitHubDeploymentSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    reasons = []
    scm.fail_next(1, 500, message=f"token {TOKEN} broke something")
    for attempt in (
        lambda: sink.send(event("app.deployed", scm)),
        lambda: sink.send(notified("app.deployed", scm, state=f"{TOKEN}")),
    ):
        with pytest.raises(SinkError) as failed:
            attempt()
        reasons.append(str(failed.value))
    monkeypatch.setenv("PROMOFLOW_SCM_API_URL", "http://127.0.0.1:9")  # nothing listens
    with pytest.raises(SinkError) as unreachable:
        sink.send(event("app.deployed", scm))
    assert not unreachable.value.permanent
    assert unreachable.value.args[0].startswith("cannot reach GitHub")
    reasons.append(str(unreachable.value))
    assert all(TOKEN not in reason for reason in reasons), reasons


def test_the_github_service_sends_what_the_template_block_asks_for(
    scm: FakeScm, monkeypatch: pytest.MonkeyPatch
) -> None:
    """service.github with a template's ``status`` and ``deployment`` blocks (Argo CD's
    fields), its ``apiURL`` taken over the environment's."""
    from reporters.sinks.github_service import GitHubSink

    monkeypatch.setenv("PROMOFLOW_SCM_API_URL", "http://127.0.0.1:1")  # not this one
    service = GitHubSink(TOKEN, api=scm.url, ui=UI)
    both = event("app.deployed", scm)
    both["data"]["notification"] = {
        "message": "shop-dev is live",
        "github": {
            "status": {"state": "success", "label": "deploy/shop-dev", "targetURL": UI},
            "deployment": {"state": "success", "environment": "dev"},
        },
    }
    service.send(both)
    only_status = event("app.sync-failed", scm, message="boom")
    service.send(only_status)  # no block: a commit status, as --sink github-status sends
    service.close()
    [deployment] = scm.deployments.values()
    assert deployment["environment"] == "dev"
    assert posts(scm, f"/statuses/{NEW}") == 2
    statuses = [status for sha, status in scm.statuses if sha == NEW]
    assert statuses[0]["context"] == "deploy/shop-dev" and statuses[0]["target_url"] == UI
    assert statuses[0]["description"] == "shop-dev is live"
    assert statuses[1]["state"] == "failure" and statuses[1]["context"] == "argocd/shop-dev"
