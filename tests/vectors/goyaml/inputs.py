"""The inputs of the Go YAML vectors: scalar tokens as a values file spells them.

``python tests/vectors/goyaml/inputs.py | (cd tests/vectors/goyaml && TZ=UTC go run .)``
``> tests/vectors/goyaml/vectors.jsonl`` regenerates the committed vectors with real Go.

Hand-picked edge cases of every scalar shape YAML 1.1, YAML 1.2 and Go's resolvers disagree
on, the shapes image tags really have (hex SHAs of every length, semver, dates), then seeded
random text. Plain tokens, and single- and double-quoted spellings of many of them.
Tags, anchors and aliases (``!x``, ``&x``, ``*x``) are left out: promoflow never writes them.
"""

from __future__ import annotations

import json
import random

BOOLEANS = [
    f(w)
    for w in ["y", "yes", "n", "no", "true", "false", "on", "off"]
    for f in (str.lower, str.capitalize, str.upper)
] + ["tRue", "yEs", "oN", "nO", "oFF", "t", "f", "T", "F", "o", "O", "yess", "onn"]
NULLS = ["", "~", "null", "Null", "NULL", "nULL", "~~", "~1", "none", "None", "nil"]
SPECIAL_FLOATS = [
    f"{sign}.{word}"
    for sign in ("", "+", "-")
    for word in ("inf", "Inf", "INF", "nan", "NaN", "NAN", "iNf", "nAn", "infinity")
] + ["inf", "Inf", "-inf", "+inf", "Infinity", "-Infinity", "nan", "NaN", ".", "..", "-.", "+."]
INTEGERS = [
    "0", "-0", "+0", "00", "000", "1", "-1", "+1", "42", "0123", "-0123", "+0123", "017",
    "0777", "08", "09", "089", "0999", "0128", "1_000", "1__0", "_1", "1_", "-1_000", "+_1",
    "0x1F", "0X1f", "0xff", "-0x1F", "+0x1F", "0x", "0x_1", "0x1_F", "0xG", "0x1p4", "0o17",
    "0O17", "-0o17", "+0o17", "0o", "0o8", "0o+7", "0o-7", "-0o-7", "0o1_7", "0b101", "0B101",
    "-0b101", "+0b101", "0b", "0b2", "0b+1", "0b-1", "-0b-1", "-0b+1", "0b1_0",
    str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64), str(-(2**63)), str(-(2**63) - 1),
    "0x" + "f" * 16, "0x" + "f" * 17, "0x8" + "0" * 15, "-0x8" + "0" * 15, "-0x8" + "0" * 14 + "1",
    "0b" + "1" * 63, "0b" + "1" * 64, "0b1" + "0" * 64, "-0b" + "1" * 63, "-0b1" + "0" * 63,
    "-0b" + "1" * 64, "0o" + "7" * 21, "0o1" + "7" * 21, "0o2" + "0" * 21, "-0o1" + "0" * 21,
    "07" * 11, "1:30", "-1:30", "+1:30", "190:20:30", "1:60", "1:30.5", "1:3", "1:", ":30",
    "1:30:", "12:34:56", "1_0:30",
]  # fmt: skip
FLOATS = [
    "1.0", "1.", "1.10", "0.1", "00.1", "-1.5", "+1.5", ".5", "-.5", "+.5", "1e3", "1E3", "1e+3",
    "1e-3", "-1e3", "+1e3", "1.5e3", "1.5E-3", ".5e3", ".e3", "1e", "1e+", "e3", "E3", "1ee3",
    "1e3.5", "1e400", "-1e400", "1e-400", ".5e400", "1.7976931348623157e308",
    "1.7976931348623159e308", "4.9e-324", "2.5e-324", "1_000.5", "1_0e1_0", "1e1_0", "._5",
    ".5_5", ".5_", "._", ".5e1_0", ".5e_1", ".5_e1", ".1_2_3", "1.2.3", "6.02e23", "0x1p-2",
    "0x1.8p1", "1.0e+00", "0.0", "-0.0", "+0.0", "0e0", "0e", "1_e3", "1e3_", "1.5_", "1,5",
    "1.5f", "1.5d", "3.14159265358979323846264338327950288", "0." + "0" * 30 + "1",
    "1" + "0" * 30, "1" * 25 + ".5", "9" * 400,
]  # fmt: skip
DATES = [
    "2024-01-02", "2024-1-2", "2024-01-2", "2024-1-02", "0000-01-01", "9999-12-31",
    "2024-02-29", "2023-02-29", "2024-02-30", "2024-04-31", "2024-13-01", "2024-00-10",
    "2024-01-00", "2024-01-32", "2024-001-02", "2024-01-002", "20240102", "2024-01",
    "2024-01-02-03", "24-01-02", "02024-01-02", "2024-01-02 ", "2024-01-02T10:20:30Z",
    "2024-01-02t10:20:30Z", "2024-01-02T10:20:30z", "2024-01-02 10:20:30",
    "2024-01-02  10:20:30", "2024-01-02\t10:20:30", "2024-01-02 10:20:30Z",
    "2024-01-02 10:20:30 Z", "2024-01-02T10:20:30", "2024-01-02T10:20:30.5Z",
    "2024-01-02T10:20:30,5Z", "2024-01-02T10:20:30.123456789Z",
    "2024-01-02T10:20:30.1234567891234Z", "2024-01-02T10:20:30.Z", "2024-01-02T10:20:30.",
    "2024-01-02 10:20:30.", "2024-01-02 10:20:30.25", "2024-01-02 10:20:30,25",
    "2024-01-02T10:20:30+05:30", "2024-01-02T10:20:30-05:00", "2024-01-02T10:20:30+0530",
    "2024-01-02T10:20:30+05", "2024-01-02T10:20:30+24:60", "2024-01-02T10:20:30+25:00",
    "2024-01-02T10:20:30+05:61", "2024-01-02T10:20:30.5+01:00", "2024-01-02T10:20:30 +01:00",
    "2001-12-14 21:59:43.10 -5", "2001-12-14t21:59:43.10-05:00", "2001-12-15T02:59:43.1Z",
    "2024-01-02T1:2:3Z", "2024-01-02T01:02:03Z", "2024-01-02T24:00:00Z",
    "2024-01-02T23:59:59Z", "2024-01-02T10:60:00Z", "2024-01-02T10:20:60Z",
    "2024-01-02T100:20:30Z", "2024-01-02T10:20Z", "2024-01-02T10:20:30ZZ", "2024-01-02T",
    "2024-01-02 ", "2024-01-02 10", "2024-01-02 10:20", "2024-1-2 1:2:3",
    "2024-01-02T10:20:30.5+05:30", "2024-01-02T10:20:30+5:30", "2024-01-02T10:20:30+aa:bb",
    "2024-01-02T10:20:30-00:00", "1999-12-31T23:59:59.999999999-23:59", "2024-12-31T00:00:00Z",
    "2024-01-02_10", "2024-01-02.1", "2024-01-02T10:20:30.5e3Z",
]  # fmt: skip
SEMVER = [
    "1.2.3", "v1.2.3", "V1.2.3", "1.2.3-rc.1", "1.2.3-rc1", "1.2.3+build.5", "1.2.3-alpha+001",
    "1.2.3-0123", "1.2.3-beta.11", "1.0.0-x.7.z.92", "1.0.0+20130313144700",
    "1.0.0-alpha.beta+exp.sha.5114f85", "1.2", "1.10", "1.2.3.4", "2", "10.20", "0.1.0",
    "1.0.0-0.3.7", "1.2.3-SNAPSHOT", "2024.01.02", "2024.1", "1.2-3", "1-2", "1+2", "1e3-rc1",
    "1.0e3", "v1e3", "3.0.0-6063e25", "6063e25-dirty", "1.2.3_4", "0.0.0-20240102103000-abcdef",
]  # fmt: skip
WORDS = [
    "latest", "main", "stable", "<<", "=", "-", "--", "---", "...", "-1-", "+", "++", "a b",
    "a  b", "a #b", "a#b", "#x", "a: b", "a:b", "a:", ":a", "::", "- a", "-a", "? a", "?a", "?",
    "[a]", "{a}", "a,b", "a]", "a}", "a[", "a{", "%a", "@a", "`a", "'a", '"a', "a'", 'a"',
    "|", ">", "|-", ">+", "|x", "sha256:" + "ab" * 32, "ghcr.io/acme/web:1.2",
    "ghcr.io/acme/web@sha256:" + "0" * 64, "1.2.3 # c", "1.2.3 #", "a\tb", "\u00e9",
    "\u00fc1.0", "\u00a0", "1.0\u00a0", "\u0085", "a\u2028b", "\u2029", "\ufeffa", "a\ufeff",
    "\x01", "a\x7fb", "\u0661", "\u00bd", "x" * 200, "\u65e5\u672c", "\U0001f680", "a\\b",
    "a\\nb", "a\t#b", "1.0\t# c", "1\t2", "null1", "1null", "truex", "~x", "0.", "0x1.8",
    "1__", "__", "_", "1.2.3-", "e", "E", "x1F", "o17", "b101",
]  # fmt: skip
ESCAPES = [
    r'"\x41"', r'"\u00e9"', r'"\U0001F680"', r'"\t"', r'"\\"', r'"\""', r'"\/"', r'"\N"',
    r'"\_"', r'"\L"', r'"\P"', r'"\e"', r'"\0"', r'"\a"', r'"\b"', r'"\v"', r'"\f"', r'"\r"',
    r'"\n"', r'"\ "', r'"a\	b"', '"a\tb"', r'"\q"', r'"\x4"', r'"\xZZ"', '"a', "'a", "'it''s'",
    "'it's'", "''", '""', "'''", '"a" b', "'a' #c", '"1.0" # c', '"1e3"', "'6063e25'",
    r'"\ud800"', r'"\udfff"', r'"\U00110000"', r'"\U0010FFFF"', r'"\'"', r'"a\'b"', "'a\tb'",
]  # fmt: skip
HEX = "0123456789abcdef"


