"""Each webhook provider against its sender's documented sample payload, signed its way.

Samples: ``tests/vectors/webhooks`` (``SOURCES.md`` says where each comes from). Every
provider must verify a correctly signed sample and parse it into exactly the expected event,
refuse a wrong or missing credential with 401 (and an altered body, where the body is
signed), refuse an unknown event with 400, and name deliveries by the headers its sender
sends.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from orchestrator.webhooks import registry
from orchestrator.webhooks.events import (
    Commit,
    Event,
    GitPush,
    Ignored,
    ImagePush,
    Incoming,
    Ping,
    PromotionAsked,
    Refused,
)
from orchestrator.webhooks.payloads import body_hash
from tests.webhooks.samples import (
    OTHER,
    SECRET,
    credentials,
    delivery,
    generic_signed,
    hmac_hex,
    sample,
    sample_json,
    signed,
)

PROVIDERS = registry.providers()
HMAC_PROVIDERS = ("github", "ghcr", "bitbucket", "gitea", "artifactory")
"""Providers whose proof covers the body: an altered body must be refused."""
ZERO = "0" * 40


def provider_of(name: str) -> registry.Provider:
    return PROVIDERS[name]


def accept(name: str, incoming: Incoming) -> Event:
    """Verify (with :data:`SECRET`) and parse, as the app does."""
    provider = provider_of(name)
    provider.verify(incoming, SECRET)
    return provider.parse(incoming)


def refused(call: Any, *args: Any) -> Refused:
    with pytest.raises(Refused) as caught:
        call(*args)
    return caught.value


def body_of(data: Any) -> bytes:
    return json.dumps(data).encode()


# --- every provider is registered ---------------------------------------------------------


def test_every_module_declares_its_provider() -> None:
    """Found by listing the package: each sender's module is named as its URL segment."""
    assert sorted(PROVIDERS) == [
        "artifactory", "azure", "bitbucket", "dockerhub", "generic", "ghcr", "gitea",
        "github", "gitlab", "harbor", "quay",
    ]  # fmt: skip
    for name, provider in PROVIDERS.items():
        assert provider.parse.__module__ == f"orchestrator.webhooks.providers.{name}"
        assert registry.get(name) is provider
        assert provider.name == name
        assert provider.title and provider.scheme
    assert {n for n, p in PROVIDERS.items() if p.url_token} == {"dockerhub", "quay"}


# --- GitHub's published HMAC test vector ---------------------------------------------------

GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_BODY = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


@pytest.mark.parametrize("name", ["github", "ghcr"])
def test_github_published_test_vector_verifies(name: str) -> None:
    incoming = delivery({"X-Hub-Signature-256": GITHUB_SIGNATURE}, GITHUB_BODY)
    provider_of(name).verify(incoming, GITHUB_SECRET)


@pytest.mark.parametrize(
    ("body", "secret"),
    [
        (b"Hello, World?", GITHUB_SECRET),
        (GITHUB_BODY + b"\n", GITHUB_SECRET),
        (GITHUB_BODY, "It's a secret to everybody"),
        (GITHUB_BODY, ""),
    ],
)
def test_github_test_vector_refuses_another_body_or_secret(body: bytes, secret: str) -> None:
    incoming = delivery({"X-Hub-Signature-256": GITHUB_SIGNATURE}, body)
    error = refused(provider_of("github").verify, incoming, secret)
    assert error.status == 401
    assert GITHUB_SIGNATURE.removeprefix("sha256=") not in error.reason


def test_github_refuses_a_missing_or_other_algorithm_signature() -> None:
    error = refused(provider_of("github").verify, delivery({}, GITHUB_BODY), GITHUB_SECRET)
    assert (error.status, error.reason) == (401, "unsigned delivery: no X-Hub-Signature-256 header")
    sha1 = delivery({"X-Hub-Signature-256": "sha1=" + "0" * 40}, GITHUB_BODY)
    assert refused(provider_of("github").verify, sha1, GITHUB_SECRET).status == 401


# --- the documented samples, verified and parsed ------------------------------------------

