"""Git's smart HTTP protocol, in process: discovery, ls-refs and fetch (v2 or v0), and push.

Each git CLI call costs a few process starts (git, git-remote-http, index-pack) on top of
the HTTP requests; a promotion makes three of them. Speaking the protocol directly over one
keep-alive HTTP connection, parsing the pack in process and pushing a pack built by pygit2
removes that overhead, and needs no git binary in the step image. The connection is the
standard library's: it loads faster than any client library, and a step process starts once
per workflow node.

Nothing about the server is assumed: the first request is the capability advertisement
(``GET info/refs``), and the client speaks protocol v2 only when the server offers it, asks
for a ``filter`` only when the server advertises one (and falls back from ``tree:0`` to
``blob:none`` when the server allows only blob filters, as GitLab does), and asks for objects by
id (single blobs, a pinned commit) only where the protocol allows it (always in v2, in v0
only with ``allow-reachable-sha1-in-want``). git's defaults offer v2 without filters, older
servers and some proxies only v0; :class:`Capabilities` says which path a fetch takes.

Only what promotions use is implemented: shallow and partial fetches of a few objects, and
a push of one ref update with ``report-status``.
"""

from __future__ import annotations

import http.client
import ssl
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from orchestrator.adapters import neterrors
from orchestrator.adapters.gitpkt import DELIM as DELIM
from orchestrator.adapters.gitpkt import FLUSH as FLUSH
from orchestrator.adapters.gitpkt import RefUpdateRejected as RefUpdateRejected
from orchestrator.adapters.gitpkt import Unreachable as Unreachable
from orchestrator.adapters.gitpkt import WireError as WireError
from orchestrator.adapters.gitpkt import pkt as pkt
from orchestrator.adapters.gitpkt import read_pkts as read_pkts

AGENT = "agent=promoflow"
BLOBLESS = "blob:none"
"""Trees without files: what git's partial clones ask for."""
TREELESS = "tree:0"
"""Commits alone (trees asked for by id afterwards): GitHub and git's ``allowFilter``
serve it; servers that allow only blob filters refuse it."""
V0_CAPS = ("side-band-64k", "ofs-delta", "no-progress")


# -- what the server speaks --------------------------------------------------------------


@dataclass(frozen=True)
class Capabilities:
    """The server's advertisement: protocol version, fetch features, and (v0) its refs."""

    version: int
    features: frozenset[str]
    refs: dict[str, str] = field(default_factory=dict)

    @property
    def filter(self) -> bool:
        return "filter" in self.features

    @property
    def shallow(self) -> bool:
        return "shallow" in self.features

    @property
    def wants_by_id(self) -> bool:
        """May ask for any reachable object by id (a blob, a commit below a tip)."""
        return self.version == 2 or bool(
            {"allow-reachable-sha1-in-want", "allow-any-sha1-in-want"} & self.features
        )

    @property
    def partial(self) -> bool:
        """Trees first, then only the blobs read: needs the filter and wants by id."""
        return self.filter and self.wants_by_id

    def filter_for(self, *, treeless: bool) -> str | None:
        """The filter a tip's fetch asks for: the commit alone (``treeless``, a run
        without a cache), its trees, or (no filter allowed) none."""
        if not self.partial:
            return None
        return TREELESS if treeless else BLOBLESS

    def describe(self, treeless: bool = False) -> str:
        """How a promotion fetches from this server; ``treeless``: a run without a cache,
        which asks for the commit alone and then the trees on the promoted paths."""
        if not self.partial:
            how = "the server allows no blob filter: shallow fetch of the tip with its files"
        elif treeless:
            how = (
                "partial fetch (filter tree:0, else blob:none): the tip's commit, the trees "
                "on the promoted paths, then only the files read"
            )
        else:
            how = "partial fetch (filter blob:none): the tip's trees, then only the files read"
        return f"git protocol v{self.version}; {how}"


