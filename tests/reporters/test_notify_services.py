"""The chat, paging and alerting services against fakes of their APIs
(:mod:`tests.fakes.notify_services`): each sends the request notifications-engine sends
(URL, method, headers, body), and each refusal becomes a clear error, retried or dead as
the delivery's rules say (4xx dead but 429; 5xx retried), never showing a credential.

The template blocks are those of notifications-engine's documentation
(``docs/services/<service>.md`` at d27ba0152c1c, the version Argo CD v3.2.9+ pins), with
their ``{{...}}`` filled in as a render would (:func:`filled`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from reporters.sinks.alertmanager import AlertmanagerSink, http_url
from reporters.sinks.delivery import Delivery, Policy, SinkError
from reporters.sinks.googlechat import GoogleChatSink
from reporters.sinks.grafana import GrafanaSink, annotations_url
from reporters.sinks.mattermost import MattermostSink
from reporters.sinks.opsgenie import OpsgenieSink, alerts_url
from reporters.sinks.pagerdutyv2 import PagerDutySink
from reporters.sinks.pushover import PushoverSink
from reporters.sinks.teams import TeamsSink
from reporters.sinks.teams_workflows import TeamsWorkflowsSink
from reporters.sinks.telegram import Chat, TelegramSink, chat_of
from reporters.sinks.webex import WebexSink
from reporters.state.store import Outgoing, Store
from tests.fakes.notify_services import Accounts, FakeServices

VALUES = {
    "{{.app.metadata.name}}": "shop",
    "{{ .app.metadata.name }}": "shop",
    "{{.app.metadata.namespace}}": "argocd",
    "{{.app.status.sync.status}}": "Synced",
    "{{.app.status.health.status}}": "Degraded",
    "{{.app.status.operationState.phase}}": "Failed",
    "{{.app.status.operationState.finishedAt}}": "2026-11-27T12:00:00Z",
    "{{.app.spec.source.repoURL}}": "https://github.com/acme/gitops.git",
    "{{.app.spec.destination.server}}": "https://kubernetes.default.svc",
    "{{.context.argocdUrl}}": "https://argocd.example.com",
    "{{.app.metadata.responderId}}": "4513b7ea-3b91-438f-b7e4-e3e54af9147c",
    "{{.app.metadata.responderUserId}}": "bb4d9938-c3c2-455d-aaab-727aa701c0d8",
    "{{.rollout.metadata.name}}": "shop",
    "{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}": "https://github.com/acme/gitops",
    "{{ .app.spec.source.targetRevision }}": "main",
    "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }}": "dev",
    "{{.recipient}}": "ops",
    "{{(call .repo.GetCommitMetadata .app.status.sync.revision).Author}}": "dev",
    "{{(call .repo.GetCommitMetadata .app.status.sync.revision).Message}}": "bump shop",
}


def filled(text: str) -> str:
    """A documented template with its fields as a render for app ``shop`` gives them."""
    for placeholder, value in VALUES.items():
        text = text.replace(placeholder, value)
    assert "{{" not in text, text
    return text


def block(document: str, kind: str) -> dict[str, Any]:
    """The ``kind`` block of a documented ``template.<name>: |`` value, rendered."""
    found = yaml.safe_load(filled(document))
    return dict(found[kind])


def notified(
    recipient: str, kind: str, block: dict[str, Any] | None = None, *, message: str = ""
) -> dict[str, Any]:
    note: dict[str, Any] = {
        "event": "e1", "trigger": "on-deployed", "template": "app-deployed",
        "service": kind, "recipient": recipient,
        "message": message or "Application shop is now running new version.",
    }  # fmt: skip
    if block is not None:
        note[kind] = block
    data = {"app": "argocd/shop", "repo": "git@github.com:acme/gitops.git", "notification": note}
    return {"specversion": "1.0", "id": "n1", "type": "app.deployed", "data": data}


def refused(sink: Any, event: dict[str, Any]) -> SinkError:
    with pytest.raises(SinkError) as caught:
        sink.send(event)
    return caught.value


@pytest.fixture
def fake() -> Any:
    with FakeServices() as served:
        yield served


# -- Teams ----------------------------------------------------------------------------

TEAMS_DOC = """
teams:
  themeColor: "#000080"
  sections: |
    [{
      "facts": [
        {
          "name": "Sync Status",
          "value": "{{.app.status.sync.status}}"
        },
        {
          "name": "Repository",
          "value": "{{.app.spec.source.repoURL}}"
        }
      ]
    }]
  potentialAction: |-
    [{
      "@type":"OpenUri",
      "name":"Operation Details",
      "targets":[{
        "os":"default",
        "uri":"{{.context.argocdUrl}}/applications/{{.app.metadata.name}}?operation=true"
      }]
    }]
  title: Application {{.app.metadata.name}} has been successfully synced
  text: Application {{.app.metadata.name}} has been successfully synced at {{.app.status.operationState.finishedAt}}.
  summary: "{{.app.metadata.name}} sync succeeded"
  facts: |
    [{
      "name": "Sync Status",
      "value": "{{.app.status.sync.status}}"
    }]
