"""Argo CD's ``repo.RepoURLToHTTPS`` and ``repo.FullNameByRepoURL``: a repository URL read
as github.com/chainguard-dev/git-urls v1.0.2 reads it (an RFC 3986 URL of a git transport,
then scp-like ``user@host:path``, then a local path), then printed as Go's ``url.URL``
prints it.

Go's ``net/url`` escapes and normalizes in ways of its own, so only URLs made of the
characters a repository URL needs are computed here; anything else (queries, fragments,
spaces, percent escapes) is refused rather than printed differently.
"""

from __future__ import annotations

import re

from reporters.expr.builtin_base import Unsupported

TRANSPORTS = frozenset({"ssh", "git", "git+ssh", "http", "https", "ftp", "ftps", "rsync", "file"})
_URL = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://"
    r"(?:(?P<user>[A-Za-z0-9._~!$&'()*+,;=:-]*)@)?"
    r"(?P<host>[A-Za-z0-9.-]*(?::[0-9]*)?)"
    r"(?P<path>/[A-Za-z0-9._~/@:+-]*)?"
)
_SCP = re.compile(r"^([a-zA-Z0-9-._~]+@)?([a-zA-Z0-9._-]+):([a-zA-Z0-9./._-]+)(?:\?||$)(.*)$")
_LOCAL = re.compile(r"[A-Za-z0-9._~/-]*")
_HINT = "write the repository URL as https://host/owner/repo or git@host:owner/repo"


def parse_git_url(raw: str) -> tuple[str, str]:
    """The host and path git-urls finds in ``raw``."""
    url = _URL.fullmatch(raw)
    if url and url.group("scheme").lower() in TRANSPORTS:
        return url.group("host"), url.group("path") or ""
    if "://" in raw and not url:
        raise Unsupported(f"the repository URL {raw!r}", _HINT)
    scp = _SCP.match(raw) if len(raw) <= 2048 else None
    if scp:
        if scp.group(4):
            raise Unsupported(f"the repository URL {raw!r} (a query)", _HINT)
        return scp.group(2), scp.group(3)
    if _LOCAL.fullmatch(raw):
        return "", raw
    raise Unsupported(f"the repository URL {raw!r}", _HINT)


def repo_url_to_https(raw: str) -> str:
    host, path = parse_git_url(raw)
    if not host and not path:
        return "https:"
    slash = "/" if path and not path.startswith("/") and host else ""
    return f"https://{host}{slash}{path}"


def full_name_by_repo_url(raw: str) -> str:
    _, path = parse_git_url(raw)
    path = path.removesuffix(".git")
    parts = [part for part in path.split("/") if part]
    return "/".join(parts[:2]) if len(parts) >= 2 else path
