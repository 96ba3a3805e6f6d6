"""Fuzzing the command line with broken configurations and step arguments.

Each example starts from a real configuration (``environments/`` or one of the golden
configs), breaks it the way people and tools do (a key deleted, a value of the wrong type,
odd unicode, a byte-order mark, a duplicated key, deep nesting, numbers too big for any
field, a token in a URL, a mistyped apiVersion) and runs ``promoflow validate`` and
``promoflow compile`` on it; step programs get bad flags and no server. Whatever happens:

- the exit code is 0, 1 or 2 (never a signal, never an unexpected code);
- a failure prints only ``FILE:LINE:COL: error: ...`` or ``error: ...`` lines, one per
  problem (a usage error after the command's usage line), and never a traceback or an
  "internal error";
- a secret written anywhere in the input is never printed.

Deterministic (``derandomize``: the same examples on every run, so CI cannot flake) and fast:
the commands run in process through the same entry point as the console script
(:mod:`tests.unit.invoke`); three examples also run as real subprocesses.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.urls import scrub
from tests.unit.invoke import (
    Result,
    assert_clean_failure,
    clean_env,
    clean_failure_lines,
    invoke,
)

REPO = Path(__file__).resolve().parents[2]
SECRET = "SECRETTOKEN4242"
FUZZ = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


def _sources() -> list[dict[str, str]]:
    """Every starting configuration: relative path -> text."""
    roots = [REPO / "environments", *sorted((REPO / "tests/golden/configs").iterdir())]
    found = []
    for root in roots:
        files = {
            p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(root.rglob("*"))
            if p.suffix in (".yaml", ".yml", ".py") and "__pycache__" not in p.parts
        }
        found.append(files)
    return found


SOURCES = _sources()


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


ODD_TEXT = [
    "",
    " ",
    "x" * 300,
    "ünïcødé-ñame",
    "🚀",
    "\u202emoc.elpmaxe",  # right-to-left override
    "a\u0000b",
    "\ufeffbom",
    "line\nbreak",
    "[red]markup[/red]",
    "{product}-{bogus}",
    "../../etc/passwd",
    "/absolute",
    "C:\\windows",
    "a..b",
    "-leading",
    "UPPER",
    "promoflow.io/v1alpha1",
    "promflow.dev/v1alpha1",
    "promoflow.dev/v2",
    "15m",
    "-5m",
    "99999999999999d",
    "1e400",
    # valid-looking URLs point at a closed local port: a step that tries them fails at once
    f"https://bot:{SECRET}@127.0.0.1:9/acme/gitops.git",
    f"https://127.0.0.1:9/api?access_token={SECRET}",
    f"https://{SECRET}@127.0.0.1:9",
    "https://host:99999/x",
    "http://[::1/x",
    "https://[bad-ipv6]/",
    "ftp://example.com",
    "*",
    "config/**/*.json",
]
ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**70,
    10**400,
    1.5,
    1e308,
    math.inf,
    -math.inf,
    math.nan,
    [],
    {},
    [None],
    {"": None},
    {"paths": []},
    _deep(150),
    _deep(60),
    *ODD_TEXT,
]
ODD_KEYS = ["bogus", "prodution", "dependsOn", "paths", "apiVersion", "kind", "<<", "", "ü"]

Path_ = tuple[Any, ...]


def _paths(node: Any, here: Path_ = ()) -> list[Path_]:
    """Every place in a document a mutation can hit (mapping keys and list items)."""
    found = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(_paths(value, (*here, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_paths(value, (*here, index)))
    return found


def _parent(root: Any, path: Path_) -> Any:
    for part in path[:-1]:
        root = root[part]
    return root


def _mutate_data(doc: Any, action: str, pick: int, value: Any, key: str) -> Any:
    paths = _paths(doc)
    path = paths[pick % len(paths)]
    if not path:
        return value if action == "set" else doc
    parent, last = _parent(doc, path), path[-1]
    if action == "delete":
        del parent[last]
    elif action == "set":
        parent[last] = value
    elif action == "add" and isinstance(parent[last], dict):
        parent[last][key] = value
    elif action == "wrap":
        parent[last] = [parent[last]]
    return doc


def _dump(docs: list[Any]) -> str:
    try:
        return yaml.safe_dump_all(docs, allow_unicode=True, sort_keys=False, width=2**20)
    except (yaml.YAMLError, RecursionError):
        return "\n---\n".join(str(d) for d in docs)


def _mutate_text(text: str, action: str, pick: int, piece: str) -> str:
    if action == "bom":
        return "\ufeff" + text
    if action == "insert":
        at = pick % (len(text) + 1)
        return text[:at] + piece + text[at:]
    if action == "truncate":
        return text[: pick % (len(text) + 1)]
    if action == "duplicate-line":
        lines = text.splitlines(keepends=True)
        if not lines:
            return text
        at = pick % len(lines)
        return "".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])
    if action == "deep":
        return text + "\n---\nx: " + "[" * 20_000 + "]" * 20_000 + "\n"
    if action == "tabs":
        return text.replace("  ", "\t", 1 + pick % 3)
    return text


data_mutation = st.tuples(
    st.sampled_from(["delete", "set", "add", "wrap"]),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(ODD_VALUES),
    st.sampled_from(ODD_KEYS),
)
text_mutation = st.tuples(
    st.sampled_from(["bom", "insert", "truncate", "duplicate-line", "deep", "tabs"]),
    st.integers(min_value=0, max_value=100_000),
    st.sampled_from(
        [
            "\t",
            "\x00",
            "\x85",
            "\u2028",
            ":",
            "- ",
            "{",
            "&a",
            "*a",
            "!!python/name:os.system",
            "é",
            "'",
            '"',
            "%",
            "@",
        ]
    ),
)


def _build(source: dict[str, str], target: int, data: list[Any], text: list[Any]) -> dict[str, str]:
    files = dict(source)
    yaml_files = [name for name in files if name.endswith((".yaml", ".yml"))]
    name = yaml_files[target % len(yaml_files)]
    docs = [d for d in yaml.safe_load_all(files[name])]
    for action, pick, value, key in data:
        docs_index = pick % len(docs)
        docs[docs_index] = _mutate_data(docs[docs_index], action, pick // 7, _copy(value), key)
    out = _dump(docs)
    for action, pick, piece in text:
        out = _mutate_text(out, action, pick, piece)
    files[name] = out
    return files


def _copy(value: Any) -> Any:
    if isinstance(value, list | dict):
        return json.loads(json.dumps(value)) if not _is_deep(value) else _deep(_depth(value))
    return value


def _is_deep(value: Any) -> bool:
    return _depth(value) > 50


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return depth


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")


def assert_well_behaved(result: Result) -> None:
    assert result.code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    assert "internal error" not in result.output, result.output
    assert SECRET not in result.output
    if result.code != 0:
        assert_clean_failure(result)


@FUZZ
@given(
    source=st.integers(min_value=0, max_value=len(SOURCES) - 1),
    target=st.integers(min_value=0, max_value=100),
    data=st.lists(data_mutation, max_size=3),
    text=st.lists(text_mutation, max_size=2),
)
def test_broken_configurations_fail_cleanly(
    source: int, target: int, data: list[Any], text: list[Any]
) -> None:
    files = _build(SOURCES[source], target, data, text)
    with tempfile.TemporaryDirectory(prefix="promoflow-fuzz-") as tmp:
        root = Path(tmp) / "config"
        _write(root, files)
        validated = invoke("validate", "-c", str(root))
        assert_well_behaved(validated)
        compiled = invoke("compile", "-c", str(root))
        assert_well_behaved(compiled)
        assert (validated.code == 0) == (compiled.code == 0), compiled.output
        if validated.code == 0:
            assert validated.stdout.startswith("valid:")


# -- step programs ------------------------------------------------------------------------

odd_text = st.one_of(
    st.sampled_from(ODD_TEXT),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20),
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(),
    _containers,
    max_leaves=8,
)
file_entry = st.fixed_dictionaries(
    {"file": st.one_of(st.just("values.yaml"), odd_text)},
    optional={
        "paths": st.one_of(
            st.lists(st.one_of(st.just("image.tag"), odd_text), max_size=3),
            json_value,
        ),
        "extra": json_value,
    },
)
files_flag = st.one_of(
    st.lists(file_entry, max_size=3).map(json.dumps),
    json_value.map(json.dumps),
    st.just("[" * 5000),
    st.just("[" * 150 + "]" * 150),
    odd_text,
)


env_value = st.one_of(
    st.sampled_from(
        ["", "https://host:99999", "http://[::1", f"https://u:{SECRET}@argocd", "[bad]:1", "inf",
         "nan", "-1", "abc", "0", "https://", "ftp://argocd", " ", "--auth-token x", "'"]
    ),
    st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=10),
)  # fmt: skip

PROMOTE_BASELINE = {
    "--product": "shop",
    "--to": "staging",
    "--from": "dev",
    "--version": "1.5.0",
    "--repo": "http://127.0.0.1:9/acme/gitops.git",  # nothing listens: never the network
    "--branch": "main",
    "--source-path": "envs/dev/shop",
    "--target-path": "envs/staging/shop",
    "--files": '[{"file": "values.yaml", "paths": ["image.tag"]}, {"file": "config/*.json"}]',
    "--version-file": "values.yaml",
    "--version-path": "image.tag",
    "--action": "commit",
}
flag_change = st.tuples(
    st.sampled_from([*PROMOTE_BASELINE, "--source-commit", "--run", "--lock", "--bogus"]),
    st.one_of(odd_text, files_flag, st.sampled_from(["", "pull-request", "none", "merge"])),
)


@FUZZ
@given(changes=st.lists(flag_change, max_size=2))
def test_promote_plan_with_bad_arguments(changes: list[tuple[str, str]]) -> None:
    flags = dict(PROMOTE_BASELINE)
    flags.update(changes)
    args = [part for flag, value in flags.items() for part in (flag, value)]
    result = invoke("step", "promote", *args, "--plan")
    assert_well_behaved(result)
    if result.code == 0:
        plan = json.loads(result.stdout)  # valid JSON, scrubbing included
        assert plan["product"] == scrub(flags["--product"])


WAIT_BASELINE = {"--revision": "3f9a1c2e", "--app": "shop-dev", "--timeout": "15m"}
WAIT_ENV = {"PROMOFLOW_ARGOCD_ACCESS": "api"}  # and no ARGOCD_SERVER: nothing to reach
wait_flag = st.tuples(
    st.sampled_from(
        [*WAIT_BASELINE, "--selector", "--sync-timeout", "--health-timeout", "--health",
         "--repo", "--environment", "--outputs", "--bogus"]
    ),
    st.one_of(odd_text, st.sampled_from(["0s", "-1s", "400d", "1e9", "maybe", "true", ""])),
)  # fmt: skip
wait_env = st.tuples(
    st.sampled_from(
        ["ARGOCD_SERVER", "ARGOCD_OPTS", "PROMOFLOW_ARGOCD_ACCESS", "PROMOFLOW_KUBE_API",
         "PROMOFLOW_POLL_INTERVAL", "PROMOFLOW_MAX_POLL_INTERVAL", "PROMOFLOW_STREAM"]
    ),
    env_value,
)  # fmt: skip


@FUZZ
@given(flags=st.lists(wait_flag, max_size=2), env=st.lists(wait_env, max_size=2))
def test_wait_argocd_with_bad_flags_and_no_server(
    flags: list[tuple[str, str]], env: list[tuple[str, str]]
) -> None:
    chosen = dict(WAIT_BASELINE)
    chosen.update(flags)
    if "--outputs" in chosen:
        chosen["--outputs"] = tempfile.gettempdir() + "/promoflow-fuzz-outputs"
    environment = dict(WAIT_ENV)
    environment.update((k, v.replace("\x00", "")) for k, v in env)
    # Only settings that cannot reach a server: a valid, reachable-looking one would be
    # retried until its timeout (the gate treats an unreachable Argo CD as transient).
    for name in ("ARGOCD_SERVER", "PROMOFLOW_KUBE_API"):
        if _reachable_looking(environment.get(name, "")):
            environment[name] = ""
    args = [part for flag, value in chosen.items() for part in (flag, value)]
    result = invoke("step", "wait-argocd", *args, env=environment)
    assert_well_behaved(result)
    assert result.code != 0  # there is no Argo CD to ask


def _reachable_looking(value: str) -> bool:
    from orchestrator.urls import UrlError, server_url

    if not value.strip():
        return False
    try:
        server_url(value)
    except UrlError:
        return False
    return True


# -- the same, as a user runs it: real processes, exit codes and signals ---------------

SUBPROCESS_CASES = {
    "config-with-bom-duplicate-keys-and-a-typo": [
        ("policies.yaml", "\ufeff", "apiVersion: promoflow.io/v1alpha1\nkind: Product\n"
         "metadata: {name: x}\nmetadata: {name: y}\n"),
    ],
    "deeply-nested-config": [("deep.yaml", "", "apiVersion: promoflow.dev/v1alpha1\n"
                              "kind: Environment\nspec: " + "{a: " * 20_000 + "}" * 20_000)],
}  # fmt: skip


def _console_script() -> str:
    beside = Path(sys.executable).parent / "promoflow"
    found = str(beside) if beside.exists() else shutil.which("promoflow")
    assert found is not None
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_console_script(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=clean_env(),
    )


def _check_process(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr)  # < 0: a signal
    output = result.stdout + result.stderr
    assert "Traceback" not in output and "internal error" not in output
    assert SECRET not in output
    if result.returncode:
        clean_failure_lines(result.returncode, result.stderr)


@pytest.mark.parametrize("case", list(SUBPROCESS_CASES))
def test_broken_configurations_as_subprocesses(tmp_path: Path, case: str) -> None:
    shutil.copytree(REPO / "environments", tmp_path / "config")
    for name, prefix, text in SUBPROCESS_CASES[case]:
        path = tmp_path / "config" / name
        path.write_text(prefix + text + (path.read_text() if path.exists() else ""))
    for command in ("validate", "compile"):
        result = _run(command, "-c", str(tmp_path / "config"))
        _check_process(result)
        assert result.returncode == 1


def test_wait_argocd_without_a_server_as_a_subprocess() -> None:
    result = _run("step", "wait-argocd", "--revision", "", "--app", "a b", "--timeout", "1y")
    _check_process(result)
    assert result.returncode == 2


def test_messages_are_printed_verbatim(tmp_path: Path) -> None:
    """Found by the fuzzer: rich replaced ":x:" in a user's value with an emoji."""
    (tmp_path / "env.yaml").write_text(
        'apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: "a:x:b"}\n'
    )
    result = invoke("validate", "-c", str(tmp_path))
    assert_clean_failure(result, 1)
    assert "'a:x:b' is not a valid name" in result.stderr
