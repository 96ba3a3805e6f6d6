"""The inputs of the notification services' vectors: for each service, notifications as
notifications-engine's documentation writes their templates (rendered), and the edges of
what its Send reads (no block, a recipient with a thread, a fact whose value is a number),
and what its Send refuses (a chat id Go cannot parse, JSON that is not, a missing block).

``python tests/vectors/notify_services/inputs.py | (cd tests/vectors/notify_services &&``
``GOFLAGS=-mod=mod go run .) > tests/vectors/notify_services/vectors.jsonl`` regenerates the
committed vectors with notifications-engine itself.
"""

from __future__ import annotations

import json
from typing import Any

MESSAGE = "Application shop is now running new version."
FACTS = json.dumps(
    [
        {"name": "Sync Status", "value": "Synced"},
        {"name": "Repository", "value": "https://github.com/acme/gitops.git"},
    ]
)
SECTIONS = json.dumps(
    [
        {
            "facts": [
                {"name": "Namespace", "value": "argocd"},
                {"name": "Cluster", "value": "https://kubernetes.default.svc"},
            ]
        }
    ]
)
ACTIONS = json.dumps(
    [
        {
            "@type": "OpenUri",
            "name": "Operation Details",
            "targets": [{"os": "default", "uri": "https://argocd.example.com/applications/shop"}],
        }
    ]
)
TEAMS_FULL = {
    "title": "Application shop has been successfully synced",
    "text": "Application shop has been successfully synced at 2026-11-27T12:00:00Z.",
    "summary": "shop sync succeeded",
    "themeColor": "#000080",
    "facts": FACTS,
    "sections": SECTIONS,
    "potentialAction": ACTIONS,
}
CARD = {
    "type": "AdaptiveCard",
    "version": "1.4",
    "body": [
        {"type": "TextBlock", "text": "shop synced", "size": "Large"},
        {"type": "ColumnSet", "columns": [{"type": "Column", "items": []}]},
    ],
}
CARDS_V2 = """- header:
    title: ArgoCD Bot Notification
  sections:
    - widgets:
        - decoratedText:
            text: The app shop has successfully synced!
    - widgets:
        - decoratedText:
            topLabel: Repository
            text: https://github.com/acme/gitops
"""
CARDS = """- sections:
    - widgets:
        - textParagraph:
            text: The app shop has successfully synced!
"""
ATTACHMENTS = json.dumps(
    [
        {
            "title": "shop",
            "title_link": "https://argocd.example.com/applications/shop",
            "color": "#18be52",
            "fields": [{"title": "Sync Status", "value": "Synced", "short": True}],
        }
    ]
)
OPSGENIE = {
    "description": "Application: shop\nHealth Status: Degraded\n",
    "priority": "P1",
    "alias": "shop",
    "note": "Error from Argo CD!",
    "actions": ["Restart"],
    "tags": ["OverwriteQuietHours", "Critical"],
    "details": {"environment": "production"},
    "entity": "Argo CD Application",
    "user": "John Doe",
    "visibleTo": [
        {"type": "team", "id": "4513b7ea"},
        {"type": "user", "username": "t@example.com"},
    ],
}


def case(
    name: str, service: str, options: dict[str, Any], recipient: str, notification: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "service": service,
        "options": options,
        "recipient": recipient,
        "notification": {"message": MESSAGE, **notification},
    }