"""  # noqa: E501
"""docs/services/teams.md, "Templates" and "facts field"."""


def test_teams_posts_the_documented_message_card(fake: FakeServices) -> None:
    hook = f"{fake.url}/teams/IncomingWebhook-abc-s3cr3t"
    sink = TeamsSink({"deploys": hook})
    sink.send(notified("deploys", "teams", block(TEAMS_DOC, "teams")))
    [(headers, card, _)] = fake.got["teams"]
    assert headers["content-type"] == "application/json"
    assert card["@type"] == "MessageCard" and card["context"] == "https://schema.org/extensions"
    assert card["title"] == "Application shop has been successfully synced"
    assert card["summary"] == "shop sync succeeded" and card["themeColor"] == "#000080"
    assert card["text"].startswith("Application shop has been successfully synced at 2026")
    assert card["sections"][0]["facts"][1] == {
        "name": "Repository", "value": "https://github.com/acme/gitops.git"
    }  # fmt: skip
    assert card["sections"][1] == {"facts": [{"name": "Sync Status", "value": "Synced"}]}
    assert card["potentialAction"][0]["targets"][0]["uri"] == (
        "https://argocd.example.com/applications/shop?operation=true"
    )
    sink.send(notified("deploys", "teams"))  # no block: the message is the text
    assert fake.got["teams"][1][1]["text"] == "Application shop is now running new version."
    sink.close()


def test_teams_refusals_are_said_without_the_hook(fake: FakeServices) -> None:
    hook = f"{fake.url}/teams/IncomingWebhook-abc-s3cr3t"
    sink = TeamsSink({"deploys": hook})
    empty = refused(sink, notified("deploys", "teams", {"text": " "}, message=" "))
    assert empty.permanent and "Summary or Text is required." in str(empty)
    fake.fail_next("teams", 429, "Microsoft Teams endpoint returned HTTP error 429", retry_after=7)
    throttled = refused(sink, notified("deploys", "teams"))
    assert not throttled.permanent and throttled.retry_after == 7.0
    fake.fail_next("teams", 200, "Microsoft Teams endpoint returned HTTP error 413")
    odd = refused(sink, notified("deploys", "teams"))  # 200 but not "1": upstream's test
    assert odd.permanent and "HTTP error 413" in str(odd)
    missing = refused(sink, notified("random", "teams"))
    assert missing.permanent and "no webhook for 'random'" in str(missing)
    bad = refused(sink, notified("deploys", "teams", {"facts": "[{"}))
    assert bad.permanent and "facts is not JSON at 1:3" in str(bad)
    for error in (empty, throttled, odd, missing, bad):
        assert "s3cr3t" not in str(error) and fake.url not in str(error)
    sink.close()


# -- Teams Workflows ------------------------------------------------------------------

WORKFLOWS_DOC = """
teams-workflows:
  themeColor: "Good"
  title: Application {{.app.metadata.name}} has been successfully synced
  text: Application {{.app.metadata.name}} has been successfully synced at {{.app.status.operationState.finishedAt}}.
  summary: "{{.app.metadata.name}} sync succeeded"
  facts: |
    [{
      "name": "Sync Status",
      "value": "{{.app.status.sync.status}}"
    }, {
      "name": "Repository",
      "value": "{{.app.spec.source.repoURL}}"
    }]
  sections: |
    [{
      "facts": [
        {
          "name": "Namespace",
          "value": "{{.app.metadata.namespace}}"
        },
        {
          "name": "Cluster",
          "value": "{{.app.spec.destination.server}}"
        }
      ]
    }]
  potentialAction: |-
    [{
      "@type": "OpenUri",
      "name": "View in Argo CD",
      "targets": [{
        "os": "default",
        "uri": "{{.context.argocdUrl}}/applications/{{.app.metadata.name}}"
      }]
    }]
