"""The conventions a kubectl, argo or argocd user types without reading the help first:
``-o FORMAT`` (and ``--output-dir`` for files), ``-p PRODUCT``, ``--version``, shell
completion, and help for every command and option, with usage examples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
import yaml

import orchestrator
from tests.unit.invoke import assert_clean_failure, clean_env, invoke

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = str(REPO / "environments")
PROMOFLOW = Path(sys.executable).parent / "promoflow"


def _commands() -> Iterator[tuple[str, Any]]:
    """Every command and subcommand of ``promoflow``, with its path."""
    from orchestrator.cli import app

    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        yield path, command
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            yield from walk(sub, f"{path} {name}")

    yield from walk(typer.main.get_command(app), "promoflow")


COMMANDS = dict(_commands())


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option"]


# -- help ------------------------------------------------------------------------------------


def test_the_walk_finds_every_command() -> None:
    assert {"promoflow compile", "promoflow runs", "promoflow step promote"} <= set(COMMANDS)
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_and_option_says_what_it_is_for(path: str) -> None:
    command = COMMANDS[path]
    assert (command.help or "").strip(), f"{path} has no help text"
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        assert (getattr(param, "help", None) or "").strip(), f"{path} {param.opts} has no help"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_no_short_flag_means_two_things_in_one_command(path: str) -> None:
    seen: dict[str, str] = {}
    for param in _options(COMMANDS[path]):
        for flag in [*param.opts, *param.secondary_opts]:
            if not flag.startswith("--"):
                assert flag not in seen, f"{path}: {flag} is {seen[flag]} and {param.name}"
                seen[flag] = param.name


@pytest.mark.parametrize(
    "path",
    [
        "promoflow",
        "promoflow compile",
        "promoflow graph",
        "promoflow runs",
        "promoflow status",
        "promoflow schema",
        "promoflow demo",
        "promoflow promote",
        "promoflow apply",
        "promoflow diff",
        "promoflow approve",
        "promoflow reject",
    ],
)
def test_command_help_shows_examples(path: str) -> None:
    result = invoke(*path.split()[1:], "--help")
    assert result.code == 0
    text = " ".join(result.stdout.split())
    assert "Examples:" in text
    assert f"{path} " in text.split("Examples:", 1)[1]


def test_a_product_is_always_p() -> None:
    taking = {
        path: param
        for path, command in COMMANDS.items()
        for param in _options(command)
        if "--product" in param.opts
    }
    assert {"promoflow step promote", "promoflow step notify", "promoflow runs"} <= set(taking)
    for path, param in taking.items():
        assert "-p" in param.opts, f"{path}: --product without -p"


# -- --version, completion -------------------------------------------------------------------


def test_version_is_the_long_flag_only_and_v_stays_the_promoted_version() -> None:
    assert invoke("--version").stdout == f"promoflow {orchestrator.__version__}\n"
    short = invoke("-v")
    assert_clean_failure(short, 2)
    assert short.lines == ["error: No such option: -v (see 'promoflow --help')"]
    root = [p for p in _options(COMMANDS["promoflow"]) if "--version" in p.opts]
    assert root[0].opts == ["--version"]
    for path in ("promoflow promote", "promoflow compile", "promoflow diff", "promoflow demo"):
        [version] = [p for p in _options(COMMANDS[path]) if "-v" in p.opts]
        assert (version.opts, version.is_flag) == (["--version", "-v"], False), path


def _complete(words: str) -> list[str]:
    """What the shell completion script would offer after ``words`` (bash protocol)."""
    env = clean_env(
        {"_PROMOFLOW_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": "-1"}
    )
    env["COMP_CWORD"] = str(len(words.split(" ")) - 1)
    result = subprocess.run(
        [str(PROMOFLOW)], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_shell_completion_is_installable_and_answers() -> None:
    # typer finds the shell by walking up the process tree, which under CI may hold none;
    # its own switch for tests makes --show-completion take the shell as a value instead.
    script = subprocess.run(
        [str(PROMOFLOW), "--show-completion", "bash"],
        env=clean_env({"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert script.returncode == 0, script.stderr
    assert "_PROMOFLOW_COMPLETE=complete_bash" in script.stdout
    assert "complete -o default -F _promoflow_completion promoflow" in script.stdout
    assert "--install-completion" in invoke("--help").stdout
    assert _complete("promoflow comp") == ["compile"]
    assert _complete("promoflow step pro") == ["promote"]
    assert _complete("promoflow runs -o ") == ["wide", "json", "yaml", "name"]
    assert "--install-completion" not in invoke("step", "--help").stdout  # one per program


# -- -o / --output-dir -----------------------------------------------------------------------


def test_compile_o_yaml_is_a_format_not_a_folder(tmp_path: Path) -> None:
    """``-o yaml`` used to write a folder named yaml/ and print nothing."""
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke("compile", "-c", EXAMPLES, "-p", "shop", "-o", "yaml")
    finally:
        os.chdir(before)
    assert result.code == 0, result.output
    assert list(tmp_path.iterdir()) == []
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d["metadata"]["name"] for d in docs] == ["promoflow-shop"]
    assert result.stdout == invoke("compile", "-c", EXAMPLES, "-p", "shop").stdout


DIGEST = ("--set", "image.digest=sha256:abcd")


def test_compile_o_json_is_a_list_and_o_name_kind_slash_name() -> None:
    result = invoke("compile", "-c", EXAMPLES, "-p", "shop", "-v", "1.4.2", *DIGEST, "-o", "json")
    assert result.code == 0, result.output
    listed = json.loads(result.stdout)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
    assert [i["kind"] for i in listed["items"]] == ["WorkflowTemplate", "Workflow"]
    names = invoke("compile", "-c", EXAMPLES, "-p", "shop", "-v", "1.4.2", *DIGEST, "-o", "name")
    workflow = listed["items"][1]["metadata"]["name"]
    assert names.stdout == f"workflowtemplate/promoflow-shop\nworkflow/{workflow}\n"


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_compile_output_dir_writes_one_file_per_object(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "argo"
    result = invoke("compile", "-c", EXAMPLES, "-o", fmt, "--output-dir", str(out))
    assert result.code == 0, result.output
    files = sorted(p.name for p in out.iterdir())
    assert files == [f"promoflow-checkout.{fmt}", f"promoflow-shop.{fmt}"]
    load = json.loads if fmt == "json" else yaml.safe_load
    assert load((out / files[1]).read_text())["metadata"]["name"] == "promoflow-shop"
    assert result.stdout.splitlines() == [f"wrote {out / f}" for f in files]


@pytest.mark.parametrize(
    ("args", "formats"),
    [
        (["compile", "-c", EXAMPLES], "yaml, json, name (--output-dir DIR writes files)"),
        (["graph", "-c", EXAMPLES], "text, mermaid, dot, json"),
        (["schema"], "json, yaml"),
        (["runs"], "wide, json, yaml, name"),
        (["status", "some-run"], "wide, json, yaml"),
    ],
)
def test_an_unknown_format_is_a_usage_error_listing_the_valid_ones(
    args: list[str], formats: str
) -> None:
    result = invoke(*args, "-o", "xml")
    assert_clean_failure(result, 2)
    assert result.lines == [
        f"error: Invalid value for --output: unknown format 'xml'; one of: {formats}"
    ]
    assert result.stdout == ""


def test_a_folder_given_to_o_says_where_folders_go(tmp_path: Path) -> None:
    """``compile -o DIR`` was how files were written: now it says to use --output-dir."""
    result = invoke("compile", "-c", EXAMPLES, "-o", str(tmp_path / "out"))
    assert_clean_failure(result, 2)
    assert "--output-dir DIR writes files" in result.lines[0]
    assert not (tmp_path / "out").exists()
    names = invoke("compile", "-c", EXAMPLES, "-o", "name", "--output-dir", str(tmp_path))
    assert_clean_failure(names, 2)
    assert names.lines == [
        "error: Invalid value for --output: --output-dir writes yaml or json files"
    ]


def test_graph_takes_o_and_still_f() -> None:
    as_o = invoke("graph", "-c", EXAMPLES, "-p", "shop", "-o", "json")
    as_f = invoke("graph", "-c", EXAMPLES, "-p", "shop", "-f", "json")
    assert as_o.code == as_f.code == 0
    assert as_o.stdout == as_f.stdout
    assert json.loads(as_o.stdout)[0]["title"] == "product shop (flow standard)"
    assert "--format" not in invoke("graph", "--help").stdout  # kept for scripts, not shown
    both = invoke("graph", "-c", EXAMPLES, "-o", "dot", "-f", "json")
    assert_clean_failure(both, 2)


def test_graph_formats_are_the_renderers() -> None:
    from orchestrator.cli import GRAPH_FORMATS
    from orchestrator.graph.render import FORMATS

    assert GRAPH_FORMATS == FORMATS


def test_schema_o_yaml() -> None:
    as_yaml = invoke("schema", "PromotionFlow", "-o", "yaml")
    as_json = invoke("schema", "PromotionFlow")
    assert as_yaml.code == as_json.code == 0
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


# -- products --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["graph", "-c", EXAMPLES, "-p", "shpo"],
        ["compile", "-c", EXAMPLES, "-p", "shpo"],
        ["apply", "-c", EXAMPLES, "-p", "shpo"],
        ["promote", "-c", EXAMPLES, "-p", "shpo", "-v", "1.0.0", "--dry-run"],
        ["promote", "--local", "-c", EXAMPLES, "-p", "shpo", "-v", "1.0.0"],
        ["diff", "-c", EXAMPLES, "-p", "shpo", "--to", "staging"],
        ["demo", "-c", EXAMPLES, "-p", "shpo"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_an_unknown_product_lists_the_known_ones(args: list[str]) -> None:
    result = invoke(*args)
    assert_clean_failure(result, 2)
    assert result.lines == [
        "error: Invalid value for --product: unknown product 'shpo' "
        "(products: checkout, shop; did you mean shop?)"
    ]


def test_an_unknown_product_without_a_close_one(tmp_path: Path) -> None:
    result = invoke("graph", "-c", EXAMPLES, "-p", "billing")
    assert result.lines == [
        "error: Invalid value for --product: unknown product 'billing' (products: checkout, shop)"
    ]
    (tmp_path / "env.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: dev}\n"
    )
    empty = invoke("graph", "-c", str(tmp_path), "-p", "shop")
    assert empty.lines == [
        "error: Invalid value for --product: unknown product 'shop' "
        "(the configuration defines none)"
    ]


# -- usage errors ----------------------------------------------------------------------------


def test_a_usage_error_is_the_usage_line_then_one_error_line() -> None:
    """As click orders them: the last line, which logs and node messages show, is why."""
    result = invoke("runs", "--bogus")
    assert result.code == 2
    assert result.stderr == (
        "Usage: promoflow runs [OPTIONS]\n"
        "error: No such option: --bogus (see 'promoflow runs --help')\n"
    )
    step = invoke("step", "notify", "--status", "Succeeded")
    assert step.stderr.splitlines() == [
        "Usage: promoflow step notify [OPTIONS]",
        "error: Missing option '--product' / '-p'.",
    ]
    runtime = invoke("validate", "-c", "no/such/dir")  # refused in the command's body
    assert runtime.stderr.splitlines()[0] == "Usage: promoflow validate [OPTIONS]"


# -- demo ------------------------------------------------------------------------------------


def test_demo_help_states_its_real_default() -> None:
    """It said "default: current directory" while the demo read ./environments."""
    [config] = [p for p in _options(COMMANDS["promoflow demo"]) if "--config" in p.opts]
    assert config.default is None and config.envvar is None
    assert "current directory" not in config.help
    assert "example configuration" in config.help


def test_demo_finds_the_example_configuration_from_any_directory(tmp_path: Path) -> None:
    """It used to fail outside the checkout: ``environments does not exist``. A refusal that
    names the example's environments shows the configuration was found and read."""
    result = subprocess.run(
        [str(PROMOFLOW), "demo", "--fail", "nope"],
        cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "error: Invalid value for --fail: 'nope' is not in the flow of shop "
        "(dev, staging, prod-eu, prod-us)"
    )
    assert not (tmp_path / ".promoflow").exists()


def test_demo_says_what_to_pass_when_there_is_no_example(tmp_path: Path) -> None:
    with mock.patch("orchestrator.commands.local.example_config", return_value=None):
        result = invoke("demo")
    assert_clean_failure(result, 2)
    assert result.lines == [
        "error: Invalid value for --config: this installation of promoflow has no example "
        "configuration; pass --config DIR (the environments/ folder of a promoflow source "
        "checkout, or your own)"
    ]


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_takes_h_for_help(path: str) -> None:
    """kubectl, argo and argocd all take ``-h``; so does every promoflow command."""
    result = invoke(*path.split()[1:], "-h")
    assert result.code == 0, result.stderr
    assert result.stdout.lstrip().startswith(f"Usage: {path}")