CASES: list[tuple[str, str, dict[str, str], Event]] = [
    (
        "github",
        "github/push-new-branch",
        {"X-GitHub-Event": "push"},
        GitPush(
            repositories=(
                "https://github.com/Codertocat/Hello-World.git",
                "https://github.com/Codertocat/Hello-World",
                "git@github.com:Codertocat/Hello-World.git",
                "git://github.com/Codertocat/Hello-World.git",
                "https://github.com/Codertocat/Hello-World",
            ),
            branch="master",
            before="",
            after="6113728f27ae82c7b1a177c8d03f9e96e0adf246",
            commits=(
                Commit(
                    sha="6113728f27ae82c7b1a177c8d03f9e96e0adf246",
                    message="Initial commit",
                    paths=("README.md",),
                ),
            ),
            complete=True,
            pusher="Codertocat",
        ),
    ),
    (
        "ghcr",
        "ghcr/package-published-container",
        {"X-GitHub-Event": "package"},
        ImagePush(
            repository="ghcr.io/codertocat/hello-world",
            tags=("1.0.0",),
            digest="sha256:6c62fb45fe66bfb1ea9a66abc38f6a0cc974292b",
            pusher="Codertocat",
        ),
    ),
    (
        "gitlab",
        "gitlab/push",
        {"X-Gitlab-Event": "Push Hook"},
        GitPush(
            repositories=(
                "http://example.com/mike/diaspora.git",
                "git@example.com:mike/diaspora.git",
                "http://example.com/mike/diaspora",
            ),
            branch="master",
            before="95790bf891e76fee5e1747ab589903a6a1f80f22",
            after="da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
            commits=(
                Commit(
                    sha="b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327",
                    message="Update Catalan translation to e38cb41.\n\n"
                    "See https://gitlab.com/gitlab-org/gitlab for more information",
                    paths=("CHANGELOG", "app/controller/application.rb"),
                ),
                Commit(
                    sha="da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
                    message="fixed readme",
                    paths=("CHANGELOG", "app/controller/application.rb"),
                ),
            ),
            complete=False,  # total_commits_count is 4, two are listed
            pusher="jsmith",
        ),
    ),
    (
        "bitbucket",
        "bitbucket/repo-push",
        {"X-Event-Key": "repo:push"},
        GitPush(
            repositories=(
                "https://api.bitbucket.org/bitbucket/bitbucket",
                "https://bitbucket.org/team_name/repo_name.git",
            ),
            branch="name-of-branch",
            before="1e65c05c1d5171631d92438a13901ca7dae9618c",
            after="709d658dc5b6d6afcd46049c2f332ee3f515a67d",
            commits=(
                Commit(sha="03f4a7270240708834de475bcf21532d6134777e", message="commit message\n"),
            ),
            complete=False,
            pusher="emmap1",
        ),
    ),
    (
        "gitea",
        "gitea/push",
        {"X-Gitea-Event": "push"},
        GitPush(
            repositories=(
                "http://localhost:3000/gitea/webhooks.git",
                "http://localhost:3000/gitea/webhooks",
                "ssh://gitea@localhost:2222/gitea/webhooks.git",
            ),
            branch="develop",
            before="28e1879d029cb852e4844d9c718537df08844e03",
            after="bffeb74224043ba2feb48d137756c8a9331c449a",
            commits=(
                Commit(sha="bffeb74224043ba2feb48d137756c8a9331c449a", message="Webhooks Yay!"),
            ),
            complete=False,  # the documented commit lists no paths
            pusher="gitea",
        ),
    ),
    (
        "azure",
        "azure/git-push",
        {},
        GitPush(
            repositories=(
                "https://dev.azure.com/fabrikam-fiber-inc/DefaultCollection/_git/Fabrikam-Fiber-Git",
                "https://dev.azure.com/fabrikam-fiber-inc/DefaultCollection/_apis/repos/git/"
                "repositories/278d5cd2-584d-4b63-824a-2ba458937249",
            ),
            branch="master",
            before="aad331d8d3b131fa9ae03cf5e53965b51942618a",
            after="33b55f7cb7e7e245323987634f960cf4a6e6bc74",
            commits=(
                Commit(
                    sha="33b55f7cb7e7e245323987634f960cf4a6e6bc74",
                    message="Fixed bug in web.config file",
                ),
            ),
            complete=False,
            pusher="Windows Live ID\\fabrikamfiber4@hotmail.com",
        ),
    ),
    (
        "dockerhub",
        "dockerhub/push",
        {},
        ImagePush(
            repository="docker.io/svendowideit/testhook", tags=("latest",), pusher="trustedbuilder"
        ),
    ),
    (
        "harbor",
        "harbor/push-artifact",
        {},
        ImagePush(
            repository="hub.harbor.com/test-webhook/debian",
            tags=("latest",),
            digest="sha256:8a9e9863dbb6e10edb5adfe917c00da84e1700fa76e7ed02476aa6e6fb8ee0d8",
            pusher="admin",
        ),
    ),
    (
        "quay",
        "quay/repository-push",
        {},
        ImagePush(repository="quay.io/dgangaia/test", tags=("latest",)),
    ),
    (
        "artifactory",
        "artifactory/docker-pushed",
        {},
        ImagePush(
            repository="docker-remote-cache/library/ubuntu",
            tags=("latest",),
            digest="sha256:35c4a2c15539c6c1e4e5fa4e554dac323ad0107d8eb5c582d6ff386b383b7dce",
            host_known=False,
        ),
    ),
    (
        "generic",
        "generic/promote",
        {},
        PromotionAsked(
            product="shop",
            version="1.4.2",
            source_commit="3f9a1c2e4b5d6a7f8e9d0c1b2a3f4e5d6c7b8a90",
            requested_by="ci/build-1234",
            fields={"ticket": "OPS-42", "pipeline": "https://ci.example.com/shop/builds/1234"},
        ),
    ),
]
CASE_IDS = [case[0] for case in CASES]