"""  # noqa: E501
"""docs/services/teams-workflows.md, "Option 1"."""

WORKFLOWS_CARD_DOC = """
teams-workflows:
  adaptiveCard: |
    {
      "type": "AdaptiveCard",
      "version": "1.4",
      "body": [
        {
          "type": "TextBlock",
          "text": "Application {{.app.metadata.name}} synced successfully",
          "size": "Large",
          "weight": "Bolder",
          "color": "Good"
        },
        {
          "type": "ColumnSet",
          "columns": [{"type": "Column", "items": [{"type": "TextBlock", "text": "a"}]}]
        }
      ]
    }
"""
"""docs/services/teams-workflows.md, "Option 2" (shortened), with a ColumnSet: upstream
sends a custom card as written (its #431)."""


def test_teams_workflows_converts_the_documented_fields_to_an_adaptive_card(
    fake: FakeServices,
) -> None:
    flow = f"{fake.url}/powerautomate/automations/direct/workflows/f1?sig=s3cr3t"
    sink = TeamsWorkflowsSink({"deploys": flow})
    sink.send(notified("deploys", "teams-workflows", block(WORKFLOWS_DOC, "teams-workflows")))
    [(_, message, query)] = fake.got["teams-workflows"]
    assert query == {"sig": "s3cr3t"}
    assert message["type"] == "message"
    [attachment] = message["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert (card["type"], card["version"]) == ("AdaptiveCard", "1.4")
    title, text, facts, section = card["body"]
    assert title == {
        "type": "TextBlock", "text": "Application shop has been successfully synced",
        "size": "Large", "weight": "Bolder", "color": "Good", "wrap": True,
    }  # fmt: skip
    assert text["type"] == "TextBlock" and text["wrap"] is True
    assert facts["facts"] == [
        {"title": "Sync Status", "value": "Synced"},
        {"title": "Repository", "value": "https://github.com/acme/gitops.git"},
    ]
    assert section["facts"][1] == {"title": "Cluster", "value": "https://kubernetes.default.svc"}
    assert card["actions"] == [{"type": "Action.OpenUrl", "title": "View in Argo CD",
                                "url": "https://argocd.example.com/applications/shop"}]  # fmt: skip
    sink.send(notified("deploys", "teams-workflows", block(WORKFLOWS_CARD_DOC, "teams-workflows")))
    custom = fake.got["teams-workflows"][1][1]["attachments"][0]["content"]
    assert custom["body"][1]["type"] == "ColumnSet"
    assert custom["body"][0]["text"] == "Application shop synced successfully"
    mismatch = {"code": "TriggerInputSchemaMismatch", "message": "did not match its schema"}
    fake.fail_next("teams-workflows", 400, {"error": mismatch})
    wrong = refused(sink, notified("deploys", "teams-workflows"))
    assert wrong.permanent and "Teams Workflows answered 400" in str(wrong)
    fake.fail_next("teams-workflows", 502, "Bad Gateway")
    assert not refused(sink, notified("deploys", "teams-workflows")).permanent
    assert "s3cr3t" not in str(wrong)
    sink.close()


# -- Telegram -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recipient", "chat"),
    [  # docs/services/telegram.md's subscriptions, and upstream's parsing of them
        ("username", Chat("@username")),
        ("-1000000000000", Chat("-1000000000000")),
        ("-1000000000000|2", Chat("-1000000000000", 2)),
        ("-1000000000000|+2", Chat("-1000000000000", 2)),
        ("deploys|2", Chat("@deploys|2")),  # only a chat id takes a thread
    ],
)
def test_telegram_reads_recipients_as_upstream(recipient: str, chat: Chat) -> None:
    assert chat_of(recipient) == chat


@pytest.mark.parametrize(
    "recipient", ["-100x", "-1001|two", "-1001|", "-", "-99999999999999999999"]
)
def test_telegram_refuses_a_chat_id_go_cannot_parse(recipient: str) -> None:
    with pytest.raises(SinkError, match="is not an integer") as caught:
        chat_of(recipient)
    assert caught.value.permanent


def test_telegram_sends_the_bot_apis_sendmessage(fake: FakeServices) -> None:
    token = Accounts().telegram_token
    sink = TelegramSink(token, api=fake.url)
    sink.send(notified("argocd_deploys", "telegram", message="*shop* deployed"))
    sink.send(notified("-1001234567890|2", "telegram"))
    (headers, public, _), (_, topic, _) = fake.got["telegram"]
    assert headers["content-type"] == "application/x-www-form-urlencoded"
    assert public == {"chat_id": "@argocd_deploys", "text": "*shop* deployed",
                      "parse_mode": "Markdown"}  # fmt: skip
    assert topic["chat_id"] == "-1001234567890" and topic["message_thread_id"] == "2"
    lost = refused(sink, notified("-1009", "telegram"))
    assert lost.permanent and str(lost) == "Telegram answered 400: Bad Request: chat not found"
    thread = refused(sink, notified("-1001234567890|9", "telegram"))
    assert thread.permanent and "message thread not found" in str(thread)
    fake.fail_next("telegram", 429, {"ok": False, "error_code": 429,
                                     "description": "Too Many Requests: retry after 5",
                                     "parameters": {"retry_after": 5}})  # fmt: skip
    slow = refused(sink, notified("argocd_deploys", "telegram"))
    assert not slow.permanent and slow.retry_after == 5.0
    revoked = TelegramSink("123456:revoked-token", api=fake.url)
    gone = refused(revoked, notified("argocd_deploys", "telegram"))
    assert gone.permanent and "Unauthorized" in str(gone) and "revoked-token" not in str(gone)
    for error in (lost, thread, slow):
        assert token not in str(error) and token.split(":")[1] not in str(error)
    sink.close()
    revoked.close()


# -- Opsgenie -------------------------------------------------------------------------

OPSGENIE_DOC = """
opsgenie:
  description: |
    Application: {{.app.metadata.name}}
    Health Status: {{.app.status.health.status}}
    Operation State Phase: {{.app.status.operationState.phase}}
    Sync Status: {{.app.status.sync.status}}
  priority: P1
  alias: "{{.app.metadata.name}}"
  note: Error from Argo CD!
  actions:
    - Restart
    - AnExampleAction
  tags:
    - OverwriteQuietHours
    - Critical
  visibleTo:
    - Id: "{{.app.metadata.responderId}}"
      Type: "team"
    - Name: "rocket_team"
      Type: "team"
    - Id: "{{.app.metadata.responderUserId}}"
      Type: "user"
    - Username: "trinity@opsgenie.com"
      Type: "user"
  details:
    environment: production
    service: web
  entity: Argo CD Application
  user: John Doe
"""
"""docs/services/opsgenie.md's ``template.opsgenie`` (``alias`` quoted: a YAML flow
mapping otherwise)."""


def test_opsgenie_creates_the_documented_alert(fake: FakeServices) -> None:
    key = Accounts().opsgenie_keys[0]
    sink = OpsgenieSink(fake.url, {"platform": key})
    sink.send(notified("platform", "opsgenie", block(OPSGENIE_DOC, "opsgenie"),
                       message="[Argo CD] Application shop has a problem."))  # fmt: skip
    [(headers, alert, _)] = fake.got["opsgenie"]
    assert headers["authorization"] == f"GenieKey {key}"
    assert alert["message"] == "[Argo CD] Application shop has a problem."
    assert alert["responders"] == [{"type": "team", "id": "platform", "username": ""}]
    assert alert["source"] == "Argo CD" and alert["priority"] == "P1" and alert["alias"] == "shop"
    assert alert["description"].startswith("Application: shop\nHealth Status: Degraded")
    assert alert["visibleTo"] == [
        {"type": "team", "id": "4513b7ea-3b91-438f-b7e4-e3e54af9147c", "username": ""},
        {"type": "team", "name": "rocket_team", "username": ""},
        {"type": "user", "id": "bb4d9938-c3c2-455d-aaab-727aa701c0d8", "username": ""},
        {"type": "user", "username": "trinity@opsgenie.com"},
    ]
    assert alert["details"] == {"environment": "production", "service": "web"}
    assert alert["tags"] == ["OverwriteQuietHours", "Critical"]
    empty = refused(sink, notified("platform", "opsgenie", {"description": "d"}, message=" "))
    assert empty.permanent and "Message can not be empty." in str(empty)
    fake.fail_next("opsgenie", 429, {"message": "Too many requests", "took": 0.0})
    assert not refused(sink, notified("platform", "opsgenie")).permanent
    wrong = OpsgenieSink(fake.url, {"platform": "not-the-key"})
    denied = refused(wrong, notified("platform", "opsgenie"))
    assert denied.permanent and "Could not authenticate" in str(denied)
    assert "not-the-key" not in str(denied)
    nobody = refused(sink, notified("sre", "opsgenie"))
    assert nobody.permanent and "no API key for team 'sre'" in str(nobody)
    sink.close()
    wrong.close()


def test_opsgenie_takes_a_host_as_upstream_does() -> None:
    assert alerts_url("api.eu.opsgenie.com") == "https://api.eu.opsgenie.com/v2/alerts"
    assert alerts_url("") == "https://api.opsgenie.com/v2/alerts"
    assert alerts_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/v2/alerts"
    assert alerts_url("127.0.0.1:8080") == "http://127.0.0.1:8080/v2/alerts"  # the SDK's rule


# -- PagerDuty ------------------------------------------------------------------------

PAGERDUTY_DOC = """
pagerdutyv2:
  summary: "Rollout {{.rollout.metadata.name}} is aborted."
  severity: "critical"
  source: "{{.rollout.metadata.name}}"
"""
"""docs/services/pagerduty_v2.md, "Template"."""


def test_pagerduty_triggers_the_documented_event(fake: FakeServices) -> None:
    key = Accounts().pagerduty_keys[0]
    sink = PagerDutySink({"my-service": key}, api=fake.url)
    documented = block(PAGERDUTY_DOC, "pagerdutyv2")
    linked = {**documented, "dedupKey": "shop-1", "url": "https://argocd.example.com"}
    sink.send(notified("my-service", "pagerdutyv2", linked))
    [(_, event, _)] = fake.got["pagerdutyv2"]
    assert event == {
        "routing_key": key, "event_action": "trigger", "client": "ArgoCD",
        "client_url": "https://argocd.example.com", "dedup_key": "shop-1",
        "payload": {"summary": "Rollout shop is aborted.", "severity": "critical",
                    "source": "shop"},
    }  # fmt: skip
    invalid = refused(
        sink, notified("my-service", "pagerdutyv2", {**documented, "severity": "high"})
    )
    assert invalid.permanent
    assert str(invalid) == (
        "PagerDuty answered 400: Event object is invalid ('payload.severity' is invalid (must "
        "be one of: critical, error, warning, info))"
    )
    fake.fail_next("pagerdutyv2", 429, {"status": "throttle event", "message": "Requests for "
                                        "this service are arriving too quickly."})  # fmt: skip
    assert not refused(sink, notified("my-service", "pagerdutyv2", documented)).permanent
    fake.fail_next("pagerdutyv2", 500, "")
    assert not refused(sink, notified("my-service", "pagerdutyv2", documented)).permanent
    none = refused(sink, notified("my-service", "pagerdutyv2"))
    assert none.permanent and "no pagerdutyv2 block" in str(none)
    assert key not in str(invalid)
    sink.close()


# -- Google Chat ----------------------------------------------------------------------

GOOGLECHAT_DOC = """
googlechat:
  cardsV2: |
    - header:
        title: ArgoCD Bot Notification
      sections:
        - widgets:
            - decoratedText:
                text: The app {{ .app.metadata.name }} has successfully synced!
        - widgets:
            - decoratedText:
                topLabel: Repository
                text: {{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}
            - decoratedText:
                topLabel: Revision
                text: {{ .app.spec.source.targetRevision }}
            - decoratedText:
                topLabel: Author
                text: {{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }}
  threadKey: shop
"""
"""docs/services/googlechat.md, a card message and "Chat Threads"."""


def test_googlechat_posts_the_documented_card_in_its_thread(fake: FakeServices) -> None:
    url = f"{fake.url}/v1/spaces/AAAA-space/messages?key=AIzaSy-key&token=tok-en"
    sink = GoogleChatSink({"spaceName": url})
    sink.send(notified("spaceName", "googlechat", block(GOOGLECHAT_DOC, "googlechat")))
    sink.send(notified("spaceName", "googlechat"))
    (_, card, query), (_, plain, plain_query) = fake.got["googlechat"]
    assert query == {"key": "AIzaSy-key", "token": "tok-en", "threadKey": "shop",
                     "messageReplyOption": "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"}  # fmt: skip
    assert card["text"] == ""
    [posted] = card["cardsV2"]
    assert len(posted["cardId"]) == 36 and posted["card"]["header"]["title"] == (
        "ArgoCD Bot Notification"
    )
    widgets = posted["card"]["sections"][1]["widgets"]
    assert widgets[0]["decoratedText"] == {"topLabel": "Repository",
                                           "text": "https://github.com/acme/gitops"}  # fmt: skip
    assert plain == {"text": "Application shop is now running new version."}
    assert "threadKey" not in plain_query
    stranger = GoogleChatSink({"spaceName": url.replace("tok-en", "stolen-s3cr3t")})
    denied = refused(stranger, notified("spaceName", "googlechat"))
    assert denied.permanent and "UNAUTHENTICATED" in str(denied)
    assert "s3cr3t" not in str(denied) and "AIzaSy" not in str(denied)
    fake.fail_next("googlechat", 429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                                 "message": "Quota exceeded"}})  # fmt: skip
    assert not refused(sink, notified("spaceName", "googlechat")).permanent
    broken = refused(sink, notified("spaceName", "googlechat", {"cardsV2": "- a: [b"}))
    assert broken.permanent and "cardsV2 is not YAML at 1:8" in str(broken)
    sink.close()
    stranger.close()


