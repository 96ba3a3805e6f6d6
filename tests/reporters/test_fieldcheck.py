"""A template or condition reading a field no Application has is refused at start, where
it is written, with the field most likely meant and what Argo CD would do with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.fieldcheck import condition_problems, template_problems


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "{{.app.spec.sourse.repoURL}}",
            "line 1, column 3: .app.spec has no field 'sourse' (did you mean 'source'?): "
            "Argo CD renders <no value> there (or fails)",
        ),
        (
            "x\n{{ range .app.status.history }}{{ .revison }}{{ end }}",
            "line 2, column 35: .app.status.history[0] has no field 'revison' (did you mean "
            "'revision'?)",
        ),
        (
            "{{ $s := .app.spec }}{{ $s.destination.nmespace }}",
            ".app.spec.destination has no field 'nmespace' (did you mean 'namespace'?)",
        ),
        ("{{ .ap.metadata.name }}", "no variable .ap (did you mean 'app'?)"),
        ("{{ .secrets.token }}", "the Secret's values are not given to templates"),
    ],
)
def test_a_template_reading_what_no_app_has(text: str, said: str) -> None:
    [problem] = template_problems(text)
    assert problem.startswith(said) or said in problem, problem


@pytest.mark.parametrize(
    "text",
    [
        '{{.app.metadata.annotations.anything}} {{index .app.metadata.labels "team"}}',
        "{{ range .app.status.conditions }}{{ .type }}: {{ .message }}{{ end }}",
        "{{.context.argocdUrl}} {{.serviceType}} {{.recipient}} {{.event.data.revision}}",
        "{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}",
        "{{ .app.spec.source.helm.valuesObject.image.tag }}",
    ],
)
def test_what_apps_have_passes(text: str) -> None:
    assert list(template_problems(text)) == []


def test_a_condition_reading_what_no_app_has() -> None:
    [problem] = condition_problems(
        "app.status.operationState.phase == 'Succeeded' and app.status.healt.status == 'x'"
    )
    assert problem == (
        "line 1, column 52: app.status has no field 'healt' (did you mean 'health'?): "
        "Argo CD reads nil there (the condition is false, or fails)"
    )
    assert list(condition_problems("time.Now().Sub(time.Parse(app.status.reconciledAt)) > 0")) == []
    assert list(condition_problems("app.status.operationState?.phase in ['Failed']")) == []


def test_the_configuration_says_where(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-notifications-cm\ndata:\n"
        "  template.t: |\n    message: '{{.app.spec.sourse.repoURL}}'\n"
        "  trigger.x: |\n    - when: app.status.helth.status == 'Healthy'\n      send: [t]\n"
    )
    with pytest.raises(ConfigError) as caught:
        load(path)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith(f"{path}:7:5: error: template.t: message: line 1, column 3: ")
    assert lines[1].startswith(f"{path}:9:7: error: trigger.x[0].when: line 1, column 1: ")
    assert "app.status has no field 'helth' (did you mean 'health'?)" in lines[1]
