"""Read promoflow YAML documents with the position of every key.

libyaml (through PyYAML's C composer) parses quickly and gives each node its start mark; the
node tree is turned into plain data here, recording where every key and list item was
written so later errors point at the exact place. The guards (file size, alias expansion,
duplicate keys, nesting depth) refuse hostile or broken input before anything else looks at
it; the nesting depth is bounded before libyaml composes the tree, since its composer
recurses in C and a deep enough file would crash the process (see :mod:`orchestrator.nesting`).

(Comment-preserving edits of the GitOps files use ruamel.yaml instead; loading the
configuration only needs data and positions, and libyaml is an order of magnitude faster.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from orchestrator.loading.ours import worth_reading
from orchestrator.model.base import Loc, Position, SourceMap
from orchestrator.nesting import MAX_DEPTH, yaml_too_deep
from orchestrator.problems import Problem
from orchestrator.yamltabs import MESSAGE as TABS
from orchestrator.yamltabs import tab_problem

MAX_FILE_BYTES = 1024 * 1024
MAX_NODES = 100_000
"""Nodes a document may expand to once aliases are followed (stops "billion laughs")."""

_MERGE_TAG = "tag:yaml.org,2002:merge"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Document:
    """One YAML document: plain data and where each key was written."""

    data: Any
    source: SourceMap


class _Refused(Exception):
    """A document that must not be loaded; carries the problem to report."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def is_promoflow_yaml(text: str) -> bool:
    """Cheap pre-filter: GitOps repositories hold many YAML files that are not ours; a file
    whose promoflow document has a mistyped apiVersion is still read (and reported)."""
    return worth_reading(text)


def _pos(file: str, node: Node) -> Position:
    return Position(file, node.start_mark.line + 1, node.start_mark.column + 1)


def expanded_size(root: Node, limit: int = MAX_NODES) -> int:
    """Nodes the document has when aliases are expanded; raises ValueError past ``limit``.

    Shared (aliased) subtrees are measured once and multiplied, so the check is linear in
    the file's size even for exponential alias bombs; a recursive alias is refused outright.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Node) -> int:
        if isinstance(node, ScalarNode):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise ValueError("recursive YAML alias: a node contains itself")
        active.add(key)
        children: list[Node] = (
            [n for pair in node.value for n in pair]
            if isinstance(node, MappingNode)
            else list(node.value)
        )
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

    return size(root)


class _Builder:
    """Node tree -> plain data, recording positions and refusing duplicate keys."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.positions: dict[Loc, Position] = {}
        self.scalars = yaml.constructor.SafeConstructor()

    def build(self, node: Node, loc: Loc) -> Any:
        if isinstance(node, ScalarNode):
            return self.scalars.construct_object(node)
        if isinstance(node, SequenceNode):
            items = []
            for i, child in enumerate(node.value):
                self.positions[(*loc, i)] = _pos(self.file, child)
                items.append(self.build(child, (*loc, i)))
            return items
        if isinstance(node, MappingNode):
            return self._mapping(node, loc)
        raise _Refused(Problem(_pos(self.file, node), "unsupported YAML node"))

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        seen: dict[Any, Position] = {}
        merged: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.update(self._merge_source(value_node, loc))
                continue
            key = self.build(key_node, loc)
            if not isinstance(key, str | int | float | bool):
                raise _Refused(
                    Problem(_pos(self.file, key_node), "mapping keys must be plain scalars")
                )
            where = _pos(self.file, key_node)
            if key in seen:
                raise _Refused(
                    Problem(
                        where,
                        f"invalid YAML: duplicate key {key!r} (first at line "
                        f"{seen[key].line}); a key may appear once per mapping",
                    )
                )
            seen[key] = where
            here = (*loc, str(key))
            self.positions[here] = where
            out[key] = self.build(value_node, here)
        return {**merged, **out}

    def _merge_source(self, node: Node, loc: Loc) -> dict[Any, Any]:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        merged: dict[Any, Any] = {}
        for source in reversed(sources):
            value = self.build(source, loc)
            if not isinstance(value, dict):
                raise _Refused(Problem(_pos(self.file, source), "'<<' must merge a mapping"))
            merged.update(value)
        return merged


def read_documents(text: str, file: str) -> Iterator[Document | Problem]:
    """Parse every document of ``text``; yields documents, or problems where parsing failed."""
    if len(text.encode()) > MAX_FILE_BYTES:
        yield Problem(
            Position(file), f"file is larger than {MAX_FILE_BYTES // 1024} KiB; split it up"
        )
        return
    deep = yaml_too_deep(text, MAX_DEPTH)  # before composing: libyaml's composer recurses in C
    if deep is not None:
        yield Problem(Position(file, deep.line, deep.col), f"invalid YAML: {deep.message}")
        return
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            origin = _pos(file, node)
            if isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null":
                continue
            try:
                expanded_size(node)
                builder = _Builder(file)
                data = builder.build(node, ())
            except _Refused as refused:
                yield refused.problem
                continue
            except ValueError as exc:
                yield Problem(origin, str(exc))
                continue
            except RecursionError:
                yield Problem(origin, "document is nested too deeply")
                continue
            yield Document(data, SourceMap(origin, builder.positions))
    except yaml.MarkedYAMLError as exc:
        yield _syntax_problem(exc, file, text)
    except (yaml.YAMLError, RecursionError) as exc:
        yield Problem(Position(file), f"invalid YAML: {type(exc).__name__}")
    finally:
        loader.dispose()


def _syntax_problem(exc: yaml.MarkedYAMLError, file: str, text: str) -> Problem:
    tab = tab_problem(text, exc.problem_mark.line if exc.problem_mark else None, exc.problem)
    if tab is not None:
        return Problem(Position(file, tab.line, tab.column), TABS)
    mark = exc.problem_mark or exc.context_mark
    where = Position(file, mark.line + 1, mark.column + 1) if mark else Position(file)
    message = str(exc.problem or exc.context or "syntax error")
    if exc.context and exc.context_mark and exc.problem:
        message += f" ({exc.context}, line {exc.context_mark.line + 1})"
    return Problem(where, f"invalid YAML: {message}")