# -- Mattermost -----------------------------------------------------------------------

MATTERMOST_DOC = """
mattermost:
  attachments: |
    [{
      "title": "{{.app.metadata.name}}",
      "title_link": "{{.context.argocdUrl}}/applications/{{.app.metadata.name}}",
      "color": "#18be52",
      "fields": [{
        "title": "Sync Status",
        "value": "{{.app.status.sync.status}}",
        "short": true
      }, {
        "title": "Repository",
        "value": "{{.app.spec.source.repoURL}}",
        "short": true
      }]
    }]
"""
"""docs/services/mattermost.md, "Templates"."""


def test_mattermost_posts_the_documented_attachments(fake: FakeServices) -> None:
    channel = Accounts().mattermost_channels[0]
    sink = MattermostSink(fake.url + "/", "mm-bot-token")
    sink.send(notified(channel, "mattermost", block(MATTERMOST_DOC, "mattermost")))
    [(headers, post, _)] = fake.got["mattermost"]
    assert headers["authorization"] == "Bearer mm-bot-token"
    assert post["channel_id"] == channel
    assert post["message"] == "Application shop is now running new version."
    [attachment] = post["props"]["attachments"]
    assert attachment["title_link"] == "https://argocd.example.com/applications/shop"
    assert attachment["fields"][0] == {"title": "Sync Status", "value": "Synced", "short": True}
    other = refused(sink, notified("9" * 26, "mattermost"))
    assert other.permanent and "You do not have the appropriate permissions." in str(other)
    malformed = refused(sink, notified("town-square", "mattermost"))
    assert malformed.permanent and "Invalid or missing channel_id" in str(malformed)
    expired = MattermostSink(fake.url, "old-token-s3cr3t")
    session = refused(expired, notified(channel, "mattermost"))
    assert session.permanent and "401" in str(session) and "s3cr3t" not in str(session)
    fake.fail_next("mattermost", 503, "")
    assert not refused(sink, notified(channel, "mattermost")).permanent
    sink.close()
    expired.close()


