"""Promoted values read back as written: by PyYAML (YAML 1.1), ruamel.yaml (YAML 1.2), the
Go mirror, and the real ``kubectl kustomize`` and ``helm template`` on rendered fixtures.

Short SHAs such as ``6063e25``, and ``1e3``, ``0o17`` or ``y``, are strings to YAML 1.1 and
a float, an int or a boolean to Go: written plain, ``kubectl kustomize`` stops with "cannot
unmarshal number into Go struct field Image.images.newTag of type string" and Helm renders
``ledger:6.063e+28``. These tests write such versions with :func:`orchestrator.yamledit.edit`
and ask the real tools what they read.
"""

from __future__ import annotations

import subprocess
import tempfile
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from orchestrator.goscalars import GoScalar
from orchestrator.yamledit import Value, edit
from orchestrator.yamlscalars import go_v2, go_v3
from tests.tools.binaries import ensure

REPOSITORY = "ghcr.io/acme/ledger"


def _run(tool: str, *args: str) -> str:
    done = subprocess.run(
        [str(ensure(tool)), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _images(rendered: str) -> list[str]:
    """Every container image of the Deployments in ``rendered``, in order."""
    return [
        container["image"]
        for doc in yaml.safe_load_all(rendered)
        if doc and doc["kind"] == "Deployment"
        for container in doc["spec"]["template"]["spec"]["containers"]
    ]


def _deployment(names: list[str], images: list[str]) -> str:
    containers = "".join(
        f"        - name: {name}\n          image: {image}\n"
        for name, image in zip(names, images, strict=True)
    )
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ledger\nspec:\n"
        "  selector:\n    matchLabels: {app: ledger}\n  template:\n    metadata:\n"
        f"      labels: {{app: ledger}}\n    spec:\n      containers:\n{containers}"
    )


def _kustomize(folder: Path, kustomization: str, names: list[str]) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "deployment.yaml").write_text(_deployment(names, names))
    (folder / "kustomization.yaml").write_text(kustomization)
    return _images(_run("kubectl", "kustomize", str(folder)))


CHART = "apiVersion: v2\nname: ledger\nversion: 0.1.0\n"
ONE_IMAGE = _deployment(["ledger"], ['"{{ .Values.image.repository }}:{{ .Values.image.tag }}"'])
EVERY_IMAGE = (
    "{{- range $i, $image := .Values.images }}\n---\n"
    + _deployment([r"c{{ $i }}"], ['"{{ $image.repository }}:{{ $image.tag }}"'])
    + "{{- end }}\n"
)


def _helm(folder: Path, template: str, values: str) -> list[str]:
    (folder / "templates").mkdir(parents=True, exist_ok=True)
    (folder / "Chart.yaml").write_text(CHART)
    (folder / "templates" / "deployment.yaml").write_text(template)
    (folder / "values.yaml").write_text(values)
    return _images(_run("helm", "template", "ledger", str(folder)))


# -- every case the issue lists -------------------------------------------------------------

KUSTOMIZATION = f"""\
resources:
  - deployment.yaml
images:
  - name: {REPOSITORY}
    newTag: 1.0.0   # promoted by promoflow
"""
VALUES = f"""\
# the ledger service
image:
  repository: {REPOSITORY}
  tag: 1.0.0
"""


@pytest.mark.parametrize(
    ("version", "token"),
    [
        pytest.param("6063e25", '"6063e25"', id="short-sha-6063e25-a-float-in-go"),
        pytest.param("1e3", '"1e3"', id="1e3-a-float-in-go"),
        pytest.param("0o17", '"0o17"', id="0o17-an-int-in-go"),
        pytest.param("y", '"y"', id="y-true-in-yaml.v2"),
        pytest.param("1.10", '"1.10"', id="1.10-a-float-everywhere"),
        pytest.param("0123", '"0123"', id="0123-an-int-everywhere"),
        pytest.param("on", '"on"', id="on-true-in-yaml-1.1-and-yaml.v2"),
        pytest.param("null", '"null"', id="null-everywhere"),
        pytest.param("1.2.3", "1.2.3", id="1.2.3-stays-plain"),
    ],
)
def test_the_issues_cases_deploy_as_written(tmp_path: Path, version: str, token: str) -> None:
    kustomization = edit(KUSTOMIZATION, {"images[0].newTag": Value(version)}, "kustomization")
    assert f"    newTag: {token}   # promoted by promoflow\n" in kustomization
    assert _kustomize(tmp_path / "k", kustomization, [REPOSITORY]) == [f"{REPOSITORY}:{version}"]

    values = edit(VALUES, {"image.tag": Value(version)}, "values.yaml")
    assert values == VALUES.replace("tag: 1.0.0", f"tag: {token}")
    assert _helm(tmp_path / "chart", ONE_IMAGE, values) == [f"{REPOSITORY}:{version}"]


