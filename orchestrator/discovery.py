"""How every extension kind finds its members: each is a module of one package, imported.

Steps (``orchestrator/steps/specs``), the kinds of environment task
(``orchestrator/compiler/tasks``) and webhook providers (``orchestrator/webhooks/providers``)
register themselves when imported, so adding one is adding a module, with no list to keep
in step. The package's directories are listed rather than walked with ``pkgutil``:
importing ``pkgutil`` alone costs most of a millisecond of every step pod's start-up, and
this module imports only the standard library for the same reason.
"""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType


def modules(package: str) -> list[ModuleType]:
    """Every module of ``package`` whose name does not start with ``_``, imported, in the
    order of their names."""
    found = {
        entry.removesuffix(".py")
        for directory in import_module(package).__path__
        for entry in os.listdir(directory)
        if entry.endswith(".py") and not entry.startswith("_")
    }
    return [import_module(f"{package}.{name}") for name in sorted(found)]
