"""The inputs of the expr vectors: Argo CD's trigger conditions, edge cases and seeded
random expressions, each run against one of a few Applications.

``python tests/vectors/expr/inputs.py | (cd tests/vectors/expr && TZ=UTC go run .)``
``> tests/vectors/expr/vectors.jsonl`` regenerates the committed vectors with the real library.
The first line printed holds the Applications (:func:`apps`): Argo CD's live example
(tests/refdata) and variants of it (synced, degraded, deleted, an operation running, failed,
none); every later line is one case, ``{"in": text, "app": name}``.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from pathlib import Path
from typing import Any

import yaml

REFDATA = Path(__file__).resolve().parents[2] / "refdata" / "argo-cd"


def _load(name: str) -> Any:
    return yaml.safe_load((REFDATA / name).read_text(encoding="utf-8"))


def apps() -> dict[str, dict[str, Any]]:
    """The Applications the cases run against, as JSON-ready objects."""
    live = _load("application-live-example.yaml")
    out: dict[str, dict[str, Any]] = {"live": live}

    synced = copy.deepcopy(live)
    synced["status"]["health"]["lastTransitionTime"] = "2024-03-05T07:33:10Z"
    synced["status"]["sync"]["status"] = "Synced"
    out["synced"] = synced

    degraded = copy.deepcopy(live)
    degraded["status"]["health"] = {
        "status": "Degraded",
        "message": "Deployment has timed out progressing.",
        "lastTransitionTime": "2024-03-05T07:40:00Z",
    }
    degraded["status"]["sync"]["status"] = "OutOfSync"
    out["degraded"] = degraded

    deleted = copy.deepcopy(live)
    deleted["metadata"]["deletionTimestamp"] = "2024-03-05T09:00:00Z"
    deleted["metadata"]["deletionGracePeriodSeconds"] = 0
    out["deleted"] = deleted

    running = copy.deepcopy(live)
    state = running["status"]["operationState"]
    state["phase"] = "Running"
    state["message"] = "waiting for healthy state of apps/Deployment/test-lla"
    del state["finishedAt"]
    state["startedAt"] = "2024-03-05T11:50:00Z"
    running["status"]["health"] = {
        "status": "Progressing",
        "lastTransitionTime": "2024-03-05T11:50:02Z",
    }
    running["status"]["sync"]["status"] = "OutOfSync"
    out["running"] = running

    failed = copy.deepcopy(live)
    failed["status"]["operationState"]["phase"] = "Failed"
    failed["status"]["operationState"]["message"] = "one or more objects failed to apply"
    failed["status"]["sync"]["status"] = "Unknown"
    failed["status"]["health"] = {"status": "Missing", "lastTransitionTime": "bad time"}
    out["failed"] = failed

    idle = copy.deepcopy(live)
    del idle["status"]["operationState"]
    idle["status"]["health"]["lastTransitionTime"] = "2024-03-04T22:00:07Z"
    idle["status"]["summary"] = {"images": ["a:1", "b:2"], "ratio": 0.5, "count": 2}
    out["idle"] = idle

    out["empty"] = {}
    return out


def trigger_conditions() -> list[str]:
    """Every ``when`` and ``oncePer`` of the catalog and of the operator manual's example."""
    texts: list[str] = []
    for name in ("notifications-catalog-install.yaml", "notifications-cm-docs-example.yaml"):
        for doc in yaml.safe_load_all((REFDATA / name).read_text(encoding="utf-8")):
            if not doc or doc.get("kind") != "ConfigMap":
                continue
            for key, value in (doc.get("data") or {}).items():
                if key.startswith("trigger."):
                    for condition in yaml.safe_load(value):
                        texts += [condition.get("when", ""), condition.get("oncePer", "")]
    return [t for t in dict.fromkeys(texts) if t]


APP_PATHS = [
    "app", "app.metadata", "app.metadata.name", "app.metadata.namespace", "app.metadata.labels",
    "app.metadata.labels.foo", "app.metadata.labels.preview", "app.metadata.generation",
    "app.metadata.deletionTimestamp", "app.metadata.finalizers", "app.metadata.finalizers[0]",
    "app.metadata.annotations['argocd.argoproj.io/compare-options']", "app.spec.project",
    "app.spec.source.repoURL", "app.spec.source.targetRevision", "app.spec.sources",
    "app.spec.destination.namespace", "app.status.sync.status", "app.status.sync.revision",
    "app.status.health.status", "app.status.health.message",
    "app.status.health.lastTransitionTime", "app.status.operationState",
    "app.status.operationState.phase", "app.status.operationState.message",
    "app.status.operationState.startedAt", "app.status.operationState.finishedAt",
    "app.status.operationState.syncResult.revision",
    "app.status.operationState.operation.retry.limit",
    "app.status.operationState.operation.retry.backoff.factor", "app.status.history",
    "app.status.history[0].id", "app.status.history[-1].revision", "app.status.resources",
    "app.status.resources[0].kind", "app.status.summary", "app.status.summary.ratio",
    "app.status.summary.images", "app.status.missing", "app.nope.deeper", "app.spec.nope",
    "context.argocdUrl", "context.missing", "app.status.conditions",
]  # fmt: skip

OPERANDS = [
    "0", "1", "-1", "7", "2.5", "0.0", "-0.5", "1e3", "0x1F", "1_000", "'a'", "'abc'", "''",
    '"Synced"', "'10'", "true", "false", "nil", "[1, 2, 3]", "[]", "['a', 'b']", "{'a': 1}", "{}",
    "app.metadata.generation", "app.status.health.status", "app.status.operationState",
    "app.status.missing", "app.metadata.labels", "app.status.history", "app.status.summary.ratio",
    "app.metadata.name", "app.status.operationState.operation.retry.limit", "9223372036854775807",
]  # fmt: skip

