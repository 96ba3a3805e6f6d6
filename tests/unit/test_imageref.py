"""Image references read as the kubelet reads them, checked against vectors from the real
library (tests/vectors/dockerref: github.com/distribution/reference v0.6.0, whose
``ParseNormalizedNamed`` Kubernetes and containerd use), and the rule that says whether a
running image is the promoted one.

A difference from the library here is a gate that fails a promotion whose image runs
(``nginx`` written, ``docker.io/library/nginx`` reported) or passes one whose image does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.imageref import (
    ImageRef,
    ReferenceError,
    parse,
    parse_repository,
    runs,
    try_parse,
)

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "dockerref" / "vectors.jsonl"
SHA = "sha256:" + "0123456789abcdef" * 4
OTHER_SHA = "sha256:" + "fedcba9876543210" * 4


def _vectors() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


ALL = _vectors()


def test_the_vectors_cover_both_outcomes() -> None:
    assert len(ALL) > 2000
    assert sum("error" not in v for v in ALL) > 500
    assert sum("error" in v for v in ALL) > 500
    assert any(v.get("digest") and v.get("tag") for v in ALL)


@pytest.mark.parametrize("vector", ALL, ids=lambda v: repr(v["in"])[:40])
def test_parse_agrees_with_the_library(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(ReferenceError) as exc:
            parse(vector["in"])
        assert str(exc.value) == vector["error"]
        return
    ref = parse(vector["in"])
    assert (ref.name, ref.tag, ref.digest) == (
        vector["name"],
        vector.get("tag", ""),
        vector.get("digest", ""),
    )
    assert str(ref) == vector["string"]
    assert ref.familiar_name == vector["familiar_name"]
    assert ref.familiar == vector["familiar_string"]
    assert ref.docker_ref == vector["docker_ref"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("nginx", "docker.io/library/nginx"),
        ("nginx:1.25", "docker.io/library/nginx:1.25"),
        ("nginx:1.25", "index.docker.io/library/nginx:1.25"),
        ("nginx:1.25", "index.docker.io/nginx:1.25"),
        ("acme/web:2", "docker.io/acme/web:2"),
        ("nginx", "nginx:latest"),
    ],
)
def test_spellings_of_one_docker_hub_image_run_as_each_other(a: str, b: str) -> None:
    assert runs(parse(a), parse(b)) and runs(parse(b), parse(a))


@pytest.mark.parametrize(
    ("live", "want", "expected"),
    [
        ("ghcr.io/acme/web:2.0", "ghcr.io/acme/web:2.0", True),
        ("ghcr.io/acme/web:1.9", "ghcr.io/acme/web:2.0", False),
        ("ghcr.io/acme/web:2.0", "ghcr.io/acme/api:2.0", False),
        ("ghcr.io/acme/web:2.0", "docker.io/acme/web:2.0", False),  # another registry
        ("acme/web:2.0", "docker.io/acme/web:2.0", True),
        ("ghcr.io/acme/web:2.0", "ghcr.io/acme/web:2.0.0", False),
        ("ghcr.io/acme/web:V2", "ghcr.io/acme/web:v2", False),  # tags are case-sensitive
        # a digest is what runs: it decides whenever both sides name one
        (f"ghcr.io/acme/web@{SHA}", f"ghcr.io/acme/web@{SHA}", True),
        (f"ghcr.io/acme/web@{SHA}", f"ghcr.io/acme/web:2.0@{SHA}", True),
        (f"ghcr.io/acme/web:1.9@{SHA}", f"ghcr.io/acme/web:2.0@{SHA}", True),
        (f"ghcr.io/acme/web:2.0@{OTHER_SHA}", f"ghcr.io/acme/web:2.0@{SHA}", False),
        (f"ghcr.io/acme/web@{OTHER_SHA}", f"ghcr.io/acme/web@{SHA}", False),
        # a tag alone says nothing about the content a promoted digest names
        ("ghcr.io/acme/web:2.0", f"ghcr.io/acme/web@{SHA}", False),
        # ... but a promoted tag is running when the tag is, whatever digest it resolved to
        (f"ghcr.io/acme/web:2.0@{SHA}", "ghcr.io/acme/web:2.0", True),
        (f"ghcr.io/acme/web@{SHA}", "ghcr.io/acme/web:2.0", False),
        # no tag and no digest is latest, as the kubelet reads it
        ("ghcr.io/acme/web", "ghcr.io/acme/web:latest", True),
        ("ghcr.io/acme/web", "ghcr.io/acme/web:2.0", False),
        ("localhost:5000/web:1", "localhost:5000/web:1", True),
        ("localhost/web:1", "docker.io/localhost/web:1", False),
    ],
)
def test_runs(live: str, want: str, expected: bool) -> None:
    assert runs(parse(live), parse(want)) is expected


def test_a_repository_is_named_without_tag_or_digest() -> None:
    assert parse_repository("ghcr.io/acme/web") == ImageRef("ghcr.io/acme/web")
    assert parse_repository("nginx").name == "docker.io/library/nginx"
    for text in ("ghcr.io/acme/web:2.0", f"ghcr.io/acme/web@{SHA}"):
        with pytest.raises(ReferenceError, match="without a tag or digest"):
            parse_repository(text)
    assert try_parse("Not An Image") is None


_component = st.from_regex(r"[a-z0-9]{1,6}(?:[._-][a-z0-9]{1,6}){0,2}", fullmatch=True)
_tag = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True)
_digest = st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda h: f"sha256:{h}")
_domain = st.sampled_from(
    ["", "docker.io/", "index.docker.io/", "ghcr.io/", "localhost:5000/", "registry.k8s.io/"]
)


@given(
    _domain,
    st.lists(_component, min_size=1, max_size=3),
    st.one_of(st.just(""), _tag),
    st.one_of(st.just(""), _digest),
)
def test_every_spelling_reads_back_as_the_same_image(
    domain: str, path: list[str], tag: str, digest: str
) -> None:
    text = domain + "/".join(path) + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
    ref = parse(text)
    assert parse(str(ref)) == ref
    if not any(c in path[0] for c in ".:"):  # else the familiar form reads as a registry
        assert parse(ref.familiar) == ref
    assert (ref.tag, ref.digest) == (tag, digest)
    if tag or digest:
        assert runs(ref, ref)
