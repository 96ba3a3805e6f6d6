"""``orchestrator.yamledit``: read values with their spelling, edit them in place."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.yamledit import Value, YamlEditError, edit, read, render

TEXT = """\
# a comment that must survive
image:
  repository: registry.example.com/acme/shop   # trailing comment
  tag: '1.4.1'
  digest: "sha256:bbbb"
replicas: 2
enabled: yes
ports: [80, 443]
containers:
  - name: app
    image: app:1.0
labels: {team: shop, tier: "web"}
script: |
  echo hi
"""

REPOSITORY = "registry.example.com/acme/shop"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("image.repository", Value(REPOSITORY, REPOSITORY, "plain")),
        ("image.tag", Value("1.4.1", "'1.4.1'", "single")),
        ("image.digest", Value("sha256:bbbb", '"sha256:bbbb"', "double")),
        ("replicas", Value(2, "2", "plain")),
        ("enabled", Value(True, "yes", "plain")),
        ("ports[1]", Value(443, "443", "plain")),
        ("containers[0].image", Value("app:1.0", "app:1.0", "plain")),
        ("labels.tier", Value("web", '"web"', "double")),
        ("labels.team", Value("shop", "shop", "plain")),
        ("script", Value("echo hi\n")),
        ("image", Value({"repository": REPOSITORY, "tag": "1.4.1",
                         "digest": "sha256:bbbb"})),
    ],
)  # fmt: skip
def test_read_returns_data_and_spelling(path: str, value: Value) -> None:
    assert read(TEXT, path, "values.yaml") == value


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("image.nope", "image has no key 'nope'"),
        ("nope.tag", "the document has no key 'nope'"),
        ("ports[5]", "ports has no item [5] (it has 2)"),
        ("containers[0].x", "containers[0] has no key 'x'"),
        ("image.tg", "image has no key 'tg'; did you mean image.tag?"),
        ("imag.tag", "the document has no key 'imag'; did you mean image.tag?"),
        ("containers[name=ap].image", "containers has no item with name='ap'; "
         "did you mean containers[name=app].image?"),
        ("replicas.max", "replicas is the value '2', not a mapping"),
    ],
)  # fmt: skip
def test_read_names_file_path_and_the_nearest_path_when_absent(path: str, message: str) -> None:
    with pytest.raises(YamlEditError) as exc:
        read(TEXT, path, "values.yaml")
    assert str(exc.value) == f"values.yaml: YAML path {path!r} not found: {message}"


def test_invalid_yaml_is_an_error_naming_the_file() -> None:
    with pytest.raises(YamlEditError, match=r"^bad\.yaml: invalid YAML"):
        read("a: [1, 2\n", "a", "bad.yaml")
    with pytest.raises(YamlEditError, match=r"^bad\.yaml: invalid YAML"):
        edit("a: b: c\n", {"a": Value(1)}, "bad.yaml")
    with pytest.raises(YamlEditError, match="the document must be a mapping"):
        edit("- a\n- b\n", {"a": Value(1)}, "list.yaml")


def replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("path", "value", "old", "new"),
    [
        # Each style is kept when it can hold the new value...
        ("image.tag", Value("1.4.2"), "tag: '1.4.1'", "tag: '1.4.2'"),
        ("image.digest", Value("sha256:aaaa"), '"sha256:bbbb"', '"sha256:aaaa"'),
        ("image.repository", Value("r.example.com/x"), "registry.example.com/acme/shop ",
         "r.example.com/x "),
        ("labels.tier", Value("api"), 'tier: "web"', 'tier: "api"'),
        ("labels.team", Value("checkout"), "team: shop", "team: checkout"),
        ("ports[0]", Value(8080), "[80, 443]", "[8080, 443]"),
        ("containers[0].image", Value("app:2.0"), "image: app:1.0", "image: app:2.0"),
        ("replicas", Value(3, "3", "plain"), "replicas: 2", "replicas: 3"),
        ("enabled", Value(False, "no", "plain"), "enabled: yes", "enabled: no"),
        # ...and quoted when the plain spelling would mean something else.
        ("labels.team", Value("yes"), "team: shop", 'team: "yes"'),
        ("replicas", Value("3"), "replicas: 2", 'replicas: "3"'),
        ("image.repository", Value("a: b"), "registry.example.com/acme/shop ", '"a: b" '),
        ("image.tag", Value("it's"), "tag: '1.4.1'", "tag: 'it''s'"),
        ("labels.team", Value("#1"), "team: shop", 'team: "#1"'),
    ],
)  # fmt: skip
def test_edit_replaces_only_the_scalar(path: str, value: Value, old: str, new: str) -> None:
    result = edit(TEXT, {path: value}, "values.yaml")
    assert result == replaced(TEXT, old, new)
    assert read(result, path).data == value.data


def test_several_edits_on_one_line_and_file() -> None:
    updates = {
        "labels.team": Value("checkout"),
        "labels.tier": Value("api"),
        "image.tag": Value("2.0.0"),
        "ports[1]": Value(8443),
    }
    expected = TEXT.replace('{team: shop, tier: "web"}', '{team: checkout, tier: "api"}')
    expected = expected.replace("'1.4.1'", "'2.0.0'").replace("[80, 443]", "[80, 8443]")
    assert edit(TEXT, updates) == expected


def test_an_unchanged_value_leaves_the_text_alone() -> None:
    assert edit(TEXT, {"image.tag": Value("1.4.1"), "replicas": Value(2)}) == TEXT


def test_structural_edits_round_trip_with_the_intended_data() -> None:
    updates = {
        "image.pullPolicy": Value("Always"),  # a new key
        "image.limits": Value({"memory": "512Mi"}),  # a new mapping
        "labels": Value({"team": "shop"}),  # a whole mapping
        "script": Value("echo bye\n"),  # a block scalar
    }
    result = edit(TEXT, updates, "values.yaml", create={"image.pullPolicy", "image.limits"})
    data = yaml.safe_load(result)
    assert data["image"]["pullPolicy"] == "Always"
    assert data["image"]["limits"] == {"memory": "512Mi"}
    assert data["labels"] == {"team": "shop"}
    assert data["script"] == "echo bye\n"
    assert data["image"]["tag"] == "1.4.1" and data["ports"] == [80, 443]
    assert result.startswith("# a comment that must survive\n")
    assert "# trailing comment" in result
    assert "  - name: app\n" in result  # the list keeps its indentation


def test_a_scalar_parent_cannot_be_extended() -> None:
    with pytest.raises(YamlEditError) as exc:
        edit(TEXT, {"replicas.max.value": Value(3)}, "values.yaml", create={"replicas.max.value"})
    assert str(exc.value) == (
        "values.yaml: cannot set 'replicas.max.value': replicas is the value '2', not a mapping"
    )


@pytest.mark.parametrize(
    ("value", "style", "expected"),
    [
        (Value("1.0"), "plain", None),  # would read as a float
        (Value("1.0"), "single", "'1.0'"),
        (Value("1.0"), "double", '"1.0"'),
        (Value("x"), "other", None),
        (Value("a\nb"), "plain", None),
        (Value(5), "double", "5"),
        (Value(None), "plain", "null"),
        (Value(1.5, "1.50", "plain"), "double", "1.50"),
        (Value([1]), "plain", None),
    ],
)
def test_render(value: Value, style: Any, expected: str | None) -> None:
    assert render(value, style) == expected


KEYS = st.sampled_from(["a", "b", "tag", "name", "x-y", "v1"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
    | st.sampled_from(["yes", "no", "1.0", "null", "~", "on", "0o17", "1e3", "#x", "a: b"])
)
DOCS = st.dictionaries(
    KEYS, SCALARS | st.dictionaries(KEYS, SCALARS, min_size=1, max_size=3), min_size=1
)


@settings(max_examples=150, deadline=None)
@given(doc=DOCS, new=SCALARS, data=st.data())
def test_edit_means_exactly_the_update(doc: dict[str, Any], new: Any, data: st.DataObject) -> None:
    """Any scalar written over any existing scalar: the file means the update and nothing
    else, and lines not holding the edited value are untouched."""
    text = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    paths = [
        (k, *([sub] if isinstance(v, dict) else []))
        for k, v in doc.items()
        for sub in (v if isinstance(v, dict) else [None])
    ]
    path = [str(p) for p in data.draw(st.sampled_from(paths)) if p is not None]
    expected = yaml.safe_load(text)
    node = expected
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new

    result = edit(text, {".".join(path): Value(new)})

    assert yaml.safe_load(result) == expected
    before, after = text.splitlines(), result.splitlines()
    assert len(before) == len(after)
    assert sum(b != a for b, a in zip(before, after, strict=True)) <= 1


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ('image: "x"\n', "image.tag", "image is the value 'x', not a mapping"),
        ("image: [a]\n", "image.tag", "image is a list, not a mapping"),
        ("images: [a]\n", "images[3]", "images has no item [3] (it has 1)"),
    ],
)
def test_a_path_through_a_scalar_or_a_missing_entry_is_refused(
    text: str, path: str, message: str
) -> None:
    for create in ((), {path}):  # nothing a rule may create makes these paths exist
        with pytest.raises(YamlEditError, match=re.escape(message)):
            edit(text, {path: Value("1.2.3")}, "f.yaml", create=create)


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("a: 1\nkey:\nb: 2\n", "key", "a: 1\nkey: 1.2.3\nb: 2\n"),
        ("m: {x: , y: 1}\n", "m.x", "m: {x: 1.2.3, y: 1}\n"),
        ("a: 1\nkey: null # kept\n", "key", "a: 1\nkey: 1.2.3 # kept\n"),
    ],
)
def test_empty_values_are_filled_in(text: str, path: str, expected: str) -> None:
    assert edit(text, {path: Value("1.2.3")}, "f.yaml") == expected


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("a: 1\n", "resources.limits.memory", "a: 1\nresources:\n  limits:\n    memory: 1.2.3\n"),
        ("a:\n  b:\nc: 1\n", "a.b.c", "a:\n  b:\n    c: 1.2.3\nc: 1\n"),
        ("a: 1\n", "images[name=web].newTag", "a: 1\nimages:\n- name: web\n  newTag: 1.2.3\n"),
        ("images:\n- name: db\n", "images[name=web].newTag",
         "images:\n- name: db\n- name: web\n  newTag: 1.2.3\n"),
    ],
)  # fmt: skip
def test_missing_parents_are_created_only_where_a_rule_allows(
    text: str, path: str, expected: str
) -> None:
    with pytest.raises(YamlEditError, match=r"not found|is null, not a mapping"):
        edit(text, {path: Value("1.2.3")}, "f.yaml")
    assert edit(text, {path: Value("1.2.3")}, "f.yaml", create={path}) == expected


STYLED = """\
image:
  tag: 1.0.0
  plain: 1.0.0
  single: '1.0.0'
  double: "1.0.0"
