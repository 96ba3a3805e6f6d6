"""Deeply nested input is refused before a recursive parser sees it: libyaml's composer
crashed the process (SIGSEGV, exit 139) on a 60 KB file nested 30,000 levels, and
``json.loads`` ended ``--files`` with a RecursionError traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.nesting import MAX_DEPTH, json_too_deep, yaml_too_deep
from tests.support.cli import EXAMPLES, promoflow
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

HEADER = "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: dev}\n"
DEPTH = 30_000
FLOW = HEADER + "spec: {description: " + "[" * DEPTH + "]" * DEPTH + "}\n"
BLOCK = HEADER + "spec:\n" + "".join(" " * (i + 2) + f"k{i}:\n" for i in range(500))
SEQUENCES = HEADER + "spec:\n  clusters:\n" + "  " + "- " * 3_000 + "x\n"
LIMIT = f"nested more than {MAX_DEPTH} levels deep; flatten the structure"


@pytest.mark.parametrize("command", ["validate", "compile"])
@pytest.mark.parametrize(
    ("text", "where"),
    [(FLOW, "deep.yaml:4:119"), (BLOCK, "deep.yaml:104:102")],
    ids=["flow", "block"],
)
def test_deep_yaml_is_an_error_not_a_crash(
    ws: Workspace, command: str, text: str, where: str
) -> None:
    """As a user runs it (a subprocess: a crash would take pytest with it in process)."""
    ws.write("deep.yaml", text)
    result = promoflow(command, "-c", ".", cwd=ws.root)
    assert (result.returncode, result.stdout) == (1, "")  # was -11 / 139: SIGSEGV
    assert result.stderr == f"{where}: error: invalid YAML: {LIMIT}\n"


def test_compact_sequences_count_as_nesting(ws: Workspace) -> None:
    ws.write("deep.yaml", SEQUENCES)
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [f"deep.yaml:6:199: error: invalid YAML: {LIMIT}"]


def test_nesting_up_to_the_limit_is_fine(ws: Workspace) -> None:
    depth = MAX_DEPTH - 3  # the document, spec and description take three levels
    ws.write("env.yaml", HEADER + "spec: {description: " + "[" * depth + "]" * depth + "}\n")
    assert ws.problems() == [
        "env.yaml:4:8: error: spec.description: Input should be a valid string"
    ]


def test_deep_files_json_is_a_usage_error() -> None:
    deep = "[" * 1000 + "]" * 1000
    result = promoflow(
        "step", "promote", "--product", "p", "--to", "e", "--repo", "r", "--branch", "main",
        "--target-path", "t", "--files", deep, "--plan",
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    assert result.stderr == (
        "Usage: promoflow step promote [OPTIONS]\n"
        f"error: Invalid value: --files is not a list of files: {LIMIT}\n"
    )


def test_deep_json_elsewhere_is_read_safely() -> None:
    from orchestrator.steps.http_check import Check, judge
    from orchestrator.steps.notify import parse_failures

    deep = "[" * 100_000 + "]" * 100_000
    assert judge(Check("u", jsonpath="a"), 200, deep.encode())[1] == (
        "the body is JSON nested too deeply to read"
    )
    assert parse_failures(deep) == [{"message": "(workflow.failures nested too deeply to read)"}]
    result = invoke("step", "notify", "--product", "p", "--status", "Failed", "--failures", deep)
    assert result.code == 0, result.output


def test_deep_values_files_are_refused_by_the_editor() -> None:
    from orchestrator.yamledit import YamlEditError, read

    with pytest.raises(YamlEditError, match=r"values.yaml:1:103: invalid YAML \(nested more"):
        read("a: " + "[" * 5000 + "]" * 5000 + "\n", "a", "values.yaml")


def test_deep_workflow_templates_are_refused(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "deep.yaml").write_text("kind: WorkflowTemplate\nspec: " + "[" * 5000)
    result = invoke(
        "promote", "--local", "-c", str(EXAMPLES), "-p", "shop", "-v", "1.5.0",
        "--set", "image.digest=sha256:1", "--templates", str(templates),
        "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    assert_clean_failure(result, 1)
    assert result.lines == [f"{templates / 'deep.yaml'}:2:106: error: {LIMIT}"]


def test_scanners() -> None:
    assert json_too_deep('["[[[[[[", {"a": [1]}]', limit=3) is None  # brackets in strings
    assert json_too_deep('["[[[[[[", {"a": [1]}]', limit=2) is not None
    assert json_too_deep('"unterminated [[[[', limit=1) is None
    found = json_too_deep('{"a":\n [[1]]}', limit=2)
    assert found is not None and (found.line, found.col) == (2, 3)
    assert yaml_too_deep("a: '[[[[[['\nb: [[1]]\n", limit=3) is None
    assert yaml_too_deep("a: [\n", limit=2) is None  # a syntax error: the parse reports it
    assert json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


def _exact_depth(text: str) -> int:
    """The nesting libyaml's composer would build: the maximum of open collections."""
    import yaml

    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return deepest


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(
    data=st.lists(
        st.recursive(st.none() | st.integers() | st.text(max_size=4), _nested, max_leaves=40),
        min_size=1,
        max_size=3,
    ),
    flow=st.booleans(),
    limit=st.integers(min_value=1, max_value=12),
)
def test_the_cheap_bound_never_misses_deep_nesting(data: list[Any], flow: bool, limit: int) -> None:
    """The per-document character count skips the exact scan only when it is safe to."""
    import yaml

    from orchestrator.nesting import _could_nest_past

    text = yaml.safe_dump_all(data, default_flow_style=flow, allow_unicode=True)
    if _exact_depth(text) > limit:
        assert _could_nest_past(text, limit), text
