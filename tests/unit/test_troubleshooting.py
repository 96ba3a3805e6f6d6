"""docs/troubleshooting.md quotes messages users meet. Those quoted as promoflow's
(fenced ``text``) must be messages promoflow still prints: the runs of words between
what a message fills in (names, paths, numbers) must be, at least half of them, in the
code that prints it, so a reworded message cannot leave a stale page behind. (Helm's
and Kubernetes' own, fenced ``helm`` and ``kubernetes``, are not checked here.)"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "troubleshooting.md"
SOURCES = ("orchestrator", "reporters", "charts")
_FENCE = re.compile(r"^```text\n(.*?)^```", re.S | re.M)
_BREAK = re.compile(
    r"""['"(){}\[\]:;,?]|\S*[/.]\S*|\d+|(?<=\w )[A-Z][\w-]*|\b[A-Z][A-Z0-9_]{3,}\b"""
)


@cache
def source_text() -> str:
    texts = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".yaml", ".tpl", ".json") and path.is_file():
                texts.append(path.read_text(errors="replace"))
    return re.sub(r"\s+", " ", "\n".join(texts))


def phrases(message: str) -> list[str]:
    """The runs of plain words between what a message fills in (names, paths, numbers)."""
    runs = [" ".join(part.split()) for part in _BREAK.split(message)]
    return [run for run in runs if len(run.split()) >= 2]


def printed(phrase: str) -> bool:
    """The phrase, or three words of it in a row, is in the code (a message's text may be
    split around what it fills in, or over two string literals)."""
    words = phrase.split()
    size = min(3, len(words))
    return any(" ".join(words[i : i + size]) in source_text() for i in range(len(words) - size + 1))


def test_every_promoflow_message_on_the_page_is_one_promoflow_prints() -> None:
    messages = [m.strip() for m in _FENCE.findall(PAGE.read_text())]
    assert len(messages) >= 9
    stale = []
    for message in messages:
        found = [p for p in phrases(message) if printed(p)]
        if not found or len(found) * 2 < len(phrases(message)):
            stale.append(message)
    assert stale == []


def test_a_reworded_message_would_be_caught() -> None:
    reworded = "deliveries from GitLab get turned away: their key was never set up"
    assert [p for p in phrases(reworded) if printed(p)] == ["deliveries from"]
