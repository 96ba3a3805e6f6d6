"""A GitHub App as GitHub's REST API knows it: ``POST /app/installations/{id}/
access_tokens`` (docs.github.com, "Create an installation access token for an app"),
served by :class:`tests.fakes.scm_server.FakeScm` when it is given one.

The request must carry ``Authorization: Bearer <JWT>`` signed RS256 with the app's key,
``iss`` the app id, ``iat`` not in the future and ``exp`` at most ten minutes after it and
not past. It answers 201 ``{"token": "ghs_...", "expires_at", "permissions",
"repository_selection"}`` (an hour); refusals are GitHub's: 401 ``A JSON web token could
not be decoded`` (not a JWT, or not signed by the app's key), 401 for an expired JWT or one
too long (``'Expiration time' claim ('exp') is too far in the future``), 404 ``Not Found``
for an installation the app does not have, 403 ``This installation has been suspended``.
Tokens issued are accepted by the fake's other endpoints until they expire or are
revoked (:meth:`FakeApp.revoke`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

DOCS = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"


def new_key() -> tuple[rsa.RSAPrivateKey, str]:
    """A key as GitHub issues them, and its PEM (PKCS#1, ``BEGIN RSA PRIVATE KEY``)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    return key, pem


@dataclass
class FakeApp:
    app_id: int
    key: rsa.RSAPrivateKey
    installations: dict[int, str] = field(default_factory=lambda: {4242: "acme"})
    """Installation id → the account it is installed on."""
    suspended: set[int] = field(default_factory=set)
    lifetime: float = 3600
    clock: Callable[[], float] = time.time
    issued: dict[str, float] = field(default_factory=dict)
    """Token → when it expires."""
    requests: list[int] = field(default_factory=list)
    """The installation of each token request, in order."""

    def revoke(self) -> None:
        self.issued.clear()

    def accepts(self, token: str) -> bool:
        expires = self.issued.get(token)
        return expires is not None and self.clock() < expires

    def access_token(self, authorization: str, installation: int) -> tuple[int, dict[str, Any]]:
        self.requests.append(installation)
        scheme, _, value = authorization.partition(" ")
        now = self.clock()
        try:
            if scheme.lower() != "bearer":
                raise jwt.InvalidTokenError
            claims = jwt.decode(
                value, self.key.public_key(), algorithms=["RS256"],
                options={"verify_exp": False, "verify_iat": False,
                         "require": ["iat", "exp", "iss"]},
            )  # fmt: skip
        except jwt.InvalidTokenError:
            return 401, {
                "message": "A JSON web token could not be decoded",
                "documentation_url": DOCS,
            }
        if str(claims["iss"]) != str(self.app_id):
            return 401, {
                "message": "A JSON web token could not be decoded",
                "documentation_url": DOCS,
            }
        if claims["exp"] <= now:
            return 401, {
                "message": "'Expiration time' claim ('exp') must be a numeric value representing "
                "the future time at which the assertion expires",
                "documentation_url": DOCS,
            }
        if claims["iat"] > now + 1 or claims["exp"] - claims["iat"] > 600:
            return 401, {
                "message": "'Expiration time' claim ('exp') is too far in the future",
                "documentation_url": DOCS,
            }
        if installation not in self.installations:
            return 404, {"message": "Not Found", "documentation_url": DOCS}
        if installation in self.suspended:
            return 403, {
                "message": "This installation has been suspended",
                "documentation_url": DOCS,
            }
        token = "ghs_" + secrets.token_urlsafe(27)
        expires = now + self.lifetime
        self.issued[token] = expires
        at = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return 201, {
            "token": token,
            "expires_at": at,
            "permissions": {"deployments": "write", "statuses": "write", "metadata": "read"},
            "repository_selection": "all",
        }
