"""What a log line or a reply may carry of a sender's words: printable and bounded."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orchestrator.webhooks.logfields import MAX_LINE, printable
from orchestrator.webhooks.service import Reply
from orchestrator.webhooks.submit import Run


def test_controls_and_separators_are_escaped() -> None:
    assert printable("a\nb\x1b[31m\u2028c\\d") == "a\\nb\\x1b[31m\\u2028c\\\\d"
    assert printable("plain text, kept") == "plain text, kept"


def test_long_values_are_cut_short() -> None:
    assert printable("x" * 10_000, 20) == "x" * 17 + "..."
    assert printable("\n" * 10_000, 20) == "\\n" * 8 + "\\..."


@given(st.text(), st.integers(3, 500))
def test_any_text_becomes_one_bounded_printable_line(value: str, limit: int) -> None:
    shown = printable(value, limit)
    assert len(shown) <= limit and shown.isprintable()
    if len(value) <= limit and value.isprintable() and "\\" not in value:
        assert shown == value


def test_a_delivery_line_stays_bounded_however_many_runs_and_however_long_the_words() -> None:
    runs = [Run("shop", "1.2.3", f"{'p' * 50}-1-2-3-{n:08d}", "", True) for n in range(200)]
    reply = Reply(202, "promoting: " + "\n" * 100_000, "submitted", runs)
    reply.delivery = "\x1b" * 100_000
    line = reply.log_line("generic", 123456.7)
    assert len(line) <= MAX_LINE and line.isprintable()
