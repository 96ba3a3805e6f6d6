"""Values printed the way Go's ``fmt`` prints them with ``%v``.

Argo's messages embed values with ``%v`` (``Expected boolean evaluation for 'x'. Got 1e+06``)
and expr-lang's ``string()`` uses the same rules, so the local engine writes them the same
way: ``true``/``false``, ``<nil>``, lists as ``[a b]``, and float64 as Go's shortest
``%g`` form (plain digits while the decimal exponent is in ``[-4, 6)``, ``d.ddde±XX``
otherwise, ``-0``, ``+Inf``, ``NaN``).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["go_value_text"]


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest digits that read back as ``value`` (> 0), and the position of the
    decimal point relative to them (``123.0`` -> ``("123", 3)``, ``0.05`` -> ``("5", -1)``)."""
    mantissa, _, exponent = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).rstrip("0")
    point = len(whole) + int(exponent or 0)
    stripped = digits.lstrip("0")
    return stripped, point - (len(digits) - len(stripped))


def go_float_text(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 64)``, which is what ``%v`` prints."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    digits, point = _shortest_digits(abs(value))
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def go_value_text(value: Any) -> str:
    """``fmt.Sprintf("%v", value)`` for the values the expression languages produce."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float_text(value)
    if isinstance(value, list):
        return "[" + " ".join(go_value_text(item) for item in value) + "]"
    return str(value)