BINARY = ["+", "-", "*", "/", "%", "**", "^", "==", "!=", "<", "<=", ">", ">=", "and", "or",
          "&&", "||", "in", "not in", "contains", "startsWith", "endsWith", "matches", "??",
          ".."]  # fmt: skip

UNARY_CALLS = [
    "len", "type", "abs", "ceil", "floor", "round", "int", "float", "string", "trim", "upper",
    "lower", "first", "last", "toJSON", "toBase64", "fromBase64", "fromJSON",
    "max", "min", "mean", "median", "sum", "uniq", "flatten", "reverse", "sort", "count", "bitnot",
    "duration", "date", "concat", "join", "trimPrefix", "trimSuffix",
]  # fmt: skip

CALL_ARGS = [
    "0", "-3", "2.5", "-2.5", "'abc'", "'  pad  '", "'42'", "'4.5'", "'x1'", "'1h30m'",
    "'2024-03-05'", "'2024-03-05T07:33:03Z'", "'aGVsbG8='", "'{\"a\": [1, 2.5, \"x\"]}'", "true",
    "nil", "[3, 1, 2]", "[1.5, 2, -3]", "['b', 'a', 'b']", "[]", "[[1, [2]], 3]",
    "{'k': 'v', 'n': 1}", "app.metadata.generation", "app.metadata.labels", "app.status.history",
    "app.metadata.name", "app.status.missing", "app.metadata.finalizers",
]  # fmt: skip

