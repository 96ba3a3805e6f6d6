"""Argo's ``when`` patterns (``=~``, ``!~``) and expr-lang's ``matches`` in the local engine:
Go's RE2 in the part of its syntax where Go and Python agree, as
:mod:`orchestrator.golang.regexp` translates it, refused as an engine error otherwise.

The engine compiles a pattern once and searches many texts, so case folding (``(?i)``),
which agrees with RE2 only on ASCII text, is refused here rather than checked per text.
"""

from __future__ import annotations

import re

from orchestrator.engine.errors import EngineError
from orchestrator.golang import regexp

__all__ = ["PatternError", "compile_re2"]


class PatternError(EngineError):
    """A pattern outside the supported RE2 syntax (or invalid in RE2 itself)."""


def compile_re2(source: str) -> re.Pattern[str]:
    """``regexp.Compile`` for the supported syntax; :class:`PatternError` otherwise. Use
    ``search`` with the result (Go's ``Match``/``MatchString`` find a match anywhere)."""
    try:
        compiled, folds = regexp.compile_re2(source)
    except (regexp.PatternError, regexp.PatternUnsupported) as exc:
        raise PatternError(str(exc)) from None
    if folds:
        raise PatternError(
            f"regular expression {source!r}: case folding (?i) is not evaluated here"
        )
    return compiled
