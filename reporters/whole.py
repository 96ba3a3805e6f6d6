"""Each app's latest whole object, as the watch gave it, kept small for notifications.

Argo CD's triggers and templates read fields the reporter's trimmed state drops
(annotations, ``deletionTimestamp``, ``status.conditions``), and a held notification is
checked against the object as it is when its time is up. Kept as they arrive, 10,000
real-size Applications take 584 MiB; compressed, 18 MiB, under 2 KB an app
(``bench/app_memory.py``).

Every update of every app is kept, so keeping must be cheap. A real-size Application is
serialized with ``marshal`` (25 us; pickle took 47 us, JSON 100 us: the watch decodes
JSON, so an app holds only the types marshal writes) and compressed with Zstandard at
level 1 (15 us for the 10 KB, where zlib at its fastest took 51 us for the same 2 KB
out). The catalog run of ``bench/reporter_throughput.py`` was bound by these two. An
object marshal cannot write (one read from YAML holds timestamps) is pickled instead.
The bytes never leave the process, so only this class reads them back, in the Python
that wrote them (marshal's format is the running Python's own).
Memory only: a restart relists every app before any hold is checked, and the store keeps
only trimmed states.
"""

from __future__ import annotations

import marshal
import pickle
from typing import Any

import zstandard

App = dict[str, Any]
MARSHALLED, PICKLED = b"m", b"p"
"""The first byte of what is kept: how the rest was serialized."""


class WholeApps:
    """App key -> its latest object, compressed. Used by the pipeline's one thread: a
    Zstandard (de)compressor must not be shared between threads."""

    def __init__(self) -> None:
        self.packed: dict[str, bytes] = {}
        self._compress = zstandard.ZstdCompressor(level=1).compress
        self._decompress = zstandard.ZstdDecompressor().decompress

    def keep(self, key: str, app: App) -> None:
        try:
            how, raw = MARSHALLED, marshal.dumps(app)
        except ValueError:  # a type JSON never gives (a YAML timestamp)
            how, raw = PICKLED, pickle.dumps(app, pickle.HIGHEST_PROTOCOL)
        # joined into a bytes object of its own size: the compressor's own is cut down
        # from the worst-case bound, and 10,000 such buffers fragmented the heap to
        # 146 MiB for 20 MB of data (24 MiB copied)
        self.packed[key] = how + self._compress(raw)

    def drop(self, key: str) -> None:
        self.packed.pop(key, None)

    def get(self, key: str) -> App | None:
        packed = self.packed.get(key)
        if packed is None:
            return None
        raw = self._decompress(memoryview(packed)[1:])
        # only ever bytes keep() made, in this process
        found: App = marshal.loads(raw) if packed[:1] == MARSHALLED else pickle.loads(raw)
        return found
