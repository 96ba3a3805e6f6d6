"""Reading providers' JSON payloads: typed access that refuses, never crashes.

A payload is untrusted input that passed a signature check: it may still be malformed, of
another event than announced, or built by a newer sender. Every read goes through these
helpers, so a missing or mistyped field is a 400 naming the field, not a ``KeyError``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import parse_qs

from orchestrator.webhooks.events import Commit, Incoming, Refused

MAX_DEPTH = 64
"""Deeper JSON is refused before parsing: no sender nests anywhere near this, and the
parser's recursion stays far from Python's limit (a 30,000-deep body is a 400, never a
``RecursionError``)."""


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OTHER = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")


def _too_deep(body: bytes) -> bool:
    """Whether ``body`` nests deeper than :data:`MAX_DEPTH`, in C-speed passes (no Python
    loop over the bytes): strings removed, every bracket made ``[`` or ``]`` and nothing
    else kept, then each pass peels the innermost pairs, one level. Unbalanced brackets
    are left to the parser, which refuses them."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return False  # cannot nest deeper than it opens (the common case)
    shape = _STRING.sub(b"", body).translate(_ONE_KIND, _OTHER)
    for _ in range(MAX_DEPTH):
        peeled = shape.replace(b"[]", b"")
        if not peeled or len(peeled) == len(shape):
            return False
        shape = peeled
    return True


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


def paths_listed(listed: list[Any]) -> bool:
    """Whether every listed commit names a changed file: GitLab System Hooks and large
    pushes leave ``added``/``modified``/``removed`` out (or empty), and reading that as "this
    commit changes nothing" would skip a push that changes everything. A push for which this
    is false is read in Git instead (``GitPush.complete``)."""
    return all(isinstance(c, dict) and any(strings(c, key) for key in PATH_LISTS) for c in listed)


def body_hash(incoming: Incoming) -> str:
    """The delivery id of senders that give none: a redelivery sends the same bytes."""
    return "sha256-" + hashlib.sha256(incoming.body).hexdigest()[:32]
