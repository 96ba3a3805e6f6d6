"""Argo CD Notifications' ConfigMap layout: which keys a file holds, and where each part
of each key's embedded YAML document was written.

The file may be the ConfigMap's manifest, its ``data`` mapping alone, or the directory a
mounted ConfigMap becomes (one file per key). A key's value is usually a YAML document
in a string (a ``|`` block), so the positions its parser reports are moved to where that
string sits in the file: every problem then points at the line a person would edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.loading.yaml_source import Document, read_documents
from orchestrator.model.base import SourceMap
from orchestrator.problems import Position, Problem


@dataclass
class Entry:
    """One key of the ConfigMap: its parsed value and where its parts were written."""

    key: str
    value: Any
    where: SourceMap
    key_at: Position


@dataclass(frozen=True)
class Offset:
    """Where an embedded document starts in its file: ``block``, a ``|`` block whose every
    line is indented alike; else a value on the key's line."""

    line: int = 1
    col: int = 1
    block: bool = True

    def move(self, p: Position) -> Position:
        shift = self.col - 1 if self.block or p.line == 1 else 0
        return Position(p.file, p.line + self.line - 1, p.col + shift)


def embedded(
    key: str, text: str, file: str, offset: Offset, problems: list[Problem], key_at: Position
) -> Entry | None:
    for found in read_documents(text, file):
        if isinstance(found, Problem):
            problems.append(Problem(offset.move(found.position), f"{key}: {found.message}"))
            return None
        source = found.source
        moved = {k: offset.move(v) for k, v in source.positions.items()}
        return Entry(key, found.data, SourceMap(offset.move(source.origin), moved), key_at)
    return Entry(key, None, SourceMap(offset.move(Position(file))), key_at)


def block_start(lines: list[str], at: Position) -> Offset:
    """Where a key's string value begins: the next line, indented, for ``|`` and ``>``
    blocks; else just after the colon."""
    line = lines[at.line - 1] if at.line - 1 < len(lines) else ""
    after = line.split(":", 1)[1] if ":" in line else ""
    if after.strip()[:1] in ("|", ">"):
        for number in range(at.line, len(lines)):
            if lines[number].strip():
                return Offset(number + 1, len(lines[number]) - len(lines[number].lstrip()) + 1)
        return Offset(at.line + 1, 1)
    return Offset(at.line, len(line) - len(after.lstrip()) + 1, block=False)


def _text(path: Path, display: str, problems: list[Problem]) -> str | None:
    """A file's text; a file that is not UTF-8 (a binary given by mistake) is a problem."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        problems.append(Problem(Position(display), "not UTF-8 text: expected YAML"))
        return None


def data_entries(data: Mapping[str, str], display: str, problems: list[Problem]) -> list[Entry]:
    """A ConfigMap's keys, each its own text (a mounted ConfigMap's files, or its ``data``
    as the Kubernetes API gives it): positions are ``display/KEY:LINE:COL``."""
    out = []
    for key, text in sorted(data.items()):
        file = f"{display}/{key}"
        entry = embedded(key, text, file, Offset(), problems, Position(file))
        if entry is not None:
            out.append(entry)
    return out


def entries(path: Path, display: str, problems: list[Problem]) -> list[Entry]:
    if path.is_dir():  # a mounted ConfigMap: one file per key (skipping ``..data`` links)
        texts = {}
        for item in sorted(path.iterdir()):
            if item.name.startswith(".") or not item.is_file():
                continue
            text = _text(item, f"{display}/{item.name}", problems)
            if text is not None:
                texts[item.name] = text
        return data_entries(texts, display, problems)
    text = _text(path, display, problems)
    if text is None:
        return []
    documents = [d for d in read_documents(text, display)]
    for found in documents:
        if isinstance(found, Problem):
            problems.append(found)
            return []
    docs = [d for d in documents if isinstance(d, Document)]
    if not docs or not isinstance(docs[0].data, dict):
        problems.append(Problem(Position(display), "expected a ConfigMap or its data mapping"))
        return []
    data, source = docs[0].data, docs[0].source
    loc: tuple[str, ...] = ()
    if data.get("kind") == "ConfigMap" or "apiVersion" in data:
        if data.get("kind") != "ConfigMap":
            problems.append(
                Problem(source.at("kind"), f"expected kind: ConfigMap, not {data.get('kind')!r}")
            )
            return []
        data, loc = data.get("data") or {}, ("data",)
        if not isinstance(data, dict):
            problems.append(Problem(source.at("data"), "data: expected a mapping of keys"))
            return []
    lines = text.splitlines()
    out = []
    for key, value in data.items():
        at = source.at(*loc, key)
        if isinstance(value, str):
            entry = embedded(key, value, display, block_start(lines, at), problems, at)
        else:  # written as YAML directly, not as a string: accepted as it is
            entry = Entry(key, value, SourceMap(at, {
                k[len(loc) + 1:]: v for k, v in source.positions.items()
                if k[: len(loc) + 1] == (*loc, key)
            }), at)  # fmt: skip
        if entry is not None:
            out.append(entry)
    return out
