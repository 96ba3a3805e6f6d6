"""Generic: a CI job (or anything with ``curl``) asking for a promotion of a version.

The sender proves it holds the secret one of two ways, both compared in constant time:

- ``Promoflow-Signature: t=<unix seconds>,v1=<hex>``, as Stripe's ``Stripe-Signature``
  (docs.stripe.com, "Verify webhook signatures": ``t=...,v1=...`` over the time and the
  body) and Slack's ``v0:timestamp:body`` (api.slack.com, "Verifying requests from
  Slack") sign: ``v1`` is the HMAC-SHA256, with the secret, of the time ``t``, a newline,
  the ``Idempotency-Key``, a newline and the body. The key and the time are signed, so a
  captured request cannot be sent again under a new key (a new run), and not at all after
  :data:`MAX_SKEW` seconds; the same key starts no second run. A newline cannot be part of
  an HTTP header, so the three parts cannot be shifted into one another. Several ``v1``
  values may be sent (one per secret while the secret is rotated).
- ``Authorization: Bearer <secret>`` (RFC 6750): the secret itself, over TLS; whoever
  holds it may ask for anything, so there is nothing more for a signature to bind.

``X-Hub-Signature-256`` (an HMAC of the body alone, as GitHub signs) is refused with a
reason: it binds neither the key nor a time, so one captured request could start any
number of runs. The delivery id is the signed ``Idempotency-Key``; a request with a bearer
token may name it in ``X-Request-Id`` instead. A retry that repeats it is not promoted twice.

Read: a JSON object ``{"product": str, "version": str, "sourceCommit"?: str,
"requestedBy"?: str, "fields"?: {str: str}}``, nothing else: an unknown key is refused, so
a misspelled ``sourceComit`` is an error the CI job sees, not a silently missing value.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Incoming, PromotionAsked, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURE = "Promoflow-Signature"
KEY = "Idempotency-Key"
BODY_ONLY = "X-Hub-Signature-256"
MAX_SKEW = 300
"""Seconds a signed request's time may be off the service's clock, either way (Stripe's and
Slack's tolerance): older requests are refused as replays, later ones as forged."""
MAX_KEY = 200
"""Characters of an Idempotency-Key: a CI job's id, never a document."""
KEYS = ("product", "version", "sourceCommit", "requestedBy", "fields")
_TIME = re.compile(r"[0-9]{1,12}")
_DIGEST = re.compile(r"[0-9a-f]{64}")


def signed_text(timestamp: int, key: str, body: bytes) -> bytes:
    """What ``v1`` is the HMAC of: the time, the key and the body, newline-separated."""
    return f"{timestamp}\n{key}\n".encode() + body


def signature(secret: str, key: str, body: bytes, timestamp: int | None = None) -> str:
    """The ``Promoflow-Signature`` value of a request (now, unless ``timestamp`` is given),
    as a sender computes it."""
    when = int(time.time()) if timestamp is None else timestamp
    digest = hmac.new(secret.encode(), signed_text(when, key, body), hashlib.sha256)
    return f"t={when},v1={digest.hexdigest()}"


def _named(names: list[str]) -> str:
    """Keys as a refusal names them: a few, each cut short (never the body itself)."""
    shown = ", ".join(repr(name[:40]) for name in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _parts(incoming: Incoming) -> tuple[int, str, list[str]]:
    """The signed request's time, key and ``v1`` digests, checked as far as the headers
    allow: the form, the key's presence and the time's skew."""
    value = incoming.header(SIGNATURE).strip()
    stamps: list[str] = []
    digests: list[str] = []
    for item in value.split(",")[:8]:
        name, _, given = item.strip().partition("=")
        if name == "t":
            stamps.append(given)
        elif name == "v1" and _DIGEST.fullmatch(given):
            digests.append(given)
    if len(stamps) != 1 or not _TIME.fullmatch(stamps[0]) or not digests:
        raise Refused(401, f"{SIGNATURE} is not t=<unix seconds>,v1=<hex HMAC-SHA256>")
    key = incoming.header(KEY).strip()
    if not key:
        raise Refused(401, f"a signed request names its {KEY}: it is part of what is signed")
    if len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        raise Refused(400, f"{KEY} must be printable ASCII of at most {MAX_KEY} characters")
    stamp = int(stamps[0])
    off = stamp - int(time.time())
    if off < -MAX_SKEW:
        raise Refused(
            401,
            f"{SIGNATURE} was made {-off} s ago, more than {MAX_SKEW} s: a replayed request "
            "(or the sender's clock is wrong); sign each request when it is sent",
        )
    if off > MAX_SKEW:
        raise Refused(
            401,
            f"{SIGNATURE} is dated {off} s ahead, more than {MAX_SKEW} s: the sender's "
            "clock is wrong",
        )
    return stamp, key, digests


def authorize(incoming: Incoming, secret: str) -> None:
    """Before the body is read: a bearer token completely, a signature's form and time."""
    if incoming.header(SIGNATURE).strip():
        _parts(incoming)
    elif incoming.header(BODY_ONLY).strip():
        raise Refused(
            401,
            f"{BODY_ONLY} signs the body alone, so a captured request could be replayed "
            f"under a new {KEY}: sign with {SIGNATURE} (see docs/webhooks.md)",
        )
    else:
        proofs.check_bearer(incoming, secret)


def verify(incoming: Incoming, secret: str) -> None:
    authorize(incoming, secret)
    if not incoming.header(SIGNATURE).strip():
        return
    stamp, key, digests = _parts(incoming)
    expected = signature(secret, key, incoming.body, stamp).rpartition("v1=")[2]
    # every digest is compared, so the time taken does not say which one matched
    matched = [proofs.same(given, expected) for given in digests]
    if not any(matched):
        raise Refused(
            401,
            f"{SIGNATURE} does not match: wrong secret, or an altered body, time or {KEY}",
        )


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    unknown = sorted(key for key in data if key not in KEYS)
    if unknown:
        raise Refused(400, f"unknown keys {_named(unknown)}: send {', '.join(KEYS)}")
    product = payloads.text(data, "product").strip()
    version = payloads.text(data, "version").strip()
    if not product or not version:
        raise Refused(400, "product and version must not be empty")
    fields = payloads.field(data, "fields", dict, required=False) or {}
    wrong = sorted(key for key, value in fields.items() if not isinstance(value, str))
    if wrong:
        raise Refused(400, f"fields {_named(wrong)} are not strings")
    return PromotionAsked(
        product=product,
        version=version,
        source_commit=payloads.text(data, "sourceCommit", required=False).strip(),
        requested_by=payloads.text(data, "requestedBy", required=False).strip(),
        fields=dict(fields),
    )


def delivery_id(incoming: Incoming) -> str:
    """The signed key; only a bearer request may name its delivery in X-Request-Id (an
    unsigned header, which a replay could change)."""
    key = incoming.header(KEY).strip()
    if key or incoming.header(SIGNATURE).strip():
        return key
    return incoming.header("X-Request-Id").strip()


PROVIDER = Provider(
    name="generic",
    title="Generic (CI)",
    scheme=(
        f"{SIGNATURE}: t=<unix time>,v1=<HMAC-SHA256 of the time, {KEY} and body, "
        f"newline-separated>, at most {MAX_SKEW} s off; or Authorization: Bearer <secret>"
    ),
    verify=verify,
    authorize=authorize,
    parse=parse,
    delivery_id=delivery_id,
)
