"""A remote that accepts and then says nothing: both transports give up at the remote's
deadline, as a transient failure, and leave nothing behind that still talks to it."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.git import GitError, GitRemote


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A real listening socket that accepts every connection and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/acme/gitops.git"
    server.close()
    for conn in accepted:
        conn.close()


def _talking_to(url: str) -> list[str]:
    """Command lines of this machine's processes that name ``url`` (git's helpers do)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(url.encode() in arg for arg in argv):
            found.append(" ".join(a.decode(errors="replace") for a in argv))
    return found


@pytest.mark.parametrize("operation", ["fetch_branch", "heads"])
def test_both_transports_end_at_the_deadline(
    silent_url: str, transport: str, operation: str
) -> None:
    with GitRemote(silent_url, timeout=1) as remote, pytest.raises(GitError) as raised:
        if operation == "fetch_branch":
            remote.fetch_branch("main")
        else:
            remote.heads()
    assert raised.value.transient
    if transport == "cli":
        # the caller's deadline, not one of git's own; git's helper ended with git
        assert "timed out after 1s" in str(raised.value)
        assert _talking_to(silent_url) == []