def _shas(rng: random.Random) -> list[str]:
    """Hex SHAs of every length 1..40: random ones, all-digit ones (a number to every reader
    but YAML 1.1's leading-zero octal), ones with an ``e`` between digits (a float in YAML
    1.2 and Go) and upper-case ones."""
    out = []
    for length in range(1, 41):
        for _ in range(6):
            out.append("".join(rng.choice(HEX) for _ in range(length)))
        for _ in range(3):
            out.append("".join(rng.choice("0123456789") for _ in range(length)))
        out.append("0" + "".join(rng.choice("0123456789") for _ in range(length - 1)))
        if length >= 3:
            for _ in range(3):
                at = rng.randint(1, length - 2)
                digits = [rng.choice("0123456789") for _ in range(length)]
                digits[at] = rng.choice("eE")
                out.append("".join(digits))
        out.append("".join(rng.choice(HEX) for _ in range(length)).upper())
    return out


def _semver(rng: random.Random) -> str:
    core = ".".join(str(rng.choice([0, 1, 2, 9, 10, 17, 2024])) for _ in range(rng.randint(1, 3)))
    pre = rng.choice(["", "-rc.1", "-alpha", "-0", "-beta.2", "-" + _hex(rng, 7)])
    build = rng.choice(["", "+build.1", "+" + _hex(rng, 7), "+20240102"])
    return rng.choice(["", "v"]) + core + pre + build