def parse_advertisement(body: bytes) -> Capabilities:
    """``GET info/refs?service=git-upload-pack``: a v2 capability list or v0 ref lines."""
    lines = [line for line in read_pkts(body) if line is not None]
    if lines and lines[0].startswith(b"# service="):
        lines = lines[1:]
    if lines and lines[0].rstrip(b"\n") == b"version 2":
        features: set[str] = set()
        for raw in lines[1:]:
            key, _, value = raw.decode(errors="replace").strip().partition("=")
            if key == "fetch":
                features.update(value.split())
        return Capabilities(2, frozenset(features))
    refs: dict[str, str] = {}
    caps: set[str] = set()
    for i, raw in enumerate(lines):
        head, _, tail = raw.partition(b"\0")
        if i == 0:
            caps = {c.split("=")[0] for c in tail.decode(errors="replace").split()}
        oid, _, name = head.decode(errors="replace").strip().partition(" ")
        if name and name != "capabilities^{}":
            refs[name] = oid
    return Capabilities(0, frozenset(caps), refs)


# -- the client --------------------------------------------------------------------------


@dataclass(frozen=True)
class Fetched:
    """A fetch's pack and how the shallow boundary moved (commits now without parents
    here, and commits whose parents arrived)."""

    pack: bytes
    shallow: list[str]
    unshallow: list[str]
    filter: str | None = None
    """The filter the server applied (``blob:none`` where it refused ``tree:0``)."""


