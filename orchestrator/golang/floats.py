"""Go's float formatting (strconv): shortest digits, ``%e``/``%f``/``%g``, hex and binary.

Go prints a float64 million as ``1e+06`` (``%v`` switches to exponent form at 21 digits
for JSON and at an exponent of 6 otherwise), ``%x`` as ``0x1.cp+01`` and ``%b`` as
``7881299347898368p-51``; Python's ``repr`` and ``format`` give none of these, so the
forms are built here from the shortest round-tripping digits. Argo Workflows' messages,
expr's ``string()`` and templates' ``printf`` all print floats this way.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

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


def hex_float(f: float, prec: int, upper: bool) -> str:
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


def bin_float(f: float) -> str:
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


def sharp_float(num: str, verb: str, prec: int) -> str:
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
