"""What a notification hands a service's sink: the rendered message, the recipient the
subscription named, and the template's block for the service's type, its values as
Argo CD Notifications writes them (strings; some hold JSON or YAML, as ``teams.facts``
or ``googlechat.cardsV2``, parsed here with the position of a mistake).

The services of this module's users are not ``--sink`` forms: they only ever see events a
trigger sent them, so an event without a notification is a mistake, not a default.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from reporters.sinks.delivery import SinkError


def notification_of(event: dict[str, Any], service: str) -> dict[str, Any]:
    """The notification an event carries; dead when it carries none."""
    found = (event.get("data") or {}).get("notification")
    if not isinstance(found, dict):
        raise SinkError(
            f"{service} sends notifications: subscribe it to a trigger (not a --sink)",
            permanent=True,
        )
    return found


def recipient_of(notification: dict[str, Any], service: str, what: str) -> str:
    """The recipient a subscription named (``<service>:<recipient>``); dead without one."""
    recipient = str(notification.get("recipient") or "")
    if not recipient:
        raise SinkError(
            f"{service}: subscribe {service}:<{what}> (the subscription names no {what})",
            permanent=True,
        )
    return recipient


def block_of(notification: dict[str, Any], kind: str) -> dict[str, Any]:
    """The template's block for ``kind`` (``teams:``), empty when it has none."""
    block = notification.get(kind)
    return block if isinstance(block, dict) else {}


def text(block: dict[str, Any], key: str) -> str:
    """A string value of a block ("" when absent), as Go's text templates leave it."""
    value = block.get(key)
    return "" if value is None else str(value)


def parsed_json(block: dict[str, Any], key: str, service: str) -> Any:
    """A value written as JSON text (``facts: |`` then ``[{...}]``); a value already a list
    or mapping is taken as it is. Dead, with the line and column, when it is not JSON."""
    value = block.get(key)
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise SinkError(
            f"{service}: {key} is not JSON at {exc.lineno}:{exc.colno}: {exc.msg} "
            f"(write {key} as JSON text in the template's {service} block)",
            permanent=True,
        ) from None


def parsed_yaml(block: dict[str, Any], key: str, service: str) -> Any:
    """A value written as YAML (or JSON) text, as ``googlechat.cardsV2``."""
    value = block.get(key)
    if not isinstance(value, str):
        return value
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise SinkError(
            f"{service}: {key} is not YAML{at}: {problem} (write a YAML list of cards in "
            f"the template's {service} block)",
            permanent=True,
        ) from None
