"""Argo CD's ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` in templates and
conditions: the Go structs Argo CD v3.2 returns (fields, methods, nil pointers), the
errors a failing call gives, and what is kept instead of asked again."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from orchestrator.adapters.argocd import ArgoCDError
from reporters.notifications import languages
from reporters.notifications.repofns import Bounded, RepoReadings

SHA = "53e28ff20cc530b9ada2173fbbd64d48338583ba"
REPO = "https://github.com/acme/gitops.git"
APP: dict[str, Any] = {
    "metadata": {"name": "shop", "namespace": "argocd"},
    "spec": {
        "project": "web",
        "source": {"repoURL": REPO, "path": "shop", "targetRevision": "main"},
    },
    "status": {"sync": {"revision": SHA}},
}
COMMIT = {
    "author": "Ann <ann@example.com>",
    "date": "2024-03-04T21:30:33Z",
    "message": "bump shop",
    "tags": ["v1.2.0", "prod"],
}
HELM = {
    "type": "Helm",
    "helm": {
        "name": "shop",
        "valueFiles": ["values.yaml"],
        "parameters": [
            {"name": "image.tag", "value": "1.2.0"},
            {"name": "replicas", "value": "2"},
        ],
        "fileParameters": [{"name": "config", "path": "files/config.json"}],
        "values": "image:\n  tag: 1.2.0\n",
    },
}


class Server:
    """Answers as the Argo CD API server would, and records what it was asked."""

    def __init__(self, details: Mapping[str, Any] | None = None) -> None:
        self.details = dict(details or {"type": "Directory"})
        self.asked: list[tuple[str, ...]] = []
        self.failures: list[ArgoCDError] = []

    def _fail(self) -> None:
        if self.failures:
            raise self.failures.pop(0)

    def revision_metadata(
        self, name: str, revision: str, *, app_namespace: str = "", project: str = ""
    ) -> dict[str, Any]:
        self.asked.append(("metadata", name, revision, app_namespace, project))
        self._fail()
        return dict(COMMIT)

    def app_details(
        self, source: Mapping[str, Any], *, name: str = "", project: str = ""
    ) -> dict[str, Any]:
        self.asked.append(("details", name, str(source.get("repoURL")), project))
        self._fail()
        return copy.deepcopy(self.details)


def render(text: str, app: Mapping[str, Any], readings: RepoReadings) -> str:
    data = languages.template_data(app, {"id": "e"}, {}, "slack", "ops", readings)
    result: str = languages.render(text, data)
    return result


def helm_app(**helm: Any) -> dict[str, Any]:
    app = copy.deepcopy(APP)
    app["spec"]["source"]["helm"] = helm
    return app


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def readings(server: Server) -> RepoReadings:
    return RepoReadings(server, sleep=lambda _: None)


def test_commit_metadata_is_argo_cds_struct(server: Server, readings: RepoReadings) -> None:
    text = (
        "{{ $c := call .repo.GetCommitMetadata .app.status.sync.revision }}"
        '{{ $c.Author }}|{{ $c.Message }}|{{ $c.Date.Format "2006-01-02 15:04" }}|'
        "{{ range $c.Tags }}{{ . }};{{ end }}|{{ $c.Date.Unix }}"
    )
    assert render(text, APP, readings) == (
        "Ann <ann@example.com>|bump shop|2024-03-04 21:30|v1.2.0;prod;|1709587833"
    )
    assert server.asked == [("metadata", "shop", SHA, "argocd", "web")]
    printed = render("{{ call .repo.GetCommitMetadata .app.status.sync.revision }}", APP, readings)
    assert (
        printed == "{bump shop Ann <ann@example.com> 2024-03-04 21:30:33 +0000 UTC [v1.2.0 prod]}"
    )


def test_a_field_the_struct_lacks_is_an_error_not_no_value(readings: RepoReadings) -> None:
    with pytest.raises(languages.RenderError, match="can't evaluate field author in type"):
        render('{{ (call .repo.GetCommitMetadata "x").author }}', APP, readings)


def test_a_commit_is_asked_once_per_repository_and_sha(
    server: Server, readings: RepoReadings
) -> None:
    other = copy.deepcopy(APP)
    other["metadata"]["name"] = "shop-prod"
    text = "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }}"
    for app in (APP, other, APP):
        render(text, app, readings)
    assert len(server.asked) == 1
    render('{{ (call .repo.GetCommitMetadata "main").Author }}', APP, readings)
    render('{{ (call .repo.GetCommitMetadata "main").Author }}', APP, readings)
    assert len(server.asked) == 3  # a branch moves: asked each time


def test_the_caches_are_bounded() -> None:
    kept: Bounded[str, int] = Bounded(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # used: kept over b
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c"), len(kept)) == (1, None, 3, 2)


def test_app_details_of_a_directory_app(server: Server, readings: RepoReadings) -> None:
    text = (
        "{{ $d := call .repo.GetAppDetails }}{{ $d.Type }} "
        "{{ if $d.Helm }}helm{{ else }}no helm{{ end }} {{ $d.Helm }} {{ $d.Directory }} "
        '{{ printf "%v" $d.Directory }}'
    )
    # a directory app's details carry its type alone, as the real API server answers
    # (tests/e2e/test_fakes_match_real_servers.py): Directory is a nil pointer too
    assert render(text, APP, readings) == "Directory no helm <nil> <nil> <nil>"
    assert server.asked == [("details", "shop", REPO, "web")]


def test_reading_through_the_nil_helm_fails_as_in_go(readings: RepoReadings) -> None:
    with pytest.raises(languages.RenderError) as field:
        render("{{ (call .repo.GetAppDetails).Helm.HelmAppSpec.Name }}", APP, readings)
    assert "nil pointer evaluating *shared.CustomHelmAppSpec.HelmAppSpec" in str(field.value)
    with pytest.raises(languages.RenderError) as method:
        render('{{ (call .repo.GetAppDetails).Helm.GetParameterValueByName "x" }}', APP, readings)
    assert (
        "error calling GetParameterValueByName: value method github.com/argoproj/argo-cd/v3/"
        "util/notification/expression/shared.CustomHelmAppSpec.GetParameterValueByName "
        "called using nil *CustomHelmAppSpec pointer"
    ) in str(method.value)


def test_helm_parameters_the_app_sets_win() -> None:
    readings = RepoReadings(Server(HELM))
    app = helm_app(parameters=[{"name": "image.tag", "value": "1.3.0-rc"}])
    text = (
        "{{ $h := (call .repo.GetAppDetails).Helm }}"
        '{{ $h.GetParameterValueByName "image.tag" }} '
        '{{ $h.GetParameterValueByName "replicas" }} '
        '[{{ $h.GetParameterValueByName "nope" }}] '
        '{{ $h.GetFileParameterPathByName "config" }} '
        "{{ $h.HelmAppSpec.Name }} {{ $h.HelmAppSpec.ValueFiles }} "
        "{{ range $h.HelmAppSpec.Parameters }}{{ .Name }}={{ .Value }},{{ end }} "
        "{{ len $h.HelmParameterOverrides }}"
    )
    assert render(text, app, readings) == (
        "1.3.0-rc 2 [] files/config.json shop [values.yaml] image.tag=1.2.0,replicas=2, 1"
    )


def test_a_helm_source_without_a_helm_block_fails_as_argo_cd_does() -> None:
    """Argo CD v3.2 copies ``source.helm.parameters`` unchecked: a nil dereference."""
    readings = RepoReadings(Server(HELM))
    with pytest.raises(languages.RenderError) as caught:
        render("{{ (call .repo.GetAppDetails).Type }}", APP, readings)
    assert "error calling call: runtime error: invalid memory address or nil pointer" in str(
        caught.value
    )
    assert render("{{ (call .repo.GetAppDetails).Type }}", helm_app(), readings) == "Helm"


def test_details_are_kept_per_source_and_revision(server: Server, readings: RepoReadings) -> None:
    text = "{{ (call .repo.GetAppDetails).Type }}"
    render(text, APP, readings)
    render(text, APP, readings)
    assert len(server.asked) == 1
    moved = copy.deepcopy(APP)
    moved["status"]["sync"]["revision"] = "1" * 40
    render(text, moved, readings)
    assert len(server.asked) == 2


def test_a_multi_source_app_asks_for_its_first_source(
    server: Server, readings: RepoReadings
) -> None:
    app = copy.deepcopy(APP)
    del app["spec"]["source"]
    app["spec"]["sources"] = [{"repoURL": "https://x/one.git"}, {"repoURL": "https://x/two.git"}]
    render("{{ (call .repo.GetAppDetails).Type }}", app, readings)
    assert server.asked == [("details", "shop", "https://x/one.git", "web")]
    with pytest.raises(languages.RenderError, match="failed to get application source repo URL"):
        render('{{ (call .repo.GetCommitMetadata "x").Author }}', app, readings)


def test_an_app_without_a_project_cannot_ask(readings: RepoReadings) -> None:
    app = copy.deepcopy(APP)
    del app["spec"]["project"]
    with pytest.raises(languages.RenderError, match="failed to get application project"):
        render('{{ (call .repo.GetCommitMetadata "x").Author }}', app, readings)


def test_conditions_read_the_same_structs(readings: RepoReadings) -> None:
    env = languages.condition_env(APP, {"id": "e", "type": "t"}, {}, readings)
    run = languages.condition
    assert (
        run("repo.GetCommitMetadata(app.status.sync.revision).Author").run(env) == COMMIT["author"]
    )
    assert run("'prod' in repo.GetCommitMetadata(app.status.sync.revision).Tags").run(env)
    assert run("repo.GetCommitMetadata('x').Date.Year()").run(env) == 2024
    assert run("repo.GetAppDetails().Type").run(env) == "Directory"
    assert run("repo.GetAppDetails().Helm == nil").run(env) is True  # expr's IsNil
    assert run("repo.GetAppDetails().Directory == nil").run(env) is True
    with pytest.raises(languages.RenderError, match="cannot fetch Images from"):
        languages.evaluate("repo.GetAppDetails().Kustomize.Images == nil", env)
    with pytest.raises(languages.RenderError, match="cannot fetch author from"):
        languages.evaluate("repo.GetCommitMetadata('x').author == ''", env)
    helm = RepoReadings(Server(HELM))
    env = languages.condition_env(helm_app(), {"id": "e", "type": "t"}, {}, helm)
    value = run("repo.GetAppDetails().Helm.GetParameterValueByName('image.tag')").run(env)
    assert value == "1.2.0"


def test_a_transient_failure_is_asked_again(server: Server) -> None:
    pauses: list[float] = []
    readings = RepoReadings(server, sleep=pauses.append)
    server.failures = [ArgoCDError("Argo CD answered 503", transient=True)] * 2
    text = '{{ (call .repo.GetCommitMetadata "x").Author }}'
    assert render(text, APP, readings) == COMMIT["author"]
    assert (len(server.asked), pauses) == (3, [0.5, 1.0])


def test_a_failure_fails_the_render_with_its_reason(server: Server) -> None:
    readings = RepoReadings(server, sleep=lambda _: None)
    server.failures = [ArgoCDError("metadata of revision x of shop: permission denied")]
    with pytest.raises(languages.RenderError) as caught:
        render('{{ (call .repo.GetCommitMetadata "x").Author }}', APP, readings)
    assert str(caught.value).startswith('template: :1:4: executing "" at <call ')
    assert str(caught.value).endswith(
        "error calling call: metadata of revision x of shop: permission denied"
    )
    assert len(server.asked) == 1  # not transient: not asked again
    server.failures = [ArgoCDError("down", transient=True)] * 3
    with pytest.raises(languages.RenderError, match="error calling call: down"):
        render('{{ (call .repo.GetCommitMetadata "y").Author }}', APP, readings)
    assert len(server.asked) == 4
    assert render('{{ (call .repo.GetCommitMetadata "y").Author }}', APP, readings)  # not kept


def test_without_an_argo_cd_the_functions_are_missing() -> None:
    data = languages.template_data(APP, {"id": "e"}, {}, "slack", "ops")
    with pytest.raises(languages.RenderError, match="call of nil"):
        languages.render('{{ call .repo.GetCommitMetadata "x" }}', data)
