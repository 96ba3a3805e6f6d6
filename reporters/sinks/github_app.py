"""GitHub App credentials, as Argo CD's GitHub service takes them (``appID``,
``installationID``, ``privateKey``): an installation access token, made and kept here.

The app signs a JWT with its private key (RS256; issued a minute in the past against
clock drift, valid nine minutes: GitHub takes at most ten), and trades it at ``POST
/app/installations/{installationID}/access_tokens`` for an installation token, valid an
hour (``expires_at``). The token is kept until five minutes before it expires, so one
send never starts with a token about to lapse; a 401 from the API drops it, and the next
attempt makes a new one. PyJWT signs (with ``cryptography``); nothing of the key or of a
token is ever part of an error: GitHub's refusals are said with its ``message`` alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from orchestrator.adapters import neterrors
from orchestrator.urls import scrub
from reporters.sinks.answers import Pool, client
from reporters.sinks.delivery import SinkError

JWT_PAST = 60
"""Seconds ``iat`` is set back, as GitHub advises against clocks that drift."""
JWT_LIFE = 540
"""Seconds from now the JWT is valid (GitHub refuses more than 600 from ``iat``)."""
MARGIN = 300
"""Seconds before ``expires_at`` a kept token is replaced."""


def private_key(pem: str) -> RSAPrivateKey:
    """The app's key; ValueError (saying what to write, never the key) when it is not an
    unencrypted PEM RSA private key, as GitHub issues them."""
    try:
        key = load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError):
        raise ValueError(
            "expected the app's private key as PEM (-----BEGIN RSA PRIVATE KEY-----, as "
            "GitHub downloads it)"
        ) from None
    if not isinstance(key, RSAPrivateKey):
        raise ValueError("expected an RSA private key (GitHub Apps sign with RS256)")
    return key


def app_jwt(app_id: str, key: RSAPrivateKey, now: float) -> str:
    """The JWT that authenticates the app itself."""
    issued = int(now) - JWT_PAST
    claims = {"iat": issued, "exp": int(now) + JWT_LIFE, "iss": app_id}
    return jwt.encode(claims, key, algorithm="RS256")


class InstallationToken:
    """The installation token of one app installation, made when needed and kept."""

    def __init__(
        self,
        app_id: str,
        installation_id: str,
        pem: str,
        *,
        insecure: bool = False,
        pool: Pool | None = None,
        timeout: float = 10,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app_id = app_id
        self.installation_id = installation_id
        self._key = private_key(pem)
        self._pem = pem
        self._clock = clock
        self._client = client(insecure=insecure, pool=pool, timeout=timeout)
        self._lock = threading.Lock()
        self._token = ""
        self._expires = 0.0
        self.made = 0
        """How many tokens were made (a kept one is not counted again)."""

    def secrets(self) -> tuple[str, ...]:
        """What an error must never show."""
        return tuple(s for s in (self._token, self._pem) if s)

    def forget(self) -> None:
        """Drop the kept token (GitHub refused it)."""
        with self._lock:
            self._token, self._expires = "", 0.0

    def token(self, api: str) -> str:
        """A token valid for at least :data:`MARGIN` seconds, from the API at ``api``."""
        with self._lock:
            now = self._clock()
            if self._token and now < self._expires - MARGIN:
                return self._token
            self._token, self._expires = self._exchange(api.rstrip("/"), now)
            self.made += 1
            return self._token

    def _exchange(self, api: str, now: float) -> tuple[str, float]:
        url = f"{api}/app/installations/{self.installation_id}/access_tokens"
        headers = {
            "Authorization": f"Bearer {app_jwt(self.app_id, self._key, now)}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "promoflow",
        }
        try:
            response = self._client.post(url, headers=headers)
        except httpx.HTTPError as exc:
            failure = neterrors.reason(exc, neterrors.Hints())
            raise SinkError(
                f"cannot reach GitHub for an installation token: {failure.message}",
                permanent=not failure.transient,
            ) from None
        what = f"GitHub App {self.app_id}, installation {self.installation_id}"
        if response.status_code != 201:
            said = neterrors.said(response, self.secrets())
            raise SinkError(
                f"GitHub refused an installation token to {what}: "
                f"{response.status_code} {said}{_hint(response.status_code)}",
                retry_after=neterrors.retry_after(response.headers),
                permanent=not neterrors.status_transient(response.status_code),
            )
        try:
            body = response.json()
            token, expires = str(body["token"]), str(body["expires_at"])
            at = datetime.fromisoformat(expires.replace("Z", "+00:00")).timestamp()
        except (ValueError, KeyError, TypeError, AttributeError):
            raise SinkError(
                scrub(f"GitHub's answer for {what} holds no token and expiry", self.secrets()),
                permanent=True,
            ) from None
        return token, at

    def close(self) -> None:
        self._client.close()


def _hint(status: int) -> str:
    if status == 401:
        return " (check appID and privateKey: the key must be this app's)"
    if status == 404:
        return " (check installationID: the app must be installed there)"
    return ""