class SmartHttp:
    """One repository URL over HTTP(S), with an optional Authorization header."""

    def __init__(self, url: str, authorization: str | None, timeout: float = 120) -> None:
        self.url = url.rstrip("/")
        parts = urlsplit(self.url)
        self._tls = parts.scheme == "https"
        self._host, self._port, self._path = parts.hostname or "", parts.port, parts.path
        self._timeout = timeout
        self._headers = {"User-Agent": "git/2.0 (promoflow)"}
        if authorization:
            self._headers["Authorization"] = authorization
        self._conn: http.client.HTTPConnection | None = None
        self._caps: Capabilities | None = None
        self._unread_refs = False
        self.refused: set[str] = set()
        """Filters the server refused: not asked for again on this connection."""

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            if self._tls:  # the CA bundle is loaded only for https
                self._conn = http.client.HTTPSConnection(
                    self._host,
                    self._port,
                    timeout=self._timeout,
                    context=ssl.create_default_context(),
                )
            else:
                self._conn = http.client.HTTPConnection(
                    self._host, self._port, timeout=self._timeout
                )
        return self._conn

    def _request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, bytes, http.client.HTTPResponse]:
        for attempt in (1, 2):
            try:
                conn = self._connection()
                conn.request(method, path, body=body, headers={**self._headers, **headers})
                response = conn.getresponse()
                content = response.read()
                break
            except (http.client.HTTPException, OSError) as exc:
                self.close()
                # a kept-alive connection the server has closed meanwhile: open a new one
                if attempt == 1 and isinstance(exc, http.client.RemoteDisconnected):
                    continue
                failure = neterrors.describe(exc, self.url)
                raise Unreachable(failure.message, transient=failure.transient) from None
        if response.will_close:
            self.close()
        status = response.status
        if status in (301, 302, 303, 307, 308):
            where = response.getheader("Location", "")
            raise WireError(f"{self.url} redirects to {where}: use that URL", status)
        if status != 200:
            raise WireError(f"{self.url} answered HTTP {status}", status, transient=status >= 500)
        return status, content, response

    def capabilities(self, refresh: bool = False) -> Capabilities:
        """The advertisement, asked once (protocol v2 when offered); ``refresh`` asks again
        (in v0 it is also the only way to read the refs as they are now)."""
        if self._caps is None or refresh:
            self._unread_refs = True
            _, body, response = self._request(
                "GET",
                f"{self._path}/info/refs?service=git-upload-pack",
                None,
                {"Git-Protocol": "version=2"},
            )
            kind = response.getheader("Content-Type", "")
            if kind != "application/x-git-upload-pack-advertisement":
                raise WireError(f"{self.url} does not speak git's smart HTTP protocol")
            self._caps = parse_advertisement(body)
        return self._caps

    def _post(self, service: str, body: bytes, v2: bool) -> bytes:
        headers = {
            "Content-Type": f"application/x-{service}-request",
            "Accept": f"application/x-{service}-result",
        }
        if v2:
            headers["Git-Protocol"] = "version=2"
        return self._request("POST", f"{self._path}/{service}", body, headers)[1]

    def _command(self, command: str, args: list[str]) -> bytes:
        body = pkt(f"command={command}\n") + pkt(f"{AGENT}\n") + pkt("object-format=sha1\n")
        body += DELIM + b"".join(pkt(f"{a}\n") for a in args) + FLUSH
        return self._post("git-upload-pack", body, v2=True)

    def ls_refs(self, prefix: str) -> dict[str, str]:
        caps = self.capabilities()
        if caps.version != 2:
            if not self._unread_refs:  # a retry after the branch moved: what is it now?
                caps = self.capabilities(refresh=True)
            self._unread_refs = False
            return {name: oid for name, oid in caps.refs.items() if name.startswith(prefix)}
        refs: dict[str, str] = {}
        for line in read_pkts(self._command("ls-refs", [f"ref-prefix {prefix}"])):
            if line:
                oid, _, name = line.decode().strip().partition(" ")
                refs[name.split(" ")[0]] = oid
        return refs

    def fetch(
        self,
        wants: list[str],
        haves: list[str],
        depth: int | None,
        filter: str | None,
        shallows: list[str] | None = None,
    ) -> Fetched:
        """A pack with ``wants`` (minus what ``haves`` reach) and the new shallow boundary.

        ``shallows`` are the commits the client has without their parents. A ``deepen``
        makes upload-pack ignore ``haves`` (it sends the whole tree again), so an
        incremental fetch passes no depth, its haves, and its shallow commits instead.
        ``filter`` and ``depth`` are asked only of servers that advertise them. Objects
        wanted by id are sent whatever the filter (``tree:0`` with a tree's id: that tree
        alone). A server that refuses ``tree:0`` (it may allow blob filters only) is asked
        again with ``blob:none``; :attr:`Fetched.filter` says which applied."""
        caps = self.capabilities()
        if filter and not caps.filter:
            raise WireError(f"{self.url} does not allow partial fetches (filter)")
        depth = depth if caps.shallow else None
        if filter == TREELESS and TREELESS in self.refused:
            filter = BLOBLESS
        fetch = self._fetch_v2 if caps.version == 2 else self._fetch_v0
        try:
            return fetch(wants, haves, depth, filter, shallows or [])
        except WireError as exc:
            if filter != TREELESS or not _refuses_tree_filter(str(exc)):
                raise
        self.refused.add(TREELESS)
        return fetch(wants, haves, depth, BLOBLESS, shallows or [])

    def _fetch_v2(
        self, wants: list[str], haves: list[str], depth: int | None, filter: str | None,
        shallows: list[str],
    ) -> Fetched:  # fmt: skip
        args = ["ofs-delta", "no-progress"]
        if depth:
            args.append(f"deepen {depth}")
        if filter:
            args.append(f"filter {filter}")
        args += [f"shallow {s}" for s in shallows]
        args += [f"want {w}" for w in wants] + [f"have {h}" for h in haves] + ["done"]
        pack, shallow, unshallow, section = bytearray(), list[str](), list[str](), ""
        for line in read_pkts(self._command("fetch", args)):
            if line is None:
                continue
            if section == "packfile":
                self._band(line, pack)
                continue
            text = line.decode(errors="replace").strip()
            if text in ("acknowledgments", "shallow-info", "packfile", "wanted-refs"):
                section = text
            elif section == "shallow-info" and text.startswith(("shallow ", "unshallow ")):
                (shallow if text.startswith("shallow ") else unshallow).append(text.split()[1])
            elif text.startswith("ERR "):
                raise WireError(f"{self.url}: {text[4:]}")
        if section != "packfile":
            raise WireError(f"{self.url} sent no pack (the fetch request was refused)")
        return Fetched(bytes(pack), shallow, unshallow, filter)

    def _fetch_v0(
        self, wants: list[str], haves: list[str], depth: int | None, filter: str | None,
        shallows: list[str],
    ) -> Fetched:  # fmt: skip
        caps = self.capabilities()
        if "side-band-64k" not in caps.features:  # every git since 1.6 offers it
            raise WireError(f"{self.url} offers no side-band: not a git server this client reads")
        asked = [c for c in V0_CAPS if c in caps.features] + [AGENT]
        if depth or shallows:
            asked.append("shallow")
        if filter:
            asked.append("filter")
        body = b"".join(
            pkt(f"want {w} {' '.join(asked)}\n" if i == 0 else f"want {w}\n")
            for i, w in enumerate(wants)
        )
        body += b"".join(pkt(f"shallow {s}\n") for s in shallows)
        if depth:
            body += pkt(f"deepen {depth}\n")
        if filter:
            body += pkt(f"filter {filter}\n")
        body += FLUSH + b"".join(pkt(f"have {h}\n") for h in haves) + pkt("done\n")
        answer = self._post("git-upload-pack", body, v2=False)
        pack, shallow, unshallow = bytearray(), list[str](), list[str]()
        in_shallow_info, in_pack = bool(depth or shallows), False
        for line in read_pkts(answer):
            if line is None:
                in_shallow_info = False
                continue
            if in_pack:
                self._band(line, pack)
                continue
            text = line.decode(errors="replace").strip()
            if text.startswith("ERR "):
                raise WireError(f"{self.url}: {text[4:]}")
            if in_shallow_info and text.startswith(("shallow ", "unshallow ")):
                (shallow if text.startswith("shallow ") else unshallow).append(text.split()[1])
            elif text == "NAK" or text.startswith("ACK "):
                in_pack = True  # one ACK or NAK (no multi_ack), then the side-band pack
            else:
                raise WireError(f"{self.url} answered the fetch unexpectedly: {text[:80]}")
        if not in_pack:
            raise WireError(f"{self.url} sent no pack (the fetch request was refused)")
        return Fetched(bytes(pack), shallow, unshallow, filter)

    def _band(self, line: bytes, pack: bytearray) -> None:
        band, payload = line[0], line[1:]
        if band == 1:
            pack += payload
        elif band == 3:
            raise WireError(f"{self.url}: {payload.decode(errors='replace').strip()}")

    def push(self, old: str, new: str, ref: str, pack: bytes) -> None:
        """Update ``ref`` from ``old`` to ``new``; the server refuses if ``old`` is stale."""
        command = f"{old} {new} {ref}\0report-status {AGENT}\n"
        body = pkt(command) + FLUSH + pack
        answer = self._post("git-receive-pack", body, v2=False)
        lines = [ln.decode(errors="replace").strip() for ln in read_pkts(answer) if ln]
        if not lines or lines[0] != "unpack ok":
            reason = lines[0] if lines else "no report from the server"
            raise WireError(f"push to {self.url} failed: {reason}")
        for line in lines[1:]:
            if line.startswith("ng "):
                raise RefUpdateRejected(line.split(" ", 2)[-1])


def _refuses_tree_filter(message: str) -> bool:
    """upload-pack's refusals of a tree filter: not allowed at all (``filter 'tree' not
    supported``) or not to that depth (``tree filter allows max depth ...``)."""
    return "filter 'tree' not supported" in message or "tree filter allows max depth" in message