# -- Grafana --------------------------------------------------------------------------


def test_grafana_annotates_with_the_recipients_tags(fake: FakeServices) -> None:
    sink = GrafanaSink(f"{fake.url}/api", "glsa_grafana-key", clock=lambda: 1732442400.9)
    sink.send(notified("tag1|tag2", "grafana"))  # docs/services/grafana.md's subscription
    [(headers, annotation, _)] = fake.got["grafana"]
    assert headers["authorization"] == "Bearer glsa_grafana-key"
    assert annotation == {"time": 1732442400000, "isRegion": False, "tags": ["tag1", "tag2"],
                          "text": "Application shop is now running new version."}  # fmt: skip
    wrong = GrafanaSink(f"{fake.url}/api", "glsa_wrong-s3cr3t")
    denied = refused(wrong, notified("tag1", "grafana"))
    assert denied.permanent and str(denied) == "Grafana answered 401: invalid API key"
    fake.fail_next("grafana", 201, {"message": "Annotation added"})  # upstream: only 200
    assert refused(sink, notified("tag1", "grafana")).permanent
    sink.close()
    wrong.close()


@pytest.mark.parametrize(
    ("api", "url"),
    [
        ("https://grafana.example.com/api", "https://grafana.example.com/api/annotations"),
        ("https://grafana.example.com/api/", "https://grafana.example.com/api/annotations"),
        ("https://grafana.example.com", "https://grafana.example.com/annotations"),
    ],
)
def test_grafana_joins_the_path_as_go_does(api: str, url: str) -> None:
    assert annotations_url(api) == url


