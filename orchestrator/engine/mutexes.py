"""``synchronization`` mutexes: named locks a workflow or a template holds while it runs.

Argo's mutexes belong to the namespace, not to one workflow, so here they belong to the
process: two runs in one process (``serve --local``) wait for each other as two workflows
on a cluster do. A workflow-level mutex is held from the start to the end of the exit
handler, a template-level one while its node runs.
"""

from __future__ import annotations

import threading
from typing import Any

_MUTEXES: dict[str, threading.Lock] = {}
"""Named mutexes of every run in this process: Argo's are shared by the whole namespace."""
_MUTEXES_LOCK = threading.Lock()


class Mutexes:
    """Holds a set of named mutexes (sorted, so two nodes never deadlock on them)."""

    def __init__(self, locks: list[threading.Lock]) -> None:
        self.locks = locks

    def __enter__(self) -> None:
        for lock in self.locks:
            lock.acquire()

    def __exit__(self, *_: object) -> None:
        for lock in reversed(self.locks):
            lock.release()


def synchronized(sync: Any) -> Mutexes:
    """The mutexes a ``synchronization`` block names (``mutexes`` and the older ``mutex``)."""
    names = sorted(
        {str(m.get("name", "")) for m in (sync or {}).get("mutexes") or []}
        | ({str(sync["mutex"].get("name", ""))} if sync and sync.get("mutex") else set())
    )
    with _MUTEXES_LOCK:
        locks = [_MUTEXES.setdefault(n, threading.Lock()) for n in names]
    return Mutexes(locks)
