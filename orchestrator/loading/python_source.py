"""Load resources defined in Python modules (see :mod:`orchestrator.dsl`).

A module is configuration written as code: it is imported in isolation, and every resource
object it leaves at module level (directly or inside a list/tuple) is collected in
definition order. An exception while importing becomes a problem at the line that raised,
so a mistake in Python reads like a mistake in YAML.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from orchestrator.model import Resource
from orchestrator.model.base import Model, Position, SourceMap
from orchestrator.model.errors import problems_from
from orchestrator.problems import Problem

_USES_DSL = re.compile(r"^\s*(from|import)\s+orchestrator\b", re.MULTILINE)


def is_promoflow_python(text: str) -> bool:
    """Only modules that import promoflow are configuration; other scripts are left alone."""
    return _USES_DSL.search(text) is not None


def _assignment_lines(text: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    for node in ast.parse(text).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                lines.setdefault(target.id, node.lineno)
    return lines


def _collect(module: Any, path: Path, display: str, text: str) -> list[Resource]:
    lines = _assignment_lines(text)
    found: dict[int, Resource] = {}
    for name, value in vars(module).items():
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if isinstance(item, Resource) and id(item) not in found:
                origin = item.source.origin
                if origin.file == "<unknown>":
                    item.with_source(SourceMap(Position(display, lines.get(name, 1), 1)))
                elif origin.file == str(path):
                    item.with_source(SourceMap(Position(display, origin.line, origin.col)))
                found[id(item)] = item
    return list(found.values())


def _failure(exc: BaseException, path: Path, display: str) -> list[Problem]:
    line = 1
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve() and frame.lineno:
            line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.lineno:
        return [Problem(Position(display, exc.lineno, exc.offset or 1), f"{exc.msg}")]
    where = Position(display, line, 1)
    if isinstance(exc, ValidationError):
        return problems_from(exc, _model_for(exc), SourceMap(where))
    message = " ".join(str(exc).split())  # one line per problem, whatever the exception says
    return [Problem(where, f"{type(exc).__name__}: {message}" if message else type(exc).__name__)]


def _model_for(exc: ValidationError) -> type[BaseModel]:
    """The model that failed (a resource, or a part such as a step policy), by its title."""
    pending: list[type[BaseModel]] = [Model]
    while pending:
        cls = pending.pop()
        if cls.__name__ == exc.title:
            return cls
        pending.extend(cls.__subclasses__())
    return BaseModel


def load_python(path: Path, display: str, text: str) -> tuple[list[Resource], list[Problem]]:
    """Import ``path`` as a fresh module and return its resources (or why it failed)."""
    path = path.resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
    name = f"promoflow_config_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return [], [Problem(Position(display), "cannot import this Python file")]
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # no __pycache__ left in the team's checkout of its configuration
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # sys.exit() in a config module is a problem too
        return [], _failure(exc, path, display)
    finally:
        sys.dont_write_bytecode = writes
        sys.modules.pop(name, None)
    return _collect(module, path, display, text), []
