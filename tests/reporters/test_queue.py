"""The coalescing queue: one slot per app, the latest state delivered, bounded, no loss."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from reporters.queue import CoalescingQueue


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers()), max_size=200))
def test_the_latest_state_of_every_app_comes_out_once_in_first_seen_order(
    updates: list[tuple[str, int]],
) -> None:
    queue: CoalescingQueue[int] = CoalescingQueue(capacity=8)
    for app, state in updates:
        assert queue.put(app, state, timeout=0)
    latest = dict(updates)
    order = list(dict.fromkeys(app for app, _ in updates))
    taken = []
    while (item := queue.get(timeout=0)) is not None:
        taken.append(item)
    assert taken == [(app, latest[app]) for app in order]
    assert queue.coalesced == len(updates) - len(order)


def test_a_full_queue_makes_the_producer_wait_and_loses_nothing() -> None:
    queue: CoalescingQueue[int] = CoalescingQueue(capacity=3)
    for app in "abc":
        queue.put(app, 0)
    assert queue.put("a", 1, timeout=0)  # an app already waiting: no slot needed
    assert not queue.put("d", 0, timeout=0.05)  # a new app waits for a slot
    seen: list[tuple[str, int]] = []

    def consume() -> None:
        while (item := queue.get(timeout=1)) is not None:
            seen.append(item)

    consumer = threading.Thread(target=consume)
    consumer.start()
    for i in range(200):
        assert queue.put(f"app-{i % 50}", i, timeout=5)
    consumer.join()
    assert len(queue) == 0
    latest = {f"app-{i % 50}": i for i in range(200)}
    last_seen: dict[str, int] = {}
    for app, state in seen:
        last_seen[app] = state
    assert {k: v for k, v in last_seen.items() if k.startswith("app-")} == latest
