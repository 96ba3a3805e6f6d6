"""``--sink URL``: CloudEvents 1.0 structured JSON, POSTed and signed.

The body is the event (``Content-Type: application/cloudevents+json``); with a secret,
``X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>`` as GitHub signs, so receivers
that verify GitHub's webhooks verify these alike. 2xx is delivered; 408, 429 and 5xx (and
a network failure) are retried, honouring ``Retry-After``; any other status is permanent.

Configured as a service (``service.webhook.<name>``: ``url``, ``headers``, ``basicAuth``,
``secret``), a template's ``webhook.<name>`` block (``method``, ``path``, ``body``) sends
its own request instead, as Argo CD Notifications' webhook service does. Its URL may hold
a secret (a token in the path), so errors name the service, never the URL.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import httpx

from orchestrator.adapters import neterrors
from orchestrator.urls import scrub
from reporters.sinks.answers import Pool, client
from reporters.sinks.delivery import Policy, SinkError


class HttpSink:
    def __init__(
        self,
        url: str,
        secret: str = "",
        *,
        name: str = "",
        headers: dict[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        insecure: bool = False,
        pool: Pool | None = None,
        policy: Policy | None = None,
        timeout: float = 10,
    ) -> None:
        self.url = url
        self.policy = policy
        """The delivery's retries, when the service's settings name them."""
        self.name = name or f"http {scrub(url)}"
        self._shown = f"webhook {name}" if name else scrub(url)
        self._secret = secret
        self._headers = dict(headers or {})
        self._client = client(insecure=insecure, pool=pool, timeout=timeout, auth=auth)

    def send(self, event: dict[str, Any]) -> None:
        block = ((event.get("data") or {}).get("notification") or {}).get("webhook")
        method, url = "POST", self.url
        if isinstance(block, dict):
            method = str(block.get("method") or "POST").upper()
            url = self.url.rstrip("/") + str(block.get("path") or "") if block.get("path") else url
            body = str(block.get("body") or "").encode()
            headers = {"Content-Type": "application/json"}
        else:
            body = json.dumps(event, separators=(",", ":"), sort_keys=True).encode()
            headers = {"Content-Type": "application/cloudevents+json"}
        headers["ce-id"] = str(event.get("id"))
        headers.update(self._headers)
        if self._secret:
            digest = hmac.new(self._secret.encode(), body, hashlib.sha256).hexdigest()
            headers["X-Hub-Signature-256"] = f"sha256={digest}"
        try:
            response = self._client.request(method, url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise SinkError(f"cannot reach {self._shown}: {type(exc).__name__}") from None
        status = response.status_code
        if status < 300:
            return
        reason = f"{self._shown} answered {status}"
        transient = status >= 500 or status in (408, 429)
        raise SinkError(
            reason, retry_after=neterrors.retry_after(response.headers), permanent=not transient
        )

    def close(self) -> None:
        self._client.close()
