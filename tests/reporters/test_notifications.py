"""Notifications as Argo CD Notifications users configure them: the ConfigMap layout, its
mistakes reported where they were written, subscriptions by selector and annotation,
conditions that fire when they turn true, ``oncePer``, ``for:`` holds, templates in a
sandbox, and secrets that reach no event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reporters.notifications.config import Notifications, load
from reporters.notifications.errors import ConfigError
from reporters.notifications.notifier import Notifier
from reporters.notifications.secretfiles import read_secrets
from reporters.pipeline import Pipeline
from reporters.services.slack import SlackOptions
from reporters.services.webhook import WebhookOptions
from reporters.state.store import Store
from tests.support.notifications import deploy, outbox, sent, shop
from tests.support.reporter_apps import NEW, OLD, app, finished

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: promoflow-notifications-cm
data:
  service.slack: |
    token: $slack-token
  service.webhook.audit: |
    url: https://audit.example.com/hooks
    secret: $audit-hmac
  context: |
    argocdUrl: https://argocd.example.com
  template.app-deployed: |
    message: "{{.app.metadata.name}} runs {{trunc 7 .event.data.revision}}"
    slack:
      blocks:
      - type: section
        text:
          type: mrkdwn
          text: "<{{.context.argocdUrl}}/applications/{{.app.metadata.name}}|open>"
    webhook:
      audit:
        method: PUT
        path: /deployed
        body: '{"app": "{{.app.metadata.name}}"}'
  trigger.on-deployed: |
    - when: event.type == 'app.deployed'
      oncePer: event.data.revision
      send: [app-deployed]
  trigger.on-degraded-a-while: |
    - when: app.status.health.status == 'Degraded'
      for: 5m
      send: [app-health-degraded]
  subscriptions: |
    - recipients: [slack:deploys, audit]
      triggers: [on-deployed, on-degraded-a-while]
      selector: promoflow.dev/product=shop
"""
SECRETS = {"slack-token": "xoxb-secret-1", "audit-hmac": "hmac-secret-2"}


@pytest.fixture
def config(tmp_path: Path) -> Notifications:
    path = tmp_path / "cm.yaml"
    path.write_text(CONFIGMAP)
    return load(path, SECRETS)


def test_the_configmap_layout_loads_with_secrets_resolved(config: Notifications) -> None:
    assert config.services["slack"].options == SlackOptions(token="xoxb-secret-1")
    assert config.services["audit"].type == "webhook"
    assert isinstance(config.services["audit"].options, WebhookOptions)
    assert config.services["audit"].options.secret == "hmac-secret-2"
    [condition] = config.triggers["on-degraded-a-while"]
    assert condition.hold == 300.0
    assert "on-sync-failed" in config.triggers  # the catalog's, there without a definition
    assert config.context == {"argocdUrl": "https://argocd.example.com"}


BROKEN = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  service.slack: |
    token: $nope
  template.a: |
    message: "{{ .app.metadata.name "
    slak: {}
  trigger.t: |
    - when: event.type ==
      send: [missing]
      for: 5 minutes
  subscriptions: |
    - recipients: [slack:x, sms:y]
      triggers: [t, on-deploy]
      selector: "a in (b"
  servce.x: "1"