# -- Alertmanager ---------------------------------------------------------------------

ALERTMANAGER_DOC = """
alertmanager:
  labels:
    fault_priority: "P5"
    event_bucket: "deploy"
    event_status: "succeed"
    recipient: "{{.recipient}}"
  annotations:
    application: '<a href="{{.context.argocdUrl}}/applications/{{.app.metadata.name}}">{{.app.metadata.name}}</a>'
    author: "{{(call .repo.GetCommitMetadata .app.status.sync.revision).Author}}"
    message: "{{(call .repo.GetCommitMetadata .app.status.sync.revision).Message}}"
"""  # noqa: E501
"""docs/services/alertmanager.md, "Templates"."""


def test_alertmanager_posts_one_alert_to_each_target(fake: FakeServices) -> None:
    target = fake.url.removeprefix("http://")
    down = "127.0.0.1:9"  # nothing listens on the discard port
    sink = AlertmanagerSink([down, target], clock=lambda: 1732442400.0, timeout=2)
    sink.send(notified("", "alertmanager", block(ALERTMANAGER_DOC, "alertmanager")))
    [(headers, alerts, _)] = fake.got["alertmanager"]
    assert headers["content-type"] == "application/json"
    [alert] = alerts
    assert alert["labels"] == {"fault_priority": "P5", "event_bucket": "deploy",
                               "event_status": "succeed", "recipient": "ops",
                               "alertname": "app-deployed"}  # fmt: skip
    assert alert["annotations"]["author"] == "dev"
    assert alert["generatorURL"] == "https://github.com/acme/gitops.git"
    assert alert["startsAt"] == "2024-11-24T10:00:00Z"
    named = {"labels": {"alertname": "app-deployed-now"}}
    sink.send(notified("", "alertmanager", named))
    assert fake.got["alertmanager"][1][1][0]["labels"] == {"alertname": "app-deployed-now"}
    none = refused(sink, notified("", "alertmanager", {"annotations": {"a": "b"}}))
    assert none.permanent and "at least one label" in str(none)
    fake.fail_next("alertmanager", 400, "labels: invalid label set")
    bad = refused(sink, notified("", "alertmanager", named))
    assert not bad.permanent  # the other target's failure (refused) may pass
    alone = AlertmanagerSink([target])
    fake.fail_next("alertmanager", 400, "labels: invalid label set")
    dead = refused(alone, notified("", "alertmanager", named))
    assert dead.permanent and "labels: invalid label set" in str(dead)
    sink.close()
    alone.close()