def test_every_provider_has_a_sample_case() -> None:
    assert sorted(CASE_IDS) == sorted(PROVIDERS)


@pytest.mark.parametrize(("name", "path", "events", "expected"), CASES, ids=CASE_IDS)
def test_documented_sample_verifies_and_parses(
    name: str, path: str, events: dict[str, str], expected: Event
) -> None:
    assert accept(name, signed(name, sample(path), events)) == expected


@pytest.mark.parametrize(("name", "path", "events", "expected"), CASES, ids=CASE_IDS)
def test_wrong_secret_is_refused_with_401(
    name: str, path: str, events: dict[str, str], expected: Event
) -> None:
    del expected
    body = sample(path)
    incoming = signed(name, body, events, secret=OTHER)
    error = refused(provider_of(name).verify, incoming, SECRET)
    assert error.status == 401
    for secret_or_proof in (SECRET, OTHER, hmac_hex(OTHER, body), hmac_hex(SECRET, body)):
        assert secret_or_proof not in error.reason
    assert body.decode()[:40] not in error.reason


@pytest.mark.parametrize(("name", "path", "events", "expected"), CASES, ids=CASE_IDS)
def test_missing_credential_is_refused_with_401(
    name: str, path: str, events: dict[str, str], expected: Event
) -> None:
    del expected
    error = refused(provider_of(name).verify, delivery(events, sample(path)), SECRET)
    assert error.status == 401


@pytest.mark.parametrize("name", HMAC_PROVIDERS)
def test_body_altered_after_signing_is_refused_with_401(name: str) -> None:
    path, events = next((c[1], c[2]) for c in CASES if c[0] == name)
    body = sample(path)
    headers, _ = credentials(name, body)
    for altered in (body + b" ", body.replace(b"e", b"E", 1), body[:-2]):
        error = refused(provider_of(name).verify, delivery({**events, **headers}, altered), SECRET)
        assert error.status == 401


def test_generic_signature_covers_the_body() -> None:
    body = sample("generic/promote")
    headers = generic_signed(body)
    provider_of("generic").verify(delivery(headers, body), SECRET)
    error = refused(provider_of("generic").verify, delivery(headers, body + b" "), SECRET)
    assert error.status == 401


def test_generic_checks_a_sent_signature_even_with_a_good_bearer_token() -> None:
    body = sample("generic/promote")
    headers = {"Authorization": f"Bearer {SECRET}", **generic_signed(body, secret=OTHER)}
    assert refused(provider_of("generic").verify, delivery(headers, body), SECRET).status == 401


@pytest.mark.parametrize(
    "authorization", [f"Basic {SECRET}", f"bearer {OTHER}", "Bearer", SECRET, f"Bearer  {SECRET}x"]
)
def test_generic_bearer_token_must_be_the_secret(authorization: str) -> None:
    incoming = delivery({"Authorization": authorization}, b"{}")
    error = refused(provider_of("generic").verify, incoming, SECRET)
    assert error.status == 401
    assert SECRET not in error.reason