EDGES = [
    "", " ", "true", "false", "nil", "1", "1.0", "1.", ".5", "1e3", "1E-2", "0x10", "0X1f", "0o17",
    "0b101", "0b2", "0xg", "1_000_000", "1__0", "007", "08", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "1e400", "'a\\nb'", '"a\\tb"', "'\\x41'",
    "'\\u00e9'", "'\\U0001F600'", "'\\u{1F600}'", "'\\101'", "'\\q'", "'abc", '"abc', "`raw\\n`",
    "`a``b`", "`unterminated", "'it\\'s'", '"say \\"hi\\""', "'\\\\'", "[1, 2, 3]", "[1, 2, 3,]",
    "[,]", "[1 2]", "{a: 1, 'b': 2, 3: 4}", "{(1 + 1): 'two'}", "{a: 1,}", "{a 1}", "{[1]: 2}",
    "{a: 1, a: 2}", "{a: 1}.a", "{a: 1}['a']", "{a: 1}.b", "[1, 2, 3][0]", "[1, 2, 3][-1]",
    "[1, 2, 3][3]", "[1, 2, 3][-4]", "[1, 2, 3][1:]", "[1, 2, 3][:2]", "[1, 2, 3][:]",
    "[1, 2, 3][2:1]", "[1, 2, 3][-2:]", "[1, 2, 3][1:10]", "'hello'[1:3]", "'hello'[1]",
    "'héllo'[1]", "'héllo'[1:3]", "'hello'[10]", "[1,2][1.0]", "[1,2]['a']", "1[0]", "nil[0]",
    "nil.a", "nil?.a", "nil?.[0]", "1 + 2 * 3", "(1 + 2) * 3", "2 ** 3 ** 2", "2 ^ 10", "-2 ** 2",
    "7 / 2", "7 % 2", "-7 % 3", "7 % -3", "7.5 % 2", "1 / 0", "1 % 0", "0 / 0", "1.0 / 0",
    "-1 / 0.0", "x / 0", "1 + 'a'", "'a' + 'b'", "'a' * 2", "'a' < 'b'", "'B' < 'a'", "1 < 'a'",
    "1 == 1.0", "1 == '1'", "nil == nil", "nil == false", "[1] == [1]", "{a: 1} == {a: 1}",
    "true == 1", "1 != 1.0", "0.1 + 0.2", "0.1 + 0.2 == 0.3", "9223372036854775807 + 1",
    "-9223372036854775807 - 2", "9223372036854775807 * 2", "!true", "not true", "!!false",
    "not not true", "!1", "!nil", "-'a'", "+'a'", "- -1", "-(-1)", "+1", "1 in [1, 2]",
    "1 in [1.0]", "'a' in ['a']", "'a' in {a: 1}", "'b' in {a: 1}", "1 in {a: 1}", "nil in [nil]",
    "nil in [1]", "'a' in 'abc'", "1 in 1", "1 not in [2]", "'ab' contains 'b'",
    "'ab' not contains 'b'", "'ab' startsWith 'a'", "'ab' endsWith 'a'", "'ab' not startsWith 'a'",
    "'ab' not endsWith 'b'", "1 contains 1", "'abc' matches '^a.c$'", "'abc' matches '('",
    "'abc' not matches 'b'", "'a\\nb' matches 'a$'", "'ABC' matches '(?i)abc'",
    "'x' matches '\\\\pL'", "'é' matches '\\\\w'", "'é' matches '^.$'", "'a' matches 1",
    "1 matches 'a'", "true ? 1 : 2", "false ? 1 : 2", "nil ? 1 : 2", "1 ? 1 : 2", "true ? 1",
    "true ?: 2", "nil ?: 2", "'x' ?: 2", "1 ?: 2", "true ? false ? 1 : 2 : 3", "nil ?? 1",
    "1 ?? 2", "false ?? 1", "nil ?? nil ?? 3", "app.nope ?? 'dflt'", "app.nope.x ?? 'dflt'",
    "nil ?? 1 + 2", "1 + nil ?? 2", "(nil ?? 1) + 2", "1..3", "3..1", "1..1", "1.5..3", "1..'a'",
    "len(1..100000)", "1..3 | map(# * 2)", "[1, 2] | len()", "[1, 2] | map(#)", "'a' | upper()",
    "'a' | upper", "1 | 2", "map([1, 2], # + 1)", "map([1, 2], {# + 1})", "map([1, 2], .x)",
    "map([{x: 1}], .x)", "map([{x: 1}], #.x)", "filter([1, 2, 3], # > 1)", "all([1, 2], # > 0)",
    "any([1, 2], # > 1)", "none([1, 2], # > 2)", "one([1, 2], # > 1)", "count([1, 2, 3], # > 1)",
    "count([true, false])", "sum([1, 2, 3])", "sum([1, 2.5])", "sum([1, 2], # * 2)", "sum([])",
    "sum(['a'])", "find([1, 2, 3], # > 1)", "find([1, 2, 3], # > 5)",
    "findIndex([1, 2, 3], # > 1)", "findLast([1, 2, 3], # > 1)", "findLastIndex([1, 2, 3], # > 1)",
    "findIndex([1], # > 5)", "groupBy([1, 2, 3], # % 2)", "groupBy(['a', 'bb'], len(#))",
    "sortBy([3, 1, 2], #)", "sortBy([3, 1, 2], #, 'desc')", "sortBy(['b', 'a'], #)",
    "reduce([1, 2, 3], #acc + #)", "reduce([1, 2, 3], #acc + #, 10)", "reduce([], #acc + #)",
    "reduce([1], #index)", "map([1, 2], #index)", "filter([1, 2], #index > 0)",
    "map([[1, 2]], map(#, # + 1))", "all([], false)", "any([], true)", "map(1, #)",
    "filter('abc', true)", "all(nil, true)", "count(nil, true)", "map({a: 1}, #)", "len('héllo')",
    "len([1, 2])", "len({a: 1})", "len(nil)", "len(1)", "len()", "len(1, 2)", "abs(-1)",
    "abs(-1.5)", "abs('a')", "ceil(1.2)", "floor(-1.2)", "round(2.5)", "round(-2.5)", "round(1)",
    "int('12')", "int(' 12')", "int('1.5')", "int(1.9)", "int(-1.9)", "int(nil)", "int(true)",
    "float('1.5')", "float('1e3')", "float('x')", "float(2)", "string(1)", "string(1.5)",
    "string(nil)", "string(true)", "string([1, 'a'])", "string({a: 1})", "string(1e21)",
    "string(0.000001)", "trim('  a  ')", "trim('xax', 'x')", "trimPrefix('abc', 'a')",
    "trimSuffix('abc', 'c')", "trimPrefix(' a')", "upper('aé')", "lower('ÀB')",
    "split('a,b,c', ',')", "split('a,b,c', ',', 2)", "split('', ',')", "split('abc', '')",
    "splitAfter('a,b', ',')", "splitAfter('a,b,c', ',', 2)", "replace('aaa', 'a', 'b')",
    "replace('aaa', 'a', 'b', 2)", "replace('abc', '', '-')", "repeat('ab', 3)", "repeat('a', -1)",
    "repeat('a', 0)", "join(['a', 'b'], '-')", "join(['a', 'b'])", "join([1, 2], '-')",
    "join(split('a b', ' '))", "indexOf('abc', 'c')", "indexOf('héllo', 'l')",
    "lastIndexOf('abcabc', 'b')", "hasPrefix('abc', 'ab')", "hasSuffix('abc', 'bc')", "max(1, 2)",
    "max(1, 2.5)", "max([1, 3])", "max([])", "max()", "max('a', 'b')", "min(1, -2)",
    "min([2.5, 1])", "mean([1, 2])", "mean(1, 2, 3)", "mean([])", "median([3, 1, 2])",
    "median([1, 2, 3, 4])", "median([])", "toJSON({a: 1, b: [1.5, 'x', nil]})", "toJSON('é<>&')",
    "toJSON(1.0)", "toJSON(app.metadata.labels)", "fromJSON('{\"a\": 1}')", "fromJSON('[1, 2.5]')",
    "fromJSON('bad')", "fromJSON('1e2')", "toBase64('hello')", "fromBase64('aGVsbG8=')",
    "fromBase64('!!')", "type(1)", "type(1.5)", "type('a')", "type(nil)", "type(true)",
    "type([1])", "type({a: 1})", "type(app)", "type(app.metadata.generation)",
    "type(app.metadata.labels)", "type(app.status.history)", "type(time.Now())",
    "type(duration('1h'))", "type(date('2024-03-05'))", "type(now())", "type(1..2)",
    "type(split('a', ','))", "type(keys({a: 1}))", "type(len)", "type(time)", "keys({a: 1})",
    "values({a: 1})", "keys(1)", "sort(keys(app.metadata.labels))",
    "sort(values(app.metadata.labels))", "toPairs({a: 1})", "fromPairs([['a', 1]])",
    "fromPairs([[1, 2]])", "fromPairs([1])", "first([1, 2])", "first([])", "last([1, 2])",
    "last([])", "first(1)", "get([1, 2], 1)", "get([1, 2], 5)", "get({a: 1}, 'a')",
    "get({a: 1}, 'b')", "get(app, 'metadata').name", "get(nil, 1)", "take([1, 2, 3], 2)",
    "take([1], 5)", "reverse([1, 2, 3])", "uniq([1, 1.0, 2, 'a', 'a'])", "concat([1], [2, 3])",
    "concat([1], 2)", "flatten([1, [2, [3]]])", "sort([3, 1, 2])", "sort([3, 1, 2], 'desc')",
    "sort(['b', 'a'])", "sort([1, 'a'])", "sort([1], 'up')", "bitand(12, 10)", "bitor(12, 10)",
    "bitxor(12, 10)", "bitnand(12, 10)", "bitshl(1, 3)", "bitshr(8, 2)", "bitushr(-8, 60)",
    "bitshl(1, -1)", "bitnot(0)", "bitand(1.5, 1)", "duration('1h30m')", "duration('1x')",
    "duration('90s').Minutes()", "duration('1h') > duration('30m')",
    "duration('1h') + duration('1m')", "date('2024-03-05')", "date('2024-03-05 10:00:00')",
    "date('10:00:00')", "date('2024-03-05T10:00:00+02:00')", "date('05 Mar 24 10:00 UTC')",
    "date('bad')", "date('2024-03-05', '2006-01-02')", "date('2024-03-05', '2006-01-02', 'UTC')",
    "date('2024-03-05').Year()", "date('2024-03-05').Add(duration('1h'))",
    "date('2024-03-05') < date('2024-03-06')", "date('2024-03-06') - date('2024-03-05')",
    "date('2024-03-05') + duration('1h')", "date('2024-03-05') == date('2024-03-05')",
    "now() > date('2024-01-01')", "timezone('UTC')", "let x = 1; x + 1",
    "let x = 1; let y = x + 1; y * 2", "let x = 1", "let = 1; 2", "let x = 1; x = 2", "1; 2", "1;",
    ";", "if true { 1 } else { 2 }", "if false { 1 } else if true { 2 } else { 3 }",
    "if true { 1 }", "// c\n1", "1 /* c */ + 1", "/* open", "1 +", "(1", "1)", "[1", "{a: 1", "a.",
    "a..b", "a.1", "a.[0]", "a[", "@", "1 2", "1 = 1", "1 === 1", "a = 1", "1 & 1", "&& true",
    "true &&", "not", "!", "in", "1 in", "a?.b", "a?.b.c", "a?.['b']", "a.b?.c",
    "app?.metadata?.name", "app.metadata?.nope?.x",
    "app.status.operationState?.syncResult?.revision", "app.status.nope?.syncResult?.revision",
    "app.nope.x.y", "app.nope == nil", "app.nope.x == nil", "app.metadata.name.x",
    "app.metadata.finalizers.x", "app.metadata.finalizers[9]", "app.metadata.finalizers[-1]",
    "app.metadata.finalizers['x']", "app.metadata['name']", "app['metadata']['name']", "app[1]",
    "app.metadata.labels[1]", "unknownVar", "unknownVar.x", "unknownVar == nil", "unknownFunc()",
    "app.metadata.name()", "app()", "time.Now()", "time.Now().Year()", "time.Now().Unix()",
    "time.Now().Format('2006-01-02')", "time.Now().Format(time.RFC3339)",
    "time.Now().Sub(time.Parse(app.status.operationState.finishedAt)).Minutes()",
    "time.Now().Sub(time.Parse(app.status.operationState.finishedAt)).Minutes() > 60",
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)).Hours()",
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)).Seconds()",
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)) > time.Hour",
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)) > 5 * time.Minute",
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)).String()",
    "time.Parse(app.status.operationState.startedAt)", "time.Parse('bad')", "time.Parse(nil)",
    "time.Parse(1)", "time.Parse()", "time.Parse('2024-03-05T07:33:03.5+01:00')",
    "time.Parse('2024-03-05T07:33:03Z').Add(time.Minute)",
    "time.Parse('2024-03-05T07:33:03Z').Add(60 * time.Second).Before(time.Now())",
    "time.Parse('2024-03-05T07:33:03Z').After(time.Now())",
    "time.Parse('2024-03-05T07:33:03Z').Equal(time.Parse('2024-03-05T08:33:03+01:00'))",
    "time.Parse('2024-03-05T07:33:03Z') == time.Parse('2024-03-05T08:33:03+01:00')",
    "time.Parse('2024-03-05T07:33:03Z') < time.Now()",
    "time.Now() - time.Parse('2024-03-05T07:33:03Z')", "time.Now().Add(-time.Hour)",
    "time.Now().Add(-1 * time.Hour).Hour()", "time.Minute", "time.Minute * 2",
    "time.Hour / time.Minute", "time.Minute.Seconds()", "time.RFC3339", "time.Nope", "time.Nope()",
    "time.Now", "time.Now().Nope()", "time.Now().IsZero()", "time.Now().Truncate(time.Hour)",
    "time.Now().Weekday()", "time.Now().Month()", "time.Now().UTC()", "time.Now().YearDay()",
    "time.Now().UnixMilli()", "strings.ToUpper('abc')", "strings.ToLower(app.metadata.name)",
    "strings.ReplaceAll(app.metadata.name, '-', '_')", "strings.ToUpper(1)", "strings.ToUpper()",
    "strings.Nope('a')", "repo.QueryEscape('a b&c')", "repo.QueryEscape(app.spec.source.repoURL)",
    "context.argocdUrl + '/applications/' + app.metadata.name", "context.nope",
    "context['argocdUrl']", "app.metadata.generation + 1", "app.metadata.generation * 1.5",
    "app.metadata.generation / 2", "app.metadata.generation % 10",
    "app.metadata.generation == 263", "app.metadata.generation == 263.0",
    "app.metadata.generation > 200.5", "app.metadata.generation ** 2", "-app.metadata.generation",
    "app.metadata.generation..265", "type(app.metadata.generation + 1)",
    "type(app.metadata.generation + app.metadata.generation)", "type(-app.metadata.generation)",
    "app.metadata.generation in [263]", "app.metadata.generation + 'x'",
    "string(app.metadata.generation)", "int(app.metadata.generation)",
    "float(app.metadata.generation)", "abs(-app.metadata.generation)",
    "app.metadata.labels.preview == 'true'", "app.metadata.labels.preview == true",
    "len(app.metadata.labels)", "len(app.status.resources)", "'foo' in app.metadata.labels",
    "'resources-finalizer.argocd.argoproj.io' in app.metadata.finalizers",
    "any(app.status.resources, .health?.status == 'Degraded')",
    "all(app.status.resources, .status == 'Synced')",
    "filter(app.status.resources, .kind == 'Deployment')[0].name",
    "map(app.status.resources, .kind)", "count(app.status.resources, .status != 'Synced')",
    "app.status.history | map(.id) | sum()", "last(app.status.history).revision",
    "app.status.sync.status == 'Synced' && app.status.health.status == 'Healthy'",
    "app.status.sync.status == 'Synced' and !(app.status.health.status == 'Healthy')",
    "app.status.operationState.phase in ['Error', 'Failed'] || "
    "app.status.health.status == 'Degraded'",
    "app.status.operationState != nil && app.status.operationState.phase == 'Running'",
    "app.status.operationState.phase matches '^(Succ|Fail)'",
    "app.metadata.name startsWith 'velero'", "app.spec.source.repoURL endsWith '.git'",
    "app.spec.source.repoURL contains 'github.com'",
    "app.metadata.annotations['argocd-notif-onDeployed.slack-disabled'] == ''",
    "app.metadata?.annotations?.['notifications.argoproj.io/subscribe.on-deployed.slack'] "
    "?? 'none'",
    "app.status.summary?.images ?? []", "len(app.status.summary?.images ?? [])",
    "app.status.summary.ratio + 1", "type(app.status.summary.ratio)",
    "app.status.summary.count == 2", "type(app.status.summary.count)",
    "app.status.conditions == nil", "len(app.status.conditions)", "app.status.conditions?.[0]",
    "app.status.conditions[0]", "app.metadata.deletionTimestamp != nil",
    "app.metadata.deletionTimestamp == nil ? 'alive' : 'deleted'",
    "app.status.operationState.finishedAt ?? 'running'", "#", "# > 1", "map([1], #.x.y)",
    "map([{}], .a.b)", "map([nil], .a)", "filter([1, nil], # != nil)", "1 < 2 < 3", "3 > 2 > 1",
    "1 < 2 == true", "true == 1 < 2", "1 + 1 == 2 and 2 * 2 == 4", "true or 1 / 0 > 0",
    "false and nope.x", "nope.x and false", "nope.x or true", "1 or true", "'a' and true",
    "true and 'a'", "app.nope and true", "true and app.nope", "app.nope || false", "nil and true",
    "nil or false", "true || nil.x.y", "!app.nope", "not app.metadata.name",
    "app.metadata.name == nil ?? true", "nil ?? 1 == 1", "1 ?? 2 ?? 3", "nil ?? nil",
    "(1 ?? 2) + 1", "1 + 2 ?? 3", "nil ?? 1 ? 2 : 3", "'\\t' == '\t'", "\t1\n+\r\n1",
    "1\u00a0+ 1", "1 + é", "é", "$x", "_x", "x1", "1x", "'😀'", "len('😀')", "'a' + 1.5",
    "'10' > '9'", "10 > 9.5",
    "app.metadata.generation > '1'",
]  # fmt: skip

