"""Deterministic event ids, so receivers deduplicate what is delivered more than once.

A reporter delivers at least once (a retry after a lost answer, a restart before its
store was written, two replicas during a handover); every delivery of one change carries
the same id: a UUIDv5 over what identifies the change (type, app, revision, and the time
Argo CD recorded for it), never over when the reporter happened to see it.
"""

from __future__ import annotations

import uuid

from reporters.events.transitions import Change

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://promoflow.dev/events")


def event_id(change: Change) -> str:
    return str(
        uuid.uuid5(NAMESPACE, "\x1f".join((change.type, change.app, change.revision, change.at)))
    )
