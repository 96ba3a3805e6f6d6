"""Notification templates and conditions run with limits: they read their data and cannot
change it for another notification, a render that would run or grow without bound is
refused, told once as a problem and not sent, and the pipeline goes on with the next."""

from __future__ import annotations

from pathlib import Path

import pytest

from reporters.notifications.config import load
from reporters.notifications.notifier import Notifier
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import deploy, outbox, sent, shop
from tests.support.reporter_apps import NEW, OLD

LINK = (
    "{{ context.argocdUrl }}/applications/{{ app.metadata.name }} "
    "{{ app.metadata.labels | dictsort }}"
)


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


LABELS = "[('promoflow.dev/environment', 'dev'), ('promoflow.dev/product', 'shop')]"
EXPECTED = f"https://argocd.example.com/applications/shop-dev {LABELS}"


@pytest.mark.parametrize(
    ("tamper", "refused"),
    [
        (
            "{{ context.update(argocdUrl='https://evil.example') }}",
            "access to attribute 'update' of 'FrozenDict' object is unsafe",
        ),
        (
            "{{ app.metadata.labels.clear() }}",
            "access to attribute 'clear' of 'FrozenDict' object is unsafe",
        ),
        (
            "{{ app.metadata.labels.pop('promoflow.dev/product') }}",
            "access to attribute 'pop' of 'FrozenDict' object is unsafe",
        ),
        (
            "{{ event.data.__setitem__('app', 'x') }}",
            "access to attribute '__setitem__' of 'FrozenDict' object is unsafe",
        ),
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
    assert warnings == [f"template tamper: {refused} (not sent to stdout)"]
    assert notifier.problems == 2  # each refusal counted, told once


def test_a_condition_cannot_change_the_context_either(tmp_path: Path) -> None:
    store, _, notifier, warnings = run(
        tmp_path, "{{ 1 }}", when="context.update(argocdUrl='x') or event.type == 'app.deployed'"
    )
    assert outbox(store, "stdout") == []  # a condition refused is false
    assert notifier.config.context == {"argocdUrl": "https://argocd.example.com"}
    assert len(warnings) == 1 and warnings[0].startswith(
        "trigger on-deployed: when: access to attribute 'update'"
    )
    assert warnings[0].endswith("(taken as false)")


def test_a_once_per_value_that_is_refused_sends_nothing(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        configmap("{{ 1 }}").replace(
            "send: [tamper, link]", "send: [tamper, link]\n    oncePer: 9 ** (9 ** 10)"
        )
    )
    warnings: list[str] = []
    notifier = Notifier(load(path), warn=warnings.append)
    store = Store()
    pipeline = Pipeline(store, [], notifier=notifier)
    pipeline.handle("argocd/shop-dev", shop(sync="OutOfSync", health="Progressing"))
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    assert outbox(store, "stdout") == []
    assert warnings == [
        "trigger on-deployed: oncePer: '**' makes a number over 4,096 bits (not sent)"
    ]


@pytest.mark.parametrize(
    ("tamper", "refused"),
    [
        ("{{ 9**(9**10) }}", "'**' makes a number over 4,096 bits"),
        ("{{ 'x' * 10**9 }}", "'*' would be 1,000,000,000 long, over the limit of 262,144"),
        (
            "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
            "stopped after",
        ),
        (
            "{% for i in range(99999) %}{{ 'x' * 99999 }}{% endfor %}",
            "the output would be 299,997 long, over the limit of 262,144",
        ),
        ("{{ range(99999) | join('x' * 99999) }}", "join would be"),
        ("{{ '%0999999999d' % 1 }}", "'%' would be"),
        ("{{ 'x' | center(10**9) }}", "center would be 1,000,000,000 long"),
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
    assert warning.startswith(f"template tamper: {refused}")
    assert warning.endswith("(not sent to stdout)")
    assert notifier.problems == 2
