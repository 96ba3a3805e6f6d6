"""What to write instead, for the errors people make writing trigger conditions.

Most come from other template or expression languages: ``=`` or ``===`` for ``==``,
``=~`` for ``matches``, ``&``/``|`` for ``&&``/``||``, ``{{ }}`` around the expression, or a
field that is missing on some applications.
"""

from __future__ import annotations

import re

_HINTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'unexpected token Operator\("="\)'), "compare with == (= is not an operator)"),
    (re.compile(r'unexpected token Operator\("=="\).*|Operator\("==="\)'), "compare with =="),
    (re.compile(r"unrecognized character: U\+007E"), "match a pattern with: x matches 'regexp'"),
    (re.compile(r'unexpected token Operator\("&"\)'), "write && (or and) for a logical and"),
    (re.compile(r'unexpected token Bracket\("\{"\)'),
     "write the condition without {{ }}: app.status.sync.status == 'Synced'"),
    (re.compile(r"literal not terminated"), "close the string with the quote that opened it"),
    (re.compile(r"invalid char escape"),
     "escape a backslash as \\\\, or use a `raw string` for regular expressions"),
    (re.compile(r"cannot fetch \S+ from <nil>"),
     "a field on the way is missing: read it with ?. (app.status.operationState?.phase) "
     "or give a default with ?? (app.status.operationState?.phase ?? '')"),
    (re.compile(r"interface conversion: interface \{\} is nil, not bool"),
     "a field used with and/or/!/?: is missing: compare it (x == true) or default it (x ?? false)"),
    (re.compile(r"interface conversion: interface \{\} is \S+, not bool"),
     "and, or, ! and ?: need a bool: compare the value (x == 'yes', x > 0)"),
    (re.compile(r"invalid operation: cannot call nil"),
     "this function is not provided: Argo CD gives time.Now, time.Parse, strings.ToUpper, "
     "strings.ToLower, strings.ReplaceAll and repo.* beside expr's builtins"),
    (re.compile(r"mismatched types"), "convert one side with int(), float() or string()"),
]  # fmt: skip


def hint_for(message: str, source: str) -> str:
    """The hint for an error of ``source`` (the text decides where the message cannot)."""
    if "=~" in source or "!~" in source:
        return "match a pattern with: x matches 'regexp' (or: not (x matches 'regexp'))"
    if "===" in source or "!==" in source:
        return "compare with == and !="
    if "{{" in source:
        return "write the condition without {{ }}: app.status.sync.status == 'Synced'"
    for pattern, hint in _HINTS:
        if pattern.search(message):
            return hint
    return ""
