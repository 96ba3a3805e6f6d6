"""Container image references as Kubernetes and containerd read them, and when two match.

A pod spec may name one image as ``nginx``, ``docker.io/library/nginx:latest`` or
``index.docker.io/library/nginx``; a chart may write ``ghcr.io/acme/web:2.0@sha256:...``.
Whether the image a promotion wrote is the one Argo CD shows running must not depend on
which spelling each side used, so both are normalized the way the kubelet does it:
github.com/distribution/reference's ``ParseNormalizedNamed`` (v0.6.0), mirrored here by hand
and checked against vectors from the real library (tests/vectors/dockerref).

Pure: no I/O, no promoflow imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# distribution/reference regexp.go, character for character (Go's RE2 picks the same
# submatches as Python's backtracking engine for these leftmost-first patterns; ``\w`` is
# ASCII there, so re.ASCII here, and whole-string matches use fullmatch, not ``$``).
_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_IPV6 = r"\[(?:[a-fA-F0-9:]+)\]"
_DOMAIN_AND_PORT = r"(?:" + _DOMAIN_NAME + "|" + _IPV6 + r")(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_PATH_COMPONENT = _ALPHANUMERIC + r"(?:" + _SEPARATOR + _ALPHANUMERIC + r")*"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME

_REFERENCE = re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?", re.ASCII)
_ANCHORED_NAME = re.compile(r"(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}")
# go-digest: the algorithms the kubelet links in, with their hex lengths (lower case only)
_ALGORITHMS = {"sha256": 64, "sha384": 96, "sha512": 128}
_DIGEST_SHAPE = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+", re.ASCII)

NAME_TOTAL_LENGTH_MAX = 255
DEFAULT_DOMAIN = "docker.io"
LEGACY_DEFAULT_DOMAIN = "index.docker.io"
OFFICIAL_REPO_PREFIX = "library/"
DEFAULT_TAG = "latest"


class ReferenceError(ValueError):
    """Not an image reference; the message is the library's."""


@dataclass(frozen=True)
class ImageRef:
    """A parsed reference: ``name`` is the full repository (``docker.io/library/nginx``)."""

    name: str
    tag: str = ""
    digest: str = ""

    @property
    def familiar_name(self) -> str:
        """``nginx`` for ``docker.io/library/nginx``, ``acme/web`` for Docker Hub's
        ``docker.io/acme/web``; other registries' names as they are."""
        domain, _, path = self.name.partition("/")
        if domain != DEFAULT_DOMAIN:
            return self.name
        remainder = path.removeprefix(OFFICIAL_REPO_PREFIX)
        if path.startswith(OFFICIAL_REPO_PREFIX) and "/" not in remainder:
            return remainder
        return path

    @property
    def suffix(self) -> str:
        """``:TAG``, ``@DIGEST`` or ``:TAG@DIGEST`` (what follows the repository)."""
        return (f":{self.tag}" if self.tag else "") + (f"@{self.digest}" if self.digest else "")

    def __str__(self) -> str:
        return self.name + self.suffix

    @property
    def familiar(self) -> str:
        """The short form people write: ``nginx:1.25``, ``ghcr.io/acme/web:2.0``."""
        return self.familiar_name + self.suffix

    @property
    def docker_ref(self) -> str:
        """What the kubelet compares (``ParseDockerRef``): a digest alone when there is
        one, else the tag, ``latest`` when none is written."""
        if self.digest:
            return f"{self.name}@{self.digest}"
        return f"{self.name}:{self.tag or DEFAULT_TAG}"


def _check_digest(text: str) -> None:
    """go-digest's ``Parse``: a known algorithm and exactly its length of lower-case hex."""
    algorithm, sep, encoded = text.partition(":")
    if not algorithm or not sep or not encoded:
        raise ReferenceError("invalid checksum digest format")
    length = _ALGORITHMS.get(algorithm)
    if length is None:
        if not _DIGEST_SHAPE.fullmatch(text):
            raise ReferenceError("invalid checksum digest format")
        raise ReferenceError("unsupported digest algorithm")
    if len(encoded) != length:
        raise ReferenceError("invalid checksum digest length")
    if not re.fullmatch(r"[a-f0-9]+", encoded):
        raise ReferenceError("invalid checksum digest format")


