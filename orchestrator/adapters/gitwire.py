"""Git's smart HTTP protocol, in process: ls-refs and fetch (protocol v2), and push.

Each git CLI call costs a few process starts (git, git-remote-http, index-pack) on top of
the HTTP requests; a promotion makes three of them. Speaking the protocol directly over one
keep-alive HTTP connection, reading the pack into pygit2's object database and pushing a
pack built by pygit2 removes that overhead, and needs no git binary in the step image. The
connection is the standard library's: it loads faster than any client library, and a step
process starts once per workflow node.

Only what promotions use is implemented: shallow (``deepen 1``) and partial
(``filter blob:none``) fetches of one ref, fetches of single objects by id, and a push of
one ref update with ``report-status``.
"""

from __future__ import annotations

import hashlib
import http.client
import ssl
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import pygit2

AGENT = "agent=promoflow"
_TYPES = {1: pygit2.enums.ObjectType.COMMIT, 2: pygit2.enums.ObjectType.TREE,
          3: pygit2.enums.ObjectType.BLOB, 4: pygit2.enums.ObjectType.TAG}  # fmt: skip
OFS_DELTA, REF_DELTA = 6, 7


class WireError(Exception):
    """The server answered something this client cannot use; ``status`` is the HTTP one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Unreachable(WireError):
    """No answer: the connection failed or broke (worth retrying)."""


class RefUpdateRejected(WireError):
    """The server refused the ref update (it moved, or a hook said no)."""


# -- pkt-lines ---------------------------------------------------------------------------


def pkt(line: str | bytes) -> bytes:
    data = line.encode() if isinstance(line, str) else line
    return b"%04x" % (len(data) + 4) + data


FLUSH, DELIM = b"0000", b"0001"


def read_pkts(data: bytes) -> Iterator[bytes | None]:
    """Payloads in order; ``None`` for flush/delim/response-end packets."""
    pos = 0
    while pos + 4 <= len(data):
        size = int(data[pos : pos + 4], 16)
        if size < 4:
            pos += 4
            yield None
            continue
        yield data[pos + 4 : pos + size]
        pos += size


# -- pack files --------------------------------------------------------------------------


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    def varint(pos: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = delta[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, pos

    _, pos = varint(0)
    size, pos = varint(pos)
    out = bytearray()
    while pos < len(delta):
        op = delta[pos]
        pos += 1
        if op & 0x80:
            offset = length = 0
            for i in range(4):
                if op & (1 << i):
                    offset |= delta[pos] << (8 * i)
                    pos += 1
            for i in range(3):
                if op & (1 << (4 + i)):
                    length |= delta[pos] << (8 * i)
                    pos += 1
            out += base[offset : offset + (length or 0x10000)]
        elif op:
            out += delta[pos : pos + op]
            pos += op
        else:
            raise WireError("invalid delta instruction in pack")
    if len(out) != size:
        raise WireError("delta result has the wrong size")
    return bytes(out)


@dataclass
class PackObject:
    type: int
    data: bytes


def parse_pack(pack: bytes, lookup: Callable[[bytes], PackObject | None]) -> list[PackObject]:
    """Every object of ``pack`` with deltas resolved (``lookup`` finds thin-pack bases)."""
    if pack[:4] != b"PACK":
        raise WireError("response is not a pack")
    _, count = struct.unpack(">II", pack[4:12])
    pos = 12
    by_offset: dict[int, PackObject] = {}
    pending: list[tuple[int, int, int | bytes, bytes]] = []
    for _ in range(count):
        start = pos
        byte = pack[pos]
        pos += 1
        kind, shift = (byte >> 4) & 7, 4
        while byte & 0x80:
            byte = pack[pos]
            pos += 1
            shift += 7
        base: int | bytes = 0
        if kind == OFS_DELTA:
            byte = pack[pos]
            pos += 1
            offset = byte & 0x7F
            while byte & 0x80:
                byte = pack[pos]
                pos += 1
                offset = ((offset + 1) << 7) | (byte & 0x7F)
            base = start - offset
        elif kind == REF_DELTA:
            base = pack[pos : pos + 20]
            pos += 20
        inflater = zlib.decompressobj()
        data = inflater.decompress(pack[pos:])
        pos = len(pack) - len(inflater.unused_data)
        if kind in _TYPES:
            by_offset[start] = PackObject(kind, data)
        else:
            pending.append((start, kind, base, data))
    by_id = {_oid(o): o for o in by_offset.values()}
    while pending:
        progress, waiting = False, []
        for start, kind, base, delta in pending:
            source = (
                by_offset.get(base) if isinstance(base, int) else by_id.get(base) or lookup(base)
            )
            if source is None:
                waiting.append((start, kind, base, delta))
                continue
            obj = PackObject(source.type, _apply_delta(source.data, delta))
            by_offset[start] = obj
            by_id[_oid(obj)] = obj
            progress = True
        if not progress:
            raise WireError("pack has deltas against objects we do not have")
        pending = waiting
    return list(by_offset.values())


_NAMES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


def _oid(obj: PackObject) -> bytes:
    import hashlib

    header = _NAMES[obj.type] + b" %d\0" % len(obj.data)
    return hashlib.sha1(header + obj.data).digest()


# -- the client --------------------------------------------------------------------------


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

    def _post(self, service: str, body: bytes, v2: bool) -> bytes:
        headers = {
            **self._headers,
            "Content-Type": f"application/x-{service}-request",
            "Accept": f"application/x-{service}-result",
        }
        if v2:
            headers["Git-Protocol"] = "version=2"
        for attempt in (1, 2):
            try:
                conn = self._connection()
                conn.request("POST", f"{self._path}/{service}", body=body, headers=headers)
                response = conn.getresponse()
                content = response.read()
                break
            except (http.client.HTTPException, OSError) as exc:
                self.close()
                # a kept-alive connection the server has closed meanwhile: open a new one
                if attempt == 1 and isinstance(exc, http.client.RemoteDisconnected):
                    continue
                raise Unreachable(type(exc).__name__) from None
        if response.will_close:
            self.close()
        if response.status in (301, 302, 303, 307, 308):
            where = response.getheader("Location", "")
            raise WireError(f"{service} was redirected to {where}: use that URL", response.status)
        if response.status != 200:
            raise WireError(f"{service} answered HTTP {response.status}", response.status)
        return content

    def _command(self, command: str, args: list[str]) -> bytes:
        body = pkt(f"command={command}\n") + pkt(f"{AGENT}\n") + pkt("object-format=sha1\n")
        body += DELIM + b"".join(pkt(f"{a}\n") for a in args) + FLUSH
        return self._post("git-upload-pack", body, v2=True)

    def ls_refs(self, prefix: str) -> dict[str, str]:
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
        blobless: bool,
        shallows: list[str] | None = None,
    ) -> tuple[bytes, list[str]]:
        """A pack with ``wants`` (minus what ``haves`` reach) and the shallow boundary.

        ``shallows`` are the commits the client has without their parents. A ``deepen``
        makes upload-pack ignore ``haves`` (it sends the whole tree again), so an
        incremental fetch passes no depth, its haves, and its shallow commits instead."""
        args = ["ofs-delta", "no-progress"]
        if depth:
            args.append(f"deepen {depth}")
        if blobless:
            args.append("filter blob:none")
        args += [f"shallow {s}" for s in shallows or []]
        args += [f"want {w}" for w in wants] + [f"have {h}" for h in haves] + ["done"]
        pack, shallow, section = bytearray(), [], ""
        for line in read_pkts(self._command("fetch", args)):
            if line is None:
                continue
            if section == "packfile":
                band, payload = line[0], line[1:]
                if band == 1:
                    pack += payload
                elif band == 3:
                    raise WireError(f"server error: {payload.decode(errors='replace').strip()}")
                continue
            text = line.decode(errors="replace").strip()
            if text in ("acknowledgments", "shallow-info", "packfile", "wanted-refs"):
                section = text
            elif section == "shallow-info" and text.startswith("shallow "):
                shallow.append(text.split()[1])
            elif text.startswith("ERR "):
                raise WireError(f"server error: {text[4:]}")
        return bytes(pack), shallow

    def push(self, old: str, new: str, ref: str, pack: bytes) -> None:
        """Update ``ref`` from ``old`` to ``new``; the server refuses if ``old`` is stale."""
        command = f"{old} {new} {ref}\0report-status {AGENT}\n"
        body = pkt(command) + FLUSH + pack
        answer = self._post("git-receive-pack", body, v2=False)
        lines = [ln.decode(errors="replace").strip() for ln in read_pkts(answer) if ln]
        if not lines or lines[0] != "unpack ok":
            raise WireError(f"push failed: {lines[0] if lines else 'no report from server'}")
        for line in lines[1:]:
            if line.startswith("ng "):
                raise RefUpdateRejected(line.split(" ", 2)[-1])


# -- pygit2 glue -------------------------------------------------------------------------


class MemoryObjects(pygit2.OdbBackend):
    """Objects held in memory and read through the repository like any other.

    A run without a cache throws its repository away at the end; writing the fetched trees
    as loose objects (one compressed file each, hundreds for a large monorepo) cost more
    than fetching them. Added as the highest-priority backend, it serves every read
    (pygit2, tree building, the push) and takes every write."""

    PRIORITY = 10

    def __init__(self) -> None:
        super().__init__()
        self.objects: dict[str, tuple[int, bytes]] = {}

    def add(self, kind: int, data: bytes) -> None:
        header = b"%s %d\x00" % (_NAMES[kind], len(data))
        self.objects[hashlib.sha1(header + data).hexdigest()] = (kind, data)

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.objects[str(oid)]

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self.objects[str(oid)]
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return str(oid) in self.objects

    def _full(self, prefix: pygit2.Oid) -> str:
        text = str(prefix).rstrip("0") or "0"
        found = [sha for sha in self.objects if sha.startswith(text)]
        if not found:
            raise KeyError(str(prefix))
        if len(found) > 1:
            raise ValueError(f"ambiguous object prefix {text}")
        return found[0]

    def read_prefix_cb(self, prefix: pygit2.Oid) -> tuple[int, bytes, pygit2.Oid]:
        sha = self._full(prefix)
        kind, data = self.objects[sha]
        return kind, data, pygit2.Oid(hex=sha)

    def exists_prefix_cb(self, prefix: pygit2.Oid) -> pygit2.Oid:
        return pygit2.Oid(hex=self._full(prefix))

    def refresh_cb(self) -> None:
        return None

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        """Objects the run creates (trees, the commit) stay in memory with the rest."""
        self.objects[str(oid)] = (kind, data)


_NAMES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


def store(repo: pygit2.Repository, pack: bytes, memory: MemoryObjects | None = None) -> int:
    """Every object of ``pack`` into ``repo`` (or into ``memory``); returns how many."""
    if not pack:
        return 0
    odb = repo.odb

    def lookup(oid: bytes) -> PackObject | None:
        try:
            kind, data = odb.read(pygit2.Oid(raw=oid))[:2]
        except KeyError:
            return None
        return PackObject(int(kind), bytes(data))

    objects = parse_pack(pack, lookup)
    for obj in objects:
        if memory is not None:
            memory.add(obj.type, obj.data)
        else:
            odb.write(_TYPES[obj.type], obj.data)
    return len(objects)


def shallow_commits(repo: pygit2.Repository) -> list[str]:
    """The commits recorded as shallow (their parents are not here)."""
    try:
        with open(f"{repo.path.rstrip('/')}/shallow") as fh:
            return fh.read().split()
    except FileNotFoundError:
        return []


def add_shallow(repo: pygit2.Repository, oids: list[str]) -> None:
    """Record the shallow boundary so nothing walks past commits we do not have."""
    if not oids:
        return
    path = f"{repo.path.rstrip('/')}/shallow"
    try:
        with open(path) as fh:
            known = set(fh.read().split())
    except FileNotFoundError:
        known = set()
    with open(path, "w") as fh:
        fh.write("".join(f"{o}\n" for o in sorted(known | set(oids))))


def new_objects(
    repo: pygit2.Repository, commit: pygit2.Oid, base: pygit2.Tree | None
) -> list[pygit2.Oid]:
    """Objects of ``commit`` the server lacks: the commit, and every tree or blob that
    differs from ``base`` (the tree of the tip it was built on) and exists locally."""
    out = [commit]
    new_tree = repo[commit].peel(pygit2.Commit).tree

    def walk(new: pygit2.Tree, old: pygit2.Tree | None) -> None:
        out.append(new.id)
        for entry in new:
            name = entry.name or ""
            previous = old[name] if old is not None and name in old else None
            if previous is not None and previous.id == entry.id:
                continue
            if entry.filemode == pygit2.enums.FileMode.TREE:
                old_sub = (
                    repo[previous.id].peel(pygit2.Tree)
                    if previous is not None and previous.filemode == pygit2.enums.FileMode.TREE
                    else None
                )
                walk(repo[entry.id].peel(pygit2.Tree), old_sub)
            elif odb_has(repo, entry.id):
                out.append(entry.id)

    if base is None or new_tree.id != base.id:
        walk(new_tree, base)
    return out


def odb_has(repo: pygit2.Repository, oid: pygit2.Oid) -> bool:
    return bool(repo.odb.exists(oid))


def build_pack(repo: pygit2.Repository, oids: list[pygit2.Oid], scratch: str) -> bytes:
    """A pack of exactly ``oids`` (no walking: the rest is on the server already)."""
    import glob

    builder = pygit2.PackBuilder(repo)
    for oid in oids:
        builder.add(oid)
    builder.write(scratch)
    (path,) = glob.glob(f"{scratch}/*.pack")
    with open(path, "rb") as fh:
        return fh.read()
