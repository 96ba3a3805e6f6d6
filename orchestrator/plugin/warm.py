"""The modules steps import when they run, imported once by the plugin's server.

A step's program imports what it needs inside its ``run`` (pygit2, the file editors, the
Argo CD client): a pod then loads only what its own step uses, and starts sooner. The
plugin forks every step from one server process, and a forked child starts with whatever
the server has imported. So once its first step is forked (which imports for itself,
meanwhile, on another CPU), the server imports what every step's program imports, and
each later step starts warm: 0.2-0.3 s less per step, the interpreter's imports of a pod.
The warm-up holds the server's event loop once, about 0.6 s on 2 CPUs: calls that arrive
meanwhile (the first steps of parallel nodes) are started after it, then warm.

Which modules: the imports inside the functions of each step's module, read from its
source, so a step added or changed is warmed without a list to keep.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
from collections.abc import Iterable

log = logging.getLogger("promoflow.plugin")


def lazy_imports(modules: Iterable[str]) -> list[str]:
    """The modules imported inside functions of ``modules`` (absolute imports, in order)."""
    found: dict[str, None] = {}
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), spec.origin)
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found.update((alias.name, None) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found[node.module] = None
                    # ``from package import module``: the module is what gets used
                    found.update((f"{node.module}.{alias.name}", None) for alias in node.names)
    return list(found)


def warm(names: Iterable[str]) -> int:
    """Import each of ``names`` that is a module; returns how many were imported. A name
    that is a function or class (``from m import f``) is skipped, and a module that fails
    to import is left to the step that needs it, which then says why."""
    count = 0
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                continue
            importlib.import_module(name)
        except (ImportError, ValueError):
            continue  # not a module (an attribute), or its parent is not a package
        except Exception as exc:  # the step that imports it will report it
            log.warning("warming %s failed: %s", name, type(exc).__name__)
            continue
        count += 1
    return count
