"""A local smart-HTTP git server: the real ``git http-backend`` behind a threaded server.

Used by the tests, the benchmarks and ``promoflow demo`` so promotions talk to a remote
exactly as they would to a Git hosting service, with optional basic authentication.

Repositories are configured as git configures a new one (no ``uploadpack.allowFilter``, no
``allowAnySHA1InWant``, non-fast-forward pushes allowed): a server set up to suit its
client proves nothing about the servers users have. Tests that need more ask for it
(``init_bare_repo(..., allow_filter=True)``), and ``protocol_v2=False`` serves a server
that never answers in protocol v2, as older servers and some proxies do.

libgit2 (pygit2) sends push bodies with ``Transfer-Encoding: chunked``; CGI needs a
Content-Length, so chunked bodies are decoded here first (otherwise pushes fail with
"could not read report from remote repository").
"""

from __future__ import annotations

import base64
import hmac
import io
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)


def init_bare_repo(path: Path, *, allow_filter: bool = False) -> Path:
    """A bare repository with git's defaults (``allow_filter``: also serve partial clones,
    as GitHub, GitLab and recent Gitea do)."""
    subprocess.run(
        ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(path)], check=True
    )
    if allow_filter:
        for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
            subprocess.run(["git", "--git-dir", str(path), "config", key, "true"], check=True)
    return path


@dataclass
class Stats:
    requests: int = 0
    bytes_sent: int = 0
    pushes: int = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    root: Path
    auth: str | None
    stats: Stats
    lock: threading.Lock
    protocol_v2: bool

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops its keep-alive connection (git does, and so does a step that
        exits) is not an error of the server: socketserver would print a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """As Git hosts' front servers do (nginx's ``tcp_nodelay`` is on by default): the head
    and the body are written apart, and with Nagle's algorithm the body would wait for the
    client's delayed ACK of the head, 40 ms on Linux, on every request."""

    def log_message(self, format: str, *args: object) -> None:
        log.debug("git-http: " + format, *args)

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _authorized(self) -> bool:
        expected = self.server.auth
        if expected is None:
            return True
        given = self.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), expected.encode())

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = io.BytesIO()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out.getvalue()
                out.write(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        with self.server.lock:
            self.server.stats.requests += 1
        if not self._authorized():
            body = b"authentication required\n"
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        url = urlsplit(self.path)
        body = self._body() if self.command == "POST" else b""
        if url.path.endswith("/git-receive-pack"):
            with self.server.lock:
                self.server.stats.pushes += 1
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.server.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": url.path,
            "QUERY_STRING": url.query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": "promoflow" if self.server.auth else "anonymous",
            "REMOTE_ADDR": self.client_address[0],
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", "") if self.server.protocol_v2 else "",
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "HOME": str(self.server.root),
        }
        result = subprocess.run(
            ["git", "http-backend"], input=body, capture_output=True, env=env, check=False
        )
        head, _, payload = result.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = result.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        with self.server.lock:
            self.server.stats.bytes_sent += len(payload)


class GitHttpServer:
    """Serve every bare repository under ``root`` at ``http://127.0.0.1:PORT/NAME.git``."""

    def __init__(
        self,
        root: Path,
        username: str | None = None,
        password: str | None = None,
        *,
        protocol_v2: bool = True,
    ) -> None:
        self.root = Path(root)
        server = _Server(("127.0.0.1", 0), _Handler)
        server.root = self.root
        server.protocol_v2 = protocol_v2
        server.auth = None
        if username is not None and password is not None:
            pair = base64.b64encode(f"{username}:{password}".encode()).decode()
            server.auth = f"Basic {pair}"
        server.stats = Stats()
        server.lock = threading.Lock()
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def stats(self) -> Stats:
        return self._server.stats

    def repo_url(self, name: str) -> str:
        return f"{self.url}/{name.removesuffix('.git')}.git"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> GitHttpServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
