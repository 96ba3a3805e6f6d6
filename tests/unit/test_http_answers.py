"""Every client reads an error answer the same way: ``Retry-After`` in both forms RFC 9110
gives it (and nothing from a value that is neither), and the server's reason in one line
with no credential it echoed. The clients' own header mappings are used, as they arrive."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
import requests
from requests.structures import CaseInsensitiveDict

from orchestrator.adapters.neterrors import NO_REASON, retry_after, said

NOW = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)
TOKEN = "ghp_Zx81Tq9LmN4pR2sV7wY0aB3c"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("1.5", 1.5),  # not RFC 9110, but sent by some APIs; a number of seconds all the same
        ("Thu, 26 Nov 2026 12:00:30 GMT", 30.0),
        ("Thursday, 26-Nov-26 12:01:00 GMT", 60.0),  # RFC 850, which RFC 9110 still accepts
        ("Thu Nov 26 12:00:05 2026", 5.0),  # asctime
        ("Thu, 26 Nov 2026 11:00:00 GMT", 0.0),  # already past
        ("", None),
        ("soon", None),
        ("-5", None),
        ("inf", None),
        ("nan", None),
        ("1e999", None),
        ("Thu, 99 Nov 2026 12:00:30 GMT", None),
    ],
)
def test_retry_after_is_read_in_both_forms_and_nothing_else(
    value: str, seconds: float | None
) -> None:
    for headers in (
        httpx.Headers({"Retry-After": value}),
        CaseInsensitiveDict({"retry-after": value}),
    ):
        assert retry_after(headers, NOW) == seconds


def test_no_header_is_no_advice() -> None:
    assert retry_after(httpx.Headers({}), NOW) is None
    assert retry_after(None, NOW) is None


def _httpx(status: int, body: bytes, content_type: str = "application/json") -> httpx.Response:
    return httpx.Response(status, content=body, headers={"content-type": content_type})


def _requests(status: int, body: bytes) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = body
    return response


@pytest.mark.parametrize("make", [_httpx, _requests])
@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            b'{"code": 5, "message": "workflows.argoproj.io \\"x\\" not found"}',
            'workflows.argoproj.io "x" not found',
        ),
        (b'{"error": "permission denied"}', "permission denied"),
        (b'{"error": {"code": 403, "detail": "no"}}', '{"code": 403, "detail": "no"}'),
        (b'["a", "b"]', '["a", "b"]'),
        (b"upstream connect error\n  or disconnect", "upstream connect error or disconnect"),
        (b"", NO_REASON),
        (b'{"message": ""}', '{"message": ""}'),
    ],
)
def test_the_reason_is_one_line_from_the_body(make: object, body: bytes, reason: str) -> None:
    assert said(make(500, body)) == reason  # type: ignore[operator]


def test_the_reason_quotes_no_credential_the_server_echoed() -> None:
    echoed = (
        f'{{"message": "token {TOKEN.lower()} is not valid for '
        f'https://bot:{TOKEN}@git.example.com/acme/gitops.git"}}'
    ).encode()
    reason = said(_httpx(401, echoed), (TOKEN,))
    assert TOKEN.lower() not in reason.lower() and "bot:" not in reason
    assert "is not valid for" in reason


def test_the_reason_is_bounded() -> None:
    reason = said(_httpx(502, b"x" * 5000, "text/plain"), limit=50)
    assert len(reason) == 50 and reason.endswith("...")
