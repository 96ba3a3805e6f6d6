"""Go's ``fmt`` verbs: ``%v`` and friends for the values the Go mirrors hold.

Python's formatting differs from Go's in what matters to a message or a notification
(``1e+06`` for a float64 million, ``map[a:1 b:2]`` for a map, ``%!d(string=x)`` for a wrong
verb), so the verbs, flags and each kind's default form are written out here, after
``fmt/print.go`` and ``fmt/format.go``. What a value's Go type is (``%T``, the ``int`` in
``%!s(int=1)``) depends on the language that made it, so a :class:`Printer` is built with
the language's own ``type_of``; the expr, template and local engine vectors prove it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.golang.floats import bin_float, format_float, hex_float, sharp_float
from orchestrator.golang.strconv import quote, quote_char


@dataclass
class Spec:
    """One verb with its flags, width and precision."""

    verb: str = "v"
    plus: bool = False
    minus: bool = False
    sharp: bool = False
    space: bool = False
    zero: bool = False
    width: int | None = None
    prec: int | None = None


# -- padding --------------------------------------------------------------------------------


def _pad(text: str, spec: Spec, *, zero_ok: bool = True) -> str:
    if spec.width is None or len(text) >= spec.width:
        return text
    fill = spec.width - len(text)
    if spec.minus:
        return text + " " * fill
    if spec.zero and zero_ok:
        return "0" * fill + text
    return " " * fill + text


def _sign_pad(num: str, spec: Spec) -> str:
    """Pad a signed number: zeros go after the sign."""
    if spec.zero and not spec.minus and spec.width is not None and spec.width > len(num):
        if num[:1] in "+- ":
            return num[0] + "0" * (spec.width - len(num)) + num[1:]
        return "0" * (spec.width - len(num)) + num
    return _pad(num, spec, zero_ok=False)


# -- verbs per kind ---------------------------------------------------------------------------


def _sort_key(key: Any) -> tuple[int, Any]:
    """internal/fmtsort's order for the keys of one map (all of one kind in practice)."""
    if isinstance(key, bool):
        return (0, key)
    if isinstance(key, int | float):
        return (1, key)
    return (2, str(key))


_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "<nil>"), (bool, "bool"), (int, "int"), (float, "float64"), (str, "string"),
    ((list, tuple), "[]interface {}"), (dict, "map[string]interface {}"),
)  # fmt: skip


def json_type_of(value: Any) -> str:
    """The Go type of decoded JSON data, as ``%T`` names it (``encoding/json`` into ``any``)."""
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "interface {}")


