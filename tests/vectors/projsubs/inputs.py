"""The inputs of the project subscription vectors: an app's annotations and its
AppProject's, in every form Argo CD reads, edge cases and seeded random mixes.

``python tests/vectors/projsubs/inputs.py | (cd tests/vectors/projsubs && go run .)``
``> tests/vectors/projsubs/vectors.jsonl`` regenerates the committed vectors with Argo CD
v3.2.11's own code. Every service and trigger named is one the conformance test's
configuration has, except where a case says otherwise (those the reporter tells and drops).
"""

from __future__ import annotations

import json
import random

LEGACY = "recipients.argocd-notifications.argoproj.io"
SUB = "notifications.argoproj.io/subscribe"
LIST = "notifications.argoproj.io/subscriptions"
SERVICES = ["slack", "audit", "pager"]
TRIGGERS = ["on-a", "on-b", "on-c"]
DEFAULTS = {"defaultTriggers": ["on-a"], "serviceDefaultTriggers": {"pager": ["on-c"]}}

EDGES: list[tuple[str, dict[str, str], dict[str, str] | None]] = [
    ("no project", {f"{SUB}.on-a.slack": "x"}, None),
    ("a project without annotations", {f"{SUB}.on-a.slack": "x"}, {}),
    ("a project's trigger and service", {}, {f"{SUB}.on-b.slack": "a;b"}),
    ("a project's service alone", {}, {f"{SUB}.slack": "a", f"{SUB}.pager": "p"}),
    ("a project's webhook", {}, {f"{SUB}.on-b.audit": ""}),
    (
        "a project's list",
        {},
        {
            LIST: "- trigger: [on-b, on-c]\n  destinations:\n"
            "  - {service: slack, recipients: [a, b]}\n"
        },
    ),
    (
        "the app's and the project's the same",
        {f"{SUB}.on-a.slack": "x"},
        {f"{SUB}.on-a.slack": "x;y"},
    ),
    (
        "a project's subscription and its legacy one the same",
        {},
        {f"{SUB}.on-b.slack": "x", f"on-b.{LEGACY}": "slack:x"},
    ),
    ("legacy, the default triggers", {}, {LEGACY: "slack:x"}),
    ("legacy, a trigger", {}, {f"on-b.{LEGACY}": "slack:x"}),
    ("legacy, a service alone", {}, {f"on-b.{LEGACY}": "audit"}),
    ("legacy, several", {}, {f"on-b.{LEGACY}": "slack:x,audit, slack:y"}),
    ("legacy, spaces and empty parts", {}, {f"on-b.{LEGACY}": " , slack:x ,,  audit ,"}),
    ("legacy, an empty value", {}, {f"on-b.{LEGACY}": ""}),
    ("legacy, colons", {}, {f"on-b.{LEGACY}": "slack:x:y,slack::z,slack:"}),
    ("legacy, a service's own triggers win", {}, {f"on-b.{LEGACY}": "pager:p"}),
    ("legacy, dots before the suffix", {}, {f"on-b...{LEGACY}": "slack:x"}),
    ("legacy, no dot before the suffix", {}, {f"on-b{LEGACY}": "slack:x"}),
    ("legacy, a dot alone", {}, {f".{LEGACY}": "slack:x"}),
    ("legacy, an unknown service", {}, {f"on-b.{LEGACY}": "teams:x,slack:y"}),
    ("legacy, an unknown trigger", {}, {f"on-z.{LEGACY}": "slack:x"}),
    ("legacy, both kinds of key", {}, {LEGACY: "slack:d", f"on-c.{LEGACY}": "slack:c"}),
    ("legacy, on the app: not read", {LEGACY: "slack:x", f"on-b.{LEGACY}": "audit"}, {}),
    ("legacy, spaces around the colon", {}, {f"on-b.{LEGACY}": "slack : x"}),
]


def _annotations(rng: random.Random, legacy: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for _ in range(rng.randint(0, 3)):
        service, trigger = rng.choice(SERVICES), rng.choice(TRIGGERS)
        recipients = ";".join(rng.sample(["x", "y", "z", " w "], rng.randint(0, 2)))
        kind = rng.randrange(4 if legacy else 2)
        if kind == 0:
            out[f"{SUB}.{trigger}.{service}"] = recipients
        elif kind == 1:
            out[f"{SUB}.{service}"] = recipients
        else:
            named = f"{trigger}." if kind == 2 else ""
            parts = [f"{rng.choice(SERVICES)}:{rng.choice('xyz')}" for _ in range(2)]
            out[f"{named}{LEGACY}"] = ",".join(parts)
    return out


def main() -> None:
    for name, app, project in EDGES:
        print(json.dumps({"name": name, "app": app, "project": project, **DEFAULTS}))
    no_defaults: dict[str, object] = {"defaultTriggers": [], "serviceDefaultTriggers": {}}
    print(json.dumps({"name": "no default triggers", "app": {f"{SUB}.slack": "x"},
                      "project": {LEGACY: "slack:x", f"on-b.{LEGACY}": "slack:y"},
                      **no_defaults}))  # fmt: skip
    rng = random.Random(20261127)
    for index in range(200):
        defaults = {
            "defaultTriggers": rng.sample(TRIGGERS, rng.randint(0, 2)),
            "serviceDefaultTriggers": {
                s: rng.sample(TRIGGERS, rng.randint(0, 2))
                for s in rng.sample(SERVICES, rng.randint(0, 2))
            },
        }
        app = _annotations(rng, legacy=False)
        project = _annotations(rng, legacy=True) if rng.random() < 0.85 else None
        print(json.dumps({"name": f"random {index}", "app": app, "project": project, **defaults}))


if __name__ == "__main__":
    main()