def _parse(text: str) -> ImageRef:
    """distribution/reference ``Parse``, for a text whose domain is already split off."""
    match = _REFERENCE.fullmatch(text)
    if match is None:
        if text == "":
            raise ReferenceError("repository name must have at least one component")
        if _REFERENCE.fullmatch(_go_lower(text)) is not None:
            raise ReferenceError("repository name must be lowercase")
        raise ReferenceError("invalid reference format")
    name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    named = _ANCHORED_NAME.fullmatch(name)
    path = named.group(2) if named is not None else name
    if len(path) > NAME_TOTAL_LENGTH_MAX:
        raise ReferenceError(
            f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters"
        )
    if digest:
        _check_digest(digest)
    return ImageRef(name, tag, digest)


def _split_docker_domain(name: str) -> tuple[str, str]:
    maybe_domain, sep, maybe_remote = name.partition("/")
    if not sep:
        return DEFAULT_DOMAIN, OFFICIAL_REPO_PREFIX + name
    if maybe_domain == "localhost":
        domain, remote = maybe_domain, maybe_remote
    elif maybe_domain == LEGACY_DEFAULT_DOMAIN:
        domain, remote = DEFAULT_DOMAIN, maybe_remote
    elif any(c in maybe_domain for c in ".:") or maybe_domain.lower() != maybe_domain:
        domain, remote = maybe_domain, maybe_remote
    else:
        domain, remote = DEFAULT_DOMAIN, name
    if domain == DEFAULT_DOMAIN and "/" not in remote:
        remote = OFFICIAL_REPO_PREFIX + remote
    return domain, remote


def _go_lower(text: str) -> str:
    """Go's ``strings.ToLower``: one rune for one (``str.lower`` turns ``İ`` into two)."""
    return "".join("i" if c == "\u0130" else c.lower() for c in text)


def parse(text: str) -> ImageRef:
    """``ParseNormalizedNamed``: ``nginx`` -> ``docker.io/library/nginx``; raises
    :class:`ReferenceError` with the library's words."""
    if _IDENTIFIER.fullmatch(text):
        raise ReferenceError(
            f"invalid repository name ({text}), cannot specify 64-byte hexadecimal strings"
        )
    domain, remainder = _split_docker_domain(text)
    remote = remainder.split(":", 1)[0]
    if _go_lower(remote) != remote:
        raise ReferenceError(
            f"invalid reference format: repository name ({remote}) must be lowercase"
        )
    return _parse(f"{domain}/{remainder}")


def parse_repository(text: str) -> ImageRef:
    """A repository without tag or digest (``ghcr.io/acme/web``), normalized."""
    ref = parse(text)
    if ref.tag or ref.digest:
        raise ReferenceError("a repository is named without a tag or digest")
    return ref


def try_parse(text: str) -> ImageRef | None:
    try:
        return parse(text)
    except ReferenceError:
        return None


def runs(live: ImageRef, want: ImageRef) -> bool:
    """Does a container running ``live`` run the promoted ``want``?

    The same repository, and: the same digest when both name one (a digest is what runs,
    whatever tag is written beside it); otherwise the same tag, where a reference without
    tag or digest means ``latest``, as it does to the kubelet. A promoted digest is not
    matched by a tag alone: which content that tag pointed to is not known here."""
    if live.name != want.name:
        return False
    if live.digest and want.digest:
        return live.digest == want.digest
    want_tag = want.tag or ("" if want.digest else DEFAULT_TAG)
    live_tag = live.tag or ("" if live.digest else DEFAULT_TAG)
    return bool(want_tag) and live_tag == want_tag
