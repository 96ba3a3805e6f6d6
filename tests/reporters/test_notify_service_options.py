"""A ConfigMap with every service notifications-engine documents (its
``docs/services/*.md`` examples, secrets resolved) is taken, each service built with its
options; the mistakes a hand-written one makes are said where they are."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.services import sinks_for
from reporters.services import Transport
from reporters.sinks.alertmanager import AlertmanagerSink
from reporters.sinks.answers import Pool
from reporters.sinks.delivery import Delivery, Policy
from reporters.sinks.email import EmailSink
from reporters.sinks.googlechat import GoogleChatSink
from reporters.sinks.grafana import GrafanaSink
from reporters.sinks.http import HttpSink
from reporters.sinks.mattermost import MattermostSink
from reporters.sinks.opsgenie import OpsgenieSink
from reporters.sinks.pagerdutyv2 import PagerDutySink
from reporters.sinks.pushover import PushoverSink
from reporters.sinks.slack import SlackSink
from reporters.sinks.teams import TeamsSink
from reporters.sinks.teams_workflows import TeamsWorkflowsSink
from reporters.sinks.telegram import TelegramSink
from reporters.sinks.webex import WebexSink
from reporters.state.store import Outgoing, Store
from tests.fakes.notify_services import FakeServices

DOCUMENTED = """\
service.email.gmail: |
  username: $username
  password: $password
  host: smtp.gmail.com
  port: 465
  from: $email-address
service.email.example: |
  host: smtp.example.com
  port: 587
  from: $email-address
service.teams: |
  recipientUrls:
    channelName: $channel-teams-url
service.teams-workflows: |
  recipientUrls:
    channelName: $channel-workflows-url
service.telegram: |
  token: $telegram-token
service.opsgenie: |
  apiUrl: api.opsgenie.com
  apiKeys:
    my-team: $opsgenie-key
service.pagerdutyv2: |
  serviceKeys:
    my-service: $pagerduty-key-my-service
service.googlechat: |
  webhooks:
    spaceName: $space-webhook-url
service.mattermost: |
  apiURL: https://mattermost.example.com
  token: $mattermost-token
  insecureSkipVerify: false
  maxIdleConns: 10
  maxIdleConnsPerHost: 4
  maxConnsPerHost: 20
  idleConnTimeout: 1m30s
service.slack: |
  token: $slack-token
  signingSecret: $slack-signing-secret
  disableUnfurl: true
  maxConnsPerHost: 8
service.grafana: |
  apiUrl: https://grafana.example.com/api
  apiKey: $grafana-api-key
service.alertmanager: |
  targets:
  - 10.5.39.39:19093
  - 10.5.39.39:29093
  scheme: https
  apiPath: /api/v2/alerts
  insecureSkipVerify: true
  basicAuth:
    username: $alertmanager-username
    password: $alertmanager-password
service.pushover: |
  token: $pushover-token
service.webex: |
  token: $webex-token
