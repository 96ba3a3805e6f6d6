"""Notification templates and conditions run with limits: they read their data and cannot
change it for another notification (sprig's ``set``, ``unset`` and ``merge`` would, in Go),
a render that would run or grow without bound is refused, told once as a problem and not
sent, and the pipeline goes on with the next."""

from __future__ import annotations

from pathlib import Path

import pytest

from reporters.notifications.config import load
from reporters.notifications.notifier import Notifier
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import deploy, outbox, sent, shop
from tests.support.reporter_apps import NEW, OLD

LINK = "{{.context.argocdUrl}}/applications/{{.app.metadata.name}} {{.app.metadata.labels}}"


def configmap(tamper: str, when: str = "event.type == 'app.deployed'") -> str:
    """A configuration sending, on each deploy, ``tamper`` first and then a template that
    prints the context's link and the app's labels."""
    return f"""\
service.stdout: ''
context: |
  argocdUrl: https://argocd.example.com
template.tamper: |
  message: {tamper!r}
template.link: |
  message: "{LINK}"
trigger.on-deployed: |
  - when: {when!r}
    send: [tamper, link]
subscriptions: |
  - recipients: [stdout]
    triggers: [on-deployed]
    selector: promoflow.dev/product=shop
"""


def run(tmp_path: Path, tamper: str, when: str = "event.type == 'app.deployed'") -> tuple[
    Store, Pipeline, Notifier, list[str]
]:  # fmt: skip
    path = tmp_path / "cm.yaml"
    path.write_text(configmap(tamper, when))
    warnings: list[str] = []
    notifier = Notifier(load(path), warn=warnings.append)
    store = Store()
    pipeline = Pipeline(store, [], notifier=notifier)
    pipeline.handle("argocd/shop-dev", shop(sync="OutOfSync", health="Progressing"))
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    deploy(pipeline, OLD, "2026-11-24T10:02:00Z")
    return store, pipeline, notifier, warnings


LABELS = "map[promoflow.dev/environment:dev promoflow.dev/product:shop]"
EXPECTED = f"https://argocd.example.com/applications/shop-dev {LABELS}"
READ_ONLY = "template data is read-only"


@pytest.mark.parametrize(
    ("tamper", "refused"),
    [
        ('{{ $_ := set .context "argocdUrl" "https://evil.example" }}', READ_ONLY),
        ('{{ $_ := unset .app.metadata.labels "promoflow.dev/product" }}', READ_ONLY),
        ('{{ $_ := set .app.metadata.labels "promoflow.dev/product" "x" }}', READ_ONLY),
        ('{{ $_ := mergeOverwrite .event.data (dict "app" "x") }}', READ_ONLY),
    ],
)
def test_a_template_cannot_change_what_the_next_notification_sees(
    tmp_path: Path, tamper: str, refused: str
) -> None:
    store, pipeline, notifier, warnings = run(tmp_path, tamper)
    links = [e["data"]["notification"]["message"] for e in sent(store, "stdout", "link")]
    assert links == [EXPECTED, EXPECTED]  # both deploys, the link and labels as configured
    assert sent(store, "stdout", "tamper") == []
    assert notifier.config.context == {"argocdUrl": "https://argocd.example.com"}
    assert pipeline.seen["argocd/shop-dev"]["metadata"]["labels"]["promoflow.dev/product"] == "shop"
    [warning] = warnings
    assert warning.startswith("template tamper: template: :1:") and refused in warning
    assert warning.endswith("(not sent to stdout)")
    assert notifier.problems == 2  # each refusal counted, told once


def test_a_condition_that_fails_to_run_is_false_and_told(tmp_path: Path) -> None:
    store, _, notifier, warnings = run(tmp_path, "{{ 1 }}", when="int(app.metadata.name) > 0")
    assert outbox(store, "stdout") == []  # a condition that fails is false, as in Argo CD
    assert len(warnings) == 1 and warnings[0].startswith("trigger on-deployed: when: ")
    assert warnings[0].endswith("(taken as false)")
    assert notifier.problems > 1  # counted each time it ran (every update), told once


def test_a_once_per_value_that_fails_sends_as_without_once_per(tmp_path: Path) -> None:
    """notifications-engine logs the failure and keys the notification without the value:
    an event condition then sends on each event."""
    path = tmp_path / "cm.yaml"
    path.write_text(
        configmap("{{ 1 }}").replace(
            "send: [tamper, link]", "send: [tamper, link]\n    oncePer: int(app.metadata.name)"
        )
    )
    warnings: list[str] = []
    notifier = Notifier(load(path), warn=warnings.append)
    store = Store()
    pipeline = Pipeline(store, [], notifier=notifier)
    pipeline.handle("argocd/shop-dev", shop(sync="OutOfSync", health="Progressing"))
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    deploy(pipeline, OLD, "2026-11-24T10:02:00Z")
    assert len(sent(store, "stdout", "link")) == 2
    [warning] = warnings
    assert warning.startswith("trigger on-deployed: oncePer: ")
    assert warning.endswith("(sent as without oncePer)")


@pytest.mark.parametrize(
    ("tamper", "refused"),
    [
        ('{{ repeat 1000000000 "x" }}', "repeat"),
        ("{{ range $i := until 100000000 }}{{ end }}", "until"),
        (
            "{{ range $i := until 999999 }}{{ range $j := until 999999 }}{{ end }}{{ end }}",
            "steps",
        ),
        ('{{ range $i := until 999999 }}{{ "xxxxxxxxxxxxxxxxxxxx" }}{{ end }}', "output"),
        ('{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}', "depth"),
    ],
)
def test_a_template_that_would_block_the_pipeline_is_refused_and_the_pipeline_goes_on(
    tmp_path: Path, tamper: str, refused: str
) -> None:
    store, _, notifier, warnings = run(tmp_path, tamper)
    assert sent(store, "stdout", "tamper") == []
    links = [e["data"]["notification"]["message"] for e in sent(store, "stdout", "link")]
    assert links == [EXPECTED, EXPECTED]
    [warning] = warnings
    assert warning.startswith("template tamper: ") and refused in warning, warning
    assert warning.endswith("(not sent to stdout)")
    assert notifier.problems == 2