def test_gitea_accepts_forgejo_and_gogs_signatures() -> None:
    body = sample("gitea/push")
    for header in ("X-Forgejo-Signature", "X-Gogs-Signature"):
        provider_of("gitea").verify(delivery({header: hmac_hex(SECRET, body)}, body), SECRET)
    prefixed = delivery({"X-Gitea-Signature": "sha256=" + hmac_hex(SECRET, body)}, body)
    assert refused(provider_of("gitea").verify, prefixed, SECRET).status == 401


def test_azure_basic_auth_user_and_password() -> None:
    def basic(pair: str) -> Incoming:
        token = base64.b64encode(pair.encode()).decode()
        return delivery({"Authorization": f"Basic {token}"}, b"{}")

    verify = provider_of("azure").verify
    verify(basic(f"anyone:{SECRET}"), SECRET)
    verify(basic(f"hooks:{SECRET}"), f"hooks:{SECRET}")
    assert refused(verify, basic(f"other:{SECRET}"), f"hooks:{SECRET}").status == 401
    assert refused(verify, basic(f"anyone:{OTHER}"), SECRET).status == 401
    error = refused(verify, delivery({"Authorization": "Basic !!!"}, b"{}"), SECRET)
    assert error.status == 401
    assert refused(verify, delivery({}, b"{}"), SECRET).challenge.startswith("Basic")


def test_harbor_compares_the_whole_authorization_header() -> None:
    verify = provider_of("harbor").verify
    verify(delivery({"Authorization": "Bearer abc"}, b"{}"), "Bearer abc")
    assert refused(verify, delivery({"Authorization": "abc"}, b"{}"), "Bearer abc").status == 401
    bearer = delivery({"Authorization": f"Bearer {SECRET}"}, b"{}")
    assert refused(verify, bearer, SECRET).status == 401


@pytest.mark.parametrize("name", ["dockerhub", "quay"])
def test_url_token_must_be_the_secret(name: str) -> None:
    verify = provider_of(name).verify
    verify(delivery(path_token=SECRET), SECRET)
    for token in (OTHER, SECRET[:-1], SECRET + "x", SECRET.upper()):
        error = refused(verify, delivery(path_token=token), SECRET)
        assert error.status == 401
        assert token not in error.reason


# --- unknown events, pings, ignored deliveries --------------------------------------------

UNKNOWN: list[tuple[str, dict[str, str], bytes]] = [
    ("github", {"X-GitHub-Event": "issues"}, b"{}"),
    ("github", {}, b"{}"),
    ("ghcr", {"X-GitHub-Event": "push"}, sample("github/push-new-branch")),
    ("ghcr", {}, b"{}"),
    ("gitlab", {"X-Gitlab-Event": "Merge Request Hook"}, b"{}"),
    ("gitlab", {}, b"{}"),
    ("bitbucket", {"X-Event-Key": "pullrequest:created"}, b"{}"),
    ("bitbucket", {}, b"{}"),
    ("gitea", {"X-Gitea-Event": "issues"}, b"{}"),
    ("gitea", {"X-Forgejo-Event": "pull_request"}, b"{}"),
    ("gitea", {}, sample("gitea/push")),
    ("azure", {}, body_of({"eventType": "git.pullrequest.created", "resource": {}})),
    ("azure", {}, body_of({"resource": {}})),
    ("dockerhub", {}, body_of({"repository": {"repo_name": "acme/shop"}})),
    ("harbor", {}, body_of({"type": "SOMETHING_NEW", "event_data": {}})),
    ("harbor", {}, body_of({"specversion": "1.0", "type": "harbor.artifact.pushed"})),
    ("quay", {}, body_of({"build_id": "296ec063", "docker_url": "quay.io/dgangaia/test"})),
    ("artifactory", {}, body_of({"data": {"repo_key": "docker-local"}})),
    ("generic", {}, body_of({"product": "shop", "version": "1.0", "tag": "1.0"})),
]


@pytest.mark.parametrize(("name", "events", "body"), UNKNOWN)
def test_unknown_event_is_refused_with_400(name: str, events: dict[str, str], body: bytes) -> None:
    error = refused(provider_of(name).parse, signed(name, body, events))
    assert error.status == 400
    assert error.reason


