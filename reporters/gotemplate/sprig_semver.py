"""sprig's ``semver`` and ``semverCompare`` over Masterminds/semver v3.4.0's rules.

The ``semver`` library in Python has no constraint language, and Masterminds' differs from
npm's (``~1`` means ``>=1, <2``; a pre-release only satisfies a constraint naming one), so
the parser and each operator's check are mirrored by hand after semver's constraints.go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reporters.gotemplate.values import GoError, GoFunc

_STRICT = re.compile(
    r"^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
_LOOSE = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
)
_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CONSTRAINT = re.compile(rf"^\s*({_OPS})\s*({_CV})\s*$")
_RANGE = re.compile(rf"\s*({_CV})\s+-\s+({_CV})\s*")
_FIND = re.compile(rf"({_OPS})\s*({_CV})")
_VALID = re.compile(rf"^(\s*({_OPS})\s*({_CV})\s*)((?:\s+|,\s*)({_OPS})\s*({_CV})\s*)*$")


@dataclass(frozen=True)
class Version:
    """A *semver.Version: its parts and the text it was parsed from."""

    major: int
    minor: int
    patch: int
    pre: str
    metadata: str
    original: str

    go_type = "*semver.Version"
    go_kind = "ptr"

    def go_string(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + self.pre
        if self.metadata:
            text += "+" + self.metadata
        return text

    def compare(self, other: Version) -> int:
        for a, b in (
            (self.major, other.major),
            (self.minor, other.minor),
            (self.patch, other.patch),
        ):
            if a != b:
                return -1 if a < b else 1
        return compare_prerelease(self.pre, other.pre)

    def go_methods(self) -> dict[str, GoFunc]:
        v = self
        V = "*semver.Version"
        return {
            "Major": GoFunc(lambda: _Uint64(v.major), (), returns="uint64"),
            "Minor": GoFunc(lambda: _Uint64(v.minor), (), returns="uint64"),
            "Patch": GoFunc(lambda: _Uint64(v.patch), (), returns="uint64"),
            "Prerelease": GoFunc(lambda: v.pre, (), returns="string"),
            "Metadata": GoFunc(lambda: v.metadata, (), returns="string"),
            "Original": GoFunc(lambda: v.original, (), returns="string"),
            "String": GoFunc(v.go_string, (), returns="string"),
            "Compare": GoFunc(lambda o: _GoInt(v.compare(o)), (V,), returns="int"),
            "LessThan": GoFunc(lambda o: v.compare(o) < 0, (V,), returns="bool"),
            "GreaterThan": GoFunc(lambda o: v.compare(o) > 0, (V,), returns="bool"),
            "Equal": GoFunc(lambda o: v.compare(o) == 0, (V,), returns="bool"),
        }


class _Uint64(int):
    go_type = "uint64"
    go_kind = "uint64"


def _GoInt(n: int) -> Any:
    from reporters.gotemplate.values import GoInt

    return GoInt(n)


def compare_prerelease(a: str, b: str) -> int:
    if a == b:
        return 0
    if not a:
        return 1
    if not b:
        return -1
    pa, pb = a.split("."), b.split(".")
    for x, y in zip(pa, pb, strict=False):
        c = _compare_ident(x, y)
        if c:
            return c
    return (len(pa) > len(pb)) - (len(pa) < len(pb))


def _compare_ident(x: str, y: str) -> int:
    xn, yn = x.isdigit(), y.isdigit()
    if xn and yn:
        a, b = int(x), int(y)
        return (a > b) - (a < b)
    if xn:
        return -1
    if yn:
        return 1
    return (x > y) - (x < y)


def new_version(text: str) -> Version:
    """semver.NewVersion with CoerceNewVersion (v3.4.0's default): the loose grammar."""
    m = _LOOSE.match(text)
    if m is None:
        raise GoError("invalid semantic version")
    major = int(m.group(1))
    minor = int(m.group(2)[1:]) if m.group(2) else 0
    patch = int(m.group(3)[1:]) if m.group(3) else 0
    pre, meta = m.group(5) or "", m.group(8) or ""
    for part in pre.split(".") if pre else []:
        if part.isdigit() and len(part) > 1 and part.startswith("0"):
            raise GoError("version segment starts with 0")
    for n in (major, minor, patch):
        if n >= 2**64:
            raise GoError("error parsing version segment: value out of range")
    return Version(major, minor, patch, pre, meta, text)


@dataclass(frozen=True)
class _Constraint:
    op: str
    orig: str
    con: Version
    minor_dirty: bool
    patch_dirty: bool
    dirty: bool


def _is_x(s: str) -> bool:
    return s in ("x", "X", "*")


def _parse_constraint(c: str) -> _Constraint:
    m = _CONSTRAINT.match(c)
    if m is None:
        raise GoError(f"improper constraint: {c}")
    op, orig = m.group(1), m.group(2)
    major, minor, patch, pre = m.group(3), m.group(4) or "", m.group(5) or "", m.group(6) or ""
    ver = orig
    minor_dirty = patch_dirty = dirty = False
    if _is_x(major) or major == "":
        ver, dirty = "0.0.0" + pre, True
    elif _is_x(minor.lstrip(".")) or minor == "":
        ver, minor_dirty, dirty = f"{major}.0.0{pre}", True, True
    elif _is_x(patch.lstrip(".")) or patch == "":
        ver, patch_dirty, dirty = f"{major}{minor}.0{pre}", True, True
    try:
        con = new_version(ver)
    except GoError:
        raise GoError("constraint parser error") from None
    return _Constraint(op, orig, con, minor_dirty, patch_dirty, dirty)


def _check(c: _Constraint, v: Version, include_pre: bool) -> bool:
    if v.pre and not include_pre:
        return False
    op = c.op
    if op in ("", "="):
        if c.dirty:
            return _tilde(c, v)
        return v.compare(c.con) == 0
    if op == "!=":
        if c.dirty:
            if c.con.major != v.major:
                return True
            if c.con.minor != v.minor and not c.minor_dirty:
                return True
            if c.minor_dirty:
                return False
            if c.con.patch != v.patch and not c.patch_dirty:
                return True
            if c.patch_dirty:
                if v.pre or c.con.pre:
                    return compare_prerelease(v.pre, c.con.pre) != 0
                return False
        return v.compare(c.con) != 0
    if op == ">":
        if not c.dirty:
            return v.compare(c.con) == 1
        if v.major != c.con.major:
            return v.major > c.con.major
        if c.minor_dirty:
            return False
        if c.patch_dirty:
            return v.minor > c.con.minor
        return v.compare(c.con) == 1
    if op == "<":
        return v.compare(c.con) < 0
    if op in (">=", "=>"):
        return v.compare(c.con) >= 0
    if op in ("<=", "=<"):
        if not c.dirty:
            return v.compare(c.con) <= 0
        if v.major > c.con.major:
            return False
        return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)
    if op in ("~", "~>"):
        return _tilde(c, v)
    # caret
    if v.compare(c.con) < 0:
        return False
    if c.con.major > 0 or c.minor_dirty:
        return v.major == c.con.major
    if v.major > 0:
        return False
    if c.con.minor > 0 or c.patch_dirty:
        return v.minor == c.con.minor
    if v.minor > 0:
        return False
    return c.con.patch == v.patch


