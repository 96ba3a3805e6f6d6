"""Every provider on arbitrary input: an event or a 4xx :class:`Refused`, never a crash.

The app turns only :class:`Refused` into a 4xx; any other exception would be a 500 (and a
retry storm from the sender). So ``parse`` is fed arbitrary bytes, arbitrary JSON, and the
documented samples with one part replaced by arbitrary JSON (which reaches the deep reads),
under each event header the provider handles; ``verify`` is fed arbitrary headers, path
tokens and bodies and may only accept or refuse with 401.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.webhooks import registry
from orchestrator.webhooks.events import Event, Incoming, Refused
from tests.webhooks.samples import delivery, sample_json

PROVIDERS = registry.providers()

EVENT_HEADERS: dict[str, list[dict[str, str]]] = {
    "github": [{"X-GitHub-Event": e} for e in ("push", "ping", "package", "registry_package")],
    "ghcr": [{"X-GitHub-Event": e} for e in ("ping", "package", "registry_package")],
    "gitlab": [{"X-Gitlab-Event": e} for e in ("Push Hook", "Tag Push Hook", "System Hook")],
    "bitbucket": [{"X-Event-Key": e} for e in ("repo:push", "diagnostics:ping")],
    "gitea": [{"X-Gitea-Event": "push"}, {"X-Forgejo-Event": "push"}, {"X-Gogs-Event": "push"}],
    "azure": [{}],
    "dockerhub": [{}],
    "harbor": [{}],
    "quay": [{}],
    "artifactory": [{}],
    "generic": [{}],
}
"""The event headers under which each provider reads a payload (none: the payload says)."""

SAMPLES: dict[str, list[str]] = {
    "github": ["github/push-new-branch", "ghcr/package-published-container"],
    "ghcr": ["ghcr/package-published-container", "ghcr/registry-package-published-docker"],
    "gitlab": ["gitlab/push"],
    "bitbucket": ["bitbucket/repo-push"],
    "gitea": ["gitea/push"],
    "azure": ["azure/git-push"],
    "dockerhub": ["dockerhub/push"],
    "harbor": ["harbor/push-artifact"],
    "quay": ["quay/repository-push"],
    "artifactory": ["artifactory/docker-pushed"],
    "generic": ["generic/promote"],
}

CASES = [(name, headers) for name, listed in EVENT_HEADERS.items() for headers in listed]
IDS = [f"{name}-{'-'.join(headers.values()) or 'payload'}" for name, headers in CASES]

FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["refs/heads/main", "refs/tags/v1", "0" * 40, "push", "CONTAINER", ""])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)


def parse_outcome(name: str, incoming: Incoming) -> Event | None:
    """The parsed event, or None after a 4xx refusal; anything else fails the test."""
    try:
        return PROVIDERS[name].parse(incoming)
    except Refused as error:
        assert 400 <= error.status < 500, error.status
        assert error.reason
        return None


def test_every_provider_is_fuzzed() -> None:
    assert set(EVENT_HEADERS) == set(PROVIDERS) == set(SAMPLES)


@pytest.mark.parametrize(("name", "headers"), CASES, ids=IDS)
@FUZZ
@given(body=st.binary(max_size=300))
def test_parse_arbitrary_bytes(name: str, headers: dict[str, str], body: bytes) -> None:
    parse_outcome(name, delivery(headers, body))


@pytest.mark.parametrize(("name", "headers"), CASES, ids=IDS)
@FUZZ
@given(value=json_values)
def test_parse_arbitrary_json(name: str, headers: dict[str, str], value: Any) -> None:
    parse_outcome(name, delivery(headers, json.dumps(value).encode()))


def _mutate(document: Any, data: st.DataObject) -> Any:
    """``document`` with one node (chosen by ``data``) replaced by arbitrary JSON, or one
    key of an object removed."""
    if isinstance(document, dict) and document and data.draw(st.integers(0, 5)) > 0:
        key = data.draw(st.sampled_from(sorted(document)))
        if data.draw(st.integers(0, 9)) == 0:
            return {k: v for k, v in document.items() if k != key}
        return {**document, key: _mutate(document[key], data)}
    if isinstance(document, list) and document and data.draw(st.integers(0, 5)) > 0:
        index = data.draw(st.integers(0, len(document) - 1))
        return [*document[:index], _mutate(document[index], data), *document[index + 1 :]]
    return data.draw(json_values)


@pytest.mark.parametrize(("name", "headers"), CASES, ids=IDS)
@FUZZ
@given(data=st.data())
def test_parse_mutated_documented_samples(
    name: str, headers: dict[str, str], data: st.DataObject
) -> None:
    document = sample_json(data.draw(st.sampled_from(SAMPLES[name])))
    parse_outcome(name, delivery(headers, json.dumps(_mutate(document, data)).encode()))


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@FUZZ
@given(body=st.binary(max_size=200), headers=st.dictionaries(st.text(max_size=20), st.text()))
def test_delivery_id_never_fails(name: str, body: bytes, headers: dict[str, str]) -> None:
    assert isinstance(PROVIDERS[name].delivery_id(delivery(headers, body)), str)


CREDENTIAL_HEADERS = (
    "Authorization",
    "X-Hub-Signature-256",
    "X-Hub-Signature",
    "X-Gitlab-Token",
    "X-Gitea-Signature",
    "X-Forgejo-Signature",
    "X-Gogs-Signature",
    "X-JFrog-Event-Auth",
)
header_values = st.one_of(
    st.text(max_size=80),
    st.builds(
        "".join,
        st.tuples(
            st.sampled_from(["sha256=", "sha1=", "Basic ", "Bearer ", "basic ", ""]),
            st.text(max_size=80),
        ),
    ),
    st.builds(lambda b: "sha256=" + b.hex(), st.binary(min_size=32, max_size=32)),
)
FIXED_SECRET = "fuzz-secret-9d2e7c41"


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@FUZZ
@given(
    headers=st.dictionaries(st.sampled_from(CREDENTIAL_HEADERS), header_values, max_size=4),
    path_token=st.text(max_size=40),
    body=st.binary(max_size=200),
    secret=st.one_of(st.just(FIXED_SECRET), st.text(min_size=1, max_size=40)),
)
def test_verify_accepts_or_refuses_with_401(
    name: str, headers: dict[str, str], path_token: str, body: bytes, secret: str
) -> None:
    incoming = delivery(headers, body, path_token)
    try:
        PROVIDERS[name].verify(incoming, secret)
    except Refused as error:
        assert error.status == 401
        assert error.reason
        assert FIXED_SECRET not in error.reason
        for value in headers.values():
            if len(value) >= 16:  # shorter random text may be a word of the reason
                assert value not in error.reason
    else:
        # Accepted: only when the secret itself was sent where the provider looks for it
        # (a token, a bearer token, basic credentials); no fuzzer forges an HMAC.
        assert name in ("azure", "dockerhub", "quay", "gitlab", "harbor", "generic")
        assert name == "azure" or any(secret in v for v in (path_token, *headers.values()))