"""
"""The services' configurations of notifications-engine's docs/services/*.md."""

SECRETS = {
    "username": "argocd@gmail.com", "password": "app-password", "email-address": "argocd@gmail.com",
    "channel-teams-url": "https://webhook.office.com/webhook/your-webhook-id",
    "channel-workflows-url": "https://prod-12.westus.logic.azure.com/powerautomate/automations/direct/workflows/abc",
    "telegram-token": "123456:ABC", "opsgenie-key": "key", "pagerduty-key-my-service": "R0",
    "space-webhook-url": "https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t",
    "mattermost-token": "token", "grafana-api-key": "api-key",
    "alertmanager-username": "u", "alertmanager-password": "p",
    "pushover-token": "avtc41pn13asmra6zaiyf7dh6cgx97", "webex-token": "w",
    "slack-token": "xoxb-1", "slack-signing-secret": "s",
}  # fmt: skip


def test_the_documented_services_are_taken(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(DOCUMENTED)
    config = load(path, SECRETS)
    built = {sink.name: type(sink) for sink in sinks_for(config)}
    assert built == {
        "gmail": EmailSink, "example": EmailSink, "teams": TeamsSink,
        "teams-workflows": TeamsWorkflowsSink, "telegram": TelegramSink,
        "opsgenie": OpsgenieSink, "pagerdutyv2": PagerDutySink, "googlechat": GoogleChatSink,
        "mattermost": MattermostSink, "grafana": GrafanaSink, "alertmanager": AlertmanagerSink,
        "pushover": PushoverSink, "webex": WebexSink, "slack": SlackSink,
    }  # fmt: skip
    assert config.services["gmail"].type == "email"
    mattermost = config.services["mattermost"].options
    assert isinstance(mattermost, Transport)
    assert mattermost.pool() == Pool(max_connections=20, max_keepalive=4, keepalive_expiry=90.0)
    limits = mattermost.pool().limits()
    assert (limits.max_connections, limits.max_keepalive_connections) == (20, 4)
    assert limits.keepalive_expiry == 90.0
    assert Pool().limits() == httpx.Limits()  # none given: httpx's own


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (
            "service.email: |\n  host: smtp.example.com\n  port: 587\n",
            "2:3: service.email: missing required field 'from'",
        ),
        (
            "service.email: |\n  host: h\n  port: '587'\n  from: a@example.com\n",
            "3:3: service.email: port: Input should be a valid integer",
        ),
        (
            "service.teams: |\n  recipientUrl:\n    a: https://x\n",
            "2:3: service.teams: unknown field 'recipientUrl' (did you mean 'recipientUrls'?)",
        ),
        (
            "service.teams-workflows: |\n  recipientUrls:\n    a: https://webhook.office.com/x\n",
            "3:5: service.teams-workflows: recipientUrls.a: not a Teams Workflows",
        ),
        (
            "service.teams-workflows: |\n  recipientUrls:\n    a: http://api.powerautomate.com/x\n",
            "3:5: service.teams-workflows: recipientUrls.a: a Workflows webhook URL must use https://",
        ),
        (
            "service.alertmanager: |\n  scheme: ftp\n",
            "2:3: service.alertmanager: scheme: Input should be 'http', 'https' or ''",
        ),
        (
            "service.grafana: |\n  apiUrl: https://g/api\n  apiKey: k\n  idleConnTimeout: 90\n",
            "4:3: service.grafana: idleConnTimeout: expected a string",
        ),
        (
            "service.grafana: |\n  apiUrl: https://g/api\n  apiKey: k\n  idleConnTimeout: 9x\n",
            '4:3: service.grafana: idleConnTimeout: time: unknown unit "x" in duration "9x"',
        ),
        (
            "service.github: |\n  appID: abc\n  installationID: 1\n  privateKey: $k\n",
            "2:3: service.github: appID: expected a number (the GitHub App's page shows it)",
        ),
    ],
)
def test_a_mistake_is_said_where_it_is(tmp_path: Path, written: str, said: str) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(written)
    with pytest.raises(ConfigError) as caught:
        load(path, {"k": "x"})
    shown = [f"{p.position.line}:{p.position.col}: {p.message}" for p in caught.value.problems]
    assert any(line.startswith(said) for line in shown), shown


def test_a_webhooks_retry_settings_become_its_deliverys(tmp_path: Path) -> None:
    """``retryMax`` and the waits (nanoseconds, as Go reads a Duration) bound the delivery's
    attempts; without them the reporter's own policy keeps trying longer."""
    path = tmp_path / "cm.yaml"
    path.write_text(
        "service.webhook.a: |\n  url: https://a.example.com\n  retryMax: 2\n"
        "  retryWaitMin: 500000000\n"
        "service.webhook.b: |\n  url: https://b.example.com\n"
    )
    built = {sink.name: sink for sink in sinks_for(load(path))}
    assert isinstance(built["a"], HttpSink) and isinstance(built["b"], HttpSink)
    assert built["a"].policy == Policy(attempts=3, base=0.5, cap=5.0)
    assert built["b"].policy is None
    with FakeServices() as fake:
        fake.fail_next("teams", 503, "busy")
        fake.fail_next("teams", 503, "busy")
        sink = HttpSink(f"{fake.url}/teams/x", name="a", policy=Policy(attempts=2, base=0.0))
        store = Store()
        store.record("argocd/shop", None, None, [Outgoing("a", "e1", {"id": "e1"})])
        delivery = Delivery(store, sink, sink.policy)
        assert delivery.drain_once() == 0 and store.dead_letters("a") == []
        assert delivery.drain_once() == 0
        sink.close()
    [(dead, reason)] = store.dead_letters("a")
    assert dead == "e1" and reason == "webhook a answered 503"