def _tilde(c: _Constraint, v: Version) -> bool:
    if v.compare(c.con) < 0:
        return False
    con = c.con
    if (
        con.major == 0
        and con.minor == 0
        and con.patch == 0
        and not c.minor_dirty
        and not (c.patch_dirty)
    ):
        return True
    if v.major != con.major:
        return False
    return not (v.minor != con.minor and not c.minor_dirty)


def _rewrite_range(text: str) -> str:
    for m in list(_RANGE.finditer(text)):
        text = text.replace(m.group(0), f">= {m.group(1)}, <= {m.group(11)} ", 1)
    return text


def semver_compare(constraint: str, version: str) -> bool:
    text = _rewrite_range(constraint)
    groups: list[tuple[list[_Constraint], bool]] = []
    for part in text.split("||"):
        if not _VALID.match(part):
            raise GoError(f"improper constraint: {part}")
        found = [m.group(0) for m in _FIND.finditer(part)] or [part]
        parsed = [_parse_constraint(s) for s in found]
        groups.append((parsed, any(p.con.pre for p in parsed)))
    v = new_version(version)
    return any(all(_check(c, v, has_pre) for c in cs) for cs, has_pre in groups)


FUNCS: dict[str, GoFunc] = {
    "semver": GoFunc(new_version, ("string",), returns="*semver.Version"),
    "semverCompare": GoFunc(semver_compare, ("string", "string"), returns="bool"),
}