COLLECTIONS = [
    "{(1): 'a', (2): 'b'}", "{(nil): 1}", "{a: 1, (app.metadata.name): 2}", "1 in ['a', 'b']",
    "nil in ['a', '']", "app.metadata.generation in ['263']", "true ? 1 : 'a'",
    "let s = app.status; s?.sync?.status", "let s = app.status; let s = 1; s", "let len = 1; len",
    "app.status.resources | filter(.kind == 'Service') | map(.name)", "app.status.resources[0:1]",
    "app.metadata.name[0:3]", "app.metadata.name[-4:]", "'héllo'[1:3]", "'héllo'[0:1]",
    "sortBy(app.status.resources, .kind)", "sortBy(app.status.resources, .kind, 'desc')[0].kind",
    "sortBy(app.status.resources, .kind, 'up')", "groupBy(app.status.resources, .kind)",
    "groupBy(app.status.resources, .kind).Service[0].name",
    "reduce(app.status.history, #acc + #.id, 0)", "reduce(app.status.history, #acc + #.id)",
    "findLast(app.status.resources, .kind != '')?.name", "concat(app.metadata.finalizers, ['x'])",
    "toJSON(app.status.sync)", "toJSON(app.status.summary)",
    "uniq(map(app.status.resources, .status))", "upper(app.status.sync.status) == 'SYNCED'",
    "len(app.status.resources) > 1 ? 'many' : 'few'",
    "filter(app.status.resources, .kind == 'Nope')[0]",
    "first(filter(app.status.resources, false))", "map(filter(app.status.resources, true), .name)",
    "len(filter(app.status.resources, true))",
    "all(app.status.resources, .status == 'Synced') && all(app.status.resources, .kind != '')",
    "sum([app.metadata.generation, 1])", "sum(['a', 'b'])", "sum(['a', app.metadata.name])",
    "sum(map(app.status.history, .id))",
    "count(app.status.resources, .health.status == 'Healthy')",
    "map(app.status.resources, #index)", "map(app.metadata.labels, #)",
    "all(app.metadata.labels, true)", "count(app.metadata.labels)", "map(app.metadata.name, #)",
    "any(app.metadata.generation, true)", "one(app.status.resources, .kind == 'Service')",
    "none(app.status.resources, .kind == 'Pod')",
    "find(app.status.resources, .kind == 'Deployment').name",
    "findIndex(app.status.resources, .kind == 'Deployment')",
    "take(app.status.resources, 1)[0].kind", "get(app.status.resources, 5)",
    "get(app.metadata.labels, 'foo')", "sort(keys(app.status.sync))",
    "app.status.sync?.comparedTo?.source?.repoURL",
    "app.spec.source.repoURL matches 'github\\.com/(foo|bar)/'",
    "app.metadata.name matches `^velero-`", "app.metadata.name matches app.spec.project",
    "app.metadata.name matches nil", "nil matches 'x'", "app.metadata.generation matches 'x'",
    "app.metadata.name contains nil", "app.metadata.generation contains 'x'",
    "app.metadata.name startsWith app.metadata.generation", "context.argocdUrl endsWith '.com'",
    "$env.app.metadata.name", "$env['context']['argocdUrl']", "$env.nope", "get($env, 'app').kind",
    "app.kind == 'Application' and app.apiVersion startsWith 'argoproj.io'",
]  # fmt: skip

