"""The reporter looks for reference cycles less often while it reports (the queued apps
were traversed by every full collection), and leaves the process as it found it."""

from __future__ import annotations

import gc

import pytest

from reporters.collection import THRESHOLDS, fewer_collections
from reporters.runtime import Reporter
from reporters.state.store import Store
from reporters.watch.watcher import Watcher


def test_the_thresholds_hold_inside_and_are_restored_after_a_failure() -> None:
    before = gc.get_threshold()
    assert before != THRESHOLDS
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == THRESHOLDS
        raise RuntimeError("a failed batch")
    assert gc.get_threshold() == before


def test_the_reporter_handles_changes_with_them() -> None:
    reporter = Reporter(Watcher(None, log=lambda text: None), Store())
    during: list[tuple[int, ...]] = []

    def handle_all(items: list[tuple[str, object]]) -> list[object]:
        during.append(gc.get_threshold())
        reporter.stop()
        return []

    reporter.pipeline.handle_all = handle_all  # type: ignore[assignment,method-assign]
    reporter.queue.put("argocd/shop-dev", None)
    before = gc.get_threshold()
    reporter.run()
    assert during == [THRESHOLDS]
    assert gc.get_threshold() == before
