"""The inputs of the govaluate ``when`` vectors: edge cases and seeded random expressions.

``python tests/vectors/govaluate/inputs.py | (cd tests/vectors/govaluate && TZ=UTC go run .)``
``> tests/vectors/govaluate/vectors.jsonl`` regenerates the committed vectors with the real
library. :func:`subset_inputs` is text the local engine must accept (the subset's grammar,
rendered with and without spaces); the rest (edge cases, random RE2 patterns, one-character
mutations of subset text, random text over a wider alphabet) it must either evaluate exactly
or refuse.
"""

from __future__ import annotations

import itertools
import json
import random

WORDS = ["YES", "NO", "Y", "yes", "heads", "tails", "Succeeded", "Failed", "Error", "a", "b",
         "abc", "v2", "x_1", "True", "TRUE", "nil", "In", "ok", "Omitted"]  # fmt: skip
STRINGS = ["", "ok", "nope", "a b", "release-1.2", "v1.2.3", "10", "9", "1", "7.0", "true",
           "YES", "it's", "100%", "x\\y", "a.b", "é", "tab\there", "line\nbreak", "2024",
           "12", "Monday!", "v2.1", ' "q" ', "\u00a0"]  # fmt: skip
NUMBERS = ["0", "1", "7", "7.0", "1.5", ".5", "5.", "10", "9", "007", "1000000", "0.00001",
           "123456789", "3.14159", "0.1", "100", "2"]  # fmt: skip
PATTERNS = ["^v[0-9]", "hea", "tai", "^release-", "[0-9]+", "^$", "a|b", "(ab)+", "^[A-Z]+$",
            "\\d", "\\s", "x*", ".", "^(?:Y|YES)$", "[^a-z]", "\\bok\\b", "a{2,3}", "\\.",
            "^[a-z0-9_-]*$", "\\w+\\.\\w+", "ok$", "^.$", "[\\s]", "\\S", "(a|)b?", "[]a]",
            "e{0}", "^\\d{1,3}(\\.\\d+)?$", "[.]", "\\W", "\\D+", "x+?", "\\t", "é"]  # fmt: skip
PATTERN_PARTS = [*"ab.^$*+?{}()[]|-,02", "\\s", "\\S", "\\d", "\\w", "\\b", "\\.", "\\n", "[^",
                 "(?:", "{2}", "{1,3}", "{2,}", "\u00e9"]  # fmt: skip
