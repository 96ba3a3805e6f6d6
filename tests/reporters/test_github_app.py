"""GitHub App credentials for the github service: a JWT signed with the app's key traded
for an installation token at the fake GitHub (:mod:`tests.fakes.github_app`), kept until
shortly before it expires, and never shown in an error."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jwt
import pytest

from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.services import sinks_for
from reporters.sinks.delivery import SinkError
from reporters.sinks.github_app import InstallationToken, app_jwt, private_key
from reporters.sinks.github_service import GitHubSink
from tests.fakes.github_app import FakeApp, new_key
from tests.fakes.scm_server import FakeScm

SHA = "a" * 40
KEY, PEM = new_key()


def event(n: int = 1) -> dict[str, Any]:
    data = {"app": "argocd/shop", "repo": "https://github.com/acme/gitops.git", "revision": SHA}
    return {"id": f"e{n}", "type": "app.deployed", "subject": "argocd/shop", "data": data}


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_the_jwt_is_what_github_asks_for() -> None:
    token = app_jwt("123", private_key(PEM), 1_700_000_000)
    claims = jwt.decode(token, KEY.public_key(), algorithms=["RS256"],
                        options={"verify_exp": False})  # fmt: skip
    assert claims == {"iss": "123", "iat": 1_699_999_940, "exp": 1_700_000_540}
    assert jwt.get_unverified_header(token)["alg"] == "RS256"
    assert claims["exp"] - claims["iat"] <= 600


def test_an_installation_token_is_made_once_and_kept_until_it_nears_expiry() -> None:
    clock = Clock()
    app = FakeApp(123, KEY, clock=clock)
    with FakeScm("github", token="unused", github_app=app) as github:
        tokens = InstallationToken("123", "4242", PEM, clock=clock)
        sink = GitHubSink(api=github.url, app=tokens)
        sink.send(event(1))
        sink.send(event(2))
        assert tokens.made == 1 and app.requests == [4242]
        clock.now += 3600 - 301  # still five minutes left: kept
        sink.send(event(3))
        assert tokens.made == 1
        clock.now += 2  # under five minutes left: a new one
        sink.send(event(4))
        assert tokens.made == 2
        sink.close()
    assert [sha for sha, _ in github.statuses] == [SHA] * 4
    assert ("POST", "/app/installations/4242/access_tokens", 201) in github.requests


def test_a_revoked_token_is_dropped_and_the_retry_makes_a_new_one() -> None:
    app = FakeApp(123, KEY)
    with FakeScm("github", token="unused", github_app=app) as github:
        tokens = InstallationToken("123", "4242", PEM)
        sink = GitHubSink(api=github.url, app=tokens)
        sink.send(event(1))
        app.revoke()
        with pytest.raises(SinkError) as caught:
            sink.send(event(2))
        assert not caught.value.permanent and "Bad credentials" in str(caught.value)
        sink.send(event(2))
        sink.close()
    assert tokens.made == 2 and len(github.statuses) == 2


@pytest.mark.parametrize(
    ("app", "installation", "said", "permanent"),
    [
        (FakeApp(123, KEY), "999", "404 Not Found (check installationID", True),
        (
            FakeApp(123, KEY, suspended={4242}),
            "4242",
            "403 This installation has been suspended",
            True,
        ),
        (FakeApp(124, KEY), "4242", "401 A JSON web token could not be decoded (check appID", True),
        (FakeApp(123, new_key()[0]), "4242", "401 A JSON web token could not be decoded", True),
    ],
)
def test_githubs_refusals_are_said_without_the_key(
    app: FakeApp, installation: str, said: str, permanent: bool
) -> None:
    with FakeScm("github", token="unused", github_app=app) as github:
        sink = GitHubSink(api=github.url, app=InstallationToken("123", installation, PEM))
        with pytest.raises(SinkError) as caught:
            sink.send(event())
        sink.close()
    error = str(caught.value)
    assert caught.value.permanent is permanent
    whom = f"GitHub App 123, installation {installation}"
    assert f"GitHub refused an installation token to {whom}: {said}" in error
    assert "PRIVATE KEY" not in error and PEM.splitlines()[1][:20] not in error
    assert not github.statuses


def test_an_outage_of_the_token_endpoint_is_retried() -> None:
    with FakeScm("github", token="unused", github_app=FakeApp(123, KEY)) as github:
        github.fail_next(1, 503)
        sink = GitHubSink(api=github.url, app=InstallationToken("123", "4242", PEM))
        with pytest.raises(SinkError) as caught:
            sink.send(event())
        sink.send(event())
        sink.close()
    assert not caught.value.permanent and len(github.statuses) == 1


def test_the_configmaps_app_credentials_build_the_sink(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        "service.github: |\n  appID: 123\n  installationID: '4242'\n"
        "  privateKey: $github-privateKey\n  enterpriseBaseURL: https://ghe.example.com/api/v3\n"
    )
    config = load(path, {"github-privateKey": PEM})
    [sink] = sinks_for(config)
    assert isinstance(sink, GitHubSink)
    with pytest.raises(ConfigError) as caught:
        load(path, {"github-privateKey": "-----BEGIN RSA PRIVATE KEY-----\nnot a key s3cr3t\n"})
    [problem] = caught.value.problems
    assert problem.message == (
        "service.github: privateKey: the value its $secret resolves to is not valid (expected "
        "the app's private key as PEM (-----BEGIN RSA PRIVATE KEY-----, as GitHub downloads it))"
    )
    assert "s3cr3t" not in str(caught.value)
    half = tmp_path / "half.yaml"
    half.write_text("service.github: |\n  appID: 123\n  privateKey: $k\n")
    with pytest.raises(ConfigError) as missing:
        load(half, {"k": PEM})
    assert "add installationID" in str(missing.value.problems[0].message)
