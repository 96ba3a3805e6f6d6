"""A tab in YAML indentation is named as such, at the tab, wherever promoflow reads YAML:
the configuration, WorkflowTemplates for local runs, the GitOps files it edits and the
files a webhook reads versions from."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from orchestrator.commands.local import load_templates
from orchestrator.webhooks.triggers import _read_paths
from orchestrator.yamledit import YamlEditError, _load_rt, read
from orchestrator.yamltabs import MESSAGE, Tab, indentation_tab, tab_problem
from tests.unit.conftest import Workspace

ENV = "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata:\n{indent}name: dev\n"


@pytest.mark.parametrize(("indent", "column"), [("\t", 1), ("  \t", 3), ("\t  ", 1), (" \t ", 2)])
def test_the_configuration_names_the_tab_at_its_position(
    ws: Workspace, indent: str, column: int
) -> None:
    (ws.root / "env.yaml").write_text(ENV.format(indent=indent))
    assert ws.problems() == [
        f"env.yaml:4:{column}: error: a tab in the indentation; YAML indents with spaces "
        "only (replace the tab with spaces)"
    ]


def test_a_tab_in_a_list_item_s_indentation(ws: Workspace) -> None:
    text = ENV.format(indent="  ") + "  labels:\n    tier: x\nspec:\n  x:\n\t- 1\n"
    (ws.root / "env.yaml").write_text(text)
    assert ws.problems() == [f"env.yaml:9:1: error: {MESSAGE}"]


def test_other_syntax_errors_keep_the_parser_s_words(ws: Workspace) -> None:
    # a tab inside a block scalar's text is text, and not blamed for the error below it
    text = ENV.format(indent="  ") + "spec:\n  note: |\n    a\n    \tb\n  bad: [\n"
    (ws.root / "env.yaml").write_text(text)
    [problem] = ws.problems()
    assert "invalid YAML" in problem and "tab" not in problem


@pytest.mark.parametrize(
    ("text", "line", "found"),
    [
        ("a:\n\tb: 1\n", 1, Tab(2, 1)),
        ("a:\n    \tb: 1\n", 1, Tab(2, 5)),
        ("a:\tb\n", 0, None),  # a tab after the key separates: not indentation
        ("a: 1\n", 5, None),
        ("a:\n  b: 1\n", 1, None),
    ],
)
def test_the_tab_is_found_in_the_indentation_only(text: str, line: int, found: Tab | None) -> None:
    assert indentation_tab(text, line) == found


def test_only_errors_a_tab_can_cause_are_blamed_on_one() -> None:
    text = "a:\n  \tb: 1\n"
    assert tab_problem(text, 1, "found character that cannot start any token") == Tab(2, 3)
    assert tab_problem(text, 1, "found a tab character where an indentation space is expected")
    assert tab_problem(text, 1, "did not find expected key") is None
    assert tab_problem(text, None, "found character that cannot start any token") is None


def test_the_files_promoflow_edits_name_the_tab() -> None:
    values = "image:\n\ttag: 1.0.0\n"
    with pytest.raises(YamlEditError) as read_error:
        read(values, "image.tag", "values.yaml")
    assert str(read_error.value) == f"values.yaml:2:1: {MESSAGE}"
    with pytest.raises(YamlEditError) as round_trip_error:  # ruamel.yaml, which edits
        _load_rt(values, "values.yaml")
    assert str(round_trip_error.value) == f"values.yaml:2:1: {MESSAGE}"


def test_a_webhook_reading_a_version_names_the_tab() -> None:
    assert _read_paths("image:\n  \ttag: 1.0.0\n", ("image.tag",)) == f":2:3: {MESSAGE}"
    assert _read_paths("image: [\n", ("image.tag",)) == " is not valid YAML"


def test_workflow_templates_for_local_runs_name_the_tab(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "actions.yaml").write_text("kind: WorkflowTemplate\nspec:\n\ttemplates: []\n")
    with pytest.raises(typer.Exit):
        load_templates(tmp_path)
    assert capsys.readouterr().err.strip() == (
        f"{tmp_path / 'actions.yaml'}:3:1: error: cannot read WorkflowTemplates: {MESSAGE}"
    )