def inputs() -> list[dict[str, Any]]:
    teams = {"recipientUrls": {"deploys": "BASE/teams/IncomingWebhook-abc"}}
    flows = {"recipientUrls": {"deploys": "BASE/powerautomate/automations/direct/workflows/f1"}}
    chat = {"webhooks": {"space": "BASE/v1/spaces/AAA/messages?key=k1&token=t1"}}
    odd_facts = json.dumps(
        [
            {"name": "Replicas", "value": 3},
            {"name": "Ready", "value": True},
            {"value": "no name"},
            {"name": "Ratio", "value": 0.5},
        ]
    )
    odd_actions = json.dumps(
        [
            {"@type": "HttpPOST", "name": "Post", "target": "https://x"},
            {"@type": "OpenUri", "name": "No target", "targets": []},
            {"@type": "OpenUri", "targets": [{"os": "default", "uri": "https://y"}]},
        ]
    )
    mail = {"host": "127.0.0.1", "port": "SMTPPORT", "from": "argocd@example.com"}
    subject = {"email": {"subject": "Application shop has been successfully synced."}}
    return [
        case(
            "email: the documented subject, the message as body",
            "email",
            mail,
            "dev@example.com",
            subject,
        ),
        case(
            "email: a body of its own, to two",
            "email",
            mail,
            "dev@example.com, ops@example.com",
            {"email": {"subject": "s", "body": "Sync of shop: Succeeded\nRevision: abc"}},
        ),
        case(
            "email: html",
            "email",
            {**mail, "html": True},
            "dev@example.com",
            {"email": {"subject": "s", "body": "<b>shop</b> synced"}},
        ),
        case("teams: the documented card", "teams", teams, "deploys", {"teams": TEAMS_FULL}),
        case("teams: the message alone", "teams", teams, "deploys", {}),
        case("teams: facts alone", "teams", teams, "deploys", {"teams": {"facts": FACTS}}),
        case(
            "teams: a template of its own",
            "teams",
            teams,
            "deploys",
            {"teams": {"template": '{"@type":"MessageCard","text":"own"}', "title": "ignored"}},
        ),
        case(
            "teams-workflows: the documented fields",
            "teams-workflows",
            flows,
            "deploys",
            {"teams-workflows": {**TEAMS_FULL, "themeColor": "Good"}},
        ),
        case("teams-workflows: the message alone", "teams-workflows", flows, "deploys", {}),
        case(
            "teams-workflows: a card of its own",
            "teams-workflows",
            flows,
            "deploys",
            {"teams-workflows": {"adaptiveCard": json.dumps(CARD), "title": "ignored"}},
        ),
        case(
            "teams-workflows: facts of other types, actions it drops",
            "teams-workflows",
            flows,
            "deploys",
            {"teams-workflows": {"facts": odd_facts, "potentialAction": odd_actions}},
        ),
        case("telegram: a channel's username", "telegram", {"token": "123:tok"}, "argocd", {}),
        case("telegram: a chat id", "telegram", {"token": "123:tok"}, "-1000000000000", {}),
        case("telegram: a chat's topic", "telegram", {"token": "123:tok"}, "-1000000000000|2", {}),
        *(
            case(f"telegram: recipient {r!r}", "telegram", {"token": "123:tok"}, r, {})
            for r in (
                "-1000000000000|+2",
                "-100x",
                "-1001|two",
                "-1001|",
                "-1001| 2",
                "-",
                "-99999999999999999999",
                "-1001|99999999999999999999",
                "+100",
            )
        ),
        case(
            "teams: facts that are not JSON", "teams", teams, "deploys", {"teams": {"facts": "[{"}}
        ),
        case(
            "teams-workflows: sections that are not JSON",
            "teams-workflows",
            flows,
            "deploys",
            {"teams-workflows": {"sections": "{"}},
        ),
        case(
            "mattermost: attachments that are not JSON",
            "mattermost",
            {"apiURL": "BASE", "token": "mm"},
            "4xp9fdt77pncbef59f4k1qe83o",
            {"mattermost": {"attachments": "nope"}},
        ),
        case(
            "opsgenie: a block without a description",
            "opsgenie",
            {"apiUrl": "HOSTPORT", "apiKeys": {"team": "key-1"}},
            "team",
            {"opsgenie": {"priority": "P1"}},
        ),
        case(
            "opsgenie: a team without a key",
            "opsgenie",
            {"apiUrl": "HOSTPORT", "apiKeys": {"team": "key-1"}},
            "other",
            {},
        ),
        case(
            "pagerdutyv2: no block",
            "pagerdutyv2",
            {"serviceKeys": {"my-service": "R0"}},
            "my-service",
            {},
        ),
        case(
            "alertmanager: no labels",
            "alertmanager",
            {"targets": ["HOSTPORT"]},
            "",
            {"alertmanager": {"annotations": {"a": "b"}}},
        ),
        case(
            "opsgenie: the documented alert",
            "opsgenie",
            {"apiUrl": "HOSTPORT", "apiKeys": {"team": "key-1"}, "insecureSkipVerify": True},
            "team",
            {"opsgenie": OPSGENIE},
        ),
        case(
            "opsgenie: a description alone",
            "opsgenie",
            {"apiUrl": "HOSTPORT", "apiKeys": {"team": "key-1"}, "insecureSkipVerify": True},
            "team",
            {"opsgenie": {"description": "d"}},
        ),
        case(
            "pagerdutyv2: the documented event",
            "pagerdutyv2",
            {"serviceKeys": {"my-service": "R0"}},
            "my-service",
            {
                "pagerdutyv2": {
                    "summary": "Rollout shop is aborted.",
                    "severity": "critical",
                    "source": "shop",
                }
            },
        ),
        case(
            "pagerdutyv2: every field",
            "pagerdutyv2",
            {"serviceKeys": {"my-service": "R0"}},
            "my-service",
            {
                "pagerdutyv2": {
                    "summary": "s",
                    "severity": "error",
                    "source": "shop",
                    "component": "api",
                    "group": "prod",
                    "class": "deploy",
                    "url": "https://argocd.example.com/applications/shop",
                    "dedupKey": "shop-1",
                }
            },
        ),
        case("googlechat: the message alone", "googlechat", chat, "space", {}),
        case(
            "googlechat: the documented cardsV2, in a thread",
            "googlechat",
            chat,
            "space",
            {"googlechat": {"cardsV2": CARDS_V2, "threadKey": "shop"}},
        ),
        case(
            "googlechat: legacy cards",
            "googlechat",
            chat,
            "space",
            {"googlechat": {"cards": CARDS}},
        ),
        case(
            "mattermost: the documented attachments",
            "mattermost",
            {"apiURL": "BASE", "token": "mm"},
            "4xp9fdt77pncbef59f4k1qe83o",
            {"mattermost": {"attachments": ATTACHMENTS}},
        ),
        case(
            "mattermost: the message alone",
            "mattermost",
            {"apiURL": "BASE", "token": "mm"},
            "4xp9fdt77pncbef59f4k1qe83o",
            {},
        ),
        case("grafana: tags", "grafana", {"apiUrl": "BASE/api", "apiKey": "glsa"}, "tag1|tag2", {}),
        case(
            "grafana: an API at the root", "grafana", {"apiUrl": "BASE", "apiKey": "glsa"}, "t", {}
        ),
        case(
            "alertmanager: labels and annotations",
            "alertmanager",
            {"targets": ["HOSTPORT"], "bearerToken": "bt"},
            "",
            {
                "alertmanager": {
                    "labels": {"alertname": "app-deployed", "event_bucket": "deploy"},
                    "annotations": {"author": "dev"},
                    "generatorURL": "https://github.com/acme/gitops",
                }
            },
        ),
        case(
            "alertmanager: basic auth over a bearer token",
            "alertmanager",
            {
                "targets": ["HOSTPORT"],
                "apiPath": "/api/events",
                "bearerToken": "bt",
                "basicAuth": {"username": "u", "password": "p"},
            },
            "",
            {"alertmanager": {"labels": {"alertname": "a"}, "generatorURL": "https://x"}},
        ),
        case(
            "pushover: a user key",
            "pushover",
            {"token": "avtc41pn13asmra6zaiyf7dh6cgx97"},
            "uumy8u4owy7bgkapp6mc5mvhfsvpcd",
            {},
        ),
        case("webex: a person", "webex", {"token": "wt", "apiURL": "BASE/"}, "dev@example.com", {}),
        case(
            "webex: a room", "webex", {"token": "wt", "apiURL": "BASE"}, "Y2lzY29zcGFyazovL3Vz", {}
        ),
    ]


if __name__ == "__main__":
    for item in inputs():
        print(json.dumps(item))
