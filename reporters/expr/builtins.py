"""expr's builtin functions (``builtin/builtin.go``, ``builtin/lib.go``, v1.17.7) that take
plain arguments, by name; the ones with a predicate (``all``, ``filter``, ``map``...) are loops
of the evaluator (:mod:`.loops`). Each gives Go's result type and fails with Go's message,
raised as :class:`GoPanic` for the evaluator to place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reporters.expr.builtin_base import Unsupported
from reporters.expr.builtin_data import (
    b_concat,
    b_first,
    b_flatten,
    b_from_base64,
    b_from_json,
    b_from_pairs,
    b_get,
    b_keys,
    b_last,
    b_reverse,
    b_sort,
    b_take,
    b_to_base64,
    b_to_json,
    b_to_pairs,
    b_uniq,
    b_values,
    go_sort,
)
from reporters.expr.builtin_numbers import (
    b_abs,
    b_bitand,
    b_bitnand,
    b_bitnot,
    b_bitor,
    b_bitshl,
    b_bitshr,
    b_bitushr,
    b_bitxor,
    b_ceil,
    b_float,
    b_floor,
    b_int,
    b_len,
    b_max,
    b_mean,
    b_median,
    b_min,
    b_round,
    b_type,
)
from reporters.expr.builtin_text import (
    b_has_prefix,
    b_has_suffix,
    b_index_of,
    b_join,
    b_last_index_of,
    b_lower,
    b_repeat,
    b_replace,
    b_split,
    b_split_after,
    b_trim,
    b_trim_prefix,
    b_trim_suffix,
    b_upper,
)
from reporters.expr.builtin_time import b_date, b_duration, b_now, b_timezone, system_clock
from reporters.expr.values import go_format

PLAIN: dict[str, Callable[..., Any]] = {
    "len": b_len, "type": b_type, "abs": b_abs,
    "ceil": b_ceil, "floor": b_floor, "round": b_round, "int": b_int, "float": b_float,
    "string": go_format, "trim": b_trim, "trimPrefix": b_trim_prefix,
    "trimSuffix": b_trim_suffix, "upper": b_upper, "lower": b_lower, "split": b_split,
    "splitAfter": b_split_after, "replace": b_replace, "join": b_join, "indexOf": b_index_of,
    "lastIndexOf": b_last_index_of, "hasPrefix": b_has_prefix, "hasSuffix": b_has_suffix,
    "max": b_max, "min": b_min, "mean": b_mean, "median": b_median, "toJSON": b_to_json,
    "fromJSON": b_from_json, "toBase64": b_to_base64, "fromBase64": b_from_base64,
    "duration": b_duration, "date": b_date, "timezone": b_timezone, "first": b_first,
    "last": b_last, "get": b_get, "take": b_take, "keys": b_keys, "values": b_values,
    "toPairs": b_to_pairs, "fromPairs": b_from_pairs, "uniq": b_uniq,
    "bitand": b_bitand, "bitor": b_bitor, "bitxor": b_bitxor, "bitnand": b_bitnand,
    "bitshl": b_bitshl, "bitshr": b_bitshr, "bitushr": b_bitushr, "bitnot": b_bitnot,
}  # fmt: skip
"""Builtins called with their evaluated arguments."""

GROWING: dict[str, Callable[..., Any]] = {
    "repeat": b_repeat,
    "reverse": b_reverse,
    "concat": b_concat,
    "flatten": b_flatten,
    "sort": b_sort,
}
"""Builtins that count against the memory budget (``Safe`` in expr)."""

FAST = frozenset({"len", "type", "abs", "ceil", "floor", "round", "int", "float", "string",
                  "upper", "lower"})  # fmt: skip
"""Builtins with a ``Fast`` form: expr passes them the argument as it is (no deref)."""

__all__ = ["FAST", "GROWING", "PLAIN", "Unsupported", "b_now", "go_sort", "system_clock"]