@pytest.mark.parametrize(
    ("token", "helm_reads"),
    [("6063e25", "6.063e+28"), ("1e3", "1000"), ("0o17", "15"), ("y", "true")],
)
def test_the_same_tokens_plain_break_the_real_tools(
    tmp_path: Path, token: str, helm_reads: str
) -> None:
    """What the quoting prevents, asked of the real tools: the premise of the tests above."""
    kustomization = KUSTOMIZATION.replace("newTag: 1.0.0", f"newTag: {token}")
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "deployment.yaml").write_text(_deployment([REPOSITORY], [REPOSITORY]))
    (tmp_path / "k" / "kustomization.yaml").write_text(kustomization)
    done = subprocess.run(
        [str(ensure("kubectl")), "kustomize", str(tmp_path / "k")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "Go struct field Image.images.newTag of type string" in done.stderr
    values = VALUES.replace("tag: 1.0.0", f"tag: {token}")
    assert _helm(tmp_path / "chart", ONE_IMAGE, values) == [f"{REPOSITORY}:{helm_reads}"]


# -- a property over generated versions -----------------------------------------------------

HEX, DIGITS = "0123456789abcdef", "0123456789"
SHAS = st.integers(1, 40).flatmap(lambda n: st.text(HEX, min_size=n, max_size=n))
DIGIT_SHAS = st.text(DIGITS, min_size=1, max_size=40)
E_SHAS = st.tuples(
    st.text(DIGITS, min_size=1, max_size=20), st.sampled_from("eE"), st.text(DIGITS, min_size=1)
).map("".join)
SEMVER = st.tuples(
    st.sampled_from(["", "v"]),
    st.lists(st.integers(0, 2025).map(str), min_size=1, max_size=3).map(".".join),
    st.sampled_from(["", "-rc.1", "-alpha", "-0123", "-beta.2", "-SNAPSHOT"])
    | SHAS.map(lambda s: "-" + s),
    st.sampled_from(["", "+build.5", "+001", "+20240102"]) | SHAS.map(lambda s: "+" + s),
).map("".join)
TIMES = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))
ZONES = st.sampled_from(["Z", "z", "+05:30", "-00:00", "+0100", ""])
DATES = (
    st.dates().map(date.isoformat)
    | st.dates().map(lambda d: f"{d.year:04d}-{d.month}-{d.day}")
    | st.tuples(TIMES, st.sampled_from("Tt "), ZONES).map(lambda t: t[0].isoformat(sep=t[1]) + t[2])
    | TIMES.map(lambda t: t.replace(tzinfo=timezone(timedelta(hours=2))).isoformat())
)
SIGNS = st.sampled_from(["", "-", "+"])


def _spellings(n: int) -> list[str]:
    """``n`` in every integer spelling some YAML reader knows: decimal, octal (0o17, 017),
    hexadecimal, binary, with underscores, with leading zeros, sexagesimal (1:30)."""
    return [
        f"{n}", f"0o{n:o}", f"0O{n:o}", f"0{n:o}", f"0x{n:x}", f"0X{n:X}", f"0b{n:b}",
        f"{n:_}", f"0{n}", f"{n // 60}:{n % 60:02d}",
    ]  # fmt: skip


