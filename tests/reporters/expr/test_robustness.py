"""Whatever text a ConfigMap holds, compiling and running it ends in a value or in one of
reporters.expr's errors (with a position), never in a Python exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reporters.expr import ExprError, compile
from tests.reporters.expr.conformance import INPUTS, env

ALPHABET = st.sampled_from([
    *"abcxyz019.,:;?!=<>&|+-*/%^#()[]{}'\"`\\ \t\n_$@~", "é", "😀", "app", "nil", "true",
    " in ", " not ", " matches ", "?.", "??", "..", "let ", "map(", "filter(", "len(",
    "time.Now()", "time.Parse(", "app.status", ".status", "#index", "\\u00e9", "1e3", "0x1",
])  # fmt: skip
SEEDS = st.sampled_from(INPUTS.trigger_conditions() + INPUTS.EDGES[:200])


def _outcome(text: str) -> None:
    try:
        compile(text).run(env("live"))
    except ExprError as exc:
        assert exc.line >= 1 and exc.column >= 1
        assert str(exc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=25).map("".join))
def test_random_text_ends_in_a_value_or_an_expr_error(text: str) -> None:
    _outcome(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SEEDS, st.integers(min_value=0, max_value=400), ALPHABET, st.booleans())
def test_edited_conditions_end_in_a_value_or_an_expr_error(
    seed: str, position: int, insert: str, delete: bool
) -> None:
    position %= max(len(seed), 1)
    end = position + 1 if delete else position
    _outcome(seed[:position] + insert + seed[end:])