def test_alertmanager_turns_git_urls_into_links() -> None:
    assert http_url("git@github.com:acme/gitops.git") == "https://github.com/acme/gitops.git"
    assert http_url("https://example.com/x") == "https://example.com/x"


# -- Pushover -------------------------------------------------------------------------


def test_pushover_sends_the_message_to_the_user_key(fake: FakeServices) -> None:
    accounts = Accounts()
    sink = PushoverSink(accounts.pushover_token, api=fake.url)
    user = accounts.pushover_users[0]
    sink.send(notified(user, "pushover"))
    [(headers, form, _)] = fake.got["pushover"]
    assert headers["content-type"] == "application/x-www-form-urlencoded"
    assert form == {"token": accounts.pushover_token, "user": user, "priority": "0",
                    "message": "Application shop is now running new version."}  # fmt: skip
    stranger = refused(sink, notified("uumy8u4owy7bgkapp6mc5mvhfsvpcd", "pushover"))
    assert stranger.permanent and "user identifier is not a valid user" in str(stranger)
    assert accounts.pushover_token not in str(stranger)
    fake.fail_next("pushover", 429, {"status": 0, "errors": ["message limit reached"]})
    assert not refused(sink, notified(user, "pushover")).permanent
    sink.close()


# -- Webex ----------------------------------------------------------------------------