def test_every_provider_refuses_an_unknown_event() -> None:
    assert {case[0] for case in UNKNOWN} == set(PROVIDERS)


@pytest.mark.parametrize(
    ("name", "events", "body", "reason"),
    [
        (
            "github",
            {"X-GitHub-Event": "ping"},
            sample("github/ping"),
            "GitHub ping for hook 109948940",
        ),
        (
            "ghcr",
            {"X-GitHub-Event": "ping"},
            sample("github/ping"),
            "GitHub ping for hook 109948940",
        ),
        ("bitbucket", {"X-Event-Key": "diagnostics:ping"}, b"{}", "Bitbucket webhook test"),
    ],
)
def test_ping(name: str, events: dict[str, str], body: bytes, reason: str) -> None:
    assert accept(name, signed(name, body, events)) == Ping(reason)


def _edited(path: str, edit: Any) -> bytes:
    data = sample_json(path)
    edit(data)
    return body_of(data)


def _set(path: str, value: Any) -> Any:
    """An edit setting the dotted ``path`` of a payload to ``value``."""

    def edit(data: Any) -> None:
        *parents, last = path.split(".")
        for key in parents:
            data = data[int(key)] if isinstance(data, list) else data[key]
        if isinstance(data, list):
            data[int(last)] = value
        else:
            data[last] = value

    return edit


IGNORED: list[tuple[str, dict[str, str], bytes]] = [
    ("github", {"X-GitHub-Event": "push"}, sample("github/push-tag-deleted")),
    ("ghcr", {"X-GitHub-Event": "package"}, sample("ghcr/package-published-docker")),
    (
        "ghcr",
        {"X-GitHub-Event": "package"},
        _edited("ghcr/package-published-docker", _set("package.package_type", "CONTAINER")),
    ),
    (
        "ghcr",
        {"X-GitHub-Event": "package"},
        _edited("ghcr/package-published-container", _set("action", "deleted")),
    ),
    ("gitlab", {"X-Gitlab-Event": "Tag Push Hook"}, sample("gitlab/tag-push")),
    ("gitlab", {"X-Gitlab-Event": "System Hook"}, b"{}"),
    ("gitlab", {"X-Gitlab-Event": "Push Hook"}, _edited("gitlab/push", _set("after", ZERO))),
    (
        "gitlab",
        {"X-Gitlab-Event": "Push Hook"},
        _edited("gitlab/push", _set("ref", "refs/tags/v1")),
    ),
    (
        "bitbucket",
        {"X-Event-Key": "repo:push"},
        _edited("bitbucket/repo-push", _set("push.changes.0.new", None)),
    ),
    (
        "bitbucket",
        {"X-Event-Key": "repo:push"},
        _edited(
            "bitbucket/repo-push",
            lambda d: [_set(f"push.changes.0.{k}.type", "tag")(d) for k in ("new", "old")],
        ),
    ),
    ("gitea", {"X-Gitea-Event": "push"}, _edited("gitea/push", _set("after", ZERO))),
    ("gitea", {"X-Gitea-Event": "push"}, _edited("gitea/push", _set("ref", "refs/tags/v1"))),
    ("azure", {}, _edited("azure/git-push", _set("resource.refUpdates.0.newObjectId", ZERO))),
    ("azure", {}, _edited("azure/git-push", _set("resource.refUpdates.0.name", "refs/tags/v1"))),
    ("dockerhub", {}, _edited("dockerhub/push", _set("push_data.tag", ""))),
    ("harbor", {}, _edited("harbor/push-artifact", _set("type", "DELETE_ARTIFACT"))),
    ("harbor", {}, _edited("harbor/push-artifact", _set("type", "SCANNING_COMPLETED"))),
    ("harbor", {}, _edited("harbor/push-artifact", _set("event_data.resources.0.tag", ""))),
    ("quay", {}, _edited("quay/repository-push", _set("updated_tags", []))),
    ("artifactory", {}, _edited("artifactory/docker-pushed", _set("event_type", "deleted"))),
    ("artifactory", {}, _edited("artifactory/docker-pushed", _set("domain", "artifact"))),
]


@pytest.mark.parametrize(("name", "events", "body"), IGNORED)
def test_ignored(name: str, events: dict[str, str], body: bytes) -> None:
    event = accept(name, signed(name, body, events))
    assert isinstance(event, Ignored)
    assert event.reason


