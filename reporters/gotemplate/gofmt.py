"""Go's ``fmt`` as templates use it: ``{{.x}}`` prints with ``%v``, ``printf`` takes verbs.

Python's formatting differs from Go's in what matters to a notification (``1e+06`` for a
float64 million, ``map[a:1 b:2]`` for a map, ``%!d(string=x)`` for a wrong verb), so the
verbs, flags and each type's default form are written out here, after ``fmt/print.go`` and
``fmt/format.go``, and proved by the vectors.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from reporters.gotemplate.gostrings import quote, quote_char
from reporters.gotemplate.values import GoInt, go_type


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


# -- floats -------------------------------------------------------------------------------


def _shortest(f: float) -> tuple[str, int]:
    """The shortest digits that read back as ``f``, and where the decimal point goes."""
    _, digit_tuple, exp = Decimal(repr(abs(f))).as_tuple()
    assert isinstance(exp, int)
    digits = "".join(str(d) for d in digit_tuple)
    stripped = digits.rstrip("0")
    if not stripped:
        return "0", 1
    exp += len(digits) - len(stripped)
    return stripped, len(stripped) + exp


def _fmt_e(neg: bool, digits: str, dp: int, prec: int, e: str = "e") -> str:
    mant = digits[0]
    rest = digits[1:]
    frac = rest if prec < 0 else (rest + "0" * prec)[:prec]
    exp = dp - 1 if digits != "0" else 0
    out = mant + ("." + frac if frac else "")
    sign = "-" if exp < 0 else "+"
    out += f"{e}{sign}{abs(exp):02d}"
    return ("-" if neg else "") + out


def _fmt_f(neg: bool, digits: str, dp: int) -> str:
    if dp <= 0:
        out = "0." + "0" * (-dp) + digits
    elif dp >= len(digits):
        out = digits + "0" * (dp - len(digits))
    else:
        out = digits[:dp] + "." + digits[dp:]
    if digits == "0":
        out = "0"
    return ("-" if neg else "") + out


def format_float(f: float, fmt: str = "g", prec: int = -1) -> str:
    """strconv.FormatFloat(f, fmt, prec, 64) for fmt in e, E, f, g, G."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    neg = math.copysign(1.0, f) < 0
    if prec >= 0:
        if fmt in "eE":
            return f"{f:.{prec}{fmt}}"
        if fmt == "f":
            return f"{f:.{prec}f}"
        if fmt in "gG":
            p = prec or 1
            text = f"{f:.{p - 1}{'e' if fmt == 'g' else 'E'}}"
            mant, _, exp_text = text.partition("e" if fmt == "g" else "E")
            digits = mant.lstrip("-").replace(".", "").rstrip("0") or "0"
            exp = int(exp_text)
            eprec = p
            dp = exp + 1
            if eprec > len(digits) and len(digits) >= dp:
                eprec = len(digits)
            if exp < -4 or exp >= eprec:
                return _fmt_e(neg, digits, dp, len(digits) - 1, "e" if fmt == "g" else "E")
            return _fmt_f(neg, digits, dp)
    digits, dp = _shortest(f)
    if fmt in "eE":
        return _fmt_e(neg, digits, dp, -1, fmt)
    if fmt == "f":
        return _fmt_f(neg, digits, dp)
    exp = 0 if digits == "0" else dp - 1
    if exp < -4 or exp >= 6:
        return _fmt_e(neg, digits, dp, -1, "E" if fmt == "G" else "e")
    return _fmt_f(neg, digits, dp)


def json_float(f: float) -> str:
    """encoding/json's float64: plain below 1e21, exponent form (``1e-7``) outside."""
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        text = format_float(f, "e")
        mant, _, exp = text.partition("e")
        if exp[:2] == "-0":
            exp = "-" + exp[2:]
        return mant + "e" + exp
    return format_float(f, "f")


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


def _bad(spec: Spec, value: Any) -> str:
    """fmt's badVerb: the value printed with %v under the same flags."""
    if value is None:
        return f"%!{spec.verb}(<nil>)"
    inner = Spec(
        "v", spec.plus, spec.minus, spec.sharp, spec.space, spec.zero, spec.width, spec.prec
    )
    return f"%!{spec.verb}({go_type(value)}={_print(value, inner, 0, bad=True)})"


def _fmt_int(n: int, spec: Spec, value: Any) -> str:
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
        return _bad(spec, value)
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


