"""Each app's latest whole object, as the watch gave it, kept small for notifications.

Argo CD's triggers and templates read fields the reporter's trimmed state drops
(annotations, ``deletionTimestamp``, ``status.conditions``), and a held notification is
checked against the object as it is when its time is up. Kept as they arrive, 10,000
real-size Applications take 584 MiB; compressed with zlib (level 1), 18 MiB, under 2 KB
an app (``bench/app_memory.py``). Each is pickled, not encoded as JSON, before it is
compressed: every update of every app is kept, and a real-size Application is pickled
and compressed in 40 us where JSON took 88 us (1.7 KB kept instead of 1.5 KB). The bytes
never leave the process, so nothing but this class unpickles them.
Memory only: a restart relists every app before any hold is checked, and the store keeps
only trimmed states.
"""

from __future__ import annotations

import pickle
import zlib
from typing import Any

App = dict[str, Any]


class WholeApps:
    """App key -> its latest object, compressed."""

    def __init__(self) -> None:
        self.packed: dict[str, bytes] = {}

    def keep(self, key: str, app: App) -> None:
        self.packed[key] = zlib.compress(pickle.dumps(app, pickle.HIGHEST_PROTOCOL), 1)

    def drop(self, key: str) -> None:
        self.packed.pop(key, None)

    def get(self, key: str) -> App | None:
        packed = self.packed.get(key)
        if packed is None:
            return None
        found: App = pickle.loads(zlib.decompress(packed))  # only ever bytes keep() made
        return found
