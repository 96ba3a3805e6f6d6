"""Git credentials: where they come from, how they are taken out of a URL, and how they
travel.

A token may arrive in ``GIT_TOKEN`` or, as git accepts it, inside the URL
(``https://user:token@host/...``); either way it leaves the URL here, so the URL can be
printed, and travels as a header (:meth:`Credentials.authorization`, which both transports
of :mod:`orchestrator.adapters.git` send); every text shown of a remote is scrubbed of it,
as given and as the header encodes it (:meth:`Credentials.scrub`).
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from orchestrator import urls
from orchestrator.adapters.giterrors import GitError


@dataclass(frozen=True)
class Credentials:
    """HTTPS token (with an optional user name) or an SSH private key file."""

    username: str = "git"
    token: str = field(default="", repr=False)
    ssh_key: str | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Credentials:
        env = dict(os.environ if env is None else env)
        return cls(
            username=env.get("GIT_USERNAME", "") or "git",
            token=env.get("GIT_TOKEN", ""),
            ssh_key=env.get("GIT_SSH_KEY") or None,
        )

    def secrets(self) -> list[str]:
        return [s for s in (self.token,) if s]

    def authorization(self) -> str | None:
        """The ``Authorization`` header that carries the token (HTTP Basic), if any."""
        if not self.token:
            return None
        pair = base64.b64encode(f"{self.username}:{self.token}".encode()).decode()
        return f"Basic {pair}"

    def scrub(self, text: str) -> str:
        """``text`` without the secrets, as given and as the header encodes them."""
        secrets = self.secrets()
        pairs = [
            base64.b64encode(f"{self.username}:{secret}".encode()).decode() for secret in secrets
        ]
        return urls.scrub(text, [*secrets, *pairs])


def split_credentials(url: str, creds: Credentials) -> tuple[str, Credentials]:
    """Move ``user:token@`` out of a URL into credentials; the URL is what gets printed."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # host:99999 and the like: say so without echoing the URL
        raise GitError("the repository URL has an invalid port") from None
    if parts.password or (parts.username and parts.scheme in ("http", "https")):
        host = parts.hostname or ""
        netloc = f"{host}:{port}" if port else host
        clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        token = parts.password or creds.token
        username = parts.username if parts.password else creds.username
        if not parts.password and parts.username:
            token, username = parts.username, creds.username
        return clean, Credentials(username or "git", token, creds.ssh_key)
    return url, creds
