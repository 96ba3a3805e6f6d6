"""The Go signatures the checker knows: the methods of times and durations, and the
``Types`` overloads of expr's builtins that are checked argument by argument.
"""

from __future__ import annotations

from reporters.expr.natures import ANY_ARRAY, DURATION, INTEGERS, TIME

TIME_ARITHMETIC: dict[str, dict[tuple[str | None, str | None], str]] = {
    "-": {(TIME, TIME): DURATION, (TIME, DURATION): TIME, (DURATION, DURATION): DURATION},
    "+": {(TIME, DURATION): TIME, (DURATION, TIME): TIME, (DURATION, DURATION): DURATION},
    "*": {(DURATION, DURATION): DURATION},
}
"""What the checker accepts between times and durations, and what they give."""

# Methods of the values Argo CD's functions and expr's date builtins return:
# receiver.Name -> (parameter types, result type).
METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "time.Time.Add": ((DURATION,), TIME), "time.Time.Sub": ((TIME,), DURATION),
    "time.Time.Before": ((TIME,), "bool"), "time.Time.After": ((TIME,), "bool"),
    "time.Time.Equal": ((TIME,), "bool"), "time.Time.Compare": ((TIME,), "int"),
    "time.Time.IsZero": ((), "bool"), "time.Time.Unix": ((), "int64"),
    "time.Time.UnixMilli": ((), "int64"), "time.Time.UnixMicro": ((), "int64"),
    "time.Time.UnixNano": ((), "int64"), "time.Time.Year": ((), "int"),
    "time.Time.Month": ((), "time.Month"), "time.Time.Day": ((), "int"),
    "time.Time.Hour": ((), "int"), "time.Time.Minute": ((), "int"),
    "time.Time.Second": ((), "int"), "time.Time.Nanosecond": ((), "int"),
    "time.Time.YearDay": ((), "int"), "time.Time.Weekday": ((), "time.Weekday"),
    "time.Time.UTC": ((), TIME), "time.Time.Format": (("string",), "string"),
    "time.Time.String": ((), "string"), "time.Time.Truncate": ((DURATION,), TIME),
    "time.Time.Round": ((DURATION,), TIME), "time.Time.AddDate": (("int", "int", "int"), TIME),
    "time.Duration.Hours": ((), "float64"), "time.Duration.Minutes": ((), "float64"),
    "time.Duration.Seconds": ((), "float64"), "time.Duration.Milliseconds": ((), "int64"),
    "time.Duration.Microseconds": ((), "int64"), "time.Duration.Nanoseconds": ((), "int64"),
    "time.Duration.String": ((), "string"), "time.Duration.Abs": ((), DURATION),
    "time.Duration.Round": ((DURATION,), DURATION),
    "time.Duration.Truncate": ((DURATION,), DURATION),
    "time.Month.String": ((), "string"), "time.Weekday.String": ((), "string"),
}  # fmt: skip


# The ``Types`` overloads of builtins checked by argument: name -> list of (params, result).
# A trailing "..." parameter is variadic.
OVERLOADS: dict[str, list[tuple[tuple[str, ...], str]]] = {
    "type": [(("interface {}",), "string")],
    "string": [(("interface {}",), "string")],
    "trim": [(("string",), "string"), (("string", "string"), "string")],
    "trimPrefix": [(("string", "string"), "string"), (("string",), "string")],
    "trimSuffix": [(("string", "string"), "string"), (("string",), "string")],
    "upper": [(("string",), "string")],
    "lower": [(("string",), "string")],
    "split": [(("string", "string"), "[]string"), (("string", "string", "int"), "[]string")],
    "splitAfter": [(("string", "string"), "[]string"),
                   (("string", "string", "int"), "[]string")],
    "replace": [(("string", "string", "string", "int"), "string"),
                (("string", "string", "string"), "string")],
    "repeat": [(("string", "int"), "string")],
    "join": [(("[]string", "string"), "string"), (("[]interface {}", "string"), "string"),
             (("[]interface {}",), "string"), (("[]string", "string"), "string"),
             (("[]string",), "string")],
    "indexOf": [(("string", "string"), "int")],
    "lastIndexOf": [(("string", "string"), "int")],
    "hasPrefix": [(("string", "string"), "bool")],
    "hasSuffix": [(("string", "string"), "bool")],
    "toJSON": [(("interface {}",), "string")],
    "fromJSON": [(("string",), "interface {}")],
    "toBase64": [(("string",), "string")],
    "fromBase64": [(("string",), "string")],
    "duration": [(("string",), DURATION)],
    "timezone": [(("string",), "*time.Location")],
    "sort": [(("[]interface {}", "string"), ANY_ARRAY), (("[]int", "string"), ANY_ARRAY),
             (("[]float64", "string"), ANY_ARRAY), (("[]string", "string"), ANY_ARRAY),
             (("[]interface {}",), ANY_ARRAY), (("[]float64",), ANY_ARRAY),
             (("[]string",), ANY_ARRAY), (("[]int",), ANY_ARRAY)],
    "bitand": [(("int", "int"), "int")], "bitor": [(("int", "int"), "int")],
    "bitxor": [(("int", "int"), "int")], "bitnand": [(("int", "int"), "int")],
    "bitshl": [(("int", "int"), "int")], "bitshr": [(("int", "int"), "int")],
    "bitushr": [(("int", "int"), "int")], "bitnot": [(("int",), "int")],
    "get": [],
}  # fmt: skip

ROUND_KINDS = INTEGERS | {"float64", "float32", "interface {}"}