"""


def test_every_mistake_is_reported_where_it_was_written(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(BROKEN)
    with pytest.raises(ConfigError) as caught:
        load(path, {"slack-token": "x"}, secrets_from="/etc/promoflow/secrets")
    lines = str(caught.value).splitlines()
    where = [line.split(": error: ")[0].removeprefix(f"{path}:") for line in lines]
    assert where == [
        "7:5", "9:5", "10:5", "12:7", "13:14", "14:7", "16:29", "17:21", "18:7", "19:3"
    ]  # fmt: skip
    text = str(caught.value)
    assert "secret 'nope' is not in /etc/promoflow/secrets" in text
    assert "unknown block 'slak' (did you mean 'slack'?)" in text
    assert "unknown template 'missing'" in text
    assert "unknown trigger 'on-deploy' (did you mean 'on-deployed'?)" in text
    assert "unknown service 'sms'" in text
    assert 'unknown unit " minutes"' in text


def test_a_mounted_configmap_directory_and_a_secret_manifest(tmp_path: Path) -> None:
    mounted = tmp_path / "cm"
    data = mounted / "..2026_11_24_10_00_00.1"
    data.mkdir(parents=True)
    (data / "service.webhook.audit").write_text("url: https://audit.example.com\nsecret: $h\n")
    (data / "subscriptions").write_text("- recipients: [audit]\n  triggers: [on-deployd]\n")
    (mounted / "..data").symlink_to(data.name)
    for name in ("service.webhook.audit", "subscriptions"):
        (mounted / name).symlink_to(f"..data/{name}")
    secret = tmp_path / "secret.yaml"
    secret.write_text("apiVersion: v1\nkind: Secret\ndata:\n  h: aG1hYw==\n")
    with pytest.raises(ConfigError) as caught:
        load(mounted, read_secrets(secret))
    assert str(caught.value) == (
        f"{mounted}/subscriptions:2:14: error: unknown trigger 'on-deployd' "
        "(did you mean 'on-deployed'?)"
    )
    (data / "subscriptions").write_text("- recipients: [audit]\n  triggers: [on-deployed]\n")
    options = load(mounted, read_secrets(secret)).services["audit"].options
    assert isinstance(options, WebhookOptions) and options.secret == "hmac"


def test_a_deploy_notifies_each_subscribed_service_once_per_revision(
    config: Notifications,
) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", shop(sync="OutOfSync", health="Progressing"))
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    [slack] = outbox(store, "slack")
    [audit] = outbox(store, "audit")
    note = slack["data"]["notification"]
    assert note["recipient"] == "deploys" and note["trigger"] == "on-deployed"
    assert note["message"] == f"shop-dev runs {NEW[:7]}"
    text = note["slack"]["blocks"][0]["text"]["text"]
    assert text == "<https://argocd.example.com/applications/shop-dev|open>"
    assert audit["data"]["notification"]["webhook"] == {
        "method": "PUT",
        "path": "/deployed",
        "body": '{"app": "shop-dev"}',
    }
    assert slack["id"] != audit["id"] != note["event"]  # receivers deduplicate per notification
    # oncePer the revision: deploying another, then this one again, tells only the other
    deploy(pipeline, OLD, "2026-11-24T10:02:00Z")
    deploy(pipeline, NEW, "2026-11-24T10:03:00Z")
    revisions = [e["data"]["revision"] for e in outbox(store, "slack")]
    assert revisions == [NEW, OLD]
    # no secret in anything stored
    dump = json.dumps([outbox(store, "slack"), outbox(store, "audit")])
    assert not any(secret in dump for secret in SECRETS.values())


def test_apps_outside_the_selector_get_nothing_unless_their_annotations_subscribe(
    config: Notifications,
) -> None:
    store = Store()
    warnings: list[str] = []
    pipeline = Pipeline(store, [], notifier=Notifier(config, warn=warnings.append))
    other = app(sync="OutOfSync")
    other["metadata"]["name"] = "billing-dev"
    pipeline.handle("argocd/billing-dev", other)
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z", name="billing-dev")
    assert outbox(store, "slack") == []
    annotated = app(sync="OutOfSync")
    annotated["metadata"].update(
        name="billing-prod",
        annotations={
            "promoflow.dev/subscribe.on-deployed.slack": "billing;oncall",
            "promoflow.dev/subscribe.on-deployed.pager": "x",
            "kubectl.kubernetes.io/last-applied-configuration": "{}",
        },
    )
    pipeline.handle("argocd/billing-prod", annotated)
    done = app(NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
    done["metadata"].update(annotated["metadata"])
    pipeline.handle("argocd/billing-prod", done)
    recipients = sorted(e["data"]["notification"]["recipient"] for e in outbox(store, "slack"))
    assert recipients == ["billing", "oncall"]
    assert warnings == [
        "annotation promoflow.dev/subscribe.on-deployed.pager: unknown service 'pager'"
    ]
    assert "kubectl.kubernetes.io/last-applied-configuration" not in json.dumps(pipeline.seen)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_for_holds_a_degraded_app_and_sends_only_if_it_stays_degraded(
    config: Notifications,
) -> None:
    clock = Clock()
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config, clock=clock))
    pipeline.handle("argocd/shop-dev", shop())
    degraded = "app-health-degraded"
    # flapping: Degraded, then Healthy within the 5 minutes -> nothing, ever
    pipeline.handle("argocd/shop-dev", shop(health="Degraded", reconciled="2026-11-24T10:00:20Z"))
    assert sent(store, "slack", degraded) == []
    clock.now += 60
    pipeline.handle("argocd/shop-dev", shop(reconciled="2026-11-24T10:00:30Z"))
    clock.now += 600
    assert pipeline.tick(clock.now) == 0
    assert sent(store, "slack", degraded) == []
    # Degraded and still Degraded when the time is up -> sent then, not before
    pipeline.handle("argocd/shop-dev", shop(health="Degraded", reconciled="2026-11-24T10:20:00Z"))
    clock.now += 299
    assert pipeline.tick(clock.now) == 0
    clock.now += 2
    assert pipeline.tick(clock.now) == 2  # slack and audit
    [told] = sent(store, "slack", degraded)
    assert told["data"]["notification"]["message"].startswith("Application shop-dev is Degraded")
    # staying Degraded sends nothing more (the condition turned true once)
    pipeline.handle("argocd/shop-dev", shop(health="Degraded", images=["x:2"]))
    clock.now += 600
    pipeline.tick(clock.now)
    assert len(sent(store, "slack", degraded)) == 1


def test_conditions_and_holds_survive_a_restart(config: Notifications, tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "state.db"
    first = Pipeline(Store(path), [], notifier=Notifier(config, clock=clock))
    first.handle("argocd/shop-dev", shop())
    first.handle("argocd/shop-dev", shop(health="Degraded", reconciled="2026-11-24T10:00:20Z"))
    first.store.close()
    clock.now += 301
    again = Pipeline(Store(path), [], notifier=Notifier(config, clock=clock))
    assert again.tick(clock.now) == 2  # the hold was kept, and the app is still Degraded
    # the condition is remembered as true: the same state listed again sends nothing new
    again.handle("argocd/shop-dev", shop(health="Degraded", reconciled="2026-11-24T10:00:20Z"))
    assert len(sent(again.store, "slack", "app-health-degraded")) == 1


def test_a_template_cannot_change_what_another_notification_sees(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        "service.stdout: ''\n"
        "template.app-deployed: |\n"
        '  message: \'{{ $_ := set .app.metadata.labels "team" "evil" }}\'\n'
        "subscriptions: |\n"
        "  - recipients: [stdout]\n"
    )
    store = Store()
    warnings: list[str] = []
    notifier = Notifier(load(path), warn=warnings.append)
    pipeline = Pipeline(store, [], notifier=notifier)
    pipeline.handle("argocd/shop-dev", shop(sync="OutOfSync"))
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    assert outbox(store, "stdout") == []  # refused: told, not sent half-rendered
    assert warnings == [
        'template app-deployed: template: :1:9: executing "" at <set .app.metadata.labels '
        '"team" "evil">: error calling set: template data is read-only (not sent to stdout)'
    ]
    assert "team" not in pipeline.seen["argocd/shop-dev"]["metadata"]["labels"]
    assert notifier.problems == 1


def test_the_documented_example_loads_and_notifies_as_the_docs_say() -> None:
    example = Path(__file__).parents[2] / "docs" / "examples" / "notifications.yaml"
    secrets = {
        k: f"secret-{k}" for k in ("slack-token", "github-token", "jira-token", "audit-hmac")
    }
    config = load(example, secrets)
    assert sorted(config.services) == ["audit", "github", "jira", "slack"]
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    prod = shop(sync="OutOfSync")
    prod["metadata"]["labels"]["promoflow.dev/environment"] = "prod"
    pipeline.handle("argocd/shop-dev", prod)
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    [github] = outbox(store, "github")
    block = github["data"]["notification"]["github"]
    assert block["deployment"]["environment"] == "prod"
    assert block["status"]["label"] == "argocd/shop-dev"
    [jira] = outbox(store, "jira")
    assert jira["data"]["notification"]["jira"] == {
        "comment": f"Deployed to prod at {NEW[:12]}.",
        "transition": "Done",
    }
    assert [e["data"]["notification"]["recipient"] for e in outbox(store, "slack")] == ["deploys"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("service.webhook.x: |\n  url: 5\n", "url: expected a string"),
        ("service.webhook.x: |\n  url: ftp://a\n", "url: expected an http(s) URL"),
        (
            "service.webhook.x: |\n  url: https://a\n  headers: [1]\n",
            "headers[0]: expected a mapping",
        ),
        (
            "service.webhook.x: |\n  url: https://a\n  basicAuth: yes\n",
            "basicAuth: expected a mapping",
        ),
        ("template.t: |\n  message: 5\n", "message: expected a string"),
        ("template.t: |\n  slack: [1]\n", "slack: expected a mapping"),
        ("apiVersion: v1\nkind: ConfigMap\ndata: [1]\n", "data: expected a mapping"),
        (
            "trigger.t: |\n  - when: 'true'\n    send: [app-deployed]\n    oncePer: [a]\n",
            "oncePer: expected an expression",
        ),
        (
            "service.stdout: ''\nsubscriptions: |\n  - recipients: [stdout]\n    selector: 5\n",
            "selector: expected a label selector",
        ),
    ],
)
def test_a_setting_of_the_wrong_shape_is_an_error_not_a_crash_later(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert said in str(caught.value) and str(caught.value).startswith(f"{path}:")


@pytest.mark.parametrize("text", ["- a\n", "data: [1]\n", "stringData: 5\n"])
def test_a_secret_manifest_of_the_wrong_shape_is_an_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="expected a Secret"):
        read_secrets(path)
