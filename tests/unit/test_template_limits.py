"""The limits every user-written Jinja template runs with (orchestrator.sandbox): read-only
data, values that cannot grow past a bound, renders that stop. The commit message template
is the one product template written in Jinja; no generated template gets past them.
(Notification templates are Go templates, bounded by reporters.gotemplate's own limits.)"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import ChainableUndefined, TemplateSyntaxError
from jinja2.exceptions import SecurityError

from orchestrator.sandbox.environment import BoundedEnvironment
from orchestrator.sandbox.frozen import FrozenDict, freeze
from orchestrator.sandbox.limits import LimitError, Limits
from orchestrator.steps import message

DATA = {
    "app": {
        "metadata": {"name": "shop-dev", "labels": {"promoflow.dev/product": "shop"}},
        "status": {"images": ["shop:1.2.0"], "health": {"status": "Healthy"}},
    },
    "event": {"type": "app.deployed", "data": {"app": "argocd/shop-dev", "revision": "a" * 40}},
    "context": {"argocdUrl": "https://argocd.example.com"},
}


def test_frozen_data_reads_and_prints_as_the_original_and_refuses_every_change() -> None:
    data = freeze(DATA)
    assert data == DATA and json.dumps(data) == json.dumps(DATA) and repr(data) == repr(DATA)
    labels = data["app"]["metadata"]["labels"]
    images = data["app"]["status"]["images"]
    for change in (
        lambda: labels.clear(),
        lambda: labels.update(x="y"),
        lambda: labels.__setitem__("x", "y"),
        lambda: images.append("x"),
        lambda: images.__setitem__(0, "x"),
        lambda: images.sort(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert data == DATA
    assert DATA["app"]["status"]["images"] is not images  # a copy: the original is apart
    # however it is read, what comes out is frozen too
    for read in (
        data["app"],
        data.get("app"),
        next(iter(data.values())),
        dict(data.items())["app"],
        freeze([DATA["app"]])[0],
        next(iter(freeze([DATA["app"]]))),
        next(reversed(freeze([DATA["app"]]))),
        freeze([DATA["app"]])[:1][0],
    ):
        assert isinstance(read, FrozenDict) and isinstance(read["metadata"], FrozenDict)


REFUSED = [
    ("{{ 9**(9**10) }}", "'**' makes a number over 4,096 bits"),
    ("{{ (2**4000) * (2**4000) }}", "'*' makes a number over 4,096 bits"),
    ("{{ 'x' * 10**9 }}", "'*' would be 1,000,000,000 long"),
    ("{{ [1, 2] * 10**6 }}", "'*' would be 2,000,000 long"),
    ("{{ '%0999999999d' % 1 }}", "'%' would be longer than the limit of 262,144"),
    ("{{ [1] | slice(10**9) | list }}", "slice would be 1,000,000,000 long"),
    ("{{ [[1]] | tojson(indent=10**6) }}", "tojson would be longer than the limit"),
    ("{{ '%*d' % (10**9, 1) }}", "'%' would be"),
    ("{{ '{:>999999999}'.format(1) }}", "format would be"),
    ("{{ '{:{}}'.format(1, 10**9) }}", "format would be"),
    ("{{ 'x' | center(10**9) }}", "center would be 1,000,000,000 long"),
    ("{{ 'x'.ljust(10**9) }}", "ljust would be 1,000,000,000 long"),
    ("{{ ('\t' * 99999).expandtabs(99999) }}", "expandtabs would be"),
    ("{{ ('a' * 99999).replace('a', 'b' * 1000) }}", "replace would be 99,999,000 long"),
    ("{{ ('a' * 99999) | replace('a', 'b' * 1000) }}", "replace would be 99,999,000 long"),
    ("{{ range(99999) | join('x' * 99999) }}", "join would be"),
    ("{{ ('x' * 99).join(range(99999)) }}", "join would be"),
    ("{{ ('x' * 9999) | wordwrap(1, wrapstring='y' * 9999) }}", "wordwrap would be"),
    ("{{ ('x\n' * 9999) | indent(99999) }}", "indent would be"),
    ("{{ '%0999999999d' | format(1) }}", "format would be"),
    ("{{ [1] | batch(10**9, 'x') | list }}", "batch would be"),
    ("{{ (1).to_bytes(10**9) }}", "to_bytes would be 1,000,000,000 long"),
    ("{{ 'x' * 200000 + 'y' * 200000 }}", "'+' would be 400,000 long"),
    (
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}",
        "'~' would be 524,288 long",
    ),
    ("{% for i in range(99999) %}{{ 'x' * 99999 }}{% endfor %}", "the output would be 299,997"),
    (
        "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
        "stopped after 200,000 steps",
    ),
    (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{{ f(60) }}",
        "stopped after 200,000 steps",
    ),
    (
        "{% for i in range(99999) %}{{ range(99999) | map('abs') | sum }}{% endfor %}",
        "stopped after 200,000 steps",
    ),
]


@pytest.mark.parametrize(("template", "said"), REFUSED)
def test_what_would_run_or_grow_without_bound_is_refused_saying_which_limit(
    template: str, said: str
) -> None:
    env = BoundedEnvironment(limits=Limits(max_seconds=3600))  # the steps decide, not the clock
    with pytest.raises(LimitError, match="^" + re.escape(said)):
        env.render(env.from_string(template), {})


def test_a_render_that_outlasts_its_time_is_stopped_whatever_its_steps() -> None:
    env = BoundedEnvironment(limits=Limits(max_steps=10**12, max_seconds=0.0))
    with pytest.raises(LimitError, match="stopped after 0 s"):
        env.render(env.from_string("{% for i in range(99999) %}{{ i }}{% endfor %}"), {})


def test_the_limits_hold_on_the_thread_they_are_set_on_only_and_are_undone() -> None:
    import sys

    before = sys.gettrace()
    env = BoundedEnvironment()
    assert env.render(env.from_string("{{ 1 + 1 }}"), {}) == "2"
    assert sys.gettrace() is before


def test_a_commit_message_template_has_the_same_limits_and_cannot_change_its_values() -> None:
    values: dict[str, Any] = {"product": "shop", "files": ["values.yaml"], "environment": "dev"}
    for template, said in [
        ("{{ 9**(9**10) }}", "'**' makes a number over 4,096 bits"),
        ("{{ files.append('x') }}", "access to attribute 'append' of 'FrozenList'"),
        ("{{ 1 / 0 }}", "ZeroDivisionError: division by zero"),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "RecursionError"),
        ("{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
         "stopped after"),
    ]:  # fmt: skip
        with pytest.raises(
            message.MessageError, match=re.escape(f"commit message template: {said}")
        ):
            message.render(values, template)
    assert values["files"] == ["values.yaml"]
    assert message.render(values, "Promote {{ product }}: {{ files | join(', ') }}") == (
        "Promote shop: values.yaml\n"
    )


# -- any template: never an unhandled exception, never past the bounds --------------------

SMALL = Limits(max_length=2_000, max_int_bits=256, max_steps=5_000, max_seconds=3600)

atoms = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.sampled_from(["9", "99999", "10**9", "2", "0", "-1", "1.5", "none", "true", "2 ** 255"]),
    st.sampled_from(["'x' * 999", "'{:>50}'", "'%5s%-9d'", "'\\t' * 99", "[0] * 999"]),
    st.text("abx%{}:*\t\n0123456789 ", max_size=12).map(repr),
    st.sampled_from([
        "context", "context.argocdUrl", "app", "app.metadata.labels", "app.status.images",
        "event.data", "event.data.revision", "range(99999)", "range(50)", "[1, 2, 3]",
        "{'a': 1}", "lipsum(3)", "namespace(x=1)", "app.missing.deeper",
    ]),
)  # fmt: skip
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "~", "and", "or", "==", "in"]
FILTERS = [
    "center(99999)", "join('xx')", "join", "replace('a', 'bbbb')", "indent(50)", "wordwrap(3)",
    "format(1, 2)", "batch(999)", "list", "length", "tojson", "sum", "string", "upper",
    "truncate(5)", "first", "sort", "unique", "dictsort", "items", "e", "int", "float",
]  # fmt: skip
METHODS = [
    "update(a=1)", "clear()", "append(1)", "pop()", "ljust(99999)", "zfill(5000)",
    "replace('', 'yy')", "split()", "join(['a', 'b'])", "format(1, 2)", "items()",
    "expandtabs(500)", "to_bytes(999)", "__class__", "keys()", "copy()",
]  # fmt: skip


def expressions_(depth: int = 3) -> st.SearchStrategy[str]:
    return st.recursive(
        atoms,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(OPERATORS), inner).map(" ".join),
            st.tuples(inner, st.sampled_from(FILTERS)).map(lambda t: f"({t[0]}) | {t[1]}"),
            st.tuples(inner, st.sampled_from(METHODS)).map(lambda t: f"({t[0]}).{t[1]}"),
            inner.map(lambda e: f"({e})"),
        ),
        max_leaves=depth * 3,
    )


def templates() -> st.SearchStrategy[str]:
    expression = expressions_()
    piece = st.one_of(
        expression.map(lambda e: "{{ " + e + " }}"),
        st.tuples(expression, expression).map(
            lambda t: "{% for x in " + t[0] + " %}{{ " + t[1] + " }}{{ x }}{% endfor %}"
        ),
        st.tuples(expression, expression).map(
            lambda t: "{% for x in " + t[0] + " %}{% for y in " + t[0] + " %}{{ " + t[1]
            + " }}{% endfor %}{% endfor %}"
        ),
        expression.map(lambda e: "{% set ns = namespace(v='') %}{% set ns.v = " + e + " %}"),
        expression.map(
            lambda e: "{% macro m(n) %}{% if n %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}{{ "
            + e + " }}{% endmacro %}{{ m(20) }}"
        ),
        st.text("ab {}%", max_size=6),
    )  # fmt: skip
    return st.lists(piece, min_size=1, max_size=4).map("".join)


ENVIRONMENT = BoundedEnvironment(undefined=ChainableUndefined, autoescape=False)


def render(text: str, data: dict[str, Any]) -> str:
    """As the commit message template is rendered: each value of the data frozen."""
    return ENVIRONMENT.render(
        ENVIRONMENT.from_string(text), {name: freeze(value) for name, value in data.items()}
    )


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(ENVIRONMENT, "limits", SMALL)
    yield


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(templates())
def test_no_template_raises_unhandled_or_outgrows_its_bounds(small_limits: None, text: str) -> None:
    data = copy.deepcopy(DATA)
    try:
        out = render(text, data)
    except TemplateSyntaxError:
        return  # refused before it runs
    except LimitError as exc:
        assert str(exc)  # told why
    except SecurityError as exc:
        assert str(exc)
    except Exception as exc:  # a filter on odd data: Jinja's own error, never a crash
        assert type(exc).__module__ in ("builtins", "jinja2.exceptions"), exc
    else:
        assert len(out) <= SMALL.max_length
    assert data == DATA
