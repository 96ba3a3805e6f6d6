"""Generic: a CI job (or anything with ``curl``) asking for a promotion of a version.

The sender proves it holds the secret one of two ways, both compared in constant time:
``X-Hub-Signature-256: sha256=`` and the hex HMAC-SHA256 of the body (GitHub's scheme,
docs.github.com "Validating webhook deliveries"), checked whenever that header is sent; else
``Authorization: Bearer <secret>`` (RFC 6750). The delivery id is ``Idempotency-Key``, else
``X-Request-Id``, as the sender chooses: a retry that repeats it is not promoted twice.

Read: a JSON object ``{"product": str, "version": str, "sourceCommit"?: str,
"requestedBy"?: str, "fields"?: {str: str}}``, nothing else: an unknown key is refused, so
a misspelled ``sourceComit`` is an error the CI job sees, not a silently missing value.
"""

from __future__ import annotations

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Incoming, PromotionAsked, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURE = "X-Hub-Signature-256"
KEYS = ("product", "version", "sourceCommit", "requestedBy", "fields")


def _named(names: list[str]) -> str:
    """Keys as a refusal names them: a few, each cut short (never the body itself)."""
    shown = ", ".join(repr(name[:40]) for name in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def verify(incoming: Incoming, secret: str) -> None:
    if incoming.header(SIGNATURE).strip():
        proofs.check_hmac(incoming, secret, SIGNATURE, prefix="sha256=")
    else:
        proofs.check_bearer(incoming, secret)


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
    return incoming.header("Idempotency-Key").strip() or incoming.header("X-Request-Id").strip()


PROVIDER = Provider(
    name="generic",
    title="Generic (CI)",
    scheme=(
        f"Authorization: Bearer <secret>, or {SIGNATURE}: sha256= and the HMAC-SHA256 of the "
        "body with the secret"
    ),
    verify=verify,
    parse=parse,
    delivery_id=delivery_id,
)
