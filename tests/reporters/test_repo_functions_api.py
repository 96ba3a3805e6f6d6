"""The repo functions over real HTTP: promoflow's Argo CD client against the simulator's
two routes (held to Argo CD's swagger), the reporter refusing a configuration that calls
them with no Argo CD to ask, a render that fails being told and not sent, and
``promoflow reporter check`` answering them with samples."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from orchestrator.adapters.argocd import ArgoCDClient
from orchestrator.settings import ArgoCDSettings
from orchestrator.simulator.serve import ServerThread
from reporters.notifications import languages
from reporters.notifications.check import SAMPLE, check
from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.notifier import Notifier
from reporters.notifications.repofns import RepoReadings
from reporters.run import repo_readings
from reporters.settings import ReporterSettings
from tests.contract.argocd_schema import response_errors, swagger_unknown_fields
from tests.fakes.argocd import FaultyArgoCD

TOKEN = "argocd-simulator-token"
REPO = "https://github.com/acme/gitops.git"
SHA = "a" * 40
METADATA = "/api/v1/applications/{name}/revisions/{revision}/metadata"
DETAILS = "/api/v1/repositories/{source.repoURL}/appdetails"


@pytest.fixture
def sim() -> FaultyArgoCD:
    simulator = FaultyArgoCD(token=TOKEN)
    simulator.add_app("shop", repo_url=REPO, path="shop", revision=SHA, project="web")
    simulator.add_commit(
        REPO, SHA, author="Ann <ann@example.com>", message="bump", date="2026-11-27T10:00:00Z",
        tags=["v1"],
    )  # fmt: skip
    return simulator


@pytest.fixture
def server(sim: FaultyArgoCD) -> Iterator[ServerThread]:
    with sim.serve() as served:
        yield served


@pytest.fixture
def client(server: ServerThread) -> Iterator[ArgoCDClient]:
    host = server.url.removeprefix("http://")
    with ArgoCDClient(ArgoCDSettings(server=host, auth_token=TOKEN, opts="--plaintext")) as c:
        yield c


def test_the_simulator_answers_in_the_swaggers_shapes(server: ServerThread) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server.url, headers=headers) as http:
        ok = http.get(f"/api/v1/applications/shop/revisions/{SHA}/metadata")
        assert ok.status_code == 200
        assert response_errors(METADATA, "GET", 200, ok.json()) == []
        assert swagger_unknown_fields("v1alpha1RevisionMetadata", ok.json()) == []
        source = {"repoURL": REPO, "path": "shop", "targetRevision": "main"}
        body = {"source": source, "appName": "shop", "appProject": "web"}
        url = f"/api/v1/repositories/{quote(REPO, safe='')}/appdetails"
        details = http.post(url, json=body)
        assert details.json() == {"type": "Directory"}
        assert response_errors(DETAILS, "POST", 200, details.json()) == []
        refusals = [
            (http.get(f"/api/v1/applications/shop/revisions/{'0' * 40}/metadata"), 500),
            (http.get(f"/api/v1/applications/nope/revisions/{SHA}/metadata"), 403),
            (http.post(url, json={**body, "appProject": "default"}), 403),
            (http.post(url, json={**body, "source": {**source, "path": "other"}}), 403),
            (http.post(url, json={"appName": "shop"}), 400),
        ]
        for answer, status in refusals:
            assert answer.status_code == status, answer.text
            assert response_errors(DETAILS, "POST", status, answer.json()) == []


def test_the_client_reads_both(client: ArgoCDClient, sim: FaultyArgoCD) -> None:
    meta = client.revision_metadata("shop", SHA, app_namespace="argocd", project="web")
    assert meta == {"author": "Ann <ann@example.com>", "date": "2026-11-27T10:00:00Z",
                    "message": "bump", "tags": ["v1"]}  # fmt: skip
    assert sim.requests[-1] == (
        f"GET /api/v1/applications/shop/revisions/{SHA}/metadata?appNamespace=argocd&project=web"
    )
    helm = {"type": "Helm", "helm": {"name": "shop", "parameters": [{"name": "a", "value": "1"}]}}
    sim.set_app_details(REPO, "shop", helm)
    source = (sim.app("shop") or {})["spec"]["source"]
    sent: list[bytes] = []
    client.http.event_hooks["request"].append(lambda r: sent.append(r.url.raw_path))
    assert client.app_details(source, name="shop", project="web") == helm
    assert sent == [f"/api/v1/repositories/{quote(REPO, safe='')}/appdetails".encode()]


def test_a_template_renders_what_argo_cd_answers(client: ArgoCDClient, sim: FaultyArgoCD) -> None:
    app = copy.deepcopy(sim.app("shop") or {})
    readings = RepoReadings(client, sleep=lambda _: None)
    data = languages.template_data(app, {"id": "e"}, {}, "slack", "ops", readings)
    text = "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Message }}"
    sim.fail_next(1)  # a 503: asked again
    assert languages.render(text, data) == "bump"
    with pytest.raises(languages.RenderError) as caught:
        languages.render('{{ (call .repo.GetCommitMetadata "0000").Message }}', data)
    assert "error calling call: metadata of revision 0000 of shop: Argo CD answered 500" in str(
        caught.value
    )
    assert TOKEN not in str(caught.value)


def configuration(tmp_path: Path, template: str, when: str = "true") -> Path:
    path = tmp_path / "cm.yaml"
    path.write_text(
        "service.stdout: ''\n"
        f"template.t: |\n  message: '{template}'\n"
        f'trigger.on-any: |\n  - when: "{when}"\n    send: [t]\n'
        "subscriptions: |\n  - recipients: [stdout]\n    triggers: [on-any]\n"
    )
    return path


def test_without_an_argo_cd_calling_them_is_refused_at_load(tmp_path: Path) -> None:
    path = configuration(
        tmp_path,
        "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }}",
        "repo.GetAppDetails().Type == 'Helm'",
    )
    with pytest.raises(ConfigError) as caught:
        load(path, argocd=False)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith(
        f"{path}:3:3: error: template.t: message: line 1, column 10: .repo.GetCommitMetadata "
        "asks the Argo CD API server, and the reporter has none: set ARGOCD_SERVER"
    )
    assert lines[1].startswith(
        f"{path}:5:5: error: trigger.on-any[0].when: line 1, column 1: repo.GetAppDetails asks"
    )
    assert load(path).templates["t"]  # with one, it loads


def test_a_failing_call_is_told_and_nothing_is_sent(tmp_path: Path) -> None:
    class Refusing:
        def revision_metadata(self, *_: object, **__: object) -> dict[str, object]:
            from orchestrator.adapters.argocd import ArgoCDError

            raise ArgoCDError("metadata of revision x of shop: permission denied")

        def app_details(self, *_: object, **__: object) -> dict[str, object]:
            raise AssertionError("not asked")

    path = configuration(tmp_path, '{{ (call .repo.GetCommitMetadata "x").Author }}')
    warnings: list[str] = []
    notifier = Notifier(load(path), warn=warnings.append, repo=RepoReadings(Refusing()))
    event = {"id": "e1", "type": "app.changed", "data": {}}
    routed = notifier.route("argocd/guestbook", event, copy.deepcopy(SAMPLE))
    assert routed.outgoing == []
    assert warnings == [
        'template t: template: :1:4: executing "" at <call .repo.GetCommitMetadata "x">: '
        "error calling call: metadata of revision x of shop: permission denied "
        "(not sent to stdout)"
    ]


def test_reporter_check_answers_with_samples(tmp_path: Path) -> None:
    path = configuration(tmp_path, "{{ (call .repo.GetAppDetails).Type }}")
    report = check(load(path), copy.deepcopy(SAMPLE))
    assert [s.rendered["message"] for s in report.sent] == ["Directory"]
    assert report.sampled and report.problems == []
    plain = check(load(configuration(tmp_path, "{{ .app.metadata.name }}")), SAMPLE)
    assert not plain.sampled


def test_the_reporter_asks_the_argo_cd_of_its_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARGOCD_SERVER", raising=False)
    assert repo_readings(ReporterSettings()) is None
    monkeypatch.setenv("ARGOCD_SERVER", "argocd-server.argocd.svc:443")
    monkeypatch.setenv("ARGOCD_AUTH_TOKEN", "a-token-of-the-reporter")
    readings = repo_readings(ReporterSettings())
    assert readings is not None
    http = readings.server.http  # type: ignore[attr-defined]
    assert str(http.base_url).startswith("https://argocd-server.argocd.svc")
    assert http.timeout.read == 10.0
    assert "a-token-of-the-reporter" in ReporterSettings().secrets()


def test_reporter_check_says_its_answers_are_samples(tmp_path: Path) -> None:
    from tests.unit.invoke import invoke

    text = "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }}"
    result = invoke("reporter", "check", "--notifications", str(configuration(tmp_path, text)))
    assert result.code == 0, result.output
    assert "on-any -> t -> stdout" in result.stdout
    assert "message: Jane Doe <jane@example.com>" in result.stdout
    assert "gave sample answers" in result.stdout