SUBJECT_PARTS = [*"ab0 -\n\v\t.]2_", "\u00e9"]
EDGES = [
    "", " ", "\t", "\n", "\v", "\f", "  \n ", "\u00a0", "YES == YES", "NO == YES", "YES != NO",
    "'ok' == 'ok'", "'nok' == 'ok'", "ok == ok", "7 > 5", "3 > 5", "'10' > '9'", "1 == '1'",
    "7 == 7.0", "true && false", "YES == YES && 2 > 1", "!(1 > 2)", "1.5 > 1",
    "abc != abd && true", "'release-1.2' =~ '^release-'", "'v1.2.3' !~ '^v2'",
    "'2024-01-02' > '2024-01-01'", "Error in (Failed, Error)", "0x10 == 16", "abc > 5",
    "release-1.2 =~ '^release-'", "prod-eu == prod-eu", "1 + 1", "heads =~ hea",
    "tails =~ hea", "tails !~ hea", "a == b", "a", "'a'", "7", "-7", "-0", "- 3 < 0",
    "(-1) < 0", "-(1) < 0", "--1", "! true", "!true", "!false == true", "!!true",
    "! !true", "!(!true)", "!'x'", "!x", "!1", "!(1)", "!(a == a)", "!-1", "1 == -1",
    "1 ==-1", "1 == - 1", "x in (a)", "x in (x)", "x in (a, x)", "x in (a,x,b)",
    "1 in (1, 2)", "1 in ('1', 2)", "'1' in (1, '1')", "true in (false, true)",
    "x in ()", "x in (a,)", "x in a", "x in (a, (b))", "x IN (x, y)", "x in (-1, x)",
    "-1 in (-1, 2)", "(a, b)", "a, b", "a == b, c", "in", "in == in", "a in", "true",
    "false", "TRUE", "True == true", "true == 'true'", "5 && true", "true && 5",
    "false && 5", "true || 5", "5 || true", "'x' && 'y'", "'x' || false",
    "false || 'x'", "true && 'x' && 'y'", "'x' && true && 'y'", "false && 'x' && 'y'",
    "true && true && true && false", "a == a && b == b && c == c && d == d",
    "a == a || b == b || c == c || d == d", "a == b || b == b && c == d",
    "(a == b || b == b) && c == d", "x < y", "y < x", "x < 1", "1 < x", "'a' < 'b'",
    "'b' <= 'b'", "'B' < 'a'", "'é' > 'z'", "'' < 'a'", "true < false", "1 < true",
    "1.0 >= 1", ".5 == 0.5", "5. == 5", "007 == 7", "1.2.3 == 1", ". == 1", "1e5 > 1",
    "1E5 > 1", "0x1F == 31", "0X1F == 31", "0xZ == 1", "1_000 == 1000", "1abc == 1",
    "9999999999999999999999 > 1", "123456789 == 123456789", "123456789",
    "0.00001", "1000000", "100000", "0.0001", "3.14159", "1.5", "'a b' == 'a b'",
    "\"a\" == 'a'", "'a\" == 'a'", "'it\\'s' == \"it's\"", "'a\\nb' == 'anb'",
    "'a\\\\b' =~ '\\\\\\\\'", "'abc", "abc'", "'abc\\", "a\\ b == 'a b'", "a\\-b == x",
    "[a] == a", "[a b] == 'a b'", "a.b == a", "a. == a", "'a.b' == 'a.b'", "a.B == 1",
    "A.B == 1", "_a == _a", "a_ == a_", "é == é", "'é' == 'é'", "a ? b : c",
    "true ? b : c", "a ?? b", "nil ?? b", "a : b", "1 - 1 == 0", "2 * 2 == 4",
    "4 / 2 == 2", "5 % 2 == 1", "2 ** 3 == 8", "1 & 1 == 1", "1 | 0 == 1", "1 ^ 1 == 0",
    "1 << 2 == 4", "4 >> 1 == 2", "~1 == -2", "'a' + 'b' == 'ab'", "a + b == ab",
    "a = a", "a === a", "a <> b", "a =< b", "a => b", "a !== b", "a&&b", "a ==b",
    "a== b", "a&&!b", "true&&!false", "true && !false", "(a)", "((a))", "((a == a))",
    "(((true)))", "()", "(", ")", "(a == a", "a == a)", "((a == a) && (b == b))",
    "a b", "YES NO == YES", "a == b c", "f(x) == 1", "a(b)", "a == (b)", "(a) == b",
    "x =~ (a)", "x =~ 5", "x =~ true", "5 =~ 5", "5 =~ '5'", "true =~ 'true'",
    "x =~ ''", "x =~ '('", "x =~ '[a'", "x =~ 'a**'", "x =~ '*a'", "x =~ 'a{2}{3}'",
    "x =~ '(?i)X'", "x =~ '(?=x)'", "x =~ '(?P<n>x)'", "x =~ '\\\\pL'", "x =~ '\\\\Z'",
    "x =~ '\\\\z'", "x =~ '\\\\A'", "x =~ '\\\\B'", "x =~ '\\\\Qx\\\\E'", "x =~ '[[:alpha:]]'",
    "x =~ 'x{,3}'", "x =~ 'x{1001}'", "x =~ 'x{1000}'", "x =~ 'x{3,2}'", "x =~ 'x{01}'",
    "x =~ '(x{10}){200}'", "x =~ '(x+)*'", "x =~ '(^)*'", "x =~ '()'", "x =~ '[a-]'",
    "x =~ '[-a]'", "x =~ '[a-c-e]'", "x =~ '[z-a]'", "x =~ '[a&&b]'", "x =~ '[a--b]'",
    "x =~ '\\\\1'", "x =~ '(x)\\\\1'", "x =~ 'a{'", "x =~ 'a}'", "x =~ ']'",
    "x =~ '\\\\x41'", "'a\nb' =~ 'a$'", "'a\n' =~ 'a$'", "'a\n' =~ '^a'", "'\n' =~ '.'",
    "'\v' =~ '\\\\s'", "'\t' =~ '\\\\s'", "'\r' =~ '.'", "'ab' =~ '\\\\bb'",
    "'a b' =~ '\\\\bb'", "'é' =~ '\\\\w'", "'é' =~ '^.$'", "'é' =~ '\\\\W'",
    "'' =~ '\\\\B'", "'' =~ '^$'", "'x' =~ '[^\\\\d]'", "'5' =~ '[\\\\d]'",
    "'2024-01-01' == x", "'2024-1-1' == x", "'2024' == x", "'12:30' == x",
    "'3:04PM' == x", "'Mon Jan  2 15:04:05 2006' == x", "'Monday' == x", "'mon x' == x",
    "'999-01-01' == x", "'+999-01-01' == x", "' 2024-01-01' == x", "'20240101' == x",
    "'1:2' == x", "'10:00' == x", "x =~ '2024-01-01'", "'T10' == x",
    "{{a}} == b", "a =~ {{b}}", "a == b && c", "a && b", "!a == b", "a == !b",
    "a == !true", "!true == a", "a != !(b == c)", "a < b && b < c", "a<b", "a <b",
    "a< b", "'x'=='x'", "1==1", "1>=1&&2<=2", "YES==YES||NO", "(YES)==(YES)",
    "a =~ b =~ c", "a == b != c", "a in (b) in (c)", "a < b < c", "\u00e9",
    "a\u00a0== a", "a ==\u2003a", "'x' == 'x' \u00a0", "a\x1c== a",
]  # fmt: skip


