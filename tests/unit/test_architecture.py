"""What ``docs/architecture.md`` says about the code holds: every path it names exists,
and the tests keep their own rule that no test module imports another (shared helpers
live in ``tests/support``)."""

from __future__ import annotations

import ast
import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGES = ("", "orchestrator/", "reporters/")
"""Where a path on the page may be rooted: the repository, or one of the two packages
(the page writes ``model/merge.py`` for ``orchestrator/model/merge.py``)."""


def named_paths(text: str) -> list[str]:
    """The file and directory paths the page names in backticks (``a/b.py``, ``a/b/``)."""
    found = []
    for token in re.findall(r"`([^`\s]+)`", text):
        token = token.split("::")[0]
        if re.search(r"[A-Z]{3,}", token):  # a placeholder: `steps/NAME.py`
            continue
        if "/" in token and re.fullmatch(r"[\w.\-/]+(\.(py|md|yaml|json|toml)|/)", token):
            found.append(token)
    return found


def test_every_path_the_architecture_page_names_exists() -> None:
    paths = named_paths(PAGE.read_text())
    assert len(paths) > 20  # the page names the modules it describes
    missing = [p for p in paths if not any((ROOT / base / p).exists() for base in PACKAGES)]
    assert missing == []


def test_the_path_reader_finds_what_the_page_writes() -> None:
    text = "see `model/merge.py`, `orchestrator/compiler/tasks/` and `--sink`, not `a b/c.py`"
    assert named_paths(text) == ["model/merge.py", "orchestrator/compiler/tasks/"]


def test_no_test_module_imports_another() -> None:
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_"):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


TALK_OUT = {"orchestrator.adapters", "reporters.sinks", "reporters.enrich"}
"""The packages that may import an HTTP or Kubernetes client: one seam per outside system."""


def _packages() -> set[str]:
    found = {"workflow_templates"}
    for root in ("orchestrator", "reporters"):
        for path in (ROOT / root).iterdir():
            if path.name.startswith("_"):
                continue
            if (path / "__init__.py").exists() or path.suffix == ".py":
                found.add(f"{root}.{path.stem}")
    return found


def test_the_external_contract_covers_every_package_but_the_seams() -> None:
    """A new package or module is under the contract from the start: only the adapters,
    the sinks and the enrichers may import httpx, requests, kubernetes or jira."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    listed = set(config["importlinter:contract:external"]["source_modules"].split())
    assert listed == _packages() - TALK_OUT


MAX_MODULE_LINES = 400


def test_no_product_module_is_over_400_lines() -> None:
    """A module is one concept: past 400 lines it has always held two (the engine's runner
    held scheduling, attempts and outputs; promote held its edits and its pushes)."""
    long = {
        str(path.relative_to(ROOT)): count
        for package in ("orchestrator", "reporters")
        for path in (ROOT / package).rglob("*.py")
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
