"""How senders prove a delivery is theirs, checked in constant time.

HMAC signatures over the raw body (GitHub, Gitea, Bitbucket, Artifactory), an HMAC over a
time, an idempotency key and the body (generic, as Stripe and Slack sign), a shared token
in a header (GitLab, Harbor, generic's bearer token), HTTP basic auth (Azure DevOps) and a
token in the URL (Docker Hub, Quay). Every comparison goes through
:func:`hmac.compare_digest`; a refusal names the header that was missing or wrong, never
its value.

Whatever can be checked from the headers alone is checked before the body is read
(:func:`check_hmac_form`, the time of a timestamped signature), so a request without a
credential costs the service its headers, not its body.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from dataclasses import dataclass

from orchestrator.webhooks.events import Incoming, Refused

BASIC_CHALLENGE = 'Basic realm="promoflow"'
BEARER_CHALLENGE = 'Bearer realm="promoflow"'


def same(given: str | bytes, expected: str | bytes) -> bool:
    """Constant-time equality of two secrets (str compared as UTF-8)."""
    a = given.encode() if isinstance(given, str) else given
    b = expected.encode() if isinstance(expected, str) else expected
    return hmac.compare_digest(a, b)


def hmac_hex(secret: str, body: bytes, algorithm: str = "sha256") -> str:
    return hmac.new(secret.encode(), body, getattr(hashlib, algorithm)).hexdigest()


def require(incoming: Incoming, header: str) -> str:
    """The header's value, or 401 saying the delivery is unsigned."""
    value = incoming.header(header).strip()
    if not value:
        raise Refused(401, f"unsigned delivery: no {header} header")
    return value


_HEX = re.compile(r"[0-9a-fA-F]+")
_HEX_SIZE = {"sha1": 40, "sha256": 64}
"""Hex digits of an HMAC, by the algorithms senders use."""


def check_hmac_form(
    incoming: Incoming, header: str, *, prefix: str = "", algorithm: str = "sha256"
) -> None:
    """``header`` is there and has the form of ``prefix`` + a hex HMAC: what can be known
    of a body signature before the body is read."""
    given = require(incoming, header)
    if prefix and not given.startswith(prefix):
        raise Refused(401, f"{header} is not a {prefix.rstrip('=')} signature")
    digest = given.removeprefix(prefix)
    if len(digest) != _HEX_SIZE.get(algorithm, 0) or not _HEX.fullmatch(digest):
        raise Refused(401, f"{header} does not match the body: wrong secret or altered body")


def check_hmac(
    incoming: Incoming, secret: str, header: str, *, prefix: str = "", algorithm: str = "sha256"
) -> None:
    """``header`` must be ``prefix`` + the hex HMAC of the body with ``secret``."""
    given = require(incoming, header)
    if prefix and not given.startswith(prefix):
        raise Refused(401, f"{header} is not a {prefix.rstrip('=')} signature")
    expected = prefix + hmac_hex(secret, incoming.body, algorithm)
    if not same(given.lower(), expected):
        raise Refused(401, f"{header} does not match the body: wrong secret or altered body")


@dataclass(frozen=True)
class BodyHmac:
    """A sender that signs the body into one header (``prefix`` + the hex HMAC), as GitHub,
    Bitbucket and Artifactory do: :meth:`authorize` checks the header's form before the
    body is read, :meth:`verify` the HMAC once it is."""

    header: str
    prefix: str = ""

    def authorize(self, incoming: Incoming, secret: str) -> None:
        del secret  # the HMAC needs the body
        check_hmac_form(incoming, self.header, prefix=self.prefix)

    def verify(self, incoming: Incoming, secret: str) -> None:
        check_hmac(incoming, secret, self.header, prefix=self.prefix)


def check_token(incoming: Incoming, secret: str, header: str) -> None:
    """``header`` must carry ``secret`` itself."""
    if not same(require(incoming, header), secret):
        raise Refused(401, f"{header} does not match the configured secret")


def check_bearer(incoming: Incoming, secret: str) -> None:
    scheme, _, token = incoming.header("authorization").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "no bearer token in Authorization", challenge=BEARER_CHALLENGE)
    if not same(token.strip(), secret):
        raise Refused(401, "the bearer token is not the configured secret")


def check_basic(incoming: Incoming, secret: str) -> None:
    """HTTP basic auth whose password (any user name) is ``secret``; a secret written as
    ``user:password`` checks the user name too."""
    scheme, _, encoded = incoming.header("authorization").partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        raise Refused(401, "no basic credentials in Authorization", challenge=BASIC_CHALLENGE)
    try:
        pair = base64.b64decode(encoded.strip(), validate=True).decode()
    except (binascii.Error, UnicodeError, ValueError):  # ValueError: non-ASCII text
        raise Refused(401, "Authorization basic credentials are not base64") from None
    user, _, password = pair.partition(":")
    want_user, sep, want_password = secret.partition(":")
    ok = same(pair, secret) if sep else same(password, secret)
    if not ok:
        raise Refused(401, "basic credentials do not match the configured secret")
    del user, want_user, want_password


def check_url_token(incoming: Incoming, secret: str) -> None:
    if not incoming.path_token:
        raise Refused(401, "no token in the URL: send to /webhooks/PROVIDER/TOKEN")
    if not same(incoming.path_token, secret):
        raise Refused(401, "the token in the URL is not the configured secret")
