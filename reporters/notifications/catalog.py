"""The triggers and templates every configuration has, as Argo CD's notifications catalog
gives them: a team subscribes to ``on-deployed`` without writing it. A configuration may
define any of these names again, and its definition wins.

Each condition names the event type and, where a state is meant, the app's state too:
``for:`` checks the condition again when its time is up, against the app as it is then.
Conditions are expr and templates Go templates, as in Argo CD's catalog; they also read
``event``, the CloudEvent the reporter made of the change.
"""

from __future__ import annotations

from typing import Any

TRIGGERS: dict[str, list[dict[str, Any]]] = {
    "on-created": [{"when": "event.type == 'app.created'", "send": ["app-created"]}],
    "on-deleted": [{"when": "event.type == 'app.deleted'", "send": ["app-deleted"]}],
    "on-deployed": [
        {
            "when": "event.type == 'app.deployed'",
            "send": ["app-deployed"],
            "oncePer": "event.data.revision",
        }
    ],
    "on-health-degraded": [
        {
            "when": "event.type == 'app.health-degraded' "
            "and app.status.health.status == 'Degraded'",
            "send": ["app-health-degraded"],
        }
    ],
    "on-sync-running": [{"when": "event.type == 'app.sync-started'", "send": ["app-sync-running"]}],
    "on-sync-succeeded": [
        {"when": "event.type == 'app.sync-succeeded'", "send": ["app-sync-succeeded"]}
    ],
    "on-sync-failed": [{"when": "event.type == 'app.sync-failed'", "send": ["app-sync-failed"]}],
    "on-promotion-succeeded": [
        {"when": "event.type == 'promotion.succeeded'", "send": ["promotion-succeeded"]}
    ],
    "on-promotion-failed": [
        {"when": "event.type == 'promotion.failed'", "send": ["promotion-failed"]}
    ],
    "on-promotion-waiting-approval": [
        {"when": "event.type == 'promotion.waiting-approval'", "send": ["promotion-waiting"]}
    ],
    "on-config-refused": [{"when": "event.type == 'config.refused'", "send": ["config-refused"]}],
}

DEFAULT_TRIGGERS = ["on-deployed", "on-health-degraded", "on-sync-failed", "on-promotion-failed"]
"""Used by a subscription that names no triggers, unless ``defaultTriggers`` says otherwise."""

_NAME = "{{.app.metadata.name}}"
_VERSION = (
    "{{with .event.data.version}}{{.}}{{else}}{{trunc 12 (toString .event.data.revision)}}{{end}}"
)
_MESSAGE = '{{default "no message" .event.data.message}}'

TEMPLATES: dict[str, dict[str, Any]] = {
    "app-created": {"message": f"Application {_NAME} was created."},
    "app-deleted": {"message": f"Application {_NAME} was deleted."},
    "app-deployed": {"message": f"Application {_NAME} is now running {_VERSION}."},
    "app-health-degraded": {"message": f"Application {_NAME} is Degraded: {_MESSAGE}"},
    "app-sync-running": {"message": f"Application {_NAME} is syncing {_VERSION}."},
    "app-sync-succeeded": {"message": f"Application {_NAME} synced {_VERSION}."},
    "app-sync-failed": {"message": f"Sync of {_NAME} failed: {_MESSAGE}"},
    "promotion-succeeded": {
        "message": "Promotion of {{.event.data.product}} {{.event.data.version}} succeeded."
    },
    "promotion-failed": {
        "message": "Promotion of {{.event.data.product}} {{.event.data.version}} failed"
        "{{range .event.data.failures}}; {{.step}}: {{.message}}{{end}}."
    },
    "config-refused": {
        "message": "promoflow refused its configuration from {{.event.data.source}}: "
        "{{.event.data.message}}{{range .event.data.problems}}\n{{.}}{{end}}"
    },
    "promotion-waiting": {
        "message": "{{.event.data.product}} {{.event.data.version}} waits for approval to "
        "{{.event.data.environment}}: {{.event.data.link}}"
    },
}