def _quote(text: str, rng: random.Random) -> str:
    """Quoted for govaluate: either quote ends a string, so both are escaped inside."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"')
    return '"' + escaped + '"' if rng.random() < 0.3 else "'" + escaped + "'"


class _Subset:
    """Random expressions of the subset, as token lists: mostly well typed (so that most
    evaluate to true or false), with a share of mixed types (govaluate's type errors)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, kind: str = "") -> list[str]:
        kind = kind or self.rng.choice(["word", "quoted", "number", "bool"])
        if kind == "word":
            return [self.rng.choice(WORDS)]
        if kind == "quoted":
            return [_quote(self.rng.choice(STRINGS + WORDS), self.rng)]
        if kind == "number":
            number = self.rng.choice(NUMBERS)
            return ["-", number] if self.rng.random() < 0.2 else [number]
        return [self.rng.choice(["true", "false"])]

    def typed(self, kind: str) -> list[str]:
        """A value of ``kind`` (``word`` and ``quoted`` are both strings), now and then not."""
        if self.rng.random() < 0.12:
            return self.value()
        if kind in ("word", "quoted"):
            kind = self.rng.choice(["word", "quoted"])
        return self.value(kind)

    def comparison(self, depth: int) -> list[str]:
        pick, kind = self.rng.random(), self.rng.choice(["word", "quoted", "number", "bool"])
        if pick < 0.4:
            ops = ["==", "!="] if kind == "bool" else ["==", "!=", "<", "<=", ">", ">="]
            return [*self.typed(kind), self.rng.choice(ops), *self.typed(kind)]
        if pick < 0.6:
            pattern = self.rng.choice(PATTERNS)
            simple = pattern.isascii() and pattern.isalnum() and self.rng.random() < 0.5
            right = pattern if simple else _quote(pattern, self.rng)
            left = self.typed("word")
            return [*left, self.rng.choice(["=~", "!~", "=~"]), right]
        if pick < 0.75:
            items: list[str] = []
            for index in range(self.rng.randint(1, 4)):
                items += ([","] if index else []) + self.typed(kind)
            return [*self.typed(kind), self.rng.choice(["in", "in", "IN"]), "(", *items, ")"]
        if pick < 0.85 and depth > 0:
            inner = ["(", *self.expr(depth - 1), ")"]
            return ["!", *inner] if self.rng.random() < 0.4 else inner
        if pick < 0.9:
            return ["!", self.rng.choice(["true", "false", "true", "false", *NUMBERS])]
        return self.typed("bool")

    def expr(self, depth: int) -> list[str]:
        parts = self.comparison(depth)
        for _ in range(self.rng.choice([0, 0, 1, 1, 1, 2, 3])):
            parts += [self.rng.choice(["&&", "||"]), *self.comparison(depth - 1)]
        return parts


def _kind(token: str) -> str:
    if token[0] in "'\"(),":
        return token[0]
    return "word" if token[0].isalnum() or token[0] == "." else "symbol"


def _render(tokens: list[str], rng: random.Random, tight: float) -> str:
    """Tokens joined by spaces; where govaluate would still split them, sometimes none."""
    out = tokens[0]
    for before, after in itertools.pairwise(tokens):
        kinds = (_kind(before), _kind(after))
        merges = kinds in (("word", "word"), ("symbol", "symbol"))
        merges = merges or (kinds[0] == "symbol" and after[0] == ".")
        out += ("" if not merges and rng.random() < tight else rng.choice([" ", " ", "  "])) + after
    return out


def subset_inputs() -> list[str]:
    rng = random.Random(20260507)
    grammar = _Subset(rng)
    out = [_render(grammar.expr(rng.randint(0, 2)), rng, rng.random()) for _ in range(1800)]
    return list(dict.fromkeys(out))


def pattern_inputs() -> list[str]:
    """``'subject' =~ 'pattern'`` with random RE2 text (many patterns are refused)."""
    rng = random.Random(20260509)
    out = []
    for _ in range(600):
        pattern = "".join(rng.choice(PATTERN_PARTS) for _ in range(rng.randint(1, 7)))
        subject = "".join(rng.choice(SUBJECT_PARTS) for _ in range(rng.randint(0, 5)))
        out.append(f"{_quote(subject, rng)} {rng.choice(['=~', '!~'])} {_quote(pattern, rng)}")
    return out


def inputs() -> list[str]:
    rng = random.Random(20260508)
    subset = subset_inputs()
    out = [*EDGES, *subset, *pattern_inputs()]
    alphabet = [*"abYESNOtrufl01279.,()[]'\"\\!=<>~&|+-*/%^?:_ \t", "\u00e9", "in "]
    for text in rng.sample(subset, 500):  # one character off the subset
        pos = rng.randrange(len(text))
        change = rng.choice(["insert", "delete", "replace"])
        char = rng.choice(alphabet)
        tail = text[pos:] if change == "insert" else text[pos + 1 :]
        out.append(text[:pos] + ("" if change == "delete" else char) + tail)
    for _ in range(400):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))))
    return list(dict.fromkeys(out))


if __name__ == "__main__":
    for text in inputs():
        print(json.dumps(text, ensure_ascii=False))