def test_ghcr_reasons_for_ignoring() -> None:
    def reason(body: bytes) -> str:
        event = accept("ghcr", signed("ghcr", body, {"X-GitHub-Event": "package"}))
        assert isinstance(event, Ignored)
        return event.reason

    assert "not a container" in reason(sample("ghcr/package-published-docker"))
    untagged = _edited("ghcr/package-published-docker", _set("package.package_type", "container"))
    assert reason(untagged).startswith("no tag")


# --- particular readings ------------------------------------------------------------------


def test_github_also_routes_package_events_to_ghcr() -> None:
    body = sample("ghcr/package-published-container")
    event = accept("github", signed("github", body, {"X-GitHub-Event": "package"}))
    assert event == CASES[1][3]


def test_ghcr_registry_package_event() -> None:
    def edit(data: Any) -> None:
        data["registry_package"]["package_type"] = "CONTAINER"
        version = data["registry_package"]["package_version"]
        version["container_metadata"]["tag"]["name"] = "nightly"
        version["container_metadata"]["tag"]["digest"] = ""

    body = _edited("ghcr/registry-package-published-docker", edit)
    event = accept("ghcr", signed("ghcr", body, {"X-GitHub-Event": "registry_package"}))
    assert event == ImagePush(
        repository="ghcr.io/codertocat/hello-world",
        tags=("nightly",),
        digest="sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498",
        pusher="github-actions[bot]",
    )


@pytest.mark.parametrize(
    ("package_url", "repository"),
    [
        ("ghcr.io/Acme/Shop@sha256:abcd", "ghcr.io/acme/shop"),
        ("ghcr.io/acme/team/shop:1.2", "ghcr.io/acme/team/shop"),
        ("localhost:5000/acme/shop:1.2", "localhost:5000/acme/shop"),
        ("", "ghcr.io/codertocat/hello-world/hello-world-npm"),
        ("ghcr.io", "ghcr.io/codertocat/hello-world/hello-world-npm"),
    ],
)
def test_ghcr_repository_from_package_url_or_names(package_url: str, repository: str) -> None:
    body = _edited(
        "ghcr/package-published-container",
        _set("package.package_version.package_url", package_url),
    )
    event = accept("ghcr", signed("ghcr", body, {"X-GitHub-Event": "package"}))
    assert isinstance(event, ImagePush)
    assert event.repository == repository


def test_gitlab_push_is_complete_when_every_commit_is_listed() -> None:
    push = {"X-Gitlab-Event": "Push Hook"}
    body = _edited("gitlab/push", _set("total_commits_count", 2))
    event = accept("gitlab", signed("gitlab", body, push))
    assert isinstance(event, GitPush) and event.complete

    def twenty_one(data: Any) -> None:
        data["commits"] = [dict(data["commits"][0], id=f"{i:040x}") for i in range(21)]
        data["total_commits_count"] = 21

    event = accept("gitlab", signed("gitlab", _edited("gitlab/push", twenty_one), push))
    assert isinstance(event, GitPush) and not event.complete and len(event.commits) == 21


def test_gitlab_new_branch_has_no_before() -> None:
    body = _edited("gitlab/push", _set("before", ZERO))
    event = accept("gitlab", signed("gitlab", body, {"X-Gitlab-Event": "Push Hook"}))
    assert isinstance(event, GitPush) and event.before == ""


def test_gitea_push_is_complete_with_paths_and_total() -> None:
    def with_paths(data: Any) -> None:
        commit = data["commits"][0]
        commit.update(added=["a.yaml"], modified=["envs/dev/shop.yaml"], removed=[])
        data["total_commits"] = 1

    push = {"X-Forgejo-Event": "push"}
    event = accept("gitea", signed("gitea", _edited("gitea/push", with_paths), push))
    assert isinstance(event, GitPush)
    assert event.complete
    assert event.commits[0].paths == ("a.yaml", "envs/dev/shop.yaml")

    def with_more(data: Any) -> None:
        with_paths(data)
        data["total_commits"] = 7

    more = _edited("gitea/push", with_more)
    event = accept("gitea", signed("gitea", more, push))
    assert isinstance(event, GitPush) and not event.complete