"""


@pytest.mark.parametrize(
    ("path", "version", "token"),
    [
        # a plain token stays plain where every reader reads the string back...
        ("image.tag", "1.2.3", "1.2.3"),
        ("image.tag", "6063e25a", "6063e25a"),
        # ...and is quoted in the file's most used quotes (here: as many of each, so
        # double) where one reader would read something else
        ("image.tag", "6063e25", '"6063e25"'),  # a float in YAML 1.2 and Go
        ("image.tag", "1e3", '"1e3"'),
        ("image.tag", "0o17", '"0o17"'),  # 15 in YAML 1.2 and Go
        ("image.tag", "y", '"y"'),  # true in Go's yaml.v2
        ("image.tag", "089", '"089"'),  # 89 in YAML 1.2, 89.0 in Go
        ("image.tag", "2024-1-2", '"2024-1-2"'),  # a time.Time in Go's yaml.v3
        ("image.tag", "1:30", '"1:30"'),  # 90 in YAML 1.1
        ("image.tag", "1.10", '"1.10"'),
        ("image.tag", "0123", '"0123"'),
        ("image.tag", "on", '"on"'),
        ("image.tag", "null", '"null"'),
        ("image.tag", "a\tb\u2028", '"a\\tb\\u2028"'),
        # a quoted token keeps its quotes
        ("image.single", "6063e25", "'6063e25'"),
        ("image.single", "1.2.3", "'1.2.3'"),
        ("image.double", "y", '"y"'),
        ("image.double", "1.2.3", '"1.2.3"'),
        ("image.single", "a\nb", '"a\\nb"'),  # single quotes would fold the line break
    ],
)
def test_a_value_is_quoted_where_a_reader_would_misread_it(
    path: str, version: str, token: str
) -> None:
    old = read(STYLED, path).token
    result = edit(STYLED, {path: Value(version)}, "values.yaml")
    assert result == STYLED.replace(
        f"{path.split('.')[1]}: {old}", f"{path.split('.')[1]}: {token}"
    )
    assert read(result, path).data == version


def test_a_value_becomes_quoted_as_the_file_quotes() -> None:
    singles = "a: 'x'\nb: 'y'\nc: \"z\"\ntag: 1.0.0\n"
    assert edit(singles, {"tag": Value("6063e25")}) == singles.replace("1.0.0", "'6063e25'")
    doubles = 'a: "x"\ntag: 1.0.0\n'
    assert edit(doubles, {"tag": Value("6063e25")}) == doubles.replace("1.0.0", '"6063e25"')
    bare = "tag: 1.0.0\n"
    assert edit(bare, {"tag": Value("6063e25")}) == 'tag: "6063e25"\n'


def test_new_keys_and_mappings_are_quoted_too() -> None:
    result = edit(
        "a: 'x'\n",
        {"image.tag": Value("y"), "image.more": Value({"n": "1e3", "l": ["on", "ok"]})},
        "values.yaml",
        create={"image.tag", "image.more"},
    )
    assert result == (  # a key n is false to Go's yaml.v2, as a value would be
        "a: 'x'\nimage:\n  tag: 'y'\n  more:\n    'n': '1e3'\n    l:\n    - 'on'\n    - ok\n"
    )


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("6063e25", r"Go yaml.v2 \(sigs.k8s.io/yaml: Helm, .*\) reads 6.063e\+28 \(float64\)"),
        ("y", r"Go yaml.v2 .* reads true \(bool\)"),
        ("2024-1-2", r"Go yaml.v3 \(kustomize's kyaml\) reads 2024-01-02T00:00:00Z \(time.Time\)"),
        ("1e400", r"YAML 1.2 \(ruamel.yaml\) reads inf \(float\)"),
    ],
)
def test_the_self_check_names_the_reader_that_disagrees(
    monkeypatch: pytest.MonkeyPatch, version: str, message: str
) -> None:
    """Were a value written plain where a reader misreads it, the edit refuses, naming the
    file, the path and the reader: YAML 1.1 alone (the check before) sees the string."""
    from orchestrator import yamledit

    monkeypatch.setattr(yamledit, "render", lambda value, style: value.data)
    with pytest.raises(
        YamlEditError,
        match=rf"^values\.yaml: image\.tag would not read back as '{version}': {message}$",
    ):
        edit(STYLED, {"image.tag": Value(version)}, "values.yaml")


def test_block_scalars_pass_the_self_check() -> None:
    assert edit(TEXT, {"script": Value("echo hi\n")}) == TEXT
    result = edit(TEXT, {"script": Value("echo 1e3\nyes\n")})
    assert "script: |\n  echo 1e3\n  yes\n" in result


def test_a_date_that_does_not_exist_is_text_as_go_reads_it() -> None:
    """``2024-02-30`` is no date: Go's YAML (Helm, kustomize) reads it as text, so a file
    holding one is edited, not refused with a traceback."""
    text = "released: 2024-02-30\ntag: 1.0.0\n"
    assert edit(text, {"tag": Value("2.0.0")}, "values.yaml") == text.replace("1.0.0", "2.0.0")
    assert read(text, "released").data == "2024-02-30"
