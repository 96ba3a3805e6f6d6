"""Image repository names made comparable, and the tag filters of image triggers.

Registries name one repository several ways: Docker Hub sends ``acme/shop`` for what a pod
pulls as ``docker.io/acme/shop`` (and ``nginx`` is ``docker.io/library/nginx``); GHCR sends
``ghcr.io/Acme/Shop`` for ``ghcr.io/acme/shop``. :func:`normalize` gives the one form pods
use, so a trigger's ``repository`` matches whatever the registry sends.
"""

from __future__ import annotations

import re

from orchestrator.model.trigger import ImageTrigger
from orchestrator.semverrange import satisfies

DOCKER_HUB = "docker.io"
_HUB_ALIASES = ("index.docker.io", "registry-1.docker.io", "registry.hub.docker.com")


def normalize(repository: str) -> str:
    """``acme/shop`` -> ``docker.io/acme/shop``; ``nginx`` -> ``docker.io/library/nginx``;
    host names lower-cased, a tag or digest dropped."""
    name = repository.strip().split("@", 1)[0]
    head, _, last = name.rpartition("/")
    if ":" in last:
        name = f"{head}/{last.split(':', 1)[0]}" if head else last.split(":", 1)[0]
    first, sep, rest = name.partition("/")
    if not sep or not ("." in first or ":" in first or first == "localhost"):
        first, rest = DOCKER_HUB, name
    first = first.lower()
    if first in _HUB_ALIASES:
        first = DOCKER_HUB
    if first == DOCKER_HUB and "/" not in rest:
        rest = f"library/{rest}"
    return f"{first}/{rest.lower()}"


def path_of(repository: str) -> str:
    """The repository without its registry host (``docker.io/acme/shop`` -> ``acme/shop``)."""
    return normalize(repository).split("/", 1)[1]


def same_repository(configured: str, pushed: str, *, host_known: bool = True) -> bool:
    """Whether a push of ``pushed`` is one of ``configured``. Without the host (Artifactory
    names the repository inside its repository key) the configured path must end with the
    pushed one at a ``/``."""
    if host_known:
        return normalize(configured) == normalize(pushed)
    want, got = path_of(configured), pushed.strip().strip("/").lower()
    return want == got or want.endswith("/" + got) or got.endswith("/" + want)


def tag_passes(trigger: ImageTrigger, tag: str) -> bool:
    if trigger.semver is not None:
        return satisfies(tag, trigger.semver)
    if trigger.regex is not None:
        return re.fullmatch(trigger.regex, tag) is not None
    return True