def test_bitbucket_new_branch_uses_the_first_branch_change() -> None:
    def edit(data: Any) -> None:
        change = data["push"]["changes"][0]
        tag = json.loads(json.dumps(change))
        tag["new"]["type"] = tag["old"]["type"] = "tag"
        change["old"] = None
        change["new"]["name"] = "feature/x"
        data["push"]["changes"] = [tag, change]

    body = _edited("bitbucket/repo-push", edit)
    event = accept("bitbucket", signed("bitbucket", body, {"X-Event-Key": "repo:push"}))
    assert isinstance(event, GitPush)
    assert (event.branch, event.before) == ("feature/x", "")
    assert event.after == "709d658dc5b6d6afcd46049c2f332ee3f515a67d"


def test_harbor_legacy_push_and_every_tag() -> None:
    def edit(data: Any) -> None:
        data["type"] = "pushImage"
        resource = data["event_data"]["resources"][0]
        data["event_data"]["resources"] = [
            resource,
            dict(resource, tag="1.2.3"),
            dict(resource, tag="sha256:8a9e98"),
        ]

    event = accept("harbor", signed("harbor", _edited("harbor/push-artifact", edit)))
    assert isinstance(event, ImagePush)
    assert event.tags == ("latest", "1.2.3")
    assert event.repository == "hub.harbor.com/test-webhook/debian"


def test_harbor_without_resource_url_has_no_host() -> None:
    body = _edited("harbor/push-artifact", lambda d: d["event_data"]["resources"][0].clear())
    assert isinstance(accept("harbor", signed("harbor", body)), Ignored)
    body = _edited("harbor/push-artifact", _set("event_data.resources.0.resource_url", ""))
    event = accept("harbor", signed("harbor", body))
    assert event == ImagePush(
        repository="test-webhook/debian",
        tags=("latest",),
        digest="sha256:8a9e9863dbb6e10edb5adfe917c00da84e1700fa76e7ed02476aa6e6fb8ee0d8",
        pusher="admin",
        host_known=False,
    )


def test_quay_legacy_updated_tags_object() -> None:
    body = _edited("quay/repository-push", _set("updated_tags", {"latest": "b750fe", "v2": "b7"}))
    event = accept("quay", signed("quay", body))
    assert event == ImagePush(repository="quay.io/dgangaia/test", tags=("latest", "v2"))


def test_artifactory_checksum_that_is_no_digest_is_left_out() -> None:
    body = _edited("artifactory/docker-pushed", _set("data.sha256", "sample_checksum"))
    event = accept("artifactory", signed("artifactory", body))
    assert isinstance(event, ImagePush) and event.digest == ""


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ({"product": "shop", "version": "1", "sourceComit": "x"}, "'sourceComit'"),
        ({"product": "", "version": "1"}, "must not be empty"),
        ({"product": "shop", "version": "  "}, "must not be empty"),
        ({"product": "shop"}, "no version"),
        ({"product": 1, "version": "1"}, "product has the wrong type"),
        ({"product": "shop", "version": "1", "fields": {"a": "b", "n": 1}}, "'n'"),
        ({"product": "shop", "version": "1", "fields": ["a"]}, "fields has the wrong type"),
        ({"product": "shop", "version": "1", "requestedBy": True}, "requestedBy"),
    ],
)
def test_generic_refuses_anything_but_its_schema(payload: dict[str, Any], words: str) -> None:
    error = refused(provider_of("generic").parse, delivery({}, body_of(payload)))
    assert error.status == 400
    assert words in error.reason


def test_generic_minimal_request() -> None:
    event = provider_of("generic").parse(delivery({}, b'{"product": "shop", "version": "2.0"}'))
    assert event == PromotionAsked(product="shop", version="2.0")


# --- malformed payloads are 400s, never crashes -------------------------------------------

