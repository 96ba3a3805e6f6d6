"""Reading providers' JSON payloads: typed access that refuses, never crashes.

A payload is untrusted input that passed a signature check: it may still be malformed, of
another event than announced, or built by a newer sender. Every read goes through these
helpers, so a missing or mistyped field is a 400 naming the field, not a ``KeyError``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import parse_qs

from orchestrator.webhooks.events import Commit, Incoming, Refused

MAX_DEPTH = 64
"""Deeper JSON is refused before parsing: no sender nests anywhere near this."""


def _too_deep(body: bytes) -> bool:
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return False  # cannot nest deeper than it opens (the common case, in C)
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def json_object(incoming: Incoming) -> dict[str, Any]:
    """The body as a JSON object. GitHub (and Gitea) may also send it form-encoded as
    ``payload=...`` (the hook's content type ``application/x-www-form-urlencoded``); a JSON
    object sent with that type (``curl -d`` sets it) is read as the JSON it is."""
    body = incoming.body
    labelled = incoming.header("content-type").startswith("application/x-www-form-urlencoded")
    # a JSON body sent with curl -d's default type is still JSON: only a form is decoded
    if labelled and not body.lstrip().startswith(b"{"):
        try:
            form = parse_qs(body.decode(), strict_parsing=True, max_num_fields=8)
        except (UnicodeDecodeError, ValueError):
            raise Refused(400, "the form-encoded body is malformed") from None
        values = form.get("payload")
        if not values:
            raise Refused(400, "the form-encoded body has no payload field")
        body = values[0].encode()
    if _too_deep(body):
        raise Refused(400, f"the JSON body nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise Refused(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body is not a JSON object")
    return data


def field(
    data: Any, path: str, kind: type | tuple[type, ...] = str, *, required: bool = True
) -> Any:
    """``data`` at the dotted ``path`` (``repository.clone_url``), of type ``kind``; 400
    naming the path when it is missing (and required) or of another type."""
    value = data
    for key in path.split("."):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            if required:
                raise Refused(400, f"the payload has no {path}")
            return None
    if value is None and not required:
        return None
    if (
        isinstance(value, bool)
        and kind is not bool
        and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        raise Refused(400, f"{path} has the wrong type")
    if not isinstance(value, kind):
        raise Refused(400, f"{path} has the wrong type")
    return value


def text(data: Any, path: str, *, required: bool = True) -> str:
    value = field(data, path, str, required=required)
    return value if isinstance(value, str) else ""


def strings(data: Any, path: str) -> tuple[str, ...]:
    """A list of strings at ``path`` (missing: empty); 400 if it holds anything else."""
    value = field(data, path, list, required=False) or []
    if not all(isinstance(v, str) for v in value):
        raise Refused(400, f"{path} is not a list of strings")
    return tuple(value)


PATH_LISTS = ("added", "modified", "removed")
"""Where GitHub, GitLab and Gitea list a pushed commit's paths."""


def commits(listed: list[Any]) -> tuple[Commit, ...]:
    """Pushed commits as GitHub, GitLab and Gitea list them (``id``, ``message`` and the
    added/modified/removed path lists), in the payload's order."""
    return tuple(
        Commit(
            sha=text(c, "id"),
            message=text(c, "message", required=False),
            paths=tuple(dict.fromkeys(p for key in PATH_LISTS for p in strings(c, key))),
        )
        for c in listed
    )


def body_hash(incoming: Incoming) -> str:
    """The delivery id of senders that give none: a redelivery sends the same bytes."""
    return "sha256-" + hashlib.sha256(incoming.body).hexdigest()[:32]