PATTERN_CASES = [
    "'Prod' matches '(?i)^prod'", "'KELVIN' matches '(?i)k'", "'\u212a' matches '(?i)k'",
    "'É' matches '(?i)é'", "'a\nb' matches '(?s)a.b'", "'a\nb' matches 'a.b'",
    "'ABC' matches '(?is)a.C'", "app.metadata.name matches '(?i)VELERO'",
    "'x' matches '(?m)^x$'", "'X' matches 'a(?i)x'", "'ab' matches '(?i)(A|B)+$'",
    "'prod-EU' matches '(?i)^prod-(eu|us)$'", "'' matches '(?i)'", "'a' matches '(?i)[A-Z]'",
]  # fmt: skip

REPO_URLS = [
    "https://github.com/foo/manifests-velero.git", "https://deploy@github.com/foo/bar",
    "http://gitlab.example.com:8080/group/sub/project.git", "ssh://git@github.com:22/foo/bar.git",
    "git@github.com:foo/bar.git", "github.com:foo/bar", "git://example.com/a", "foo/bar",
    "bar", "", "oci://europe-west1-docker.pkg.dev/foo/charts", "https://github.com/foo",
    "https://github.com/", "HTTPS://GitHub.com/Foo/Bar.git", "file:///srv/git/repo.git",
    "git+ssh://git@host/a/b/c", "https://github.com/foo/bar.git.git", "ftp://h/x/y",
]  # fmt: skip


