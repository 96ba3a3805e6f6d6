"""``PROMOFLOW_CONFIG_PYTHON=false``: a Python configuration file is an error and is
never imported (importing it would run its code), instead of code that runs in the
webhook service or a file skipped in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

OFF = (
    "error: Python configuration is turned off (PROMOFLOW_CONFIG_PYTHON=false; the chart's "
    "config.python): a Python file runs as code in the process that loads it; write it as "
    "YAML, or turn Python configuration on if whoever can change this file may run code there"
)


def _flow_module(ws: Workspace, marker: Path) -> None:
    """The README's flow in Python, which also leaves a mark when it runs."""
    ws.write(
        "flow.py",
        f"""
        from pathlib import Path

        from orchestrator.dsl import env, flow

        Path({str(marker)!r}).write_text("imported")
        standard = flow("standard", env("dev") >> env("staging") >> env("prod"))
        """,
    )


@pytest.mark.parametrize("value", ["false", "0", "no"])
def test_a_python_file_is_an_error_and_never_runs_when_off(
    ws: Workspace, tmp_path: Path, value: str
) -> None:
    marker = tmp_path / "ran"
    ws.write_base(flow=False)
    _flow_module(ws, marker)
    result = invoke("validate", "-c", ".", env={"PROMOFLOW_CONFIG_PYTHON": value})
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"flow.py:1:1: {OFF}",
        "product.yaml:6:3: error: unknown PromotionFlow 'standard' (its module failed to "
        "load: see flow.py:1)",
    ]
    assert not marker.exists()


def test_python_files_load_when_on_as_by_default(ws: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    ws.write_base(flow=False)
    _flow_module(ws, marker)
    for env in ({}, {"PROMOFLOW_CONFIG_PYTHON": "true"}):
        marker.unlink(missing_ok=True)
        result = invoke("validate", "-c", ".", env=env)
        assert (result.code, result.lines) == (0, [])
        assert "1 PromotionFlow" in result.stdout
        assert marker.read_text() == "imported"


def test_other_python_scripts_stay_ignored_when_off(ws: Workspace) -> None:
    """A repository's own scripts are no configuration: only files importing promoflow."""
    ws.write_base()
    ws.write("scripts/release.py", "import sys\nsys.exit('not configuration')\n")
    result = invoke("validate", "-c", ".", env={"PROMOFLOW_CONFIG_PYTHON": "false"})
    assert (result.code, result.lines) == (0, [])


def test_a_value_that_is_not_a_boolean_is_a_settings_error(ws: Workspace) -> None:
    ws.write_base()
    result = invoke("validate", "-c", ".", env={"PROMOFLOW_CONFIG_PYTHON": "maybe"})
    assert_clean_failure(result, 2)
    assert result.lines == [
        "error: PROMOFLOW_CONFIG_PYTHON: Input should be a valid boolean, unable to interpret input"
    ]
