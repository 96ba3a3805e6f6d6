"""The git host fixtures of tests/git: a real smart-HTTP server and both transports."""

from tests.git.conftest import git_server, host, transport

__all__ = ["git_server", "host", "transport"]