def repo_cases() -> list[str]:
    out = []
    for url in REPO_URLS:
        for name in ("RepoURLToHTTPS", "FullNameByRepoURL", "QueryEscape"):
            out.append(f"repo.{name}({json.dumps(url)})")
    out += [
        "repo.RepoURLToHTTPS(app.spec.source.repoURL)",
        "repo.FullNameByRepoURL(app.spec.source.repoURL) == 'foo/manifests-velero'",
        "repo.RepoURLToHTTPS(nil)",
        "repo.RepoURLToHTTPS(1)",
        "repo.GetAppDetails()",
    ]
    return out


def operator_cases(rng: random.Random) -> list[str]:
    out = []
    for left, op, right in itertools.product(OPERANDS, BINARY, OPERANDS):
        if rng.random() < 0.12:
            out.append(f"{left} {op} {right}")
    return out


def call_cases(rng: random.Random) -> list[str]:
    out = [f"{name}({arg})" for name in UNARY_CALLS for arg in CALL_ARGS]
    two = ["split", "join", "replace", "repeat", "indexOf", "hasPrefix", "trim", "max", "min",
           "get", "take", "concat", "sort", "bitand", "bitshl", "date", "trimPrefix",
           "startsWith", "splitAfter", "lastIndexOf", "hasSuffix", "mean"]  # fmt: skip
    for name in two:
        for _ in range(18):
            out.append(f"{name}({rng.choice(CALL_ARGS)}, {rng.choice(CALL_ARGS)})")
    return out


def path_cases(rng: random.Random) -> list[str]:
    out = []
    for path in APP_PATHS:
        out += [path, f"{path} == nil", f"{path} != nil", f"{path} ?? 'dflt'", f"type({path})"]
        optional = path.replace(".", "?.", rng.randint(1, 3)).replace("app?.", "app.", 1)
        out.append(optional)
        out.append(f"{optional} ?? 'dflt'")
        out.append(f"len({path})")
        out.append(f"{path} in ['Synced', 'Healthy', 263, 'velero-test']")
    return out