MALFORMED: list[tuple[str, dict[str, str], bytes]] = [
    ("github", {"X-GitHub-Event": "push"}, body_of({"ref": "refs/heads/x", "commits": {}})),
    ("ghcr", {"X-GitHub-Event": "package"}, body_of({"action": "published", "package": []})),
    ("gitlab", {"X-Gitlab-Event": "Push Hook"}, body_of({"ref": "refs/heads/x", "after": 1})),
    (
        "gitlab",
        {"X-Gitlab-Event": "Push Hook"},
        _edited("gitlab/push", _set("commits.0.added", "CHANGELOG")),
    ),
    ("bitbucket", {"X-Event-Key": "repo:push"}, body_of({"push": {"changes": {}}})),
    (
        "bitbucket",
        {"X-Event-Key": "repo:push"},
        _edited("bitbucket/repo-push", _set("push.changes.0.new.target", [])),
    ),
    ("gitea", {"X-Gitea-Event": "push"}, _edited("gitea/push", _set("commits", [["x"]]))),
    ("azure", {}, body_of({"eventType": "git.push", "resource": {"refUpdates": []}})),
    ("azure", {}, _edited("azure/git-push", _set("resource.refUpdates.0", "refs/heads/x"))),
    ("dockerhub", {}, body_of({"push_data": {"tag": "1"}, "repository": []})),
    ("harbor", {}, _edited("harbor/push-artifact", _set("event_data.resources", {}))),
    ("quay", {}, _edited("quay/repository-push", _set("updated_tags", [1, 2]))),
    ("quay", {}, _edited("quay/repository-push", _set("docker_url", None))),
    ("artifactory", {}, _edited("artifactory/docker-pushed", _set("data", "x"))),
    ("generic", {}, b"[1, 2]"),
    ("generic", {}, b"\xff\xfe{"),
    ("generic", {}, b"[" * 100 + b"]" * 100),
]


@pytest.mark.parametrize(("name", "events", "body"), MALFORMED)
def test_malformed_payload_is_refused_with_400(
    name: str, events: dict[str, str], body: bytes
) -> None:
    error = refused(provider_of(name).parse, signed(name, body, events))
    assert error.status == 400


# --- delivery ids -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "headers", "body", "expected"),
    [
        ("github", {"X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958"}, b"{}", None),
        ("ghcr", {"X-GitHub-Delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958"}, b"{}", None),
        ("gitlab", {"Idempotency-Key": "f1e2", "X-Gitlab-Event-UUID": "a0b1"}, b"{}", "f1e2"),
        ("gitlab", {"X-Gitlab-Event-UUID": "a0b1c2d3"}, b"{}", None),
        ("bitbucket", {"X-Request-UUID": "r-1", "X-Hook-UUID": "h-1"}, b"{}", "r-1"),
        ("gitea", {"X-Gitea-Delivery": "f6266f16-1bf3-46a5-9ea4-602e06ead473"}, b"{}", None),
        ("gitea", {"X-Forgejo-Delivery": "0a1b2c3d"}, b"{}", None),
        ("generic", {"Idempotency-Key": "build-1234", "X-Request-Id": "r"}, b"{}", "build-1234"),
        ("generic", {"X-Request-Id": "req-9"}, b"{}", None),
    ],
)
def test_delivery_id_from_the_senders_header(
    name: str, headers: dict[str, str], body: bytes, expected: str | None
) -> None:
    value = expected if expected is not None else next(iter(headers.values()))
    assert provider_of(name).delivery_id(delivery(headers, body)) == value


def test_bitbucket_delivery_id_falls_back_to_the_hook_and_body() -> None:
    incoming = delivery({"X-Hook-UUID": "{hook-1}"}, b'{"a": 1}')
    assert provider_of("bitbucket").delivery_id(incoming) == f"{{hook-1}}:{body_hash(incoming)}"
    assert provider_of("bitbucket").delivery_id(delivery({}, b"{}")) == ""


def test_azure_delivery_id_is_the_event_id_else_the_body_hash() -> None:
    azure = provider_of("azure")
    assert azure.delivery_id(delivery({}, sample("azure/git-push"))) == (
        "03c164c2-8912-4d5e-8009-3707d5f83734"
    )
    for body in (b"not json", b'{"id": 5}', b"{}"):
        incoming = delivery({}, body)
        assert azure.delivery_id(incoming) == body_hash(incoming)


@pytest.mark.parametrize(
    "name", ["github", "ghcr", "gitlab", "gitea", "generic", "dockerhub", "harbor", "quay"]
)
def test_no_delivery_id_without_the_header(name: str) -> None:
    assert provider_of(name).delivery_id(delivery({}, b"{}")) == ""


@pytest.mark.parametrize("name", ["dockerhub", "harbor", "quay", "artifactory"])
def test_senders_without_delivery_ids(name: str) -> None:
    headers = {"X-Request-Id": "r", "Idempotency-Key": "k", "X-GitHub-Delivery": "g"}
    assert provider_of(name).delivery_id(delivery(headers, b'{"id": "x"}')) == ""
