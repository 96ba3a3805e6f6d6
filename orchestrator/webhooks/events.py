"""What a webhook delivery means, once verified and parsed: the values providers return.

Every provider turns its own payload into one of these, so the mapping to promotions
(:mod:`orchestrator.webhooks.triggers`) never looks at a provider's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


class Refused(Exception):
    """The delivery is refused: ``status`` (a 4xx) and a one-line ``reason`` for the sender.

    The reason never repeats a signature, a token or the body."""

    def __init__(self, status: int, reason: str, *, challenge: str = "") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.challenge = challenge
        """``WWW-Authenticate`` for a 401 (``Basic realm="promoflow"``, ``Bearer``)."""


@dataclass(frozen=True)
class Incoming:
    """One HTTP delivery as the providers see it: headers with lower-case names, the raw
    body (signatures are computed over these exact bytes), the query and the path token
    (``/webhooks/dockerhub/TOKEN``, for senders that cannot sign)."""

    headers: Mapping[str, str]
    body: bytes
    query: Mapping[str, str] = field(default_factory=dict)
    path_token: str = ""

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


@dataclass(frozen=True)
class Ping:
    """A sender checking the hook (GitHub ``ping``, a registry's test event): 200, nothing
    promoted. ``reason`` says what it was."""

    reason: str


@dataclass(frozen=True)
class Ignored:
    """A verified delivery that is not about a new version (a tag push, a deleted branch, a
    package that is not a container): 200, nothing promoted, ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class Commit:
    sha: str
    message: str = ""
    paths: tuple[str, ...] = ()
    """Every path the commit added, modified or removed, as the payload lists them."""


@dataclass(frozen=True)
class GitPush:
    """Commits pushed to a branch."""

    repositories: tuple[str, ...]
    """Every URL the payload gives for the repository (clone, SSH, web): one of them is
    compared with a product's ``repo.url``."""
    branch: str
    before: str
    after: str
    commits: tuple[Commit, ...] = ()
    complete: bool = True
    """False when the payload may not list every commit or every path (GitHub lists at most
    20 commits and can omit files; Bitbucket and Azure DevOps list no paths at all): the
    changed paths are then read in Git, ``before..after``."""
    pusher: str = ""


@dataclass(frozen=True)
class ImagePush:
    """Tags pushed to an image repository of a registry."""

    repository: str
    """As the registry names it, host included where the payload has it
    (``ghcr.io/acme/shop``, ``docker.io/acme/shop``); :func:`orchestrator.webhooks.images
    .normalize` makes it comparable."""
    tags: tuple[str, ...]
    digest: str = ""
    pusher: str = ""
    host_known: bool = True
    """False when the payload names the repository without the registry's host
    (Artifactory): it is then compared by path only."""


@dataclass(frozen=True)
class PromotionAsked:
    """A direct request (the ``generic`` provider): promote ``version`` of ``product``."""

    product: str
    version: str
    source_commit: str = ""
    requested_by: str = ""
    fields: Mapping[str, str] = field(default_factory=dict)


Event = Ping | Ignored | GitPush | ImagePush | PromotionAsked
