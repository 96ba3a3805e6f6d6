"""YAML paths (``image.tag``, ``containers[0].image``, quoted keys): parse and format."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.model.yamlpath import (
    PathNotFound,
    PathPart,
    Selector,
    YamlPathError,
    format_yaml_path,
    lookup,
    parse_yaml_path,
    split_assignment,
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
        (
            "images[name=ghcr.io/acme/web].newTag",
            ("images", Selector("name", "ghcr.io/acme/web"), "newTag"),
        ),
        ("spec.containers[name=web][0]", ("spec", "containers", Selector("name", "web"), 0)),
        ("ports[port=80].name", ("ports", Selector("port", "80"), "name")),
        ('a[name="x]y"].b', ("a", Selector("name", "x]y"), "b")),
        ("a[name=' lead'].b", ("a", Selector("name", " lead"), "b")),
        ('a["app.kubernetes.io/name"=web]', ("a", Selector("app.kubernetes.io/name", "web"))),
        ("a[name=x=y]", ("a", Selector("name", "x=y"))),
        ('a[name=""]', ("a", Selector("name", ""))),
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
        ("a[x]", "invalid YAML path 'a[x]' at character 2: expected an index [0] or a selector"),
        ("a[name=]", "invalid YAML path 'a[name=]' at character 2: expected an index [0]"),
        ("a[name=x ]", "invalid YAML path 'a[name=x ]' at character 2: expected an index"),
        ("a[=x]", "invalid YAML path 'a[=x]' at character 2: expected an index"),
        ("a[name=x", "invalid YAML path 'a[name=x' at character 2: expected an index"),
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
_value = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12
).filter(lambda v: not ('"' in v and "'" in v))
_selector = st.builds(Selector, _key, _value)
_path = st.tuples(_key, st.lists(st.one_of(_key, st.integers(0, 999), _selector), max_size=6)).map(
    lambda head_rest: (head_rest[0], *head_rest[1])
)


@given(_path)
def test_format_then_parse_is_identity(parts: tuple[PathPart, ...]) -> None:
    assert parse_yaml_path(format_yaml_path(parts)) == parts


@given(_path)
def test_parse_then_format_is_stable(parts: tuple[PathPart, ...]) -> None:
    text = format_yaml_path(parts)
    assert format_yaml_path(parse_yaml_path(text)) == text


DATA = {
    "images": [
        {"name": "ghcr.io/acme/worker", "newTag": "1.6.0"},
        {"name": "ghcr.io/acme/web", "newTag": "1.9.0"},
        {"name": "twin", "newTag": "a"},
        {"name": "twin", "newTag": "b"},
    ],
    "ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}],
    "flags": [{"on": True}],
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("images[name=ghcr.io/acme/web].newTag", "1.9.0"),
        ("images[1].newTag", "1.9.0"),
        ("ports[port=443].name", "https"),
        ("flags[on=true]", {"on": True}),
    ],
)
def test_lookup_selects_items_by_key(path: str, value: object) -> None:
    assert lookup(DATA, parse_yaml_path(path)) == value


@pytest.mark.parametrize(
    ("path", "depth", "reason"),
    [
        ("images[name=nope].newTag", 1, "images has no item with name='nope'"),
        ("images[name=twin]", 1,
         "2 items of images have name='twin': a selector must name one item"),
        ("images[name=ghcr.io/acme/web].tag", 2,
         "images[name=ghcr.io/acme/web] has no key 'tag'"),
        ("ports.http", 1, "ports is a list, not a mapping"),
        ("images[0].newTag[0]", 3, "images[0].newTag is the value '1.6.0', not a list"),
        ("images[9]", 1, "images has no item [9] (it has 4)"),
        ("nope", 0, "the document has no key 'nope'"),
    ],
)  # fmt: skip
def test_lookup_says_why_a_path_names_nothing(path: str, depth: int, reason: str) -> None:
    with pytest.raises(PathNotFound) as exc:
        lookup(DATA, parse_yaml_path(path))
    assert (exc.value.depth, exc.value.reason) == (depth, reason)


@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("image.digest=sha256:ab", ("image.digest", "sha256:ab")),
        ("images[name=web].digest=sha256:ab", ("images[name=web].digest", "sha256:ab")),
        ('a[name="x=]"].b=c=d', ('a[name="x=]"].b', "c=d")),
        ("no-equals", None),
    ],
)
def test_assignments_split_outside_selectors(text: str, split: tuple[str, str] | None) -> None:
    assert split_assignment(text) == split
