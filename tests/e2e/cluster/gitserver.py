"""Serve the bare repositories under one directory over http://127.0.0.1 with
``git http-backend`` (smart HTTP, clone and push), for Argo CD and the workflows to use.

The e2e suite creates ``<root>/<name>.git`` and uses ``http://127.0.0.1:<port>/<name>.git``;
no daemon, no credentials (pushes are allowed: REMOTE_USER is set for git http-backend).
Run as ``python -m tests.e2e.cluster.gitserver --root DIR --port N``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


class GitHandler(BaseHTTPRequestHandler):
    root: Path
    protocol_version = "HTTP/1.0"  # the CGI output is streamed; closing ends the body

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/healthz":
            self._reply(HTTPStatus.OK, b"ok\n")
            return
        self._cgi(b"")

    def do_POST(self) -> None:
        self._cgi(self._body())

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _cgi(self, body: bytes) -> None:
        url = urlsplit(self.path)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "promoflow-e2e",  # enables receive-pack (push)
            "REMOTE_ADDR": self.client_address[0],
            "REQUEST_METHOD": self.command,
            "PATH_INFO": url.path,
            "QUERY_STRING": url.query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        for key in ("Git-Protocol", "Content-Encoding"):
            if key in self.headers:
                env["HTTP_" + key.upper().replace("-", "_")] = self.headers[key]
        git = shutil.which("git") or "/usr/bin/git"
        proc = subprocess.run(
            [git, "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, payload = _split_cgi(proc.stdout)
        status, headers = HTTPStatus.OK.value, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        if proc.returncode != 0 and not head:
            self._reply(HTTPStatus.INTERNAL_SERVER_ERROR, proc.stderr)
            return
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _reply(self, status: HTTPStatus, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _split_cgi(out: bytes) -> tuple[bytes, bytes]:
    """CGI output: headers, a blank line (CRLF or LF), then the body."""
    ends = [(out.find(sep), sep) for sep in (b"\r\n\r\n", b"\n\n") if sep in out]
    if not ends:
        return b"", out
    index, sep = min(ends)
    return out[:index], out[index + len(sep) :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    GitHandler.root = args.root.resolve()
    server = ThreadingHTTPServer((args.host, args.port), GitHandler)
    print(f"serving {GitHandler.root} on http://{args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
