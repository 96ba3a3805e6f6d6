"""Go's ``fmt`` as templates use it: ``{{.x}}`` prints with ``%v``, ``printf`` takes verbs.

The verbs are :mod:`orchestrator.golang.fmt`'s and :mod:`orchestrator.golang.printf`'s; what
is the templates' own is how a value's Go type is named (``values.go_type``).
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang import printf
from orchestrator.golang.fmt import Printer, Spec
from reporters.gotemplate.values import go_type

__all__ = ["PRINTER", "Spec", "format_value", "sprint", "sprintf", "sprintln"]

PRINTER = Printer(go_type)
format_value = PRINTER.format_value
sprint = PRINTER.sprint
sprintln = PRINTER.sprintln


def sprintf(fmt: str, *args: Any) -> str:
    """fmt.Sprintf with Go's verbs, flags, ``*`` widths and error forms."""
    return printf.sprintf(PRINTER, fmt, *args)
