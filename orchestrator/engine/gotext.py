"""Values printed the way Go's ``fmt`` prints them with ``%v``.

Argo's messages embed values with ``%v`` (``Expected boolean evaluation for 'x'. Got 1e+06``)
and expr-lang's ``string()`` uses the same rules, so the local engine writes them the same
way: ``true``/``false``, ``<nil>``, lists as ``[a b]``, and float64 as Go's shortest
``%g`` form (plain digits while the decimal exponent is in ``[-4, 6)``, ``d.ddde±XX``
otherwise, ``-0``, ``+Inf``, ``NaN``); maps as ``map[k:v]`` with sorted keys. The rules are
:mod:`orchestrator.golang.fmt`'s.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.fmt import Printer, Spec

__all__ = ["go_value_text"]


def go_value_text(value: Any) -> str:
    """``fmt.Sprintf("%v", value)`` for the values the expression languages produce."""
    return _PRINTER.format_value(value, Spec())


_PRINTER = Printer()