INTEGERS = st.tuples(SIGNS, st.integers(0, 2**70)).flatmap(
    lambda t: st.sampled_from([t[0] + form for form in _spellings(t[1])])
)
FLOATS = st.floats(allow_nan=False).map(repr) | st.tuples(
    SIGNS,
    st.text(DIGITS + "_", max_size=4),
    st.sampled_from([".", ""]),
    st.text(DIGITS, max_size=4),
    st.sampled_from(["", "e", "E", "e+", "e-"]),
    st.text(DIGITS, max_size=3),
).map("".join)
WORDS = st.sampled_from(
    [f"{sign}.{word}" for sign in ("", "+", "-") for word in ("inf", "Inf", "INF")]
    + [".nan", ".NaN", ".NAN", "~", "null", "Null", "NULL", "<<"]
    + [f(w) for w in ("y", "yes", "n", "no", "on", "off", "true", "false")
       for f in (str.lower, str.capitalize, str.upper)]
)  # fmt: skip
LEADING_ZEROS = st.text(DIGITS, min_size=1, max_size=12).map(lambda s: "0" + s)
VERSIONS = (
    SHAS | DIGIT_SHAS | E_SHAS | SEMVER | DATES | INTEGERS | FLOATS | WORDS | LEADING_ZEROS
).filter(lambda v: v.strip() == v != "")
STYLES = st.sampled_from(["plain", "single", "double", "absent"])
OLD = {"plain": "0.0.1", "single": "'0.0.1'", "double": '"0.0.1"'}


def _kustomization(styles: list[str]) -> str:
    lines = ["resources:\n  - deployment.yaml\nimages:\n"]
    for i, style in enumerate(styles):
        lines.append(f"  - name: app{i}\n")
        if style != "absent":
            lines.append(f"    newTag: {OLD[style]}  # promoted\n")
    return "".join(lines)


def _values(styles: list[str]) -> str:
    lines = ["# one image a version\nimages:\n"]
    for i, style in enumerate(styles):
        lines.append(f"  - repository: ghcr.io/acme/app{i}\n")
        if style != "absent":
            lines.append(f"    tag: {OLD[style]}\n")
    return "".join(lines)


def _reads_back(text: str, paths: dict[str, str]) -> None:
    """Each path reads back as its version in YAML 1.1, YAML 1.2 and the Go mirror (which
    reads the token as the file spells it)."""
    v11 = yaml.safe_load(text)
    v12 = YAML(typ="safe", pure=True).load(text)
    nodes = yaml.compose(text)
    for path, version in paths.items():
        key, index, field = path.replace("[", ".").replace("]", "").split(".")
        assert v11[key][int(index)][field] == version
        assert v12[key][int(index)][field] == version
        node = _node(_node(_node(nodes, key).value[int(index)], field))
        token = text[node.start_mark.index : node.end_mark.index]
        for go in (go_v2(token), go_v3(token)):
            assert isinstance(go, GoScalar) and go.is_string(version), (token, go)


def _node(mapping: yaml.Node, key: str | None = None) -> yaml.Node:
    if key is None:
        return mapping
    return next(v for k, v in mapping.value if k.value == key)


@settings(max_examples=30, deadline=None)
@given(
    versions=st.lists(VERSIONS, min_size=20, max_size=20),
    styles=st.lists(STYLES, min_size=20, max_size=20),
)
def test_every_version_reads_back_as_written(versions: list[str], styles: list[str]) -> None:
    """Twenty versions an example, into a kustomization.yaml and a Helm values file whose
    tags are written plain, single- or double-quoted, or not yet at all: every reader, and
    the real tools, find each version exactly."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = [f"app{i}" for i in range(len(versions))]

        tags = {f"images[{i}].newTag": v for i, v in enumerate(versions)}
        updates = {p: Value(v) for p, v in tags.items()}
        kustomization = edit(_kustomization(styles), updates, create=set(tags))
        _reads_back(kustomization, tags)
        expected = [f"{name}:{v}" for name, v in zip(names, versions, strict=True)]
        assert _kustomize(folder / "k", kustomization, names) == expected

        tags = {f"images[{i}].tag": v for i, v in enumerate(versions)}
        values = edit(_values(styles), {p: Value(v) for p, v in tags.items()}, create=set(tags))
        _reads_back(values, tags)
        expected = [f"ghcr.io/acme/{name}:{v}" for name, v in zip(names, versions, strict=True)]
        assert _helm(folder / "chart", EVERY_IMAGE, values) == expected
