"""A signed generic request binds its Idempotency-Key and its time: a captured request
cannot start a second run, under a new key or later.

Over real HTTP to ``promoflow serve``'s app (in-memory backend), and once with the
documentation's own ``openssl`` + ``curl`` lines, run by bash.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from orchestrator.webhooks.providers import generic
from tests.webhooks.harness import SECRET, served
from tests.webhooks.memory import MemoryBackend

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
BODY = json.dumps(
    {"product": "shop", "version": "1.4.2", "fields": {"image.digest": "sha256:" + "a" * 64}}
).encode()


def _post(url: str, headers: dict[str, str], body: bytes = BODY) -> httpx.Response:
    return httpx.post(f"{url}/webhooks/generic", content=body, headers=headers, timeout=30)


def _runs(backend: object) -> list[str]:
    assert isinstance(backend, MemoryBackend)
    return sorted(backend.store)


def test_a_captured_request_sent_under_a_new_key_starts_nothing(tmp_path: Path) -> None:
    key = "build-1234"
    captured = {"Idempotency-Key": key, "Promoflow-Signature": generic.signature(SECRET, key, BODY)}
    with served(tmp_path) as (url, service):
        first = _post(url, captured)
        replays = [_post(url, {**captured, "Idempotency-Key": f"build-{n}"}) for n in range(3)]
        again = _post(url, captured)
        runs = _runs(service.submissions.backend)
    assert first.status_code == 202, first.text
    assert [r.status_code for r in replays] == [401] * 3
    assert (
        "wrong secret, or an altered body, time or Idempotency-Key" in replays[0].json()["message"]
    )
    assert again.status_code == 202 and "already submitted" in again.json()["message"]
    assert len(runs) == 1


def test_a_request_signed_over_its_body_alone_is_refused(tmp_path: Path) -> None:
    """GitHub's scheme, which generic requests used: it binds no key, so it is refused."""
    body_only = "sha256=" + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    with served(tmp_path) as (url, service):
        replies = [
            _post(url, {"X-Hub-Signature-256": body_only, "Idempotency-Key": f"k{n}"})
            for n in range(3)
        ]
        runs = _runs(service.submissions.backend)
    assert [r.status_code for r in replies] == [401] * 3
    assert "sign with Promoflow-Signature" in replies[0].json()["message"]
    assert runs == []


@pytest.mark.parametrize(
    ("offset", "said"),
    [
        (-generic.MAX_SKEW - 60, "ago, more than 300 s: a replayed request"),
        (generic.MAX_SKEW + 60, "ahead, more than 300 s: the sender's clock is wrong"),
    ],
)
def test_a_request_signed_too_long_ago_or_ahead_is_refused(
    tmp_path: Path, offset: int, said: str
) -> None:
    key = "build-old"
    stamp = int(time.time()) + offset
    headers = {
        "Idempotency-Key": key,
        "Promoflow-Signature": generic.signature(SECRET, key, BODY, stamp),
    }
    with served(tmp_path) as (url, service):
        reply = _post(url, headers)
        runs = _runs(service.submissions.backend)
    assert reply.status_code == 401 and said in reply.json()["message"], reply.text
    assert runs == []


def test_a_request_signed_within_the_skew_is_accepted(tmp_path: Path) -> None:
    key = "build-late"
    stamp = int(time.time()) - generic.MAX_SKEW + 30
    headers = {
        "Idempotency-Key": key,
        "Promoflow-Signature": generic.signature(SECRET, key, BODY, stamp),
    }
    with served(tmp_path) as (url, _):
        assert _post(url, headers).status_code == 202


@pytest.mark.parametrize(
    ("headers", "status", "said"),
    [
        ({"Promoflow-Signature": "SIGNED"}, 401, "a signed request names its Idempotency-Key"),
        ({"Idempotency-Key": "k", "Promoflow-Signature": "v1=00"}, 401, "is not t=<unix seconds>"),
        (
            {"Idempotency-Key": "k", "Promoflow-Signature": "t=1,t=2,v1=" + "0" * 64},
            401,
            "is not t=<unix seconds>",
        ),
        ({"Idempotency-Key": "k" * 201, "Promoflow-Signature": "SIGNED"}, 400, "at most 200"),
    ],
)
def test_a_malformed_signed_request_is_refused_with_a_reason(
    tmp_path: Path, headers: dict[str, str], status: int, said: str
) -> None:
    key = headers.get("Idempotency-Key", "")
    if headers["Promoflow-Signature"] == "SIGNED":
        headers = {**headers, "Promoflow-Signature": generic.signature(SECRET, key, BODY)}
    with served(tmp_path) as (url, _):
        reply = _post(url, headers)
    assert reply.status_code == status and said in reply.json()["message"], reply.text


def test_a_signature_per_secret_while_rotating_is_accepted(tmp_path: Path) -> None:
    key = "build-rotate"
    old = generic.signature("the-old-secret", key, BODY)
    new = generic.signature(SECRET, key, BODY)
    both = f"{old},v1={new.rpartition('v1=')[2]}"
    with served(tmp_path) as (url, _):
        assert _post(url, {"Idempotency-Key": key, "Promoflow-Signature": both}).status_code == 202


def test_an_unsigned_request_id_does_not_name_a_signed_request(tmp_path: Path) -> None:
    key = "build-5"
    signed = {"Idempotency-Key": key, "Promoflow-Signature": generic.signature(SECRET, key, BODY)}
    with served(tmp_path) as (url, service):
        replies = [_post(url, {**signed, "X-Request-Id": f"r{n}"}) for n in range(3)]
        runs = _runs(service.submissions.backend)
    assert [r.status_code for r in replies] == [202] * 3
    assert len(runs) == 1


def _documented_lines() -> str:
    text = DOCS.read_text()
    section = text[text.index("### Asking for a promotion from CI") :]
    found = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_documented_openssl_and_curl_lines_are_accepted(tmp_path: Path) -> None:
    lines = _documented_lines()
    with served(tmp_path) as (url, service):
        script = lines.replace("https://promoflow.example.com", url)
        script = script.replace("curl -X POST", "curl -sS --fail-with-body -X POST")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            env={
                **os.environ,
                "CI_PIPELINE_ID": "4711",
                "PROMOFLOW_WEBHOOK_GENERIC_SECRET": SECRET,
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        runs = _runs(service.submissions.backend)
    assert done.returncode == 0, done.stdout + done.stderr
    reply = json.loads(done.stdout)
    assert reply["message"].startswith("promoting: shop-1-4-2-"), reply
    assert len(runs) == 1
