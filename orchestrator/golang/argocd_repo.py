"""Argo CD's ``repo.RepoURLToHTTPS`` and ``repo.FullNameByRepoURL``: a repository URL read
as github.com/chainguard-dev/git-urls v1.0.2 reads it (an RFC 3986 URL of a git transport,
then scp-like ``user@host:path``, then a local path), then printed as Go's ``url.URL``
prints it.

Go's ``net/url`` escapes and normalizes in ways of its own, so only URLs made of the
characters a repository URL needs are computed here; anything else (queries, fragments,
spaces, percent escapes) is refused (:class:`RepoURLUnsupported`) rather than printed
differently. Trigger conditions (``repo.RepoURLToHTTPS(...)``) and templates
(``call .repo.RepoURLToHTTPS``) both call these.
"""

from __future__ import annotations

import re
from urllib.parse import quote_plus

TRANSPORTS = frozenset({"ssh", "git", "git+ssh", "http", "https", "ftp", "ftps", "rsync", "file"})
_URL = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://"
    r"(?:(?P<user>[A-Za-z0-9._~!$&'()*+,;=:-]*)@)?"
    r"(?P<host>[A-Za-z0-9.-]*(?::[0-9]*)?)"
    r"(?P<path>/[A-Za-z0-9._~/@:+-]*)?"
)
_SCP = re.compile(r"^([a-zA-Z0-9-._~]+@)?([a-zA-Z0-9._-]+):([a-zA-Z0-9./._-]+)(?:\?||$)(.*)$")
_LOCAL = re.compile(r"[A-Za-z0-9._~/-]*")


class RepoURLUnsupported(ValueError):
    """A repository URL whose Go rendering is not reproduced; ``hint`` says what to write."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


_HINT = "write the repository URL as https://host/owner/repo or git@host:owner/repo"


def parse_git_url(raw: str) -> tuple[str, str]:
    """The host and path git-urls finds in ``raw``."""
    url = _URL.fullmatch(raw)
    if url and url.group("scheme").lower() in TRANSPORTS:
        return url.group("host"), url.group("path") or ""
    if "://" in raw and not url:
        raise RepoURLUnsupported(f"the repository URL {raw!r}", _HINT)
    scp = _SCP.match(raw) if len(raw) <= 2048 else None
    if scp:
        if scp.group(4):
            raise RepoURLUnsupported(f"the repository URL {raw!r} (a query)", _HINT)
        return scp.group(2), scp.group(3)
    if _LOCAL.fullmatch(raw):
        return "", raw
    raise RepoURLUnsupported(f"the repository URL {raw!r}", _HINT)


def repo_url_to_https(raw: str) -> str:
    """``repo.RepoURLToHTTPS``: the same repository as an https URL, without credentials."""
    host, path = parse_git_url(raw)
    if not host and not path:
        return "https:"
    slash = "/" if path and not path.startswith("/") and host else ""
    return f"https://{host}{slash}{path}"


def full_name_by_repo_url(raw: str) -> str:
    """``repo.FullNameByRepoURL``: ``owner/repo`` (the path's first two parts, ``.git`` cut)."""
    _, path = parse_git_url(raw)
    path = path.removesuffix(".git")
    parts = [part for part in path.split("/") if part]
    return "/".join(parts[:2]) if len(parts) >= 2 else path


def query_escape(text: str) -> str:
    """``repo.QueryEscape`` (Go's ``url.QueryEscape``): spaces as ``+``, unreserved kept."""
    return quote_plus(text, safe="-_.~")
