"""YAML paths (``image.tag``, ``containers[0].image``, quoted keys): parse and format."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.model.yamlpath import (
    PathPart,
    YamlPathError,
    format_yaml_path,
    parse_yaml_path,
)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("image.tag", ("image", "tag")),
        ("containers[0].image", ("containers", 0, "image")),
        ("matrix[1][2]", ("matrix", 1, 2)),
        (
            'metadata.labels."app.kubernetes.io/name"',
            ("metadata", "labels", "app.kubernetes.io/name"),
        ),
        ("annotations.'a.b'", ("annotations", "a.b")),
        ("a-b/c_D9", ("a-b/c_D9",)),
        ('"x y"[3]', ("x y", 3)),
    ],
)
def test_parse_and_format(text: str, parts: tuple[PathPart, ...]) -> None:
    assert parse_yaml_path(text) == parts
    assert parse_yaml_path(format_yaml_path(parts)) == parts


def test_format_uses_the_shortest_spelling() -> None:
    assert format_yaml_path(("annotations", "a.b", 0, "c")) == 'annotations."a.b"[0].c'
    assert format_yaml_path(("say", 'he said "hi"')) == "say.'he said \"hi\"'"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "a YAML path cannot be empty"),
        ("a..b", "invalid YAML path 'a..b' at character 3: expected a key"),
        ("a.", "invalid YAML path 'a.' at character 3: expected a key"),
        ("[0]", "invalid YAML path '[0]' at character 1: expected a key"),
        ("a[x]", "invalid YAML path 'a[x]' at character 2: expected '.' or '['"),
        ("a b", "invalid YAML path 'a b' at character 2: expected '.' or '['"),
        ('"unclosed', "invalid YAML path '\"unclosed' at character 1: expected a key"),
    ],
)
def test_invalid_paths(text: str, message: str) -> None:
    with pytest.raises(YamlPathError) as exc:
        parse_yaml_path(text)
    assert str(exc.value).startswith(message)


_key = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
).filter(lambda k: not ('"' in k and "'" in k))
_path = st.tuples(_key, st.lists(st.one_of(_key, st.integers(0, 999)), max_size=6)).map(
    lambda head_rest: (head_rest[0], *head_rest[1])
)


@given(_path)
def test_format_then_parse_is_identity(parts: tuple[PathPart, ...]) -> None:
    assert parse_yaml_path(format_yaml_path(parts)) == parts


@given(_path)
def test_parse_then_format_is_stable(parts: tuple[PathPart, ...]) -> None:
    text = format_yaml_path(parts)
    assert format_yaml_path(parse_yaml_path(text)) == text