TIME_CASES = [
    "time.Now().Sub(time.Parse(app.status.operationState.startedAt)).Minutes() > 10",
    "time.Now().Sub(time.Parse(app.status.operationState.finishedAt)).Hours()",
    "time.Parse(app.status.health.lastTransitionTime).After(time.Now().Add(-12 * time.Hour))",
    "time.Parse(app.status.health.lastTransitionTime).Sub(time.Parse(app.status.reconciledAt))",
    "time.Parse(app.metadata.creationTimestamp).Year()",
    "time.Parse(app.metadata.deletionTimestamp ?? app.metadata.creationTimestamp).Unix()",
    "app.metadata.deletionTimestamp != nil && "
    "time.Now().Sub(time.Parse(app.metadata.deletionTimestamp)) > time.Hour",
    "time.Parse(app.status.operationState?.finishedAt ?? '2024-01-01T00:00:00Z').Month()",
    "time.Parse(app.status.operationState?.finishedAt ?? '2024-01-01T00:00:00Z').Weekday()",
    "time.Now().Format(time.RFC1123)", "time.Now().Format(time.Kitchen)",
    "time.Now().Format('Mon Jan _2 2006 15:04:05.000 MST')",
    "time.Parse(app.status.operationState.startedAt).Format(time.RFC3339Nano)",
    "time.Parse('2024-03-05T07:33:03.123456789+05:30').Format(time.RFC3339Nano)",
    "time.Parse('2024-03-05T07:33:03.123456789+05:30')",
    "time.Parse('2024-03-05T07:33:03-08:00').UTC()", "time.Now().Truncate(time.Hour)",
    "(time.Now() - time.Parse(app.status.reconciledAt)).Round(time.Minute)",
    "(time.Now() - time.Parse(app.status.reconciledAt)).Truncate(time.Hour).String()",
    "duration('-1.5h').Abs()", "duration('1h') * 2", "duration('1h') * 1.5", "2 * duration('1m')",
    "duration('90m') / duration('1h')", "duration('1h') == duration('60m')",
    "duration('1h') - duration('61m')", "time.Hour.Minutes()", "-time.Hour", "time.Hour * -1",
    "time.Minute.Milliseconds()", "duration('1.5us').Nanoseconds()", "duration('1µs')",
    "duration('3h2m0.5s').String()", "duration('')", "duration('1h1')", "duration('.h')",
    "date('2024-02-30')", "date('2024-03-05 25:00:00')", "date('1:02:03')",
    "date('2024-03-05T07:33:03Z') - time.Parse('2024-03-05T07:33:03Z')",
    "time.Parse('2024-03-05T07:33:03Z').Equal(date('2024-03-05T07:33:03Z'))",
    "time.Parse('2024-02-30T00:00:00Z')", "time.Parse('2024-03-05T24:00:00Z')",
    "time.Parse('2024-03-05 07:33:03Z')", "time.Parse('2024-03-05T07:33:03.Z')",
    "time.Parse('2024-03-05T07:33:03+0100')", "time.Parse('2024-03-05t07:33:03z')",
    "time.Now().Sub(nil)", "time.Now().Add(nil)", "time.Now().Add(1)", "time.Now().Before()",
    "time.Now().After(app.metadata.name)", "time.Parse(app.metadata.generation)",
]  # fmt: skip

_LEAVES = [
    "0", "1", "2", "-1", "7", "0.5", "2.5", "'a'", "'Synced'", "'Healthy'", "''", "true",
    "false", "nil", "[1, 2]", "['Synced', 'Unknown']", "{'k': 1}", "app.status.sync.status",
    "app.status.health.status", "app.metadata.generation", "app.status.operationState?.phase",
    "app.status.nope", "app.metadata.labels", "app.status.summary?.ratio",
    "app.status.history[0].id", "len(app.status.resources)", "context.argocdUrl",
    "app.metadata.labels?.foo", "app.spec.source.repoURL", "app.status.resources",
]  # fmt: skip
_UNARY = ["!", "not ", "-", "+"]
_OPERATORS = ["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or", "&&", "||", "in",
              "not in", "contains", "startsWith", "endsWith", "??", ".."]  # fmt: skip
_CALLS = ["len", "string", "int", "float", "upper", "lower", "trim", "abs", "type", "first",
          "last", "sum", "max", "min", "reverse", "uniq", "toJSON"]  # fmt: skip
_PREDICATES = ["all", "any", "none", "one", "filter", "map", "count", "find", "findIndex",
               "sum", "groupBy"]  # fmt: skip
_BODIES = ["# > 1", "#", ".status == 'Synced'", ".kind", "# != nil", "#index", "len(#) > 1",
           "# ?? 0", "string(#)"]  # fmt: skip


def random_expression(rng: random.Random, depth: int) -> str:
    """A random expression of the language, mostly well formed, over the app's fields."""
    pick = rng.random()
    if depth <= 0 or pick < 0.25:
        return rng.choice(_LEAVES)
    if pick < 0.55:
        left, right = random_expression(rng, depth - 1), random_expression(rng, depth - 1)
        return f"{left} {rng.choice(_OPERATORS)} {right}"
    if pick < 0.62:
        return f"{rng.choice(_UNARY)}{random_expression(rng, depth - 1)}"
    if pick < 0.7:
        return f"({random_expression(rng, depth - 1)})"
    if pick < 0.78:
        return f"{rng.choice(_CALLS)}({random_expression(rng, depth - 1)})"
    if pick < 0.85:
        collection = rng.choice(
            [
                "app.status.resources",
                "[1, 2, 3]",
                "app.status.history",
                "app.metadata.finalizers",
                "[]",
                "nil",
                "['a', 'bb']",
            ]
        )
        return f"{rng.choice(_PREDICATES)}({collection}, {rng.choice(_BODIES)})"
    if pick < 0.92:
        cond, then, other = (random_expression(rng, depth - 1) for _ in range(3))
        return f"{cond} ? {then} : {other}"
    base = random_expression(rng, depth - 1)
    return f"{base}{rng.choice(['.status', '?.status', '[0]', '?.[0]', '[1:]', '.x?.y'])}"


