"""Suspend nodes that wait for a person: who answers them in a local run.

On a cluster an approval is a ``suspend`` node with ``supplied`` output parameters, answered
through the Argo Server ``set`` API (``promoflow approve``/``reject``, the UI's resume
dialog): the node resumes Succeeded with ``approve=YES`` or ``approve=NO`` (the reason in
its message), and what follows judges the answer. Locally an :class:`Approver` gives the
same answer, either automatically or by asking in the terminal, so the rest of the
workflow cannot tell the difference.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from orchestrator.actors import actor_labels

YES, NO = "YES", "NO"
NOT_A_MESSAGE = frozenset({"", "y", "yes", "n", "no"})
"""Typed where a reason was asked, these repeat the answer rather than give a reason: the
approval records no message for them."""


@dataclass(frozen=True)
class Supplied:
    """An output parameter a person supplies (``valueFrom.supplied``)."""

    name: str
    description: str = ""
    enum: tuple[str, ...] = ()
    default: str | None = None


@dataclass(frozen=True)
class Question:
    """What an approver sees: the node, its inputs and what to supply."""

    node: str
    display_name: str
    inputs: Mapping[str, str]
    supplied: tuple[Supplied, ...]
    annotations: Mapping[str, str] = field(default_factory=dict)
    """The template's annotations: where a compiled pause keeps its fixed values."""

    @property
    def environment(self) -> str:
        """The ``environment`` input, or an annotation named ``environment`` under any
        prefix (``promoflow.dev/environment``)."""
        if self.inputs.get("environment"):
            return self.inputs["environment"]
        for key, value in self.annotations.items():
            if key.rpartition("/")[2] == "environment":
                return value
        return ""

    @property
    def prompt(self) -> str:
        for param in self.supplied:
            if param.description:
                return param.description
        return f"Resume {self.display_name}?"


@dataclass(frozen=True)
class Answer:
    approved: bool
    message: str = ""
    values: dict[str, str] = field(default_factory=dict)
    actor: str = ""
    """Who answered, as a token's subject or e-mail: the engine labels the run with it as
    the Argo Server labels it with the caller (``workflows.argoproj.io/actor``)."""

    def actor_labels(self) -> dict[str, str]:
        if "@" in self.actor:
            return actor_labels(email=self.actor)
        return actor_labels(subject=self.actor)


class Approver(Protocol):
    def answer(self, question: Question) -> Answer: ...


def answer_values(question: Question, approved: bool) -> dict[str, str]:
    """YES/NO for yes/no parameters, the default (or empty) for the others."""
    values: dict[str, str] = {}
    for param in question.supplied:
        if {YES, NO} <= set(param.enum) or param.name == "approve":
            values[param.name] = YES if approved else NO
        else:
            values[param.name] = param.default or ""
    return values


class AutoApprover:
    """Approves every question (``--auto-approve``), except environments listed to reject.

    ``who`` is the person the answers are given for (the requester, or ``--as``), so a
    message names them, as an answer given in the UI would; ``flags`` adds the option that
    answered for them (``--auto-approve``, ``--reject ENV``), so nobody takes an automatic
    answer for one a person typed."""

    def __init__(
        self,
        reject: Mapping[str, str] | None = None,
        who: str = "auto-approve",
        actor: str = "",
        flags: bool = False,
    ):
        self.reject = dict(reject or {})
        self.who = who
        self.actor = actor
        self.flags = flags

    def answer(self, question: Question) -> Answer:
        env = question.environment
        if env in self.reject:
            how = f" (--reject {env})" if self.flags else ""
            reason = self.reject[env]
            text = f"rejected by {self.who}{how}" + (f": {reason}" if reason else "")
            return Answer(False, text, answer_values(question, False), self.actor)
        how = " (--auto-approve)" if self.flags else ""
        text = f"approved by {self.who}{how}"
        return Answer(True, text, answer_values(question, True), self.actor)


class PromptApprover:
    """Asks in the terminal; ``pause`` stops the live display while the question is open."""

    def __init__(
        self,
        ask: Callable[[Question], tuple[bool, str]],
        who: str,
        pause: Callable[[], object] | None = None,
        resume: Callable[[], object] | None = None,
        actor: str = "",
    ) -> None:
        self.ask, self.who, self.pause, self.resume = ask, who, pause, resume
        self.actor = actor or who
        self._one_at_a_time = threading.Lock()

    def answer(self, question: Question) -> Answer:
        # parallel environments reach their approvals together: ask them one by one
        with self._one_at_a_time:
            if self.pause:
                self.pause()
            try:
                approved, message = self.ask(question)
            finally:
                if self.resume:
                    self.resume()
        verb = "approved" if approved else "rejected"
        message = "" if message.strip().lower() in NOT_A_MESSAGE else message.strip()
        text = f"{verb} by {self.who}" + (f": {message}" if message else "")
        return Answer(approved, text, answer_values(question, approved), self.actor)
