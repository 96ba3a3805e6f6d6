"""How often the reporter's process looks for reference cycles while it reports.

CPython's cyclic collector traverses every object that survived two younger collections
each time enough of them pile up. A reporter makes them pile up by design: its coalescing
queue holds up to 1,000 decoded apps (some 700 containers each at real size) while the
pipeline catches up, so every queued app is promoted, and each full collection then
traverses them with the 10,000 kept states. With CPython's default thresholds
(700, 10, 10), ``bench/reporter_throughput.py`` (10,000 real-size apps, 30,000 changes,
Argo CD's catalog) spent 19.7 s of 62 s collecting, 51 full collections; with
:data:`THRESHOLDS`, 1.8 s and none. The reporter makes few cycles (what it decodes is a
tree, freed by reference counting the moment it is handled): the thresholds only delay
finding the rare cycle, they free nothing later that reference counting frees now.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (50_000, 20, 100)
"""Net container allocations before a young collection; young collections before a
middle one; middle ones before a full one (CPython's: 700, 10, 10)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """:data:`THRESHOLDS` while the block runs, the process's own again after it."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
