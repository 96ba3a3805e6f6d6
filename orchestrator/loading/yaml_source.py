"""Read promoflow YAML documents with the position of every key.

ruamel.yaml's round-trip loader records line and column for each key and list item, which
lets every later error point at the exact place in the file. The guards here (size, alias
expansion, duplicate keys) refuse hostile or broken input before anything else looks at it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from orchestrator.model.base import Loc, Position, SourceMap
from orchestrator.problems import Problem

MAX_FILE_BYTES = 1024 * 1024
MAX_NODES = 100_000
"""Nodes a document may expand to once aliases are followed (stops "billion laughs")."""

_PROMOFLOW_DOC = re.compile(r"^\s*apiVersion:\s*[\"']?promoflow\.dev/", re.MULTILINE)


@dataclass
class Document:
    """One YAML document: plain data (dict subclasses) and where each key was written."""

    data: Any
    source: SourceMap


def is_promoflow_yaml(text: str) -> bool:
    """Cheap pre-filter: GitOps repositories hold many YAML files that are not ours."""
    return _PROMOFLOW_DOC.search(text) is not None


def _record(node: Any, loc: Loc, file: str, out: dict[Loc, Position]) -> None:
    if isinstance(node, CommentedMap):
        for key in node:
            line, col = node.lc.key(key)
            here = (*loc, str(key))
            out[here] = Position(file, line + 1, col + 1)
            _record(node[key], here, file, out)
    elif isinstance(node, CommentedSeq):
        for i, item in enumerate(node):
            line, col = node.lc.item(i)
            here = (*loc, i)
            out[here] = Position(file, line + 1, col + 1)
            _record(item, here, file, out)


def expanded_size(node: Any, limit: int = MAX_NODES) -> int:
    """Nodes the document has when aliases are expanded; raises ValueError past ``limit``.

    Shared (aliased) subtrees are measured once and multiplied, so the check is linear in
    the file's size even for exponential alias bombs; a recursive alias is refused outright.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(item: Any) -> int:
        if not isinstance(item, dict | list):
            return 1
        key = id(item)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise ValueError("recursive YAML alias: a node contains itself")
        active.add(key)
        children = item.values() if isinstance(item, dict) else item
        total = 1
        for child in children:
            total += size(child)
            if total > limit:
                raise ValueError(
                    f"document expands to more than {limit} nodes through aliases "
                    "(an alias bomb?); write the values out or split the document"
                )
        active.discard(key)
        sizes[key] = total
        return total

    return size(node)


def read_documents(text: str, file: str) -> Iterator[Document | Problem]:
    """Parse every document of ``text``; yields documents, or problems where parsing failed."""
    if len(text.encode()) > MAX_FILE_BYTES:
        yield Problem(
            Position(file), f"file is larger than {MAX_FILE_BYTES // 1024} KiB; split it up"
        )
        return
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        for data in yaml.load_all(text):
            if data is None:
                continue
            line, col = (data.lc.line, data.lc.col) if hasattr(data, "lc") else (0, 0)
            origin = Position(file, line + 1, col + 1)
            try:
                expanded_size(data)
            except RecursionError:
                yield Problem(origin, "document is nested too deeply")
                continue
            except ValueError as exc:
                yield Problem(origin, str(exc))
                continue
            positions: dict[Loc, Position] = {}
            _record(data, (), file, positions)
            yield Document(data, SourceMap(origin, positions))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Position(file, mark.line + 1, mark.column + 1) if mark else Position(file)
        message = str(exc.problem or exc.context or "syntax error")
        if exc.context and exc.context_mark and exc.problem:
            message += f" ({exc.context}, line {exc.context_mark.line + 1})"
        if "found duplicate key" in str(exc.problem):
            message = _duplicate_key_message(exc)
        yield Problem(where, f"invalid YAML: {message}")
    except (YAMLError, RecursionError) as exc:
        yield Problem(Position(file), f"invalid YAML: {type(exc).__name__}")


def _duplicate_key_message(exc: MarkedYAMLError) -> str:
    problem = str(exc.problem or "")
    match = re.search(r'found duplicate key "([^"]*)"', problem)
    key = match.group(1) if match else "?"
    first = exc.context_mark
    where = f" (first at line {first.line + 1})" if first else ""
    return f"duplicate key {key!r}{where}; a key may appear once per mapping"
