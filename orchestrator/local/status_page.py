"""A local status page: what the demo's HTTP gates and stand-in steps call.

It answers the Statuspage.io shape the example policy checks
(``status.indicator == none``) and records every call, so the demo can show that the
gates really made their requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orchestrator.simulator.serve import ServerThread


@dataclass
class StatusPage:
    indicator: str = "none"
    calls: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        async def status(request: Request) -> JSONResponse:
            self.calls.append(request.url.path)
            return JSONResponse(
                {"status": {"indicator": self.indicator, "description": "local status page"}}
            )

        async def stand_in(request: Request) -> JSONResponse:
            self.calls.append(request.url.path)
            return JSONResponse({"stand-in": request.path_params["rest"], "ok": True})

        return Starlette(
            routes=[
                Route("/api/v2/status.json", status),
                Route("/stand-in/{rest:path}", stand_in),
            ]
        )

    @property
    def status_url(self) -> str:
        return "/api/v2/status.json"


@contextmanager
def serve_status_page(page: StatusPage) -> Iterator[str]:
    """Serve ``page``; yields its base URL."""
    with ServerThread(page.app()) as server:
        yield server.url
