"""Glob patterns for promoted files: ``*`` and ``?`` stay inside one directory, ``**`` may
cross directories. (fnmatch lets ``*`` match ``/``, which would widen a rule silently.)"""

from __future__ import annotations

import re
from functools import cache


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out += f"[{'^' + body[1:] if body.startswith('!') else body}]"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(out + r"\Z")


def match(pattern: str, path: str) -> bool:
    return _compile(pattern).match(path) is not None
