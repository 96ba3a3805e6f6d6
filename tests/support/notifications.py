"""A reporter pipeline's notifications, seen from its outbox: an app to change, a deploy to
make it go through, and what each sink was sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reporters.notifications.config import Notifications, load
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.reporter_apps import OLD, app, finished


def shop(revision: str = OLD, **kw: Any) -> dict[str, Any]:
    one = app(revision, **kw)
    one["metadata"]["labels"] = {
        "promoflow.dev/product": "shop",
        "promoflow.dev/environment": "dev",
    }
    return one


def outbox(store: Store, sink: str) -> list[dict[str, Any]]:
    return [row.event for row in store.pending(sink, limit=1000)]


def sent(store: Store, sink: str, template: str) -> list[dict[str, Any]]:
    return [e for e in outbox(store, sink) if e["data"]["notification"]["template"] == template]


def deploy(pipeline: Pipeline, revision: str, at: str, name: str = "shop-dev") -> None:
    done = app(revision, op={**finished(at=at), "syncResult": {"revision": revision}})
    done["status"]["reconciledAt"] = at.replace(":00Z", ":05Z")
    done["metadata"].update((pipeline.seen.get(f"argocd/{name}") or shop())["metadata"])
    done["metadata"]["name"] = name
    pipeline.handle(f"argocd/{name}", done)


HEADER = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-notifications-cm
data:
  service.slack: |
    token: xoxb-test
"""


def configmap(data: str) -> str:
    """An argocd-notifications-cm with a Slack bot and ``data``'s keys (indented by two)."""
    return HEADER + data


def loaded(tmp_path: Path, data: str) -> Notifications:
    """That ConfigMap, written and loaded as the reporter loads it."""
    path = tmp_path / "cm.yaml"
    path.write_text(configmap(data))
    return load(path)
