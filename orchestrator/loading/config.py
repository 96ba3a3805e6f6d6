"""Find and load every promoflow resource under a configuration directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from orchestrator.loading.documents import Broken, resource_from
from orchestrator.loading.files import NotRegular, Unlisted, candidates, read_regular
from orchestrator.loading.ours import claims
from orchestrator.loading.python_source import is_promoflow_python, load_python
from orchestrator.loading.salvage import intended
from orchestrator.loading.text import decode
from orchestrator.loading.yaml_source import Document, is_promoflow_yaml, read_documents
from orchestrator.model import (
    Environment,
    Product,
    PromotionFlow,
    PromotionPolicy,
    PromotionTemplate,
    PromotionWindow,
    Resource,
)
from orchestrator.model.base import Position
from orchestrator.problems import Problem

R = TypeVar("R", bound=Resource)


@dataclass
class Config:
    """All resources found, in load order (duplicates kept: validation reports them)."""

    resources: list[Resource] = field(default_factory=list)
    broken: set[tuple[str, str]] = field(default_factory=set)
    """(kind, name) of documents that failed to load: references to them are not "unknown"."""
    failed: dict[tuple[str, str], Position] = field(default_factory=dict)
    """(kind, name) a file that failed to load appears to define (read from its text, see
    :mod:`orchestrator.loading.salvage`), and where its failure is reported: a reference to
    such a name is still unknown, but is reported as a consequence of that failure."""

    def is_broken(self, kind: type[Resource], name: str) -> bool:
        return (kind.KIND, name) in self.broken

    _seen: dict[tuple[type[Resource], bool], tuple[int, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """``of`` and ``by_name`` per kind, kept while ``resources`` keeps its length:
    validation asks them thousands of times of a configuration of 200 products. Not an
    init field, so ``dataclasses.replace`` starts a copy without it."""

    def of(self, kind: type[R]) -> list[R]:
        kept = self._seen.get((kind, False))
        if kept is not None and kept[0] == len(self.resources):
            return list(kept[1])
        found = [r for r in self.resources if isinstance(r, kind)]
        self._seen[(kind, False)] = (len(self.resources), found)
        return list(found)

    def by_name(self, kind: type[R]) -> dict[str, R]:
        """First definition of each name wins; later ones are reported as duplicates."""
        kept = self._seen.get((kind, True))
        if kept is not None and kept[0] == len(self.resources):
            return dict(kept[1])
        out: dict[str, R] = {}
        for r in self.of(kind):
            out.setdefault(r.name, r)
        self._seen[(kind, True)] = (len(self.resources), out)
        return dict(out)

    @property
    def environments(self) -> dict[str, Environment]:
        return self.by_name(Environment)

    @property
    def products(self) -> dict[str, Product]:
        return self.by_name(Product)

    @property
    def templates(self) -> dict[str, PromotionTemplate]:
        return self.by_name(PromotionTemplate)

    @property
    def flows(self) -> dict[str, PromotionFlow]:
        return self.by_name(PromotionFlow)

    @property
    def policies(self) -> list[PromotionPolicy]:
        return self.of(PromotionPolicy)

    @property
    def windows(self) -> list[PromotionWindow]:
        return self.of(PromotionWindow)


def _display(path: Path) -> str:
    """Paths relative to the working directory when possible: what editors can open."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _paths(root: Path) -> tuple[Iterator[Path | Unlisted], Path | None]:
    """What to read under ``root``, and the directory symbolic links must stay inside
    (``None`` for one file named by the user: see :mod:`orchestrator.loading.files`)."""
    if root.is_dir():
        return candidates(root), Path(os.path.realpath(root))
    return iter([root]), None


PYTHON_OFF = (
    "Python configuration is turned off (PROMOFLOW_CONFIG_PYTHON=false; the chart's "
    "config.python): a Python file runs as code in the process that loads it; write it as "
    "YAML, or turn Python configuration on if whoever can change this file may run code there"
)


def load_config(
    root: Path, python_allowed: bool = True, shown_as: str | None = None
) -> tuple[Config, list[Problem]]:
    """Load every resource under ``root`` (a directory or one file); never raises for input.

    ``python_allowed=False``: a promoflow Python file (one that imports ``orchestrator``)
    is reported, never imported. Other Python files are no configuration and stay ignored.
    ``shown_as``: what problems call the directory ``root`` (a configuration read out of a
    Git commit or a ConfigMap into a scratch directory is shown by where it came from, so
    ``FILE:LINE`` names a file its authors can open)."""
    config, problems = Config(), []
    if shown_as is None and root.is_dir():
        from orchestrator.loading.packed import flattened, is_packed, load_packed

        if is_packed(root):
            return load_packed(root, python_allowed)
        if (lost := flattened(root, _display(root))) is not None:
            problems.append(lost)
    paths, inside = _paths(root)

    def display_of(path: Path) -> str:
        if shown_as is None:
            return _display(path)
        relative = path.relative_to(root).as_posix()
        return relative if not shown_as else f"{shown_as.rstrip('/')}/{relative}"

    for path in paths:
        if isinstance(path, Unlisted):
            problems.append(Problem(Position(display_of(path.path)), path.reason))
            continue
        display = display_of(path)
        python = path.suffix == ".py"
        try:
            decoded = decode(read_regular(path, inside), python=python)
        except NotRegular as exc:
            problems.append(Problem(Position(display), f"not read: {exc.strerror}"))
            continue
        except OSError as exc:
            problems.append(Problem(Position(display), f"cannot read file: {exc.strerror or exc}"))
            continue
        if not (is_promoflow_python if python else is_promoflow_yaml)(decoded.text):
            continue  # another tool's file, whatever its encoding
        if decoded.error is not None:
            found = [Problem(Position(display, decoded.line, decoded.col), decoded.error)]
        elif python and not python_allowed:
            found = [Problem(Position(display), PYTHON_OFF)]
        elif python:
            resources, found = load_python(path, display, decoded.text)
            config.resources.extend(resources)
        else:
            found = _load_yaml(decoded.text, display, config)
        problems.extend(found)
        _remember_failed(config, decoded.text, python, found)
    return config, problems


def _load_yaml(text: str, display: str, config: Config) -> list[Problem]:
    """Add the file's resources to ``config``; return its problems."""
    problems: list[Problem] = []
    items = list(read_documents(text, display))
    file_is_ours = any(
        isinstance(item, Document) and isinstance(item.data, dict) and claims(item.data)
        for item in items
    )
    for item in items:
        if isinstance(item, Problem):
            problems.append(item)
            continue
        result = resource_from(item.data, item.source, file_is_ours)
        if isinstance(result, Broken) and result.name:
            config.broken.add((result.kind, result.name))
        if isinstance(result, list):
            problems.extend(result)
        elif result is not None:
            config.resources.append(result)
    return problems


def _remember_failed(config: Config, text: str, python: bool, problems: list[Problem]) -> None:
    """What the failed parts of a file meant to define, each with the problem that
    explains it: the first one reported within its lines, else the file's first."""
    if not problems:
        return
    ordered = sorted(problems, key=lambda p: (p.position.line, p.position.col))
    for meant in intended(text, python=python):
        inside = [p for p in ordered if meant.first_line <= p.position.line <= meant.last_line]
        cause = (inside or ordered)[0].position
        config.failed.setdefault((meant.kind, meant.name), cause)
