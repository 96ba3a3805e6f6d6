"""Equal up to empty values: how ``promoflow apply`` tells a stored template from a change."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from orchestrator.specdiff import same_up_to_empty

SENT = {
    "entrypoint": "main",
    "templates": [
        {
            "name": "main",
            "container": {"image": "promoflow", "command": ["promoflow"], "env": [
                {"name": "A", "value": ""}, {"name": "B", "value": "1"}]},
        }
    ],
}  # fmt: skip
STORED = {  # as the Argo Server v4.0.5 answered for SENT
    "arguments": {},
    "entrypoint": "main",
    "templates": [
        {
            "name": "main",
            "inputs": {},
            "outputs": {},
            "metadata": {},
            "container": {"name": "", "image": "promoflow", "command": ["promoflow"],
                          "resources": {}, "env": [{"name": "A"}, {"name": "B", "value": "1"}]},
        }
    ],
}  # fmt: skip


def test_what_the_server_adds_or_drops_is_no_change() -> None:
    assert same_up_to_empty(STORED, SENT) and same_up_to_empty(SENT, STORED)


def test_any_value_that_differs_is_a_change() -> None:
    changed: Any = {**SENT, "entrypoint": "other"}
    assert not same_up_to_empty(STORED, changed)
    env = [{"name": "A"}, {"name": "B", "value": "2"}]
    container = {**STORED["templates"][0]["container"], "env": env}
    assert not same_up_to_empty({**STORED, "templates": [{"container": container}]}, STORED)
    assert not same_up_to_empty({"a": [1, 2]}, {"a": [1]})
    assert not same_up_to_empty({"a": "1"}, {"a": 1})  # a string is not a number
    assert not same_up_to_empty({"a": 0}, {})  # zero is a value, not an empty one
    assert not same_up_to_empty({"a": False}, {})


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(values)
def test_a_value_is_the_same_as_itself_with_empty_fields_added(value: Any) -> None:
    padded = {"x": value, "empty": {}, "blank": "", "none": None, "list": []}
    assert same_up_to_empty(value, value)
    assert same_up_to_empty(padded, {"x": value})
