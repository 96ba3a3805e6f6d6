"""ARGO_TOKEN_FILE: a projected ServiceAccount token is renewed in place by the kubelet,
and both Argo clients send whatever the file holds at each request."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.argo import ArgoClient, ArgoError
from orchestrator.adapters.argoasync import AsyncArgo
from orchestrator.settings import ArgoSettings, SettingsError, load
from tests.fakes.argo_server import FakeArgoServer

FIRST, RENEWED = "projected-token-one", "projected-token-two"


@pytest.fixture
def server() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=FIRST) as fake:
        yield fake


def _settings(server: FakeArgoServer, path: Path) -> ArgoSettings:
    return load(ArgoSettings, server=server.url, token_file=str(path), namespace="argo")


def _renew(path: Path, server: FakeArgoServer) -> None:
    """What the kubelet does before the token expires; the server then accepts only it."""
    path.write_text(RENEWED + "\n")
    server.token = RENEWED


def test_the_client_reads_the_renewed_token(server: FakeArgoServer, tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(FIRST + "\n")
    client = ArgoClient(_settings(server, path))
    assert client.list_workflows() == []
    _renew(path, server)
    assert client.list_workflows() == []


def test_the_async_client_reads_the_renewed_token(server: FakeArgoServer, tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(FIRST + "\n")

    async def twice() -> tuple[list[object], list[object]]:
        argo = AsyncArgo(_settings(server, path), timeout=5)
        try:
            before = await argo.list_workflows("a=b")
            _renew(path, server)
            return before, await argo.list_workflows("a=b")
        finally:
            await argo.aclose()

    assert asyncio.run(twice()) == ([], [])


def test_a_stale_token_is_refused(server: FakeArgoServer, tmp_path: Path) -> None:
    """The fake checks the token: without the re-read, the second call would fail."""
    path = tmp_path / "token"
    path.write_text(FIRST + "\n")
    client = ArgoClient(_settings(server, path))
    server.token = RENEWED
    with pytest.raises(ArgoError, match="refused the credentials"):
        client.list_workflows()


def test_an_unreadable_token_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent"
    with pytest.raises(SettingsError) as raised:
        load(ArgoSettings, server="http://127.0.0.1:1", token_file=str(missing))
    assert str(raised.value) == f"ARGO_TOKEN_FILE: cannot read {missing}: No such file or directory"


def test_argo_token_wins_over_the_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("from-file")
    settings = load(ArgoSettings, token="from-env", token_file=str(path))
    assert settings.authorization == "Bearer from-env"
    assert load(ArgoSettings, token_file=str(path)).authorization == "Bearer from-file"
