"""Webhook deliveries for tests: the documented sample payloads, signed each sender's way."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from orchestrator.webhooks.events import Incoming
from orchestrator.webhooks.providers import generic

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "webhooks"
SECRET = "test-secret-7f3a9c"
OTHER = "another-secret-0b1d"


def sample(path: str) -> bytes:
    """The bytes of ``tests/vectors/webhooks/<path>.json``."""
    return (VECTORS / f"{path}.json").read_bytes()


def sample_json(path: str) -> Any:
    return json.loads(sample(path))


def hmac_hex(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def credentials(provider: str, body: bytes, secret: str = SECRET) -> tuple[dict[str, str], str]:
    """The headers (and path token) with which ``provider`` proves a delivery of ``body``."""
    digest = hmac_hex(secret, body)
    headers: dict[str, str] = {
        "github": {"X-Hub-Signature-256": f"sha256={digest}"},
        "ghcr": {"X-Hub-Signature-256": f"sha256={digest}"},
        "gitlab": {"X-Gitlab-Token": secret},
        "bitbucket": {"X-Hub-Signature": f"sha256={digest}"},
        "gitea": {"X-Gitea-Signature": digest},
        "azure": {
            "Authorization": "Basic " + base64.b64encode(f"azure:{secret}".encode()).decode()
        },
        "dockerhub": {},
        "quay": {},
        "harbor": {"Authorization": secret},
        "artifactory": {"X-JFrog-Event-Auth": digest},
        "generic": {"Authorization": f"Bearer {secret}"},
    }[provider]
    token = secret if provider in ("dockerhub", "quay") else ""
    return headers, token


def delivery(
    headers: dict[str, str] | None = None, body: bytes = b"{}", path_token: str = ""
) -> Incoming:
    """An :class:`Incoming` as the app builds it: header names lower-cased."""
    return Incoming(
        headers={k.lower(): v for k, v in (headers or {}).items()},
        body=body,
        path_token=path_token,
    )


def signed(
    provider: str,
    body: bytes,
    events: dict[str, str] | None = None,
    *,
    secret: str = SECRET,
) -> Incoming:
    """``body`` with ``events`` headers, signed (or authorized) as ``provider`` does."""
    headers, token = credentials(provider, body, secret)
    return delivery({**(events or {}), **headers}, body, token)


def generic_signed(
    body: bytes, key: str = "build-1234", *, secret: str = SECRET, timestamp: int | None = None
) -> dict[str, str]:
    """The headers of a generic request signed as a CI job signs it (now, unless
    ``timestamp`` is given): ``Idempotency-Key`` and ``Promoflow-Signature``."""
    return {
        "Idempotency-Key": key,
        "Promoflow-Signature": generic.signature(secret, key, body, timestamp),
    }
