"""Only an absent ``paths`` means "copy the whole file": an empty or null one is an error,
in a PromotionTemplate and in the promote step's ``--files`` (a ``paths: {}`` once
overwrote a target environment's own settings in a real run)."""

from __future__ import annotations

import json

import pytest

from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

RULE = "must be a non-empty list of YAML paths; omit 'paths' to copy the whole file"
TEMPLATE = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {{name: helm}}
spec:
  files:
    - {{file: values.yaml, paths: [image.tag]}}
    - {{file: config.yaml, paths: {paths}}}
"""
WRITTEN = {
    "{}": "an empty mapping",
    "null": "null",
    "~": "null",
    '""': "an empty string",
    "0": "a number",
    "false": "a boolean",
    "[]": "an empty list",
    "image.tag": "a string",
    "{a: b}": "a mapping",
}


@pytest.mark.parametrize(("paths", "described"), WRITTEN.items(), ids=list(WRITTEN))
def test_written_paths_must_list_something(ws: Workspace, paths: str, described: str) -> None:
    ws.write_base()
    ws.write("template.yaml", TEMPLATE.format(paths=paths))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"template.yaml:7:27: error: spec.files[1].paths: {RULE} (got {described})"
    ]


def test_absent_paths_copies_the_whole_file(ws: Workspace) -> None:
    ws.write_base()
    ws.write("template.yaml", TEMPLATE.format(paths="X").replace(", paths: X", ""))
    [rule] = [r for r in ws.config().templates["helm"].spec.files if r.file == "config.yaml"]
    assert rule.whole_file


def test_python_definitions_follow_the_same_rule(ws: Workspace) -> None:
    ws.write(
        "t.py",
        "from orchestrator.dsl import template\n\n"
        "helm = template('helm', files=[{'file': 'a.yaml', 'paths': []}])\n",
    )
    assert [p.split(": error: ")[1] for p in ws.problems()] == [
        f"spec.files[0].paths: {RULE} (got an empty list)"
    ]


PROMOTE = [
    "step", "promote", "--product", "shop", "--to", "staging", "--from", "dev",
    "--repo", "https://git.example.com/gitops.git", "--branch", "main",
    "--source-path", "envs/dev/shop", "--target-path", "envs/staging/shop", "--plan",
]  # fmt: skip


@pytest.mark.parametrize(
    ("paths", "described"),
    [({}, "an empty mapping"), (None, "null"), ("", "an empty string"), (0, "a number"),
     (False, "a boolean"), ([], "an empty list")],
)  # fmt: skip
def test_files_flag_follows_the_same_rule(paths: object, described: str) -> None:
    files = json.dumps([{"file": "config.yaml", "paths": paths}])
    result = invoke(*PROMOTE, "--files", files)
    assert_clean_failure(result, 2)
    assert result.lines == [
        f"error: Invalid value: --files: 'paths' of 'config.yaml' {RULE} (got {described})"
    ]


def test_files_flag_without_paths_copies_the_whole_file() -> None:
    result = invoke(*PROMOTE, "--files", '[{"file": "config.yaml"}]')
    assert result.code == 0, result.output
    assert json.loads(result.stdout)["files"] == [{"file": "config.yaml"}]