def test_webex_writes_to_a_person_or_a_room(fake: FakeServices) -> None:
    sink = WebexSink("webex-bot-token", api=fake.url + "/")
    room = Accounts().webex_rooms[0]
    sink.send(notified("dev@example.com", "webex", message="**shop** deployed"))
    sink.send(notified(room, "webex"))
    (headers, person, _), (_, in_room, _) = fake.got["webex"]
    assert headers["authorization"] == "Bearer webex-bot-token"
    assert person == {"toPersonEmail": "dev@example.com", "markdown": "**shop** deployed"}
    assert in_room == {"roomId": room, "markdown": "Application shop is now running new version."}
    lost = refused(sink, notified("Y2lzY29zcGFyazovL3VzL1JPT00vbm9uZQ", "webex"))
    assert lost.permanent and "Could not find a room with provided ID." in str(lost)
    fake.fail_next("webex", 429, {"message": "Too Many Requests"}, retry_after=30)
    busy = refused(sink, notified(room, "webex"))
    assert not busy.permanent and busy.retry_after == 30.0
    sink.close()


def test_a_service_refuses_an_event_no_trigger_sent() -> None:
    sink = WebexSink("webex-bot-token", api="http://127.0.0.1:9")
    event = {"specversion": "1.0", "id": "e1", "type": "app.deployed", "data": {}}
    error = refused(sink, event)
    assert error.permanent and "subscribe it to a trigger" in str(error)
    sink.close()


def test_a_network_failure_is_retried_and_names_no_url() -> None:
    sink = TelegramSink("123456:s3cr3t", api="http://127.0.0.1:9")
    error = refused(sink, notified("deploys", "telegram"))
    assert not error.permanent and str(error).startswith("cannot reach Telegram: ")
    assert "s3cr3t" not in str(error) and "127.0.0.1" not in str(error)
    sink.close()


def test_the_documented_payloads_are_json_the_fakes_parse() -> None:
    """The fixtures above are the docs' own: each JSON-in-YAML value parses."""
    for document, kind, keys in (
        (TEAMS_DOC, "teams", ("sections", "potentialAction", "facts")),
        (WORKFLOWS_DOC, "teams-workflows", ("facts", "sections", "potentialAction")),
        (MATTERMOST_DOC, "mattermost", ("attachments",)),
    ):
        found = block(document, kind)
        for key in keys:
            assert isinstance(json.loads(found[key]), list)


def test_the_delivery_retries_what_may_pass_and_buries_what_cannot(fake: FakeServices) -> None:
    """The sinks' errors, through the worker that delivers them: Telegram's 503 is tried
    again and delivered, its ``chat not found`` is a dead letter at once, with the reason
    and without the token."""
    token = Accounts().telegram_token
    sink = TelegramSink(token, api=fake.url)
    store = Store()
    store.record("argocd/shop", None, None, [
        Outgoing("telegram", "n1", notified("argocd_deploys", "telegram")),
        Outgoing("telegram", "n2", notified("-1009", "telegram")),
    ])  # fmt: skip
    unavailable = {"ok": False, "error_code": 503, "description": "Service Unavailable"}
    fake.fail_next("telegram", 503, unavailable)
    delivery = Delivery(store, sink, Policy(base=0.0), secrets=(token,))
    assert delivery.drain_once() == 0 and store.dead_letters("telegram") == []
    assert delivery.drain_once() == 1
    [(dead, reason)] = store.dead_letters("telegram")
    assert dead == "n2" and reason == "Telegram answered 400: Bad Request: chat not found"
    assert store.pending("telegram") == [] and len(fake.got["telegram"]) == 1
    sink.close()
