"""Which replica reports which app: a stable hash of ``namespace/name`` modulo the replica
count, so every replica decides alike without talking to the others, and an app keeps its
owner across restarts. ``hash()`` is salted per process; SHA-256 is not."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

_ORDINAL = re.compile(r"-(\d+)$")


def owner(key: str, replicas: int) -> int:
    """The ordinal (0..replicas-1) of the replica that reports ``key``."""
    if replicas < 1:
        raise ValueError("replicas must be at least 1")
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") % replicas


def owns(key: str, shard: int, replicas: int) -> bool:
    return owner(key, replicas) == shard


def ordinal(hostname: str) -> int | None:
    """A StatefulSet pod's ordinal from its name (``promoflow-reporters-3`` -> 3)."""
    found = _ORDINAL.search(hostname)
    return int(found.group(1)) if found else None


def split(keys: Iterable[str], replicas: int) -> dict[int, int]:
    """How many of ``keys`` each replica owns (what ``/shards`` shows)."""
    counts = Counter(owner(k, replicas) for k in keys)
    return {shard: counts.get(shard, 0) for shard in range(replicas)}
