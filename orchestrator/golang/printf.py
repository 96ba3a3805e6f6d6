"""fmt.Sprintf, as templates call it through ``printf``: verbs, flags, widths, indexes.

The format string is read as fmt's doPrintf reads it (``%[2]d``, ``%*d``, ``%-08.3f``),
with its error forms (``%!d(MISSING)``, ``%!(EXTRA string=x)``, ``%!v(BADINDEX)``,
``%!(NOVERB)``); each operand is then formatted by a :class:`~orchestrator.golang.fmt.Printer`.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.fmt import Printer, Spec

TOO_LARGE = 1_000_000
"""fmt refuses widths and precisions beyond a million (its tooLarge)."""


def _parse_num(fmt: str, i: int) -> tuple[int | None, int]:
    start = i
    while i < len(fmt) and fmt[i].isdigit() and fmt[i] in "0123456789":
        i += 1
    if i == start:
        return None, i
    value = int(fmt[start:i])
    return (None if value > TOO_LARGE else value), i


def _star(args: tuple[Any, ...], argnum: int) -> int | None:
    """The int operand a ``*`` width or precision takes; None where fmt says BADWIDTH or
    BADPREC (no operand, not an int, or beyond a million)."""
    if argnum >= len(args) or not isinstance(args[argnum], int) or isinstance(args[argnum], bool):
        return None
    value = int(args[argnum])
    return None if abs(value) > TOO_LARGE else value


def sprintf(printer: Printer, fmt: str, *args: Any) -> str:
    """fmt.Sprintf with Go's verbs, flags, ``*`` widths and error forms."""
    out: list[str] = []
    argnum = 0
    i = 0
    n = len(fmt)
    reordered = False
    while i < n:
        j = fmt.find("%", i)
        if j < 0:
            out.append(fmt[i:])
            break
        out.append(fmt[i:j])
        i = j + 1
        spec = Spec()
        while i < n and fmt[i] in "+-# 0":
            c = fmt[i]
            if c == "+":
                spec.plus = True
            elif c == "-":
                spec.minus = True
                spec.zero = False
            elif c == "#":
                spec.sharp = True
            elif c == " ":
                spec.space = True
            elif c == "0":
                spec.zero = not spec.minus
            i += 1
        bad_index = False
        if i < n and fmt[i] == "[":
            end = fmt.find("]", i)
            idx = fmt[i + 1 : end] if end > 0 else ""
            reordered = True
            if end < 0 or not idx.isdigit() or not 1 <= int(idx) <= len(args):
                bad_index = True
                i = end + 1 if end > 0 else i + 1
            else:
                argnum = int(idx) - 1
                i = end + 1
        if i < n and fmt[i] == "*":
            i += 1
            w = _star(args, argnum)
            if w is None:
                out.append("%!(BADWIDTH)")
            else:
                if w < 0:
                    spec.minus, spec.zero, w = True, False, -w
                spec.width = w
            argnum += 1
        else:
            spec.width, i = _parse_num(fmt, i)
        if i < n and fmt[i] == ".":
            i += 1
            if i < n and fmt[i] == "*":
                i += 1
                p = _star(args, argnum)
                if p is None:
                    out.append("%!(BADPREC)")
                spec.prec = p if p is not None and p >= 0 else None
                argnum += 1
            else:
                prec, i = _parse_num(fmt, i)
                spec.prec = prec if prec is not None else 0
        if i >= n:
            out.append("%!(NOVERB)")
            break
        verb = fmt[i]
        i += 1
        spec.verb = verb
        if verb == "%":
            out.append("%")
            continue
        if bad_index:
            out.append(f"%!{verb}(BADINDEX)")
            continue
        if argnum >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        arg = args[argnum]
        argnum += 1
        if verb == "w":
            spec.verb = "v"
            out.append(printer.format_value(arg, spec))
            continue
        out.append(printer.format_value(arg, spec))
    if not reordered and argnum < len(args):
        extra = ", ".join(
            "<nil>" if a is None else f"{printer.type_of(a)}={printer.format_value(a, Spec())}"
            for a in args[argnum:]
        )
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)