def _hex(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(HEX) for _ in range(length))


def _number(rng: random.Random) -> str:
    """Text made of what numbers are made of: digits, signs, points, exponents, prefixes."""
    parts = [
        rng.choice(["", "", "+", "-"]),
        rng.choice(["", "", "", "0", "0x", "0o", "0b", "0X", "."]),
        "".join(rng.choice("0123456789_") for _ in range(rng.randint(0, 6))),
        rng.choice(["", "", ".", "." + str(rng.randint(0, 99))]),
        rng.choice(["", "", "e", "E", "e+", "e-"]) + rng.choice(["", str(rng.randint(0, 400))]),
        rng.choice(["", "", "", ":30", "_", "f", "a"]),
    ]
    return "".join(parts)


def _date(rng: random.Random) -> str:
    year = rng.choice(["2024", "2023", "1999", "0000", "202", "20245"])
    month = rng.choice(["1", "01", "02", "12", "13", "0", "00"])
    day = rng.choice(["1", "01", "28", "29", "30", "31", "32"])
    date = f"{year}-{month}-{day}"
    if rng.random() < 0.5:
        return date
    sep = rng.choice(["T", "t", " ", "  ", "_"])
    hms = ":".join(rng.choice(["0", "00", "9", "23", "24", "59", "60"]) for _ in range(3))
    frac = rng.choice(["", "", ".5", ".123456789", ",25", "."])
    zone = rng.choice(["", "", "Z", "+01:00", "-05:30", "+0100", " +01:00", "+24:00"])
    return date + sep + hms + frac + zone


def _noise(rng: random.Random) -> str:
    alphabet = "0123456789abcdefxoEe.:-+_ #,[]{}%@`?~|>'\"\t/"
    first = rng.choice(alphabet.replace(" ", "").replace("\t", ""))
    rest = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))
    return (first + rest).rstrip(" \t")


def single(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def double(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def inputs() -> list[str]:
    rng = random.Random(20260824)
    plain = [*BOOLEANS, *NULLS, *SPECIAL_FLOATS, *INTEGERS, *FLOATS, *DATES, *SEMVER, *WORDS]
    plain += _shas(rng)
    plain += [_semver(rng) for _ in range(200)]
    plain += [_number(rng) for _ in range(600)]
    plain += [_date(rng) for _ in range(300)]
    plain += [_noise(rng) for _ in range(400)]
    quoted = [
        f(t)
        for t in [*BOOLEANS, *NULLS, *INTEGERS[:40], *FLOATS[:30], *WORDS]
        for f in (single, double)
    ]
    return list(dict.fromkeys([*plain, *quoted, *ESCAPES]))


if __name__ == "__main__":
    for token in inputs():
        print(json.dumps(token, ensure_ascii=False))