@dataclass(frozen=True)
class Printer:
    """fmt's printer for one language's values: ``type_of`` names a value's Go type and
    ``is_func`` tells a Go function value (printed as its address, ``0x0`` here)."""

    type_of: Callable[[Any], str] = json_type_of
    is_func: Callable[[Any], bool] = callable

    def _bad(self, spec: Spec, value: Any) -> str:
        """fmt's badVerb: the value printed with %v under the same flags."""
        if value is None:
            return f"%!{spec.verb}(<nil>)"
        inner = Spec(
            "v", spec.plus, spec.minus, spec.sharp, spec.space, spec.zero, spec.width, spec.prec
        )
        return f"%!{spec.verb}({self.type_of(value)}={self._print(value, inner, 0, bad=True)})"

    def _fmt_int(self, n: int, spec: Spec, value: Any) -> str:
        verb = spec.verb
        if verb == "c":
            return _pad(chr(n) if 0 <= n <= 0x10FFFF else "\ufffd", spec)
        if verb == "q":
            return _pad(quote_char(n, ascii_only=spec.plus), spec)
        if verb == "U":
            text = f"U+{n:04X}" if n >= 0 else f"U+{n & 0xFFFFFFFFFFFFFFFF:04X}"
            if spec.sharp and 0 <= n <= 0x10FFFF and chr(n).isprintable():
                text += f" '{chr(n)}'"
            return _pad(text, spec)
        bases = {"d": 10, "v": 10, "b": 2, "o": 8, "O": 8, "x": 16, "X": 16}
        if verb not in bases:
            return self._bad(spec, value)
        base = bases[verb]
        digits = format(abs(n), {10: "d", 2: "b", 8: "o", 16: "x"}[base])
        if verb == "X":
            digits = digits.upper()
        if spec.prec is not None:
            if spec.prec == 0 and n == 0:
                digits = ""
            digits = digits.rjust(spec.prec, "0")
        prefix = ""
        if spec.sharp:
            prefix = {2: "0b", 8: "0", 16: "0x"}.get(base, "")
            if verb == "X":
                prefix = "0X"
            if base == 8 and digits.startswith("0"):
                prefix = ""
        if verb == "O":
            prefix = "0o"
        sign = "-" if n < 0 else ("+" if spec.plus else (" " if spec.space else ""))
        if spec.zero and spec.prec is None and not spec.minus and spec.width is not None:
            width = spec.width - len(sign)
            return sign + prefix + digits.rjust(width - len(prefix), "0")
        return _pad(sign + prefix + digits, spec, zero_ok=False)

    def _fmt_float(self, f: float, spec: Spec) -> str:
        verb = spec.verb
        if verb == "v":
            fmt, prec = "g", -1
        elif verb in "gGxXb":
            fmt, prec = verb, -1
        elif verb in "eEfF":
            fmt, prec = ("f" if verb == "F" else verb), 6
        else:
            return self._bad(spec, f)
        if spec.prec is not None:
            prec = spec.prec
        if math.isnan(f) or math.isinf(f):
            text = "NaN" if math.isnan(f) else ("+Inf" if f > 0 else "-Inf")
        elif fmt in "xX":
            text = hex_float(f, prec, fmt == "X")
        elif fmt == "b":
            text = bin_float(f)
        else:
            text = format_float(f, fmt, prec)
        num = text if text[:1] in "+-" else "+" + text
        if spec.space and num[0] == "+" and not spec.plus:
            num = " " + num[1:]
        if num[1:2] in ("I", "N"):
            if num[1] == "N" and not spec.space and not spec.plus:
                num = num[1:]  # NaN has no sign unless asked for; +Inf keeps its plus
            return _pad(num, spec, zero_ok=False)
        if spec.sharp and verb != "b":
            num = sharp_float(num, "v" if verb == "v" else fmt, prec)
        if spec.plus or num[0] != "+":
            if spec.zero and not spec.minus and spec.width is not None and spec.width > len(num):
                return num[0] + "0" * (spec.width - len(num)) + num[1:]
            return _pad(num, spec, zero_ok=False)
        return _sign_pad(num[1:], spec)

    def _fmt_str(self, s: str, spec: Spec, value: Any) -> str:
        verb = spec.verb
        if spec.prec is not None and verb in "vsq":
            s = s[: spec.prec]
        if verb in "vs":
            return _pad(s, spec)
        if verb == "q":
            if spec.sharp and "`" not in s and all(c.isprintable() or c == "\t" for c in s):
                return _pad("`" + s + "`", spec)
            return _pad(quote(s, ascii_only=spec.plus), spec)
        if verb in "xX":
            data = s.encode()
            if spec.prec is not None:
                data = data[: spec.prec]
            sep = " " if spec.space else ""
            parts = []
            for b in data:
                h = f"{b:02x}" if verb == "x" else f"{b:02X}"
                if spec.sharp:
                    h = ("0x" if verb == "x" else "0X") + h
                parts.append(h)
            if spec.sharp and not spec.space and parts:
                parts = [parts[0]] + [p[2:] for p in parts[1:]]
            return _pad(sep.join(parts), spec)
        return self._bad(spec, value)

    @staticmethod
    def _method_string(value: Any) -> str | None:
        """The String() of a value that has one (time.Time, time.Duration, *semver.Version)."""
        method = getattr(value, "go_string", None)
        if callable(method):
            result = method()
            return result if isinstance(result, str) else None
        return None

    def _go_syntax(self, value: Any, depth: int) -> str:
        """%#v: Go syntax for the values templates hold."""
        if value is None:
            return "interface {}(nil)" if depth else "<nil>"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(int(value))
        if isinstance(value, float):
            text = format_float(value, "g")
            return text
        if isinstance(value, str):
            return quote(value)
        if isinstance(value, dict):
            items = sorted(value.items(), key=lambda kv: _sort_key(kv[0]))
            body = ", ".join(
                f"{self._go_syntax(k, depth + 1)}:{self._go_syntax(v, depth + 1)}" for k, v in items
            )
            return self.type_of(value) + "{" + body + "}"
        if isinstance(value, list | tuple):
            return (
                self.type_of(value)
                + "{"
                + ", ".join(self._go_syntax(v, depth + 1) for v in value)
                + "}"
            )
        return self.format_value(value, Spec())

    def _print(self, value: Any, spec: Spec, depth: int, *, bad: bool = False) -> str:
        """printArg (depth 0) and printValue (inside maps and slices)."""
        verb = spec.verb
        if value is None:
            if depth > 0:
                return "<nil>"
            if verb in "vT":
                return _pad("<nil>", spec)
            return self._bad(spec, None)
        if verb == "T":
            return _pad(self.type_of(value), spec)
        stringer = self._method_string(value)
        if stringer is not None and verb in "vsxXq":
            return self._fmt_str(stringer, spec, value)
        if isinstance(value, bool):
            if verb in "tv":
                return _pad("true" if value else "false", spec)
            return self._bad(spec, value)
        if isinstance(value, int):
            return self._fmt_int(int(value), spec, value)
        if isinstance(value, float):
            return self._fmt_float(value, spec)
        if isinstance(value, complex):
            if verb not in "vbgGxXfFeE":
                return self._bad(spec, value)
            real = self._fmt_float(value.real, spec)
            imag = self._fmt_float(
                value.imag,
                Spec(
                    spec.verb,
                    True,
                    spec.minus,
                    spec.sharp,
                    spec.space,
                    spec.zero,
                    spec.width,
                    spec.prec,
                ),
            )
            return f"({real}{imag}i)"
        if isinstance(value, str):
            return self._fmt_str(value, spec, value)
        if isinstance(value, bytes | bytearray):
            if verb in "sqxX":
                return self._fmt_str(bytes(value).decode("utf-8", "replace"), spec, value)
            return "[" + " ".join(self._fmt_int(b, spec, b) for b in value) + "]"
        if isinstance(value, dict):
            items = sorted(value.items(), key=lambda kv: _sort_key(kv[0]))
            body = " ".join(
                f"{self._print(k, spec, depth + 1)}:{self._print(v, spec, depth + 1)}"
                for k, v in items
            )
            return "map[" + body + "]"
        if isinstance(value, list | tuple):
            return "[" + " ".join(self._print(v, spec, depth + 1) for v in value) + "]"
        if self.is_func(value):
            return f"%!{verb}(func)" if verb != "v" else "0x0"
        if bad or verb == "v":
            return _pad(str(value), spec)  # a kind fmt's verbs do not know: its own text
        return self._bad(spec, value)

    def format_value(self, value: Any, spec: Spec, depth: int = 0) -> str:
        """One operand formatted with one verb, as fmt's doPrintf hands it to printArg."""
        if spec.verb == "v" and (spec.sharp or spec.plus):
            if spec.sharp:
                return self._go_syntax(value, depth)
            spec = Spec("v", False, spec.minus, False, spec.space, spec.zero, spec.width, spec.prec)
        return self._print(value, spec, depth)

    def sprint(self, *args: Any) -> str:
        """fmt.Sprint: a space between operands when neither side is a string."""
        out: list[str] = []
        prev_string = False
        for i, arg in enumerate(args):
            is_string = isinstance(arg, str)
            if i > 0 and not is_string and not prev_string:
                out.append(" ")
            out.append(self.format_value(arg, Spec()))
            prev_string = is_string
        return "".join(out)

    def sprintln(self, *args: Any) -> str:
        """fmt.Sprintln: spaces between all operands and a newline."""
        return " ".join(self.format_value(a, Spec()) for a in args) + "\n"
