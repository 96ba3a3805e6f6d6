"""The one scrubber of URLs and secrets masks a known secret in every form a server or a
message echoes it in (whole, a prefix, another case, base64 alone or inside
``user:secret``), the URL paths that are credentials, and echoed headers; and the Argo CD
client of ``wait-argocd`` quotes no server error body raw."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from orchestrator.adapters.argocd import ArgoCDClient, ArgoCDError
from orchestrator.settings import ArgoCDSettings
from orchestrator.simulator.serve import ServerThread
from orchestrator.urls import MASK, find_credentials, scrub, scrub_data, scrub_like

TOKEN = "ghp_Zx81Tq9LmN4pR2sV7wY0aB3c"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "echo",
    [
        TOKEN,
        TOKEN.lower(),
        TOKEN.upper(),
        TOKEN.swapcase(),
        TOKEN[:8],
        TOKEN[:12] + "...",
        _b64(TOKEN),
        _b64("bot:" + TOKEN),
        _b64("x-access-token:" + TOKEN),
        base64.urlsafe_b64encode(b"ab" + TOKEN.encode()).decode(),
    ],
)
def test_a_known_secret_is_masked_in_every_form_it_is_echoed_in(echo: str) -> None:
    shown = scrub(f"401 Unauthorized: credentials {echo} rejected", [TOKEN])
    assert MASK in shown
    for form in (TOKEN, TOKEN.lower(), TOKEN[:8].lower(), _b64(TOKEN)[:12]):
        assert form not in shown.lower()


def test_words_that_merely_share_a_short_start_are_left_alone() -> None:
    assert scrub("ghp_Zx token", [TOKEN]) == "ghp_Zx token"  # 6 characters: not an echo
    assert scrub("https://argocd.example.com/x", ["https://hooks.slack.com/s/T/B/X"]) == (
        "https://argocd.example.com/x"
    )


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX",
         "https://hooks.slack.com/services/***"),
        ("https://discord.com/api/webhooks/123456/AbCdEf-token", "https://discord.com/api/webhooks/123456/***"),
        ("http promoflow.example/webhooks/x https://promoflow.example/webhooks/dockerhub/tok3n",
         "http promoflow.example/webhooks/x https://promoflow.example/webhooks/dockerhub/***"),
        ("https://gitlab.example.com/api/v4?private_token=glpat-123&per_page=5",
         "https://gitlab.example.com/api/v4?private_token=***&per_page=5"),
        ("request headers: PRIVATE-TOKEN: glpat-abc123; X-Api-Key=k3y",
         "request headers: PRIVATE-TOKEN: ***; X-Api-Key=***"),
        ("Authorization: token ghp_abc", "Authorization: token ***"),
        ("X-Hub-Signature-256: sha256=0a1b2c", "X-Hub-Signature-256: sha256=***"),
        ("http://bot:pass@git.example.com/r.git", "http://***@git.example.com/r.git"),
        ("at 10:00 the sync failed: key: value", "at 10:00 the sync failed: key: value"),
    ],
)  # fmt: skip
def test_credentials_in_urls_and_headers_are_masked_by_their_shape(text: str, masked: str) -> None:
    assert scrub(text) == masked


def test_scrub_data_and_find_credentials_use_the_same_rules() -> None:
    data = {"repo": "https://hooks.slack.com/services/T/B/SECRET", "n": 1, "l": [f"x {TOKEN}"]}
    assert scrub_data(data, [TOKEN]) == {
        "repo": "https://hooks.slack.com/services/***", "n": 1, "l": ["x ***"]
    }  # fmt: skip
    assert list(find_credentials(data)) == [("repo",)]


def _server(body: Response) -> Starlette:
    async def answer(_: Request) -> Response:
        return body

    return Starlette(routes=[Route("/api/v1/applications/{name}", answer)])


_TEXTS = st.sampled_from(
    [
        "shop",
        "Synced",
        f"https://bot:{TOKEN}@git.example.com/acme/gitops.git",
        f"token {TOKEN}",
        "https://git.example.com/acme/gitops.git?private_token=glpat-abcdefghij",
        "ComparisonError: rpc error",
        TOKEN.lower(),
        "",
    ]
) | st.text(max_size=12)
_DATA = st.recursive(
    _TEXTS | st.integers() | st.none() | st.booleans(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXTS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(before=_DATA, after=_DATA)
def test_scrubbing_what_changed_from_a_clean_state_is_scrubbing_it_all(
    before: object, after: object
) -> None:
    """What the reporter keeps of an object is scrubbed from the state before it: equal
    parts are taken from that, the rest scrubbed; the result is the same as scrubbing all
    of it, credentials in keys, values and list items included."""
    secrets = (TOKEN,)
    clean = scrub_data(before, secrets)
    assert scrub_like(after, clean, secrets) == scrub_data(after, secrets)


@pytest.mark.parametrize(
    "body",
    [
        PlainTextResponse(f"upstream rejected Bearer {TOKEN[:10]} ({TOKEN.lower()})", 502),
        JSONResponse({"error": f"bad auth {_b64('admin:' + TOKEN)}", "code": 13}, 500),
        JSONResponse({"message": f"token {TOKEN.upper()} is invalid"}, 400),
        PlainTextResponse(f"Authorization: {TOKEN}", 500),
    ],
)
def test_wait_argocd_quotes_no_token_the_server_echoes(body: Response) -> None:
    with ServerThread(_server(body)) as server:
        settings = ArgoCDSettings(
            server=server.url.removeprefix("http://"), auth_token=TOKEN, opts="--plaintext"
        )
        with ArgoCDClient(settings) as client, pytest.raises(ArgoCDError) as failed:
            client.get_app("shop-dev")
    said = str(failed.value)
    assert "Argo CD answered" in said and MASK in said
    for form in (TOKEN[:8], TOKEN.lower()[:8], _b64("admin:" + TOKEN)[8:20]):
        assert form.lower() not in said.lower()
