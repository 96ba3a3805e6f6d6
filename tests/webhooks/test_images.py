"""One image repository however a registry names it."""

from __future__ import annotations

import pytest

from orchestrator.model.trigger import ImageTrigger
from orchestrator.webhooks.images import normalize, same_repository, tag_passes


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("nginx", "docker.io/library/nginx"),
        ("acme/shop", "docker.io/acme/shop"),
        ("docker.io/acme/shop", "docker.io/acme/shop"),
        ("index.docker.io/acme/shop", "docker.io/acme/shop"),
        ("ghcr.io/Acme/Shop", "ghcr.io/acme/shop"),
        ("ghcr.io/acme/shop:1.2.3", "ghcr.io/acme/shop"),
        ("ghcr.io/acme/shop@sha256:" + "a" * 64, "ghcr.io/acme/shop"),
        ("localhost:5000/shop", "localhost:5000/shop"),
        ("registry.example.com:5000/team/app:v1", "registry.example.com:5000/team/app"),
    ],
)
def test_normalize(given: str, expected: str) -> None:
    assert normalize(given) == expected


def test_repositories_without_a_host_compare_by_path() -> None:
    configured = "acme.jfrog.io/docker-local/shop"
    assert same_repository(configured, "docker-local/shop", host_known=False)
    assert same_repository(configured, "shop", host_known=False)
    assert not same_repository(configured, "docker-local/cart", host_known=False)
    assert not same_repository(configured, "acme.jfrog.io/docker-local/cart")


def test_tag_filters() -> None:
    assert tag_passes(ImageTrigger(repository="ghcr.io/a/b"), "anything")
    semver = ImageTrigger(repository="ghcr.io/a/b", semver="^1")
    assert tag_passes(semver, "v1.9.0") and not tag_passes(semver, "2.0.0")
    regex = ImageTrigger(repository="ghcr.io/a/b", regex=r"release-\d+")
    assert tag_passes(regex, "release-42") and not tag_passes(regex, "release-42-hotfix")
