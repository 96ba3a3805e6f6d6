"""The inputs of the Go template vectors: hand-picked and generated templates over fixed data.

``python tests/vectors/gotemplate/inputs.py | (cd tests/vectors/gotemplate &&``
``GOTOOLCHAIN=go1.25.5 TZ=UTC go run .)``
``> tests/vectors/gotemplate/vectors.jsonl`` regenerates the committed vectors with Go's
text/template and sprig at the versions Argo CD v3.2.12 builds with. Two fixtures come first
(the data every generated case starts from, and the live Application); then the cases:
the template language, fmt's printing, the builtins, sprig family by family, errors,
seeded random pipelines, and every template of the notifications catalog and of the
operator manual's example ConfigMap rendered for the live Application. Functions that read the clock
or random numbers, and ``keys``/``values`` over maps of more than one key (Go's map order is
random), are left out; their tests check properties instead.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REFDATA = Path(__file__).resolve().parents[2] / "refdata" / "argo-cd"

BASE: dict[str, Any] = {
    "s": "hello",
    "e": "",
    "n": 42,
    "z": 0,
    "neg": -7,
    "one": 1,
    "f": 3.5,
    "fi": 2.0,
    "tiny": 0.000001234,
    "huge": 12345678.9,
    "t": True,
    "fl": False,
    "nil": None,
    "list": [1, 2, 3],
    "slist": ["b", "a", "c"],
    "mixed": [1, "a", None, 2.5, True, {"k": "v"}, [1]],
    "el": [],
    "map": {"b": 2, "a": 1, "c": {"d": "x"}},
    "em": {},
    "nested": {"a": {"b": {"c": "deep"}}, "n": None, "l": [{"x": 1}, {"x": 2}]},
    "html": "<a href='x'>&\"</a>",
    "uni": "héllo wörld ✓",
    "ws": "  padded \t\n",
    "num": "123",
    "fnum": "1.50",
    "csv": "a,b,,c",
    "path": "/a/b/c.txt",
    "url": "https://user:pw@example.com:8080/p/a?q=1&r=2#frag",
    "ver": "1.2.3",
    "pre": "2.0.0-rc.1",
    "ts": "2024-03-04T21:30:33Z",
    "tsn": "2024-03-04T21:30:33.123456789+02:00",
    "unix": 1709587833,
    "json": '{"a":1,"b":[true,null],"c":"x"}',
    "b64": "aGVsbG8gd29ybGQ=",
    "multi": "line1\nline2\nline3",
    "words": "The quick brown fox jumps over the lazy dog",
    "conds": [{"type": "A", "message": "m1"}, {"type": "B", "message": "m2"}],
    "idx": 1,
    "camel": "someHTTPServerName",
    "snake": "some_snake_case-name here",
    "quote": 'say "hi"',
    "tab": "a\tb",
    "ctrl": "bell\x07",
}

VALUE_PATHS = [f".{k}" for k in BASE] + [
    ".map.c",
    ".map.c.d",
    ".nested.a.b",
    ".nested.n",
    ".missing",
    ".map.missing",
    ".nested.a.missing",
    "$",
    ".",
]


def case(
    text: str, *, name: str = "t", data: Any = None, base: bool = True, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "text": text}
    if data is not None:
        out["data"] = data
    if base:
        out["base"] = "base"
    out.update(extra)
    return out


# -- the template language ---------------------------------------------------------------------

LANGUAGE = [
    "",
    "plain text",
    "{{.s}}",
    "{{ .s }}",
    "a{{/* comment */}}b",
    "a {{- /* c */ -}} b",
    "{{/* unclosed",
    "{{/*c*/ }}",
    "x  {{- .s -}}  y",
    "x {{- .s}} y",
    "x {{.s -}} y",
    "{{-.n}}",
    "{{- .n}}",
    "{{.n -}}\n\n",
    "{{ -3 }}",
    "{{-3}}",
    "{{ .s}}{{.e}}|",
    "{{.s}} {{.s}}",
    "{{.missing}}",
    "{{.nil}}",
    "{{.nil.x}}",
    "{{.missing.x}}",
    "{{.map.missing.x}}",
    "{{.s.x}}",
    "{{.n.x}}",
    "{{.list.x}}",
    "{{$}}",
    "{{.}}",
    "{{.map}}",
    "{{.em}}",
    "{{.el}}",
    "{{.mixed}}",
    "{{.nested}}",
    "{{.t}} {{.fl}}",
    "{{true}} {{false}}",
    "{{nil}}",
    "{{ 1 }} {{ 1.5 }} {{ 0x1F }} {{ 1e3 }} {{ 'a' }}",
    "{{ 1_000 }}",
    "{{ 0o17 }} {{ 0b101 }} {{ 017 }}",
    "{{ .5 }}",
    "{{ 1. }}",
    "{{ -0 }}",
    "{{ +5 }}",
    "{{ 1e21 }}",
    "{{ 9223372036854775807 }}",
    "{{ 9223372036854775808 }}",
    "{{ 18446744073709551616 }}",
    "{{ 0x1p4 }}",
    "{{ 1i }}",
    "{{ 08 }}",
    "{{ 1a }}",
    "{{ 'ab' }}",
    "{{ '\\n' }}",
    "{{ '\\x41' }}",
    '{{ "a\\tb" }}',
    "{{ `raw\\n` }}",
    '{{ "\\u00e9" }}',
    '{{ "bad\\q" }}',
    '{{ "unterminated }}',
    "{{ `unterminated }}",
    '{{ .s | printf "%s!" }}',
    '{{ .n | printf "%d-%d" 1 }}',
    "{{ .s | len }}",
    '{{ "x" | printf "%s%s" "y" }}',
    "{{ .s | .n }}",
    "{{ 3 | 4 }}",
    "{{ .s | 3 }}",
    "{{ (.s) }}",
    "{{ (.map).c.d }}",
    "{{ (index .nested.l 0).x }}",
    "{{ (1).x }}",
    "{{ (nil).x }}",
    "{{ (.missing).x }}",
    "{{ (.nil).x }}",
    "{{ (.s).x }}",
    "{{ $x := .s }}{{ $x }}",
    "{{ $x := .s }}{{ $x = .n }}{{ $x }}",
    "{{ $x = 1 }}",
    "{{ $x }}",
    "{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}",
    "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
    "{{ $x := .map }}{{ $x.c.d }}",
    "{{ $.s }}",
    "{{ $.map.c.d }}",
    "{{ $x := 1 }}{{ $x.y }}",
    "{{ $x := .nil }}{{ $x }}",
    "{{ $x := .nil }}{{ $x.y }}",
    "{{ $x := .missing }}{{ $x.y }}",
    "{{ $x, $y := 1 }}",
    "{{ $a := 1 }}{{ $b := 2 }}{{ $a }}{{ $b }}",
    "{{ if .t }}yes{{ end }}",
    "{{ if .fl }}yes{{ else }}no{{ end }}",
    "{{ if .missing }}yes{{ else }}no{{ end }}",
    "{{ if .nil }}yes{{ else }}no{{ end }}",
    "{{ if .e }}y{{ else if .s }}s{{ else }}n{{ end }}",
    "{{ if .e }}y{{ else if .z }}z{{ else if .el }}l{{ else }}n{{ end }}",
    "{{ if .el }}y{{ else }}n{{ end }}",
    "{{ if .em }}y{{ else }}n{{ end }}",
    "{{ if .z }}y{{ else }}n{{ end }}",
    "{{ if .f }}y{{ else }}n{{ end }}",
    "{{ if .map }}y{{ end }}",
    "{{ if }}x{{ end }}",
    "{{ if .t }}x",
    "{{ end }}",
    "{{ else }}",
    "{{ if .t }}a{{ else }}b{{ else }}c{{ end }}",
    "{{ with .s }}[{{ . }}]{{ end }}",
    "{{ with .e }}[{{ . }}]{{ else }}empty{{ end }}",
    "{{ with .map.c }}{{ .d }}{{ end }}",
    "{{ with .missing }}x{{ else }}{{ .s }}{{ end }}",
    "{{ with $x := .map }}{{ $x.a }}{{ end }}",
    "{{ with .e }}a{{ else with .s }}{{.}}{{ end }}",
    "{{ with .e }}a{{ else with .z }}b{{ else }}c{{ end }}",
    "{{ range .list }}{{ . }},{{ end }}",
    "{{ range .slist }}{{ . }}{{ end }}",
    "{{ range $i, $e := .slist }}{{ $i }}:{{ $e }} {{ end }}",
    "{{ range $e := .slist }}{{ $e }}{{ end }}",
    "{{ range .map }}{{ . }};{{ end }}",
    "{{ range $k, $v := .map }}{{ $k }}={{ $v }} {{ end }}",
    "{{ range .el }}x{{ else }}empty{{ end }}",
    "{{ range .em }}x{{ else }}empty{{ end }}",
    "{{ range .missing }}x{{ else }}none{{ end }}",
    "{{ range .nil }}x{{ else }}none{{ end }}",
    "{{ range .s }}x{{ end }}",
    "{{ range .n }}{{ . }}{{ end }}",
    "{{ range 3 }}{{ . }}{{ end }}",
    "{{ range $i, $e := 3 }}{{ $i }}{{ end }}",
    "{{ range .t }}x{{ end }}",
    "{{ range .f }}x{{ end }}",
    "{{ range .mixed }}[{{ . }}]{{ end }}",
    "{{ range .conds }}{{ .type }}={{ .message }};{{ end }}",
    "{{ range $i, $c := .conds }}{{ if $i }}, {{ end }}{{ $c.type }}{{ end }}",
    "{{ range .list }}{{ if eq . 2 }}{{ break }}{{ end }}{{ . }}{{ end }}",
    "{{ range .list }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ . }}{{ end }}",
    "{{ break }}",
    "{{ continue }}",
    "{{ range .list }}{{ break 1 }}{{ end }}",
    "{{ range .list }}{{ $.s }}{{ end }}",
    "{{ range .nested.l }}{{ .x }}{{ end }}",
    "{{ range .mixed }}{{ .k }}{{ end }}",
    "{{ range $i, $e := .map }}{{ $i }}{{ end }}",
    "{{ range $x := .list }}{{ end }}{{ $x }}",
    "{{ range $a, $b, $c := .list }}{{ end }}",
    "{{ range $a, 1 := .list }}{{ end }}",
    "{{ $v := 0 }}{{ range .list }}{{ $v = . }}{{ end }}{{ $v }}",
    "{{ range .list }}{{ range $.slist }}{{ . }}{{ end }}|{{ end }}",
    '{{ define "x" }}X{{ . }}X{{ end }}{{ template "x" .s }}',
    '{{ define "x" }}[{{ .d }}]{{ end }}{{ template "x" .map.c }}',
    '{{ template "nope" }}',
    '{{ define "x" }}{{ $ }}{{ end }}{{ template "x" 5 }}',
    '{{ define "x" }}{{ .missing }}{{ end }}{{ template "x" }}',
    '{{ block "b" .s }}<{{ . }}>{{ end }}',
    '{{ block "b" . }}{{ .n }}{{ end }}',
    '{{ define "x" }}a{{ end }}{{ define "x" }}b{{ end }}',
    '{{ define "x" }}{{ end }}{{ define "x" }}b{{ end }}{{ template "x" }}',
    '{{ define "t" }}inner{{ end }}outer',
    '{{ define "t" }}inner{{ end }}',
    "{{ define x }}{{ end }}",
    "{{ template x }}",
    '{{ template "x" 1 2 }}',
    '{{ define "x" }}{{ index . 1 }}{{ end }}{{ template "x" .list }}',
    '{{ define "x" }}{{ .nope.x }}{{ end }}{{ template "x" .nil }}',
    "{{ .s.x.y }}",
    "{{ .map.a.b }}",
    "{{ .conds.type }}",
    "{{ .s 1 }}",
    "{{ .map.a 1 }}",
    "{{ $x := .s }}{{ $x 1 }}",
    "{{ 1 2 }}",
    '{{ "a" "b" }}',
    "{{ true 1 }}",
    "{{ . 1 }}",
    "{{ nil 1 }}",
    "{{ (1) 2 }}",
    "{{ foo }}",
    "{{ .s | foo }}",
    "{{ printf }}",
    "{{ len }}",
    "{{ len 1 2 }}",
    "{{ index }}",
    "{{ not }}",
    "{{ .s | not 1 }}",
    "{{ and }}",
    "{{ eq }}",
    "{{ eq 1 }}",
    "{{",
    "}}",
    "{{ .s",
    "{{ .s }",
    "{{ .s }}}",
    "{{ ( .s }}",
    "{{ .s ) }}",
    "{{ () }}",
    "{{ | }}",
    "{{ .s | }}",
    "{{ | .s }}",
    "{{ .s .n }}",
    "{{ $ := 1 }}",
    "{{ :=  }}",
    "{{ .s := 1 }}",
    "{{ $x := }}",
    "{{ $x : 1 }}",
    "{{ .s ! }}",
    "{{ .s+1 }}",
    "{{ $x+2 }}",
    "{{ .a-b }}",
    "{{ .a.b.c-d }}",
    "{{ # }}",
    "{{ .s\x01 }}",
    "{{ é }}",
    "{{ .é }}",
    "{{ $é := 1 }}{{ $é }}",
    "line1\n{{ .s\n}}",
    "line1\n{{\n.s\n}}",
    "line1\nline2 {{ if }}",
    "a\n\nb {{ .x.y.z | nope }}",
    "{{ if .t }}\n{{ .s }}\n",
    "{{ range .list }}",
    "{{ with .s }}",
    '{{ define "x" }}',
    "x{{ end }}y",
    '{{ if .t }}{{ define "y" }}{{ end }}{{ end }}',
    "{{ else if .t }}",
    "{{ if .t }}{{ else if }}{{ end }}",
    "{{ with .s }}{{ else if .t }}{{ end }}",
    "{{ range .list }}{{ else if .t }}{{ end }}",
    '{{ 1 | printf "%d" }}',
    '{{ "x" | nil }}',
    "{{ .s | true }}",
    "{{ .s | . }}",
    "{{ .s | $ }}",
    '{{ .s | (printf "%s") }}',
    '{{ printf "%s" .s | len }}',
    '{{ "abc" | printf "%q" | printf "%s%s" "x" }}',
    "{{ $x := 1 }}{{ $x := 2 }}{{ $x }}",
    "{{ with $x := 3 }}{{ $x }}{{ end }}{{ $x }}",
    "{{ /* not a comment */ }}",
    "{{/* a */}}{{/* b */}}",
    "{{- /* trimmed */ -}}",
    "{{/*\nmulti\nline\n*/}}x",
    "{{- /* bad */}}",
    "{{ /* c */ .s }}",
    "{{/**/}}ok",
    "{{ .s }}\n{{- .n }}\n",
    "  {{- if .t -}}  yes  {{- end -}}  ",
    '{{- "a" -}}',
    "{{ print -}} x",
    "a {{- 3 -}} b",
    "{{.s -}}\n\n\tz",
    "\t{{- .s}}",
]

COMPARE_OPERANDS = [
    "1",
    "2",
    "1.0",
    "2.5",
    '"a"',
    '"b"',
    "true",
    "false",
    ".n",
    ".z",
    ".neg",
    ".one",
    ".f",
    ".fi",
    ".s",
    ".e",
    ".t",
    ".missing",
    ".nil",
    ".map",
    ".list",
    "'a'",
    "-1",
    "nil",
    ".idx",
]


def comparisons() -> Iterator[str]:
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        for a, b in itertools.product(COMPARE_OPERANDS, repeat=2):
            if (
                zlib.crc32(f"{op} {a} {b}".encode()) % 3
                and a not in (".n", "1", '"a"')
                and b not in (".one", "1.0")
            ):
                continue
            yield f"{{{{ {op} {a} {b} }}}}"
    yield "{{ eq 1 2 3 1 }}"
    yield '{{ eq .s "x" "hello" }}'
    yield "{{ eq .n 1 2 42 }}"
    yield '{{ eq 1 "a" 1 }}'
    yield "{{ eq .list .list }}"
    yield "{{ eq .map .map }}"


LOGIC = [
    "{{ and 1 0 }}",
    "{{ and 1 2 }}",
    "{{ and .s .e }}",
    "{{ and .s .n }}",
    "{{ or 0 .e .s }}",
    "{{ or 0 .e }}",
    "{{ or .missing 5 }}",
    "{{ and .missing 5 }}",
    "{{ or .nil .s }}",
    "{{ not .t }}",
    "{{ not .e }}",
    "{{ not .missing }}",
    "{{ not .list }}",
    "{{ not 0 }}",
    "{{ and .t (not .fl) }}",
    '{{ or (eq .s "x") (eq .n 42) }}',
    "{{ .s | and 1 }}",
    "{{ .e | or 1 }}",
    "{{ and }}",
    "{{ or 1 }}",
    "{{ and .nil.x 1 }}",
    "{{ or 1 .nil.x }}",
    "{{ and 0 .nil.x }}",
    "{{ if and .s .n }}y{{ end }}",
    "{{ if or .e .z }}y{{ else }}n{{ end }}",
]

BUILTIN_FUNCS = [
    "{{ index .list 0 }}",
    "{{ index .list 2 }}",
    "{{ index .list 3 }}",
    "{{ index .list -1 }}",
    "{{ index .list .idx }}",
    "{{ index .list 1.0 }}",
    '{{ index .list "0" }}',
    "{{ index .list .missing }}",
    '{{ index .map "a" }}',
    '{{ index .map "zz" }}',
    "{{ index .map 1 }}",
    '{{ index .map "c" "d" }}',
    '{{ index .nested "a" "b" "c" }}',
    "{{ index .s 1 }}",
    "{{ index .s 5 }}",
    "{{ index .uni 1 }}",
    "{{ index .n 0 }}",
    "{{ index .missing 0 }}",
    "{{ index .nil 0 }}",
    '{{ index .mixed 5 "k" }}',
    "{{ index .mixed 2 }}",
    "{{ index .mixed 2 0 }}",
    "{{ index .list }}",
    "{{ index 1 }}",
    '{{ index .conds 1 "message" }}',
    "{{ (index .conds 0).type }}",
    '{{ index .em "x" }}',
    "{{ slice .list 1 }}",
    "{{ slice .list 1 2 }}",
    "{{ slice .list 0 3 }}",
    "{{ slice .list 2 1 }}",
    "{{ slice .list 0 1 2 }}",
    "{{ slice .s 1 3 }}",
    "{{ slice .s 1 2 3 }}",
    "{{ slice .s }}",
    "{{ slice .list }}",
    "{{ slice .n 1 }}",
    "{{ slice .missing 1 }}",
    "{{ slice .s 0 1 2 3 }}",
    "{{ slice .s -1 }}",
    "{{ slice .s 6 }}",
    "{{ slice .uni 0 2 }}",
    "{{ slice .list 5 }}",
    "{{ len .s }}",
    "{{ len .uni }}",
    "{{ len .list }}",
    "{{ len .map }}",
    "{{ len .el }}",
    "{{ len .n }}",
    "{{ len .missing }}",
    "{{ len .nil }}",
    "{{ len .t }}",
    "{{ len 1 }}",
    '{{ len "abc" }}',
    "{{ html .html }}",
    "{{ html .s .n }}",
    '{{ html "\\x00" }}',
    "{{ js .html }}",
    "{{ js .uni }}",
    '{{ js "a\\nb=c" }}',
    "{{ js .ctrl }}",
    "{{ urlquery .html }}",
    '{{ urlquery .uni "x y" }}',
    '{{ urlquery "a b&c=d/e?f" }}',
    "{{ html }}",
    '{{ js 1 2 "x" }}',
    "{{ urlquery .nil }}",
    "{{ html .missing }}",
    "{{ print }}",
    "{{ print .s .n }}",
    "{{ print .n .n }}",
    "{{ print .s .s }}",
    '{{ print 1 2 "a" 3 "b" "c" 4.5 }}',
    "{{ print .nil }}",
    "{{ print .missing }}",
    "{{ print .map .list }}",
    "{{ println }}",
    "{{ println .s .n }}",
    "{{ println .nil 1 }}",
    "{{ call .s }}",
    "{{ call .missing }}",
    "{{ call .nil }}",
    "{{ call }}",
]

PRINTF_VERBS = [
    "%v",
    "%+v",
    "%#v",
    "%d",
    "%s",
    "%q",
    "%x",
    "%X",
    "%o",
    "%b",
    "%e",
    "%E",
    "%f",
    "%.2f",
    "%g",
    "%G",
    "%t",
    "%c",
    "%U",
    "%T",
    "%5d",
    "%-5d|",
    "%05d",
    "%+d",
    "% d",
    "%8.3f",
    "%-8s|",
    "%8s",
    "%.2s",
    "%08.3f",
    "%x %X",
    "%%",
    "%",
    "%!",
    "%z",
    "%[1]v %[1]v",
    "%[2]v",
    "%*d",
    "%.*f",
    "%#x",
    "%#o",
    "%#q",
    "% x",
    "%+q",
    "%6.2v",
    "%.0f",
    "%.3g",
    "%10.4e",
    "%-10v|",
]
PRINTF_ARGS = [
    ".s",
    ".n",
    ".neg",
    ".z",
    ".f",
    ".fi",
    ".tiny",
    ".huge",
    ".t",
    ".nil",
    ".missing",
    ".list",
    ".slist",
    ".map",
    ".mixed",
    ".uni",
    ".html",
    ".em",
    ".el",
    "1",
    "1.5",
    '"x"',
    "'a'",
    ".quote",
    ".tab",
    ".nested",
]


def printf_cases() -> Iterator[str]:
    rng = random.Random(7)
    for verb in PRINTF_VERBS:
        for arg in PRINTF_ARGS:
            if rng.random() < 0.55 and arg not in (".s", ".n", ".f", ".map"):
                continue
            yield f"{{{{ printf {json.dumps(verb)} {arg} }}}}"
    yield '{{ printf "%d %d" 1 }}'
    yield '{{ printf "%d" 1 2 }}'
    yield '{{ printf "%s and %s" .s .uni }}'
    yield '{{ printf "%v|%v|%v" .nil .missing .e }}'
    yield '{{ printf "%*d" 5 3 }}'
    yield '{{ printf "%-*d|" 5 3 }}'
    yield '{{ printf "%.*f" 2 3.14159 }}'
    yield '{{ printf "%[2]d %[1]d" 1 2 }}'
    yield '{{ printf "%[3]d" 1 2 }}'
    yield '{{ printf "%d%%" 50 }}'
    yield "{{ printf .s }}"
    yield "{{ printf 1 }}"
    yield '{{ printf "%v" (list 1 "a" nil) }}'
    yield '{{ printf "%s" (list 1 "a") }}'
    yield '{{ printf "%d" (list 1 "a") }}'
    yield '{{ printf "%v" (dict "a" 1 "b" (list 2 3)) }}'


def value_prints() -> Iterator[str]:
    for path in VALUE_PATHS:
        yield "{{ " + path + " }}"
        yield "{{ print " + path + " }}"
    for number in [
        "1.0",
        "1e6",
        "123456.0",
        "1234567.0",
        "0.0001",
        "0.00001",
        "1e20",
        "1e21",
        "-0.0",
        "100000000000000000000000.0",
        "3.0e-10",
        "2.5e5",
        "1e-7",
        "0.1",
        "0.30000000000000004",
        "123456789.125",
        "1e100",
        "5e-324",
    ]:
        yield "{{ " + number + " }}"
        yield '{{ printf "%v %g %e %f" ' + " ".join([number] * 4) + " }}"
        yield "{{ toJson " + number + " }}"


RANDOM_FUNCS = {
    "upper": 1,
    "lower": 1,
    "title": 1,
    "trim": 1,
    "quote": 1,
    "squote": 1,
    "len": 1,
    "toString": 1,
    "toJson": 1,
    "default": 2,
    "empty": 1,
    "coalesce": 2,
    "ternary": 3,
    "eq": 2,
    "ne": 2,
    "lt": 2,
    "ge": 2,
    "and": 2,
    "or": 2,
    "not": 1,
    "index": 2,
    "print": 2,
    "printf": 2,
    "add": 2,
    "sub": 2,
    "mul": 2,
    "max": 2,
    "int": 1,
    "int64": 1,
    "float64": 1,
    "first": 1,
    "last": 1,
    "rest": 1,
    "list": 2,
    "dict": 2,
    "hasKey": 2,
    "get": 2,
    "contains": 2,
    "hasPrefix": 2,
    "replace": 3,
    "trunc": 2,
    "repeat": 2,
    "join": 2,
    "splitList": 2,
    "has": 2,
    "kindOf": 1,
    "typeOf": 1,
    "html": 1,
    "js": 1,
    "urlquery": 1,
    "b64enc": 1,
    "cat": 2,
    "indent": 2,
    "nospace": 1,
    "sortAlpha": 1,
    "uniq": 1,
    "slice": 2,
    "toStrings": 1,
    "atoi": 1,
    "until": 1,
    "seq": 1,
    "abbrev": 2,
    "plural": 3,
}
RANDOM_ATOMS = [
    ".s",
    ".e",
    ".n",
    ".z",
    ".neg",
    ".f",
    ".fi",
    ".t",
    ".fl",
    ".nil",
    ".missing",
    ".list",
    ".slist",
    ".mixed",
    ".el",
    ".map",
    ".em",
    ".nested",
    ".num",
    ".csv",
    "$",
    ".",
    "1",
    "0",
    "-2",
    "2.5",
    '"a"',
    '""',
    '"x,y"',
    "true",
    "false",
    "nil",
    "'c'",
    ".map.a",
    ".map.c",
    ".nested.a.b",
    ".uni",
    ".conds",
    "$.s",
]


def random_expression(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.35:
        return rng.choice(RANDOM_ATOMS)
    name = rng.choice(sorted(RANDOM_FUNCS))
    arity = RANDOM_FUNCS[name] + rng.choice([0, 0, 0, 0, 1, -1])
    args = [random_expression(rng, depth - 1) for _ in range(max(arity, 0))]
    if name == "printf" and args:
        args[0] = rng.choice(['"%v"', '"%d|%s"', '"%q"', '"%5.1f"', '"%x"', '"%t"'])
    inner = " ".join([name, *args])
    return f"({inner})"


def random_templates(count: int) -> Iterator[str]:
    """Seeded random pipelines, conditions and loops over the base data."""
    rng = random.Random(20260315)
    for _ in range(count):
        expr = random_expression(rng, 3)[1:-1] if rng.random() < 0.8 else rng.choice(RANDOM_ATOMS)
        shape = rng.random()
        if shape < 0.5:
            yield f"{{{{ {expr} }}}}"
        elif shape < 0.65:
            yield f"{{{{ if {expr} }}}}T{{{{ else }}}}F{{{{ end }}}}"
        elif shape < 0.75:
            yield f"{{{{ with {expr} }}}}[{{{{ . }}}}]{{{{ else }}}}none{{{{ end }}}}"
        elif shape < 0.85:
            yield f"{{{{ range $i, $e := {expr} }}}}{{{{ $i }}}}={{{{ $e }}}};{{{{ end }}}}"
        else:
            other = random_expression(rng, 2)[1:-1]
            yield (
                f"{{{{ {expr} | {other} }}}}"
                if rng.random() < 0.5
                else (f"{{{{ $v := {expr} }}}}{{{{ $v }}}}/{{{{ {other} }}}}")
            )


# -- sprig ---------------------------------------------------------------------------------

STRING_ARGS = [
    ".s",
    ".uni",
    ".ws",
    ".e",
    ".words",
    ".camel",
    ".snake",
    ".html",
    ".multi",
    '"Hello World"',
    '"  x  "',
    '"ABC def"',
    '"a-b_c d"',
    '"http_server"',
    '"HTTPServer"',
    '"x"',
    ".num",
    ".csv",
]


def sprig_strings() -> Iterator[str]:
    one_arg = [
        "upper",
        "lower",
        "title",
        "untitle",
        "trim",
        "nospace",
        "initials",
        "swapcase",
        "snakecase",
        "kebabcase",
        "camelcase",
        "quote",
        "squote",
        "toString",
        "b64enc",
        "b32enc",
        "sha1sum",
        "sha256sum",
        "adler32sum",
        "regexQuoteMeta",
        "base",
        "dir",
        "ext",
        "clean",
        "isAbs",
        "toJson",
        "toRawJson",
        "toPrettyJson",
        "html",
        "js",
        "urlquery",
        "len",
    ]
    for fn in one_arg:
        for arg in STRING_ARGS:
            yield f"{{{{ {fn} {arg} }}}}"
    for fn, args in [
        ("trunc", ["3 .s", "-3 .s", "0 .s", "10 .s", "2 .uni", ".n .s", "-100 .s"]),
        ("abbrev", ["5 .words", "3 .words", "100 .words", "4 .s", "10 .e"]),
        ("abbrevboth", ["5 10 .words", "0 10 .words", "1 4 .words", "20 10 .words"]),
        ("substr", ["0 3 .s", "1 -1 .s", "-1 2 .s", "2 100 .s", "3 1 .s", "0 0 .s", "7 9 .s"]),
        ("repeat", ["3 .s", "0 .s", "-1 .s", ".n .s"]),
        ("trimAll", ['"$" "$$x$"', '"ab" "abcab"', '"" .s']),
        ("trimall", ['"-" "-a-"']),
        ("trimPrefix", ['"he" .s', '"x" .s', '"" .s']),
        ("trimSuffix", ['"lo" .s', '"x" .s']),
        ("contains", ['"ell" .s', '"x" .s', '"" .s']),
        ("hasPrefix", ['"he" .s', '"lo" .s']),
        ("hasSuffix", ['"lo" .s', '"he" .s']),
        ("replace", ['"l" "L" .s', '"" "-" "abc"', '"x" "y" .s']),
        ("plural", ['"one" "many" 1', '"one" "many" 2', '"one" "many" 0', '"one" "many" .one']),
        ("indent", ["2 .multi", "0 .s", "-1 .s"]),
        ("nindent", ["4 .multi"]),
        ("wrap", ["10 .words", "3 .words", "100 .words", "0 .words"]),
        ("wrapWith", ['10 "<br>" .words', '5 "|" "abcdefghijklmnop"']),
        ("cat", [".s .n .nil .f", "", '"a" "b"', ".list .map"]),
        ("quote", [".n .nil .s", ".list", ""]),
        ("squote", [".n .nil .s"]),
        ("split", ['"," .csv', '"" "abc"', '"x" .s']),
        ("splitList", ['"," .csv', '"" "abc"', '"/" .path']),
        ("splitn", ['"," 2 .csv', '"," 0 .csv', '"," -1 .csv']),
        ("join", ['"," .slist', '"-" .list', '"" .mixed', '"," .s', '"," .nil']),
        ("sortAlpha", [".slist", ".list", ".s", ".mixed"]),
        ("toStrings", [".list", ".mixed", ".s", ".nil"]),
        ("b64dec", [".b64", '"!!"', '"aGk"', '"aGk="']),
        ("b32dec", ['"NBSWY3DP"', '"bad"']),
    ]:
        for arg in args:
            yield f"{{{{ {fn} {arg} }}}}".replace("  }}", " }}")
    yield '{{ (split "," .csv)._1 }}'
    yield '{{ $p := split "," .csv }}{{ $p._0 }}{{ $p._3 }}{{ $p._9 }}'
    yield "{{ .s | upper | repeat 2 }}"
    yield "{{ .words | title | trunc 9 | quote }}"
    yield '{{ "Hello" | trimPrefix "He" | upper }}'


def sprig_lists() -> Iterator[str]:
    lists = [".list", ".slist", ".mixed", ".el", "(list 1 2 2 3 1)", "(list)", ".s", ".map", ".nil"]
    for fn in [
        "first",
        "last",
        "rest",
        "initial",
        "reverse",
        "uniq",
        "compact",
        "len",
        "mustFirst",
        "mustLast",
        "mustRest",
        "mustInitial",
        "mustReverse",
        "mustUniq",
        "mustCompact",
        "toJson",
    ]:
        for lst in lists:
            yield f"{{{{ {fn} {lst} }}}}"
    for lst in lists:
        yield f"{{{{ append {lst} 9 }}}}"
        yield f"{{{{ prepend {lst} 0 }}}}"
        yield f"{{{{ has 2 {lst} }}}}"
        yield f'{{{{ has "a" {lst} }}}}'
        yield f'{{{{ without {lst} 1 "a" }}}}'
        yield f"{{{{ slice {lst} 1 }}}}"
        yield f"{{{{ chunk 2 {lst} }}}}"
        yield f"{{{{ concat {lst} (list 7) }}}}"
    yield "{{ list }}"
    yield '{{ list 1 "a" nil .f .map }}'
    yield "{{ tuple 1 2 }}"
    yield "{{ has 2 (list 1 2) }}"
    yield "{{ has .n (list 42) }}"
    yield "{{ has 42 (list .n) }}"
    yield "{{ slice .list 0 2 }}"
    yield "{{ mustSlice .s 1 }}"
    yield "{{ concat .list .slist }}"
    yield "{{ concat }}"
    yield "{{ chunk 0 .list }}"
    yield "{{ range (chunk 2 (list 1 2 3 4 5)) }}{{ . }};{{ end }}"
    yield "{{ first .list | add 10 }}"
    yield "{{ until 5 }}"
    yield "{{ until -3 }}"
    yield "{{ until 0 }}"
    yield "{{ untilStep 0 10 3 }}"
    yield "{{ untilStep 10 0 -4 }}"
    yield "{{ untilStep 0 10 0 }}"
    yield "{{ untilStep 0 10 -1 }}"
    yield "{{ range until 3 }}{{ . }}{{ end }}"
    yield "{{ seq 5 }}"
    yield "{{ seq 3 1 }}"
    yield "{{ seq 1 2 9 }}"
    yield "{{ seq 9 -3 1 }}"
    yield "{{ seq 9 3 1 }}"
    yield "{{ seq }}"
    yield "{{ seq 1 2 3 4 }}"
    yield "{{ seq 0 }}"


def sprig_dicts() -> Iterator[str]:
    yield from [
        "{{ dict }}",
        '{{ dict "a" 1 "b" "x" }}',
        '{{ dict "a" }}',
        "{{ dict 1 2 }}",
        '{{ dict "a" nil }}',
        '{{ get .map "a" }}',
        '{{ get .map "zz" }}',
        '{{ get .nil "a" }}',
        '{{ get .s "a" }}',
        '{{ set .map "z" 9 }}',
        '{{ $d := dict }}{{ $_ := set $d "k" 1 }}{{ $d }}',
        '{{ unset .map "a" }}',
        '{{ hasKey .map "a" }}',
        '{{ hasKey .map "q" }}',
        '{{ hasKey .em "a" }}',
        '{{ pluck "a" .map (dict "a" 5) (dict "b" 1) }}',
        "{{ keys .map | sortAlpha }}",
        "{{ keys .map .nested | sortAlpha }}",
        "{{ keys .em }}",
        '{{ pick .map "a" "c" "zz" }}',
        '{{ omit .map "a" }}',
        '{{ values (dict "a" 1) }}',
        "{{ values .em }}",
        '{{ merge (dict "a" 1) (dict "a" 2 "b" 3) }}',
        '{{ merge (dict "a" "") (dict "a" 2) }}',
        '{{ mergeOverwrite (dict "a" 1) (dict "a" 2 "b" 3) }}',
        '{{ merge (dict "a" (dict "x" 1)) (dict "a" (dict "y" 2)) }}',
        '{{ mergeOverwrite (dict "a" (dict "x" 1)) (dict "a" (dict "x" 3 "y" 2)) }}',
        "{{ deepCopy .map }}",
        "{{ deepCopy .list }}",
        "{{ deepCopy .s }}",
        '{{ dig "a" "b" "c" "dflt" .nested }}',
        '{{ dig "a" "x" "dflt" .nested }}',
        '{{ dig "n" "dflt" .nested }}',
        '{{ dig "a" "dflt" }}',
        '{{ dig "a" "b" "dflt" .s }}',
        '{{ dig "s" "dflt" $ }}',
        '{{ (dict "a" 1).a }}',
        '{{ (dict "a" 1).b }}',
        '{{ (dict "a" 1).b.c }}',
        '{{ range $k, $v := dict "z" 1 "a" 2 }}{{ $k }}{{ $v }}{{ end }}',
        '{{ get (dict "a" (list 1 2)) "a" }}',
        '{{ index (dict "a" 1) "a" }}',
        '{{ get .map "c" | toJson }}',
        '{{ set nil "a" 1 }}',
        '{{ hasKey .list "a" }}',
    ]


def sprig_math() -> Iterator[str]:
    operands = [
        "1",
        "2",
        "-3",
        ".n",
        ".f",
        ".num",
        ".fnum",
        '"x"',
        ".nil",
        ".missing",
        "1.9",
        ".t",
        ".neg",
        '"0x10"',
        '"1.0"',
        '"1e3"',
        '" 5"',
    ]
    for fn in [
        "add",
        "sub",
        "mul",
        "div",
        "mod",
        "max",
        "min",
        "addf",
        "subf",
        "mulf",
        "divf",
        "maxf",
        "minf",
    ]:
        for a, b in itertools.product(operands, ["2", ".n", "-3", ".f", '"4"', "0"]):
            if (len(a) + len(b) + len(fn)) % 3:
                continue
            yield f"{{{{ {fn} {a} {b} }}}}"
    for fn in [
        "add1",
        "add1f",
        "int",
        "int64",
        "float64",
        "floor",
        "ceil",
        "toDecimal",
        "toString",
        "toJson",
    ]:
        for a in [*operands, '"0777"', '"017"', "-1.5", "2.5"]:
            yield f"{{{{ {fn} {a} }}}}"
    yield from [
        "{{ add }}",
        "{{ add 1 2 3 4 }}",
        "{{ mul 2 3 4 }}",
        "{{ max 1 5 3 }}",
        "{{ min 4 2 8 }}",
        "{{ biggest 3 9 }}",
        "{{ add 9223372036854775807 1 }}",
        "{{ div 7 2 }}",
        "{{ div -7 2 }}",
        "{{ mod -7 3 }}",
        "{{ mod 7 -3 }}",
        "{{ div 1 0 }}",
        "{{ mod 1 0 }}",
        "{{ round 3.14159 2 }}",
        "{{ round 2.5 0 }}",
        "{{ round -2.5 0 }}",
        "{{ round 1.2345 3 0.3 }}",
        "{{ round .f 0 }}",
        "{{ atoi .num }}",
        '{{ atoi "x" }}',
        '{{ atoi "-12" }}',
        '{{ atoi "+5" }}',
        '{{ atoi "1.5" }}',
        "{{ divf 1 3 }}",
        "{{ addf 0.1 0.2 }}",
        "{{ mulf 1.1 1.1 }}",
        "{{ subf 1 0.9 }}",
        "{{ divf 1 0 }}",
        "{{ addf }}",
        "{{ add1f .f }}",
        "{{ maxf 1 2.5 }}",
        "{{ minf -1 .f }}",
        "{{ int .f | add 1 }}",
        '{{ float64 .n | printf "%T" }}',
        '{{ int .n | printf "%T" }}',
        '{{ add 1 2 | printf "%T" }}',
        '{{ len .s | printf "%T" }}',
        '{{ repeat (int .n) "x" | len }}',
        "{{ substr 0 (len .s) .s }}",
        "{{ substr 0 .one .s }}",
        '{{ repeat .one "x" }}',
        "{{ until .one }}",
    ]


def sprig_encoding() -> Iterator[str]:
    values = [
        ".s",
        ".n",
        ".f",
        ".fi",
        ".tiny",
        ".huge",
        ".t",
        ".nil",
        ".missing",
        ".list",
        ".map",
        ".mixed",
        ".nested",
        ".html",
        ".uni",
        ".ctrl",
        ".em",
        ".el",
        ".quote",
        "(list)",
        "(dict)",
        "1",
        "1.5",
        '"<&>"',
        '(dict "b" 1 "a" (list 1 "x"))',
    ]
    for fn in [
        "toJson",
        "toRawJson",
        "toPrettyJson",
        "mustToJson",
        "mustToRawJson",
        "mustToPrettyJson",
    ]:
        for v in values:
            yield f"{{{{ {fn} {v} }}}}"
    for text in [
        '"{}"',
        '"[]"',
        '"1"',
        '"1.5"',
        '"\\"x\\""',
        '"null"',
        '"true"',
        ".json",
        '"{\\"a\\":{\\"b\\":[1,2]}}"',
        '"bad"',
        '""',
        '"{"',
        '"[1,]"',
        '"1 2"',
        '"{\\"a\\":1}x"',
        '" [1] "',
        '"1e400"',
    ]:
        yield f"{{{{ fromJson {text} }}}}"
        yield f"{{{{ mustFromJson {text} }}}}"
        yield f"{{{{ fromJson {text} | toJson }}}}"
    yield "{{ (fromJson .json).a }}"
    yield "{{ (fromJson .json).b }}"
    yield '{{ index (fromJson .json) "c" }}'
    yield '{{ (fromJson .json).a | printf "%T" }}'
    yield "{{ range (fromJson .json).b }}[{{ . }}]{{ end }}"
    yield "{{ .json | fromJson | toPrettyJson }}"
    yield "{{ b64enc .uni | b64dec }}"
    yield "{{ sha512sum .s }}"


def sprig_defaults() -> Iterator[str]:
    values = [
        ".s",
        ".e",
        ".n",
        ".z",
        ".f",
        ".t",
        ".fl",
        ".nil",
        ".missing",
        ".list",
        ".el",
        ".map",
        ".em",
        "0",
        '""',
        "nil",
    ]
    for v in values:
        yield f'{{{{ default "dflt" {v} }}}}'
        yield f'{{{{ {v} | default "dflt" }}}}' if v != "nil" else "{{ nil | default 1 }}"
        yield f"{{{{ empty {v} }}}}"
        yield f'{{{{ coalesce {v} "c" }}}}'
        yield f'{{{{ ternary "yes" "no" (empty {v}) }}}}'
        yield f"{{{{ typeOf {v} }}}}"
        yield f"{{{{ kindOf {v} }}}}"
    yield from [
        "{{ default }}",
        '{{ default "a" }}',
        '{{ default "a" "b" "c" }}',
        "{{ coalesce }}",
        "{{ coalesce .nil .e 0 }}",
        "{{ all 1 .s .t }}",
        "{{ all 1 .e }}",
        "{{ any .e 0 .s }}",
        "{{ any }}",
        "{{ all }}",
        "{{ ternary 1 2 true }}",
        "{{ ternary 1 2 .t }}",
        "{{ ternary 1 2 1 }}",
        "{{ ternary 1 2 .s }}",
        '{{ true | ternary "a" "b" }}',
        '{{ fail "boom" }}',
        '{{ if .fl }}{{ fail "no" }}{{ end }}ok',
        '{{ typeIs "string" .s }}',
        '{{ typeIs "int64" .n }}',
        '{{ typeIsLike "string" .s }}',
        '{{ kindIs "map" .map }}',
        '{{ kindIs "slice" .list }}',
        "{{ deepEqual .list .list }}",
        "{{ deepEqual (list 1) (list 1) }}",
        "{{ deepEqual .n 42 }}",
        "{{ deepEqual 1 1 }}",
        "{{ typeOf (list) }}",
        "{{ typeOf (dict) }}",
        '{{ typeOf (splitList "," .csv) }}',
        '{{ typeOf (split "," .csv) }}',
        "{{ typeOf (until 2) }}",
        "{{ typeOf 1 }}",
        "{{ typeOf 1.5 }}",
        "{{ typeOf .f }}",
        "{{ typeOf (len .s) }}",
        "{{ kindOf (len .s) }}",
        '{{ typeOf (toDate "2006-01-02" "2024-01-02") }}',
        '{{ typeOf (semver "1.2.3") }}',
        "{{ hello }}",
    ]


def sprig_regex() -> Iterator[str]:
    patterns = [
        '"l+"',
        '"^h"',
        '"o$"',
        '"[aeiou]"',
        '"x*"',
        '"(\\\\w+) (\\\\w+)"',
        '"(?i)HELLO"',
        '"a|b"',
        '"\\\\d+"',
        '"(?P<first>\\\\w)"',
        '"("',
        '"[a-"',
        '"*"',
        '"a**"',
        '"(?=x)"',
        '"\\\\1"',
        '"[[:alpha:]]+"',
        '"."',
        '""',
        '"\\\\bq"',
        '"o\\\\b"',
    ]
    subjects = [".s", ".words", ".uni", ".e", ".multi", '"aaa"', '"a1b22c333"']
    for p in patterns:
        for s in subjects:
            if (len(p) * 7 + len(s)) % 3 == 0:
                continue
            yield f"{{{{ regexMatch {p} {s} }}}}"
            yield f"{{{{ regexFindAll {p} {s} -1 }}}}"
        yield f"{{{{ mustRegexMatch {p} .s }}}}"
        yield f"{{{{ regexFind {p} .words }}}}"
        yield f"{{{{ mustRegexFind {p} .words }}}}"
        yield f"{{{{ regexFindAll {p} .words 2 }}}}"
        yield f'{{{{ regexReplaceAll {p} .words "<$0>" }}}}'
        yield f'{{{{ regexReplaceAllLiteral {p} .words "<$0>" }}}}'
        yield f"{{{{ regexSplit {p} .words -1 }}}}"
        yield f"{{{{ mustRegexSplit {p} .words 2 }}}}"
    yield from [
        '{{ regexReplaceAll "(\\\\w+) (\\\\w+)" .words "$2 $1" }}',
        '{{ regexReplaceAll "(?P<a>\\\\w)(\\\\w*)" .s "${a}-$2-$$-$x-${9}" }}',
        '{{ regexReplaceAll "" "abc" "-" }}',
        '{{ regexReplaceAll "b*" "abc" "-" }}',
        '{{ regexFindAll "a*" "baaac" -1 }}',
        '{{ regexSplit "a*" "baaac" -1 }}',
        '{{ regexSplit "," .csv 0 }}',
        '{{ regexSplit "," .csv 2 }}',
        '{{ regexSplit "x" "" -1 }}',
        '{{ regexFindAll "." .s 0 }}',
        '{{ regexQuoteMeta "a.b*c[d]" }}',
        '{{ regexMatch "^[a-z]+\\\\.[a-z]+$" "hello.world" }}',
        '{{ regexMatch "^v?\\\\d" .ver }}',
        '{{ regexReplaceAll "(?m)^" .multi "> " }}',
        '{{ regexReplaceAll "$" .multi "!" }}',
        '{{ regexFindAll "(?s)line.+" .multi -1 }}',
        '{{ regexReplaceAll "\\\\s+" .ws "_" }}',
    ]


def sprig_semver() -> Iterator[str]:
    versions = [
        "1.2.3",
        "v1.2.3",
        "1.2",
        "1",
        "1.2.3-beta.1",
        "1.2.3+build.5",
        "2.0.0-rc.1",
        "01.2.3",
        "1.2.3.4",
        "x",
        "",
        "1.2.3-01",
        "0.1.0",
        "0.0.3",
        "1.10.0",
    ]
    for v in versions:
        yield f'{{{{ semver "{v}" }}}}'
        yield f'{{{{ (semver "{v}").Major }}}}.{{{{ (semver "{v}").Minor }}}}'
    constraints = [
        ">= 1.2.0",
        "< 2",
        "~1.2",
        "^1.2.3",
        "1.x",
        "*",
        "1.2.3",
        "!= 1.2.3",
        ">1.2",
        "<=1.2",
        ">= 1.0, < 1.3",
        "1.0 - 1.5",
        "^0.1",
        "^0.0.3",
        "~1",
        ">=2.0.0-0",
        "1.2 || 2.x",
        "=1.2.3",
        "bogus",
        ">= 1.2.x",
        "~>1.2.1",
        "^2.0.0-rc",
    ]
    for c in constraints:
        for v in ["1.2.3", "1.3.0", "2.0.0", "2.0.0-rc.1", "0.1.5", "0.0.3", "1.2.3-beta", "bad"]:
            yield f'{{{{ semverCompare "{c}" "{v}" }}}}'
    yield '{{ (semver "1.2.3-beta+meta").Prerelease }} {{ (semver "1.2.3-beta+meta").Metadata }}'
    yield '{{ (semver "v1.2").Original }} {{ (semver "v1.2").String }}'
    yield '{{ (semver "1.2.3").Compare (semver "1.3.0") }}'
    yield '{{ (semver "1.2.3").LessThan (semver "1.3.0") }}'
    yield "{{ (semver .ver).GreaterThan (semver .pre) }}"


def sprig_dates() -> Iterator[str]:
    layouts = [
        "2006-01-02",
        "2006-01-02T15:04:05Z07:00",
        "Jan 2, 2006 at 3:04pm (MST)",
        "Monday, 02-Jan-06 15:04:05 MST",
        "15:04:05.000",
        "15:04:05.999999999",
        "02/01/2006 03:04:05 PM",
        "_2 January 2006",
        "2006-002",
        "-0700 -07:00 -07 Z07:00",
        "Mon Jan _2 15:04:05 2006",
        ".00 ,000 .9",
        "06 1 2 3 4 5",
    ]
    for layout in layouts:
        yield f"{{{{ date {json.dumps(layout)} .unix }}}}"
        yield f'{{{{ dateInZone {json.dumps(layout)} .unix "America/New_York" }}}}'
        yield f'{{{{ (toDate "2006-01-02T15:04:05Z07:00" .tsn).Format {json.dumps(layout)} }}}}'
    yield from [
        '{{ toDate "2006-01-02" "2024-03-04" }}',
        '{{ toDate "2006-01-02" "bad" }}',
        '{{ mustToDate "2006-01-02" "bad" }}',
        '{{ mustToDate "2006-01-02" "2024-13-01" }}',
        '{{ toDate "2006-01-02T15:04:05Z07:00" .ts }}',
        '{{ toDate "2006-01-02T15:04:05Z07:00" .tsn }}',
        '{{ toDate "02/01/2006 15:04" "04/03/2024 21:30" }}',
        '{{ toDate "Jan 2 2006" "Mar 4 2024" }}',
        '{{ unixEpoch (toDate "2006-01-02" "2024-03-04") }}',
        "{{ htmlDate .unix }}",
        '{{ htmlDateInZone .unix "Asia/Tokyo" }}',
        '{{ dateInZone "15:04 MST" .unix "Nope/Zone" }}',
        '{{ date "2006" (toDate "2006-01-02" "1999-12-31") }}',
        '{{ dateModify "1h30m" (toDate "2006-01-02" "2024-03-04") }}',
        '{{ dateModify "-24h" (toDate "2006-01-02" "2024-03-04") }}',
        '{{ dateModify "bad" (toDate "2006-01-02" "2024-03-04") }}',
        '{{ mustDateModify "bad" (toDate "2006-01-02" "2024-03-04") }}',
        "{{ duration 90 }}",
        '{{ duration "3661" }}',
        "{{ duration .unix }}",
        "{{ duration 1.5 }}",
        '{{ duration "x" }}',
        "{{ duration 0 }}",
        '{{ durationRound "2h30m" }}',
        '{{ durationRound "400h" }}',
        '{{ durationRound "9000h" }}',
        '{{ durationRound "59s" }}',
        '{{ durationRound "1s" }}',
        "{{ durationRound 3600000000000 }}",
        '{{ durationRound "-3m" }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Year }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Month }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Weekday }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Unix }}',
        '{{ (toDate "2006-01-02" "2024-03-04").YearDay }}',
        '{{ (toDate "2006-01-02" "2024-03-04").IsZero }}',
        '{{ (toDate "2006-01-02" "x").IsZero }}',
        '{{ printf "%d" (toDate "2006-01-02" "2024-03-04").Month }}',
        '{{ (toDate "2006-01-02" "2024-03-04").UTC }}',
        '{{ toJson (toDate "2006-01-02" "2024-03-04") }}',
        '{{ ((toDate "2006-01-02" "2024-03-05").Sub (toDate "2006-01-02" "2024-03-04")) }}',
        '{{ ((toDate "2006-01-02" "2024-03-05").Sub (toDate "2006-01-02" "2024-03-04")).Hours }}',
        '{{ (toDate "2006-01-02" "2024-01-31").AddDate 0 1 0 }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Format }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Nope }}',
        '{{ (toDate "2006-01-02" "2024-03-04").Before (toDate "2006-01-02" "2024-03-05") }}',
    ]


def sprig_paths_urls() -> Iterator[str]:
    for p in [
        '"/a/b/c.txt"',
        '"a/b/"',
        '""',
        '"/"',
        '"a//b/../c/."',
        '"../x"',
        '"file.tar.gz"',
        '"/a/b.c/d"',
        '"."',
    ]:
        for fn in ["base", "dir", "clean", "ext", "isAbs", "osBase", "osDir", "osClean", "osExt"]:
            yield f"{{{{ {fn} {p} }}}}"
    for u in [
        ".url",
        '"http://example.com"',
        '"mailto:a@b.c"',
        '"/rel/path?x=1"',
        '"https://[::1]:80/x"',
        '"ssh://git@github.com/org/repo.git"',
    ]:
        yield f"{{{{ urlParse {u} }}}}"
        yield f"{{{{ urlParse {u} | urlJoin }}}}"
    yield '{{ urlJoin (dict "scheme" "https" "host" "h.io" "path" "/p" "query" "a=1") }}'
    yield '{{ urlJoin (dict "host" "h.io" "path" "p") }}'
    yield '{{ urlJoin (dict "scheme" 1) }}'
    yield "{{ (urlParse .url).hostname }}"


ARGOCD = [
    '{{ call .repo.RepoURLToHTTPS "git@github.com:argoproj/argo-cd.git" }}',
    '{{ call .repo.RepoURLToHTTPS "https://user:pw@gitlab.com/group/sub/repo" }}',
    '{{ call .repo.RepoURLToHTTPS "ssh://git@bitbucket.org/team/repo.git" }}',
    "{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}",
    '{{ call .repo.FullNameByRepoURL "git@github.com:argoproj/argo-cd.git" }}',
    '{{ call .repo.FullNameByRepoURL "https://gitlab.com/group/sub/repo.git" }}',
    '{{ call .repo.FullNameByRepoURL "https://example.com/one" }}',
    "{{ call .repo.FullNameByRepoURL .app.spec.source.repoURL }}",
    '{{ call .repo.QueryEscape "a b/c?d" }}',
    "{{ call .repo.QueryEscape (call .repo.FullNameByRepoURL .app.spec.source.repoURL) }}",
    '{{ call .strings.ReplaceAll .app.metadata.name "-" "_" }}',
    "{{ call .strings.ToUpper .app.metadata.name }}",
    '{{ call .strings.ToLower "ÀBC" }}',
    '{{ call .strings.ReplaceAll "a" "b" }}',
    "{{ call .strings.ToUpper 1 }}",
    "{{ call .strings.ToUpper .missing }}",
    '{{ call .strings.Nope "x" }}',
    '{{ (call .time.Parse .app.metadata.creationTimestamp).Format "2006-01-02" }}',
    '{{ (call .time.Parse "2024-03-04T21:30:33+02:00").Unix }}',
    '{{ call .time.Parse "2024-03-04T21:30:33.5Z" }}',
    '{{ call .time.Parse "bad" }}',
    "{{ (call .time.Parse .app.metadata.creationTimestamp).Format .time.RFC1123 }}",
    "{{ .time.RFC3339 }}",
    "{{ .time.Hour }}",
    "{{ .time.Millisecond }}",
    '{{ printf "%d" .time.Second }}',
    "{{ .time.Kitchen }} {{ .time.StampMilli }}",
    "{{ .repo.RepoURLToHTTPS }}",
    '{{ .strings.ToUpper "x" }}',
    "{{ call .time.Parse }}",
    '{{ ((call .time.Parse "2024-03-04T22:00:00Z").Sub (call .time.Parse "2024-03-04T21:30:33Z"))'
    " }}",
    '{{ ((call .time.Parse "2024-03-04T22:00:00Z").Sub (call .time.Parse "2024-03-04T21:30:33Z"))'
    ".Minutes }}",
    '{{ (call .time.Parse "2024-03-04T22:00:00Z").Add .time.Hour }}',
]

APP = [
    "{{ .app.metadata.name }}",
    "{{ .app.metadata.labels }}",
    "{{ .app.spec.source.repoURL }}",
    "{{ .app.spec.project }}",
    "{{ .app.status.sync.status }}",
    "{{ .app.metadata.generation }}",
    "{{ .app.status.operationState.phase }}",
    "{{ .app.spec.sources }}",
    "{{ range $k, $v := .app.metadata.labels }}{{ $k }}={{ $v }};{{ end }}",
    '{{ index .app.metadata.annotations "argocd.argoproj.io/manifest-generate-paths" }}',
    "{{ .app.metadata.annotations.missing }}",
    "{{ .app.spec.source.helm }}",
    "{{ toJson .app.spec.destination }}",
    "{{ toPrettyJson .app.spec.syncPolicy }}",
    "{{ len .app.status.resources }}",
    "{{ range .app.status.resources }}{{ .kind }}/{{ .name }} {{ end }}",
    "{{ with .app.status.operationState }}{{ .phase }}: {{ .message }}{{ end }}",
    "{{ .app.status.history }}",
    "{{ (index .app.status.history 0).revision }}",
    '{{ .app.metadata.creationTimestamp | toDate "2006-01-02T15:04:05Z07:00" | date "Jan 2" }}',
    '{{ printf "%T %v" .app.metadata.generation .app.metadata.generation }}',
    "{{ .app.status.summary }}",
    "{{ .app.status.health }}",
    "{{ .app.spec.source.path | base }}",
    "{{ .app.metadata.ownerReferences }}",
    "{{ (first .app.metadata.ownerReferences).kind }}",
    "{{ .app.status.reconciledAt | quote }}",
    '{{ .app.metadata.finalizers | join "," }}',
    '{{ if eq .app.status.health.status "Healthy" }}ok{{ else }}bad{{ end }}',
    '{{ .app.status.sync.comparedTo.source.targetRevision | default "HEAD" }}',
]


def secrets_cases() -> Iterator[dict[str, Any]]:
    data = {"secrets": {"token": "s3cr3t", "empty": ""}}
    for text in [
        "{{ .secrets.token }}",
        '{{ printf "%s" .secrets.token }}',
        "{{ toString .secrets.token }}",
        "{{ .secrets.missing }}",
        "{{ if .secrets.empty }}y{{ else }}n{{ end }}",
        "{{ len .secrets.token }}",
        '{{ index .secrets "token" }}',
        "{{ b64enc (toString .secrets.token) }}",
        "{{ upper .secrets.token }}",
        "{{ toJson .secrets }}",
    ]:
        yield case(text, data=data, base=False, secrets=True)


def load_yaml(path: Path) -> Any:
    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, dt.datetime):
            return v.strftime("%Y-%m-%dT%H:%M:%SZ")
        if isinstance(v, dt.date):
            return v.isoformat()
        return v

    return plain(yaml.safe_load(path.read_text()))


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
    elif isinstance(value, str):
        yield path, value


SERVICE_OF = {
    "email": "email",
    "slack": "slack",
    "teams": "teams",
    "googlechat": "googlechat",
    "webhook": "webhook",
    "mattermost": "mattermost",
    "opsgenie": "opsgenie",
    "telegram": "telegram",
    "pagerduty": "pagerduty",
    "rocketchat": "rocketchat",
    "alertmanager": "alertmanager",
    "newrelic": "newrelic",
    "github": "github",
    "pagerdutyv2": "pagerdutyv2",
    "grafana": "grafana",
}
RECIPIENT = {
    "email": "dev@example.com",
    "slack": "my-channel",
    "teams": "my-team",
    "webhook": "github",
}


def catalog_cases() -> Iterator[dict[str, Any]]:
    for file in ("notifications-catalog-install.yaml", "notifications-cm-docs-example.yaml"):
        cm = load_yaml(REFDATA / file)
        for key, body in cm["data"].items():
            if not key.startswith("template."):
                continue
            name = key[len("template.") :]
            spec = yaml.safe_load(body)
            for path, text in leaves(spec):
                services = [SERVICE_OF.get(path.split(".")[0].split("[")[0], "slack")]
                if path == "message":
                    services = ["slack", "email", "webhook"]
                for service in services:
                    data = {
                        "context": {"argocdUrl": "https://argocd.example.com"},
                        "serviceType": service,
                        "recipient": RECIPIENT.get(service, "recipient"),
                        "field": path,
                        "source": file,
                    }
                    yield case(text, name=name, data=data, base=False, uses=["app"], argocd=True)


def main() -> None:
    out = sys.stdout
    app = load_yaml(REFDATA / "application-live-example.yaml")
    out.write(json.dumps({"fixture": "base", "value": BASE}) + "\n")
    out.write(json.dumps({"fixture": "app", "value": app}) + "\n")
    generated: list[dict[str, Any]] = []
    for text in [
        *LANGUAGE,
        *comparisons(),
        *LOGIC,
        *BUILTIN_FUNCS,
        *printf_cases(),
        *value_prints(),
        *sprig_strings(),
        *sprig_lists(),
        *sprig_dicts(),
        *sprig_math(),
        *sprig_encoding(),
        *sprig_defaults(),
        *sprig_regex(),
        *sprig_semver(),
        *sprig_dates(),
        *sprig_paths_urls(),
        *random_templates(2500),
    ]:
        generated.append(case(text))
    for text in [*ARGOCD, *APP]:
        generated.append(case(text, uses=["app"], argocd=True))
    generated.append(case("{{ .s }}", name="named-template"))
    generated.append(case("line1\n{{ .nil.x }}", name="other"))
    generated.append(
        case('{{ define "x" }}\n {{ .nil.x }}{{ end }}{{ template "x" . }}', name="outer")
    )
    generated.append(case("{{ .x }}", data=None, base=False))
    generated.append(case("{{ . }}", data=5, base=False))
    generated.append(case("{{ . }}{{ .x }}", data=[1, 2], base=False))
    generated.append(case("{{ .a }}", data={"a": 9007199254740993}, base=False))
    generated.append(case("{{ .a }} {{ .b }}", data={"a": 1.0, "b": 1e300}, base=False))
    generated.extend(secrets_cases())
    generated.extend(catalog_cases())
    seen: set[str] = set()
    for item in generated:
        key = json.dumps(item, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
