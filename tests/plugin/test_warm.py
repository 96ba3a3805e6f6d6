"""What the plugin's server imports for its steps once its first step is forked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.plugin.warm import lazy_imports


def _fresh(code: str) -> dict[str, object]:
    """``code`` in a new interpreter (nothing imported yet); it prints one JSON value."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    value: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return value


def test_only_the_imports_inside_functions_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "stepmod.py").write_text(
        "import json\n"
        "from pathlib import Path\n"
        "def run():\n"
        "    import decimal\n"
        "    from email import message\n"
        "    from . import sibling\n"  # relative: the package's own, already there
        "    def inner():\n"
        "        import fractions\n"
        "async def later():\n"
        "    import zipfile\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = lazy_imports(["stepmod", "no_such_module_anywhere"])
    assert found == ["decimal", "email", "email.message", "fractions", "zipfile"]


def test_warming_imports_modules_and_passes_over_names_and_failures(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("raise RuntimeError('cannot import me')\n")
    result = _fresh(
        f"import sys, json; sys.path.insert(0, {str(tmp_path)!r})\n"
        "from orchestrator.plugin.warm import warm\n"
        "n = warm(['decimal', 'email.message', 'json.dumps', 'no_such_module', 'broken',\n"
        "          'decimal.Decimal'])\n"
        "print(json.dumps({'n': n, 'decimal': 'decimal' in sys.modules,\n"
        "                  'message': 'email.message' in sys.modules}))"
    )
    assert result == {"n": 2, "decimal": True, "message": True}


def test_the_steps_programs_start_warm_once_warmed() -> None:
    """What a pod's promote and wait-argocd import when they run, the server has."""
    heavy = ["pygit2", "orchestrator.steps.promote", "orchestrator.steps.edits",
             "orchestrator.gates.wait", "orchestrator.adapters.git"]  # fmt: skip
    result = _fresh(
        "import sys, json\n"
        "from orchestrator.steps import registry\n"
        "from orchestrator.plugin import warm\n"
        "programs = sorted({s.run.__module__ for s in registry.steps() if s.run})\n"
        f"before = [m for m in {heavy!r} if m in sys.modules]\n"
        "warm.warm(warm.lazy_imports(programs))\n"
        f"after = [m for m in {heavy!r} if m in sys.modules]\n"
        "print(json.dumps({'before': before, 'after': after}))"
    )
    assert result == {"before": [], "after": heavy}
