"""The checker's view of Go types (``checker/nature``): a nature is a Go type or unknown, and
the rules of assignability, comparability and "maybe compatible" that decide whether an
operator between two natures is an error at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass

INTEGERS = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                      "uint32", "uint64"})  # fmt: skip
TIME, DURATION = "time.Time", "time.Duration"
ANY_ARRAY, ANY_MAP = "[]interface {}", "map[string]interface {}"


@dataclass(frozen=True)
class Nature:
    """A Go type as the checker knows it; ``go`` is None for unknown (or ``interface {}``)."""

    go: str | None = None
    nil: bool = False
    elem: Nature | None = None
    method: str = ""
    """For a method value: ``Time.Sub`` and so on (see :data:`METHODS`)."""

    @property
    def unknown(self) -> bool:
        return (self.go is None and not self.nil) or self.go == "interface {}"

    @property
    def is_integer(self) -> bool:
        return self.go in INTEGERS

    @property
    def is_float(self) -> bool:
        return self.go in ("float64", "float32")

    @property
    def is_number(self) -> bool:
        return self.is_integer or self.is_float

    @property
    def is_string(self) -> bool:
        return self.go == "string"

    @property
    def is_bool(self) -> bool:
        return self.go == "bool"

    @property
    def is_array(self) -> bool:
        return self.go is not None and self.go.startswith("[]")

    @property
    def is_map(self) -> bool:
        return self.go is not None and self.go.startswith("map[")

    @property
    def is_func(self) -> bool:
        return self.go is not None and self.go.startswith("func")

    def text(self) -> str:
        """``Nature.String``."""
        return self.go if self.go is not None else "unknown"

    def element(self) -> Nature:
        if self.elem is not None:
            return self.elem
        if self.go and self.go.startswith("[]"):
            return of(self.go[2:])
        if self.go and self.go.startswith("map["):
            return of(self.go[self.go.index("]") + 1 :])
        return UNKNOWN


UNKNOWN = Nature()
NIL = Nature(nil=True)


def of(go: str) -> Nature:
    """The nature of a Go type; ``interface {}`` is unknown too, but prints as itself."""
    return Nature(go)


BOOL, INT, FLOAT, STRING = of("bool"), of("int"), of("float64"), of("string")


def array_of(elem: Nature) -> Nature:
    return Nature(ANY_ARRAY, elem=elem)


def maybe_compatible(left: Nature, right: Nature, *checks: str) -> bool:
    """``MaybeCompatible``: both unknown, or one unknown and the other of a listed kind."""

    def fits(nature: Nature) -> bool:
        return any(
            nature.go == _SPECIAL[check] if check in _SPECIAL else getattr(nature, "is_" + check)
            for check in checks
        )

    return (
        (left.unknown and right.unknown)
        or (left.unknown and fits(right))
        or (right.unknown and fits(left))
    )


_SPECIAL = {"time": TIME, "duration": DURATION}


def comparable(left: Nature, right: Nature) -> bool:
    return (
        left.unknown
        or right.unknown
        or left.nil
        or right.nil
        or (left.is_number and right.is_number)
        or (left.go == right.go == DURATION)
        or (left.go == right.go == TIME)
        or (left.is_array and right.is_array)
        or assignable(left, right)
    )


def assignable(left: Nature, right: Nature) -> bool:
    if left.nil:
        return right.is_array or right.is_map or right.is_func or right.unknown
    if left.go is None or right.go is None:
        return False
    return left.go == right.go or right.go == "interface {}"


def reflect_kind(nature: Nature) -> str:
    """reflect.Kind of a nature, for the array literal's "all of one kind" test."""
    go = nature.go
    if go is None:
        return "nil" if nature.nil else "invalid"
    if go == "interface {}":
        return "interface"
    if go.startswith("[]"):
        return "slice"
    if go.startswith("map["):
        return "map"
    if go.startswith("func"):
        return "func"
    if go == TIME:
        return "struct"
    if go == DURATION:
        return "int64"
    return go
