"""docs/webhooks.md lists every provider with the verification it really applies."""

from __future__ import annotations

from pathlib import Path

from orchestrator.webhooks import registry

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def test_every_provider_is_documented_with_its_scheme() -> None:
    text = DOCS.read_text()
    for provider in registry.providers().values():
        assert f"| `{provider.name}` | {provider.title} | {provider.scheme} |" in text
