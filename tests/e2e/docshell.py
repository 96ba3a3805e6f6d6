"""The shell commands of a Markdown document, so a test can run what the document says
instead of a copy that drifts from it.

A fenced block whose info string is ``sh`` is one block of commands. The line right above
its fence (blank lines between are allowed) may be an HTML comment that says what the
tests do with it, which a reader of the rendered page does not see:

- ``<!-- e2e: ROLE -->``: a test runs it in the step ROLE (``install``, ``test``, ...);
- ``<!-- e2e: skip: REASON -->``: left out on purpose, and why.

A block's commands are its lines with ``\\`` continuations joined, blank lines and
comments dropped (a whole-line ``# ...`` and a trailing `` # ...`` outside quotes, as the
shell reads them). Substitution rules replace what a reader replaces (an image, a URL, a
namespace): each rule must match somewhere, so a placeholder renamed in the document
fails the test instead of running against ``registry.example.com``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
_MARKER = re.compile(r"^\s*<!--\s*e2e:\s*(?P<body>.*?)\s*-->\s*$")
SKIP = "skip"


class DocError(ValueError):
    """The document cannot be read as the tests need it; the message names the line."""


@dataclass(frozen=True)
class Marker:
    role: str
    """A step a test runs the block in, or ``skip``."""
    reason: str = ""
    """Why a skipped block is left out."""


@dataclass(frozen=True)
class Block:
    section: str
    """The title of the nearest heading above the block."""
    line: int
    """The line of the opening fence (1-based)."""
    info: str
    marker: Marker | None
    commands: tuple[str, ...] = field(default=())

    @property
    def where(self) -> str:
        return f"line {self.line} (section {self.section!r})"


@dataclass(frozen=True)
class Rule:
    """Replace ``pattern`` (a regular expression) with ``replacement``; ``name`` says what
    a reader substitutes there."""

    name: str
    pattern: str
    replacement: str


def _marker(text: str, line: int) -> Marker:
    body = _MARKER.match(text)
    assert body is not None
    role, _, reason = body.group("body").partition(":")
    role, reason = role.strip(), reason.strip()
    if not role:
        raise DocError(f"line {line}: empty e2e marker; write <!-- e2e: install --> or "
                       "<!-- e2e: skip: why it is left out -->")  # fmt: skip
    if role == SKIP and not reason:
        raise DocError(f"line {line}: a skipped block needs its reason: "
                       "<!-- e2e: skip: why it is left out -->")  # fmt: skip
    if role != SKIP and reason:
        raise DocError(f"line {line}: only skip takes a reason, not {role!r}")
    return Marker(role, reason)


def strip_comment(line: str) -> str:
    """``line`` without a trailing shell comment: a ``#`` at the start of a word, outside
    single and double quotes (the part of the shell's rules the documents use)."""
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index].rstrip()
    return line.rstrip()


def commands(lines: Iterable[str]) -> tuple[str, ...]:
    """The commands of a block's lines: continuations joined, comments and blanks out."""
    found: list[str] = []
    pending = ""
    for raw in lines:
        text = strip_comment(raw)
        if pending:
            text = pending + " " + text.strip()
        if text.endswith("\\"):
            pending = text[:-1].rstrip()
            continue
        pending = ""
        if text.strip():
            found.append(text.strip())
    if pending.strip():
        found.append(pending.strip())
    return tuple(found)


def blocks(text: str) -> list[Block]:
    """Every ``sh`` block of ``text`` with its section, line, marker and commands."""
    lines = text.splitlines()
    found: list[Block] = []
    section = ""
    last: tuple[int, str] | None = None  # the latest non-blank line outside blocks
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence is None:
            heading = _HEADING.match(line)
            if heading:
                section = heading.group("title")
            if line.strip():
                last = (index + 1, line)
            index += 1
            continue
        indent, mark, info = fence.group("indent"), fence.group("fence"), fence.group("info")
        start = index + 1
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            if closing.startswith(mark[0] * len(mark)) and not closing.strip(mark[0]):
                break
            body.append(lines[index][len(indent):] if lines[index].startswith(indent) else
                        lines[index].lstrip())  # fmt: skip
            index += 1
        else:
            raise DocError(f"line {start}: the code block is not closed")
        index += 1
        marker = None
        if last is not None and _MARKER.match(last[1]):
            marker = _marker(last[1], last[0])
        last = None
        if info.strip().split(" ", 1)[0] == "sh":
            found.append(Block(section, start, info.strip(), marker, commands(body)))
        elif marker is not None:
            raise DocError(f"line {start}: an e2e marker above a {info.strip() or 'plain'} "
                           "block; only sh blocks are run")  # fmt: skip
    return found


def read(path: Path) -> list[Block]:
    return blocks(path.read_text(encoding="utf-8"))


def unmarked(found: Iterable[Block]) -> list[Block]:
    return [b for b in found if b.marker is None]


def in_role(found: Iterable[Block], role: str) -> list[Block]:
    return [b for b in found if b.marker is not None and b.marker.role == role]


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: text


def substitute(command: str, rules: Iterable[Rule]) -> tuple[str, set[str]]:
    """``command`` with every rule applied in order, and the names of the rules that
    matched."""
    used: set[str] = set()
    for rule in rules:
        # a function, so a replacement is taken as written (no group references)
        command, count = re.subn(rule.pattern, _literal(rule.replacement), command)
        if count:
            used.add(rule.name)
    return command, used
