"""A fake server's life as a context manager: ``with Fake(...) as fake:`` serves
``fake.app()`` over real HTTP (uvicorn on loopback) at ``fake.url`` until the block ends."""

from __future__ import annotations

from typing import Self

from starlette.applications import Starlette

from orchestrator.simulator.serve import ServerThread


class Served:
    _thread: ServerThread | None = None

    def app(self) -> Starlette:
        raise NotImplementedError

    @property
    def url(self) -> str:
        assert self._thread is not None, "serve the fake first: with Fake(...) as fake"
        return self._thread.url

    def __enter__(self) -> Self:
        self._thread = ServerThread(self.app()).start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._thread is not None:
            self._thread.stop()