_STRING_FIELDS = [
    "app.status.sync.status", "app.status.health.status", "app.status.operationState.phase",
    "app.status.operationState?.phase", "app.metadata.name", "app.spec.project",
    "app.metadata.labels.foo", "app.metadata.labels?.preview", "app.spec.source.targetRevision",
    "app.status.operationState?.syncResult?.revision", "app.status.sync.revision",
    "app.spec.destination.namespace", "app.metadata.annotations?.['x']",
    "app.status.health?.message", "context.notificationType",
]  # fmt: skip
_STRING_VALUES = ["'Synced'", "'OutOfSync'", "'Unknown'", "'Healthy'", "'Degraded'",
                  "'Progressing'", "'Succeeded'", "'Running'", "'Failed'", "'velero-test'",
                  "'sre'", "'bar'", "'true'", "''", "'slack'"]  # fmt: skip
_NUMBER_FIELDS = ["app.metadata.generation", "app.status.history[0].id",
                  "app.status.operationState?.operation?.retry?.limit",
                  "len(app.status.resources)", "app.status.summary?.count",
                  "app.metadata.deletionGracePeriodSeconds"]  # fmt: skip


def condition(rng: random.Random, depth: int) -> str:
    """A random well-typed ``when`` over the app's fields, as users write them."""
    pick = rng.random()
    if depth > 0 and pick < 0.3:
        op = rng.choice([" and ", " or ", " && ", " || "])
        return condition(rng, depth - 1) + op + condition(rng, depth - 1)
    if depth > 0 and pick < 0.38:
        return rng.choice(["!", "not "]) + "(" + condition(rng, depth - 1) + ")"
    field = rng.choice(_STRING_FIELDS)
    if pick < 0.6:
        return f"{field} {rng.choice(['==', '!='])} {rng.choice(_STRING_VALUES)}"
    if pick < 0.7:
        values = ", ".join(rng.sample(_STRING_VALUES, rng.randint(1, 3)))
        return f"{field} {rng.choice(['in', 'not in'])} [{values}]"
    if pick < 0.78:
        number, op = rng.choice(_NUMBER_FIELDS), rng.choice([">", "<=", "==", "!="])
        return f"{number} {op} {rng.choice(['0', '10', '263', '2.5'])}"
    if pick < 0.86:
        word = rng.choice(["matches '^S'", "contains 'e'", "startsWith 'v'", "endsWith 'd'"])
        return f"{field} {word}"
    if pick < 0.93:
        return f"({field} ?? {rng.choice(_STRING_VALUES)}) == {rng.choice(_STRING_VALUES)}"
    return rng.choice(
        [
            "app.metadata.deletionTimestamp != nil",
            "app.status.operationState == nil",
            "app.status.operationState?.finishedAt != nil",
            "any(app.status.resources, .status != 'Synced')",
            "all(app.status.resources, .health?.status == 'Healthy')",
        ]
    )


def mutations(rng: random.Random, texts: list[str], count: int) -> list[str]:
    """One character off a valid condition: mostly syntax errors, with their positions."""
    alphabet = [*"abc01279.,()[]{}'\"`!=<>&|+-*/%^?:#;_ \t\n", "é", " in ", " not ", "?."]
    out = []
    for text in rng.sample(texts, count):
        if not text:
            continue
        pos = rng.randrange(len(text))
        change = rng.choice(["insert", "delete", "replace"])
        char = rng.choice(alphabet)
        tail = text[pos:] if change == "insert" else text[pos + 1 :]
        out.append(text[:pos] + ("" if change == "delete" else char) + tail)
    return out


def cases() -> list[tuple[str, str]]:
    """(text, app name) pairs, in a fixed order."""
    rng = random.Random(20261127)
    conditions = trigger_conditions()
    out = [(text, name) for text in conditions for name in apps()]
    variants = ["live", "synced", "degraded", "deleted", "running", "failed", "idle", "empty"]
    for text in EDGES:
        out.append((text, "live"))
    for text in PATTERN_CASES:
        out.append((text, "live"))
    for text in repo_cases():
        out.append((text, "live"))
    for text in COLLECTIONS:
        out += [(text, "live"), (text, "idle"), (text, "empty")]
    for text in path_cases(rng):
        out += [(text, "live"), (text, rng.choice(variants))]
    for text in operator_cases(rng):
        out.append((text, "idle"))
    for text in call_cases(rng):
        out.append((text, "live"))
    for text in mutations(rng, [*conditions, *EDGES], 500):
        out.append((text, rng.choice(variants)))
    for text in TIME_CASES:
        out += [(text, name) for name in variants]
    conditions_rng = random.Random(20261129)
    for _ in range(1500):
        text = condition(conditions_rng, conditions_rng.randint(0, 2))
        out.append((text, conditions_rng.choice(variants)))
    grammar = random.Random(20261128)
    for _ in range(2500):
        out.append((random_expression(grammar, grammar.randint(1, 3)), grammar.choice(variants)))
    return list(dict.fromkeys(out))


def main() -> None:
    print(json.dumps({"apps": apps()}, ensure_ascii=False, sort_keys=True))
    for text, app in cases():
        print(json.dumps({"in": text, "app": app}, ensure_ascii=False))


if __name__ == "__main__":
    main()
