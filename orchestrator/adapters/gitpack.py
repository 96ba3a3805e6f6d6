"""Git pack files: parse one as received (deltas resolved, ids computed, checksum verified).

A promotion against a server that allows no ``filter`` receives the whole tip of the branch
(tens of thousands of objects in a monorepo), so parsing is on the critical path. Objects
are inflated straight out of a ``memoryview`` of the pack with a window just larger than the
object (feeding the rest of the pack would copy it once per object), delta chains are
resolved in pack order (``ofs-delta`` bases always come first), and each id is hashed once.

Pure: bytes in, objects out; no pygit2, no I/O.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Callable

COMMIT, TREE, BLOB, TAG = 1, 2, 3, 4
OFS_DELTA, REF_DELTA = 6, 7
NAMES = {COMMIT: b"commit", TREE: b"tree", BLOB: b"blob", TAG: b"tag"}
_SLACK = 64
"""Bytes fed beyond an object's size at first: zlib's header, trailer and the worst-case
expansion of small incompressible objects fit, so one ``decompress`` call is the rule."""


class PackError(ValueError):
    """The bytes are not a valid pack (truncated, corrupted, or a delta without its base)."""


Objects = dict[bytes, tuple[int, bytes]]
"""Object id (binary SHA-1) -> (type, content), in pack order: what a parse yields, and what
an in-memory object store keeps as it is (no copy, no second key)."""


def _varint(delta: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = delta[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """Git's delta format: copy ranges of ``base`` and insert literal bytes.

    Hot: a shallow fetch without a filter resolves one delta per file of the repository,
    so the loop keeps to local variables and one ``bytearray``."""
    try:
        source_size, pos = _varint(delta, 0)
        size, pos = _varint(delta, pos)
        if source_size != len(base):
            raise PackError("delta base has the wrong size")
        out = bytearray()
        end = len(delta)
        while pos < end:
            op = delta[pos]
            pos += 1
            if op & 0x80:
                offset = length = 0
                if op & 0x01:
                    offset = delta[pos]
                    pos += 1
                if op & 0x02:
                    offset |= delta[pos] << 8
                    pos += 1
                if op & 0x04:
                    offset |= delta[pos] << 16
                    pos += 1
                if op & 0x08:
                    offset |= delta[pos] << 24
                    pos += 1
                if op & 0x10:
                    length = delta[pos]
                    pos += 1
                if op & 0x20:
                    length |= delta[pos] << 8
                    pos += 1
                if op & 0x40:
                    length |= delta[pos] << 16
                    pos += 1
                out += base[offset : offset + (length or 0x10000)]
            elif op:
                out += delta[pos : pos + op]
                pos += op
            else:
                raise PackError("invalid delta instruction in pack")
    except IndexError:
        raise PackError("truncated delta in pack") from None
    if len(out) != size:
        raise PackError("delta result has the wrong size")
    return bytes(out)


def verify(pack: bytes) -> None:
    """The header and the trailing SHA-1 over everything before it, as index-pack checks."""
    if len(pack) < 32 or pack[:4] != b"PACK":
        raise PackError("response is not a pack")
    version = struct.unpack(">I", pack[4:8])[0]
    if version not in (2, 3):
        raise PackError(f"unsupported pack version {version}")
    if hashlib.sha1(memoryview(pack)[:-20]).digest() != pack[-20:]:
        raise PackError("pack checksum mismatch: the download is corrupted")


def _inflate(view: memoryview, pos: int, size: int, end: int) -> tuple[bytes, int]:
    """The object's content and the offset just past its compressed stream."""
    inflater = zlib.decompressobj()
    fed = min(pos + size + _SLACK, end)
    try:
        data = inflater.decompress(view[pos:fed])
        while not inflater.eof:
            if fed >= end:
                raise PackError("truncated object in pack")
            more = min(fed + size + 4096, end)
            data += inflater.decompress(view[fed:more])
            fed = more
    except zlib.error as exc:
        raise PackError(f"corrupted object in pack ({exc})") from None
    if len(data) != size:
        raise PackError("object has the wrong size in pack")
    return data, fed - len(inflater.unused_data)


def parse(pack: bytes, lookup: Callable[[bytes], tuple[int, bytes] | None]) -> Objects:
    """Every object of a verified ``pack`` by id; ``lookup`` finds the bases of a thin pack."""
    verify(pack)
    count = struct.unpack(">I", pack[8:12])[0]
    view, end, pos = memoryview(pack), len(pack) - 20, 12
    by_offset: dict[int, tuple[int, bytes]] = {}
    by_id: Objects = {}
    waiting: list[tuple[int, int | bytes, bytes]] = []

    sha1, names = hashlib.sha1, NAMES

    def add(start: int, kind: int, data: bytes) -> None:
        digest = sha1(b"%s %d\0" % (names[kind], len(data)))
        digest.update(data)
        oid = digest.digest()
        by_offset[start] = by_id[oid] = (kind, data)

    def base_of(ref: int | bytes) -> tuple[int, bytes] | None:
        if isinstance(ref, int):
            return by_offset.get(ref)
        return by_id.get(ref) or lookup(ref)

    try:
        for _ in range(count):
            start = pos
            byte = pack[pos]
            pos += 1
            kind, size, shift = (byte >> 4) & 7, byte & 15, 4
            while byte & 0x80:
                byte = pack[pos]
                pos += 1
                size |= (byte & 0x7F) << shift
                shift += 7
            ref: int | bytes = 0
            if kind == OFS_DELTA:
                byte = pack[pos]
                pos += 1
                offset = byte & 0x7F
                while byte & 0x80:
                    byte = pack[pos]
                    pos += 1
                    offset = ((offset + 1) << 7) | (byte & 0x7F)
                ref = start - offset
            elif kind == REF_DELTA:
                ref = bytes(view[pos : pos + 20])
                pos += 20
            elif kind not in NAMES:
                raise PackError(f"unknown object type {kind} in pack")
            data, pos = _inflate(view, pos, size, end)
            if kind in NAMES:
                add(start, kind, data)
                continue
            base = base_of(ref)
            if base is None:
                waiting.append((start, ref, data))
            else:
                add(start, base[0], apply_delta(base[1], data))
    except IndexError:
        raise PackError("truncated pack") from None
    if pos != end:
        raise PackError("pack has trailing bytes after its objects")
    while waiting:  # ref-deltas against objects later in the pack
        still: list[tuple[int, int | bytes, bytes]] = []
        for start, ref, delta in waiting:
            base = base_of(ref)
            if base is None:
                still.append((start, ref, delta))
            else:
                add(start, base[0], apply_delta(base[1], delta))
        if len(still) == len(waiting):
            raise PackError("pack has deltas against objects we do not have")
        waiting = still
    return by_id
