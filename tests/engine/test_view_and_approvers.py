"""What people see of a local run, and how approvals are answered in a terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from orchestrator.engine.model import Phase, ProgressEvent
from orchestrator.engine.suspend import PromptApprover, Question, Supplied
from orchestrator.local.view import RunView


def render(view: RunView) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(view.render())
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text


def test_the_tree_groups_nodes_by_environment_with_their_state() -> None:
    console = Console(file=io.StringIO(), width=120)
    view = RunView(
        console, "shop-1-5-0", ["deploy-dev", "sync-dev", "deploy-prod-eu"], ["dev", "prod-eu"]
    )
    view.handle(ProgressEvent("deploy-dev", "deploy-dev", Phase.SUCCEEDED, 1.25))
    view.handle(ProgressEvent("sync-dev", "sync-dev", Phase.FAILED, 0.5, "shop-dev: Degraded"))
    view.handle(ProgressEvent("onExit.notify", "notify", Phase.RUNNING, on_exit=True))
    text = render(view)
    lines = text.splitlines()
    dev = next(i for i, line in enumerate(lines) if line.strip().endswith("dev"))
    assert "✔ deploy dev  1.2s" in lines[dev + 1]
    assert "✘ sync dev  0.5s  shop-dev: Degraded" in lines[dev + 2]
    assert any("○ deploy-prod-eu" in line for line in lines)  # still waiting
    assert any("report" in line for line in lines) and "◐ notify" in text


def test_without_a_terminal_each_change_is_one_line() -> None:
    buffer = io.StringIO()
    view = RunView(Console(file=buffer), "run", ["deploy-dev"], ["dev"])
    assert not view.interactive
    with view:
        view.handle(ProgressEvent("deploy-dev", "deploy-dev", Phase.SUCCEEDED, 2.0))
        view.handle(ProgressEvent("onExit.notify", "notify", Phase.SUCCEEDED, 0.1, on_exit=True))
    assert buffer.getvalue().splitlines() == [
        "deploy dev: Succeeded (2.0s)",
        "exit handler: notify: Succeeded (0.1s)",
    ]


def test_a_terminal_approval_pauses_the_display_and_records_who_said_what() -> None:
    calls: list[str] = []
    question = Question(
        "approve-prod-eu",
        "approve prod-eu",
        {"environment": "prod-eu"},
        (Supplied("approve", "Promote into prod-eu?", ("YES", "NO"), "NO"),),
    )

    def ask(q: Question) -> tuple[bool, str]:
        calls.append(f"asked {q.prompt}")
        return False, "not on a Friday"

    approver = PromptApprover(
        ask, "alice", pause=lambda: calls.append("pause"), resume=lambda: calls.append("resume")
    )
    answer = approver.answer(question)
    assert calls == ["pause", "asked Promote into prod-eu?", "resume"]
    assert not answer.approved
    assert answer.values == {"approve": "NO"}
    assert answer.message == "rejected by alice: not on a Friday"


@pytest.mark.parametrize(
    ("typed", "message"), [("y", ""), (" Yes ", ""), ("n", ""), ("ok", ": ok")]
)
def test_a_yes_typed_where_the_reason_is_asked_is_not_recorded_as_one(
    typed: str, message: str
) -> None:
    approver = PromptApprover(lambda q: (True, typed), "alice@example.com")
    answer = approver.answer(Question("approve-prod", "approve prod", {"environment": "prod"}, ()))
    assert answer.message == f"approved by alice@example.com{message}"


def test_answering_y_twice_in_a_terminal_records_an_approval_without_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orchestrator.local.session import _ask

    typed = iter(["y", "y"])
    monkeypatch.setattr("builtins.input", lambda *_: next(typed))
    screen = io.StringIO()
    ask = _ask(Console(file=screen, width=100))
    answer = PromptApprover(ask, "alice@example.com").answer(
        Question("approve-prod", "approve prod", {"environment": "prod"}, ())
    )
    assert (answer.approved, answer.message) == (True, "approved by alice@example.com")
    assert "Why (optional" in screen.getvalue()


def test_parallel_approvals_are_asked_one_at_a_time() -> None:
    import threading
    import time

    asking: list[int] = []
    overlaps: list[int] = []

    def ask(q: Question) -> tuple[bool, str]:
        asking.append(1)
        overlaps.append(len(asking))
        time.sleep(0.05)
        asking.pop()
        return True, ""

    approver = PromptApprover(ask, "alice")
    questions = [Question(f"approve-{e}", f"approve {e}", {"environment": e}, ()) for e in "ab"]
    threads = [threading.Thread(target=approver.answer, args=(q,)) for q in questions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == [1, 1]