def _hex_float(f: float, prec: int, upper: bool) -> str:
    """strconv's 'x' format: 0x1.cp+01."""
    if f == 0:
        mant, exp = "0", 0
    else:
        text = float.hex(abs(f))  # 0x1.c000000000000p+1
        body, _, exp_text = text[2:].partition("p")
        mant = body.replace(".", "")
        exp = int(exp_text)
        if mant[0] != "1":  # subnormal: normalise
            value = int(mant, 16)
            shift = value.bit_length() - 1 - 52
            exp += shift
            value <<= 53 - value.bit_length()
            mant = format(value, "x")
    lead, frac = mant[0], mant[1:]
    if prec < 0:
        frac = frac.rstrip("0")
    else:
        digits = int(lead + frac.ljust(13, "0")[:13], 16)
        total = 4 * 13
        keep = 4 * prec
        if keep < total:
            drop = total - keep
            half = 1 << (drop - 1)
            rem = digits & ((1 << drop) - 1)
            digits >>= drop
            if rem > half or (rem == half and digits & 1):
                digits += 1
            if digits >> (keep + 1):
                digits >>= 1
                exp += 1
            text = format(digits, "x").rjust(prec + 1, "0")
            lead, frac = text[0], text[1:]
        else:
            frac = frac.ljust(prec, "0")
    sign = "-" if math.copysign(1, f) < 0 else ""
    out = (
        f"{sign}0x{lead}"
        + (f".{frac}" if frac else "")
        + f"p{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    )
    return out.upper().replace("0X", "0X") if upper else out


def _bin_float(f: float) -> str:
    """strconv's 'b' format: mantissa p exponent."""
    bits = struct.unpack(">Q", struct.pack(">d", f))[0]
    neg = bits >> 63
    exp = (bits >> 52) & 0x7FF
    mant = bits & ((1 << 52) - 1)
    if exp == 0:
        exp = 1
    else:
        mant |= 1 << 52
    exp -= 1075
    return ("-" if neg else "") + f"{mant}p{'+' if exp >= 0 else '-'}{abs(exp)}"


def _sharp_float(num: str, verb: str, prec: int) -> str:
    """The # flag on a float: keep a decimal point and trailing zeros (format.go)."""
    digits = 0
    if verb in "vgGx":
        digits = 6 if prec == -1 else prec
    tail = ""
    has_point = False
    saw_nonzero = False
    i = 1
    body = num
    while i < len(body):
        c = body[i]
        if c == ".":
            has_point = True
        elif c in "pP" or (c in "eE" and verb not in "xX"):
            tail = body[i:]
            body = body[:i]
            break
        else:
            if c != "0":
                saw_nonzero = True
            if saw_nonzero:
                digits -= 1
        i += 1
    if not has_point:
        if len(body) == 2 and body[1] == "0":
            digits -= 1
        body += "."
    if digits > 0:
        body += "0" * digits
    return body + tail


def _fmt_float(f: float, spec: Spec) -> str:
    verb = spec.verb
    if verb == "v":
        fmt, prec = "g", -1
    elif verb in "gGxXb":
        fmt, prec = verb, -1
    elif verb in "eEfF":
        fmt, prec = ("f" if verb == "F" else verb), 6
    else:
        return _bad(spec, f)
    if spec.prec is not None:
        prec = spec.prec
    if math.isnan(f) or math.isinf(f):
        text = "NaN" if math.isnan(f) else ("+Inf" if f > 0 else "-Inf")
    elif fmt in "xX":
        text = _hex_float(f, prec, fmt == "X")
    elif fmt == "b":
        text = _bin_float(f)
    else:
        text = format_float(f, fmt, prec)
    num = text if text[:1] in "+-" else "+" + text
    if spec.space and num[0] == "+" and not spec.plus:
        num = " " + num[1:]
    if num[1:2] in ("I", "N"):
        if (num[1] == "N" and not spec.space and not spec.plus) or (
            num[0] == "+" and not spec.plus
        ):
            num = num[1:]
        return _pad(num, spec, zero_ok=False)
    if spec.sharp and verb != "b":
        num = _sharp_float(num, "v" if verb == "v" else fmt, prec)
    if spec.plus or num[0] != "+":
        if spec.zero and not spec.minus and spec.width is not None and spec.width > len(num):
            return num[0] + "0" * (spec.width - len(num)) + num[1:]
        return _pad(num, spec, zero_ok=False)
    return _sign_pad(num[1:], spec)


def _fmt_str(s: str, spec: Spec, value: Any) -> str:
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
    return _bad(spec, value)


def _method_string(value: Any) -> str | None:
    """The String() of a value that has one (time.Time, time.Duration, *semver.Version)."""
    method = getattr(value, "go_string", None)
    if callable(method):
        result = method()
        return result if isinstance(result, str) else None
    return None


def _go_syntax(value: Any, depth: int) -> str:
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
        body = ", ".join(f"{_go_syntax(k, depth + 1)}:{_go_syntax(v, depth + 1)}" for k, v in items)
        return go_type(value) + "{" + body + "}"
    if isinstance(value, list | tuple):
        return go_type(value) + "{" + ", ".join(_go_syntax(v, depth + 1) for v in value) + "}"
    return format_value(value, Spec())


def _print(value: Any, spec: Spec, depth: int, *, bad: bool = False) -> str:
    """printArg (depth 0) and printValue (inside maps and slices)."""
    verb = spec.verb
    if value is None:
        if depth > 0:
            return "<nil>"
        if verb in "vT":
            return _pad("<nil>", spec)
        return _bad(spec, None)
    if verb == "T":
        return _pad(go_type(value), spec)
    stringer = _method_string(value)
    if stringer is not None and verb in "vsxXq":
        return _fmt_str(stringer, spec, value)
    if isinstance(value, bool):
        if verb in "tv":
            return _pad("true" if value else "false", spec)
        return _bad(spec, value)
    if isinstance(value, int):
        return _fmt_int(int(value), spec, value)
    if isinstance(value, float):
        return _fmt_float(value, spec)
    if isinstance(value, complex):
        if verb not in "vbgGxXfFeE":
            return _bad(spec, value)
        real = _fmt_float(value.real, spec)
        imag = _fmt_float(
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
        return _fmt_str(value, spec, value)
    if isinstance(value, bytes | bytearray):
        if verb in "sqxX":
            return _fmt_str(bytes(value).decode("utf-8", "replace"), spec, value)
        return "[" + " ".join(_fmt_int(b, spec, b) for b in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: _sort_key(kv[0]))
        body = " ".join(
            f"{_print(k, spec, depth + 1)}:{_print(v, spec, depth + 1)}" for k, v in items
        )
        return "map[" + body + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(_print(v, spec, depth + 1) for v in value) + "]"
    if callable(value):
        return f"%!{verb}(func)" if verb != "v" else "0x0"
    return _bad(spec, value)


def format_value(value: Any, spec: Spec, depth: int = 0) -> str:
    """One operand formatted with one verb, as fmt's doPrintf hands it to printArg."""
    if spec.verb == "v" and (spec.sharp or spec.plus):
        if spec.sharp:
            return _go_syntax(value, depth)
        spec = Spec("v", False, spec.minus, False, spec.space, spec.zero, spec.width, spec.prec)
    return _print(value, spec, depth)


def _sort_key(key: Any) -> tuple[int, Any]:
    if isinstance(key, bool):
        return (0, key)
    if isinstance(key, int | float):
        return (1, key)
    return (2, str(key))


# -- Sprint, Sprintln, Sprintf ---------------------------------------------------------------------


def sprint(*args: Any) -> str:
    """fmt.Sprint: a space between operands when neither side is a string."""
    out: list[str] = []
    prev_string = False
    for i, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if i > 0 and not is_string and not prev_string:
            out.append(" ")
        out.append(format_value(arg, Spec()))
        prev_string = is_string
    return "".join(out)


def sprintln(*args: Any) -> str:
    """fmt.Sprintln: spaces between all operands and a newline."""
    return " ".join(format_value(a, Spec()) for a in args) + "\n"


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


def sprintf(fmt: str, *args: Any) -> str:
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
            if (
                argnum < len(args)
                and isinstance(args[argnum], int)
                and not isinstance(args[argnum], bool)
            ):
                w = int(args[argnum])
                if abs(w) > TOO_LARGE:
                    w = 0
                    out.append("%!(BADWIDTH)")
                if w < 0:
                    spec.minus, spec.zero, w = True, False, -w
                spec.width = w
            else:
                out.append("%!(BADWIDTH)")
            argnum += 1
        else:
            spec.width, i = _parse_num(fmt, i)
        if i < n and fmt[i] == ".":
            i += 1
            if i < n and fmt[i] == "*":
                i += 1
                if (
                    argnum < len(args)
                    and isinstance(args[argnum], int)
                    and not isinstance(args[argnum], bool)
                ):
                    p = int(args[argnum])
                    if abs(p) > TOO_LARGE:
                        p = -1
                        out.append("%!(BADPREC)")
                    spec.prec = p if p >= 0 else None
                else:
                    out.append("%!(BADPREC)")
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
            out.append(format_value(arg, spec))
            continue
        out.append(format_value(arg, spec))
    if not reordered and argnum < len(args):
        extra = ", ".join(
            "<nil>" if a is None else f"{go_type(a)}={format_value(a, Spec())}"
            for a in args[argnum:]
        )
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def go_int_text(n: int) -> str:
    return str(int(n))


__all__ = ["GoInt", "Spec", "format_float", "format_value", "sprint", "sprintf", "sprintln"]
