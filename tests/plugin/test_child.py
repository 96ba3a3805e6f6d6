"""A step in a forked child: its exit code, outputs, message, deadline and environment."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

from orchestrator.plugin.child import Child, Finished, step_env


def finish(child: Child) -> Finished:
    async def go() -> Finished:
        child.start_watching()
        try:
            return await child.finished()
        finally:
            child.cleanup()

    return asyncio.run(go())


def writes_outputs(argv: list[str]) -> int:
    outputs = Path(argv[argv.index("--outputs") + 1])
    (outputs / "commit").write_text("abc123")
    Path(os.environ["PROMOFLOW_TERMINATION_LOG"]).write_text("committed abc123")
    Path(os.environ["ARGO_PROGRESS_FILE"]).write_text("1/1")
    return 0


def exits_75(argv: list[str]) -> int:
    Path(os.environ["PROMOFLOW_TERMINATION_LOG"]).write_text("the push was refused")
    return 75


def raises(argv: list[str]) -> int:
    raise RuntimeError("a bug")


def test_a_step_reports_as_a_container_does() -> None:
    end = finish(Child(["step", "x"], {}, writes_outputs))
    assert (end.exit_code, end.message, end.outputs, end.timed_out) == (
        0,
        "committed abc123",
        {"commit": "abc123"},
        False,
    )


def test_its_exit_code_and_message_are_the_node_s() -> None:
    end = finish(Child(["step", "x"], {}, exits_75))
    assert (end.exit_code, end.message) == (75, "the push was refused")


def test_a_crash_is_an_exit_code_never_a_hung_node() -> None:
    assert finish(Child(["step", "x"], {}, raises)).exit_code == 1


def test_a_step_past_its_deadline_is_killed_with_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"

    def hangs(argv: list[str]) -> int:
        process = subprocess.Popen(["sleep", "60"])
        marker.write_text(str(process.pid))
        time.sleep(60)
        return 0

    started = time.monotonic()
    end = finish(Child(["step", "x"], {}, hangs, deadline=1))
    assert time.monotonic() - started < 20
    assert end.timed_out and end.exit_code is None
    assert end.message == "Step exceeded its deadline of 1s"
    pid = int(marker.read_text())
    for _ in range(50):  # the kernel reaps the orphan through init: wait for it to go
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the step's own child outlived its deadline")


def test_the_child_gets_the_environment_it_is_given(tmp_path: Path) -> None:
    seen = tmp_path / "env"

    def reads_env(argv: list[str]) -> int:
        seen.write_text("\n".join(sorted(os.environ)))
        return 0

    finish(Child(["step", "x"], {"ARGOCD_AUTH_TOKEN": "t", "PATH": "/usr/bin"}, reads_env))
    names = seen.read_text().split()
    assert "ARGOCD_AUTH_TOKEN" in names and "GIT_TOKEN" not in names


def test_a_step_gets_only_its_own_credentials() -> None:
    base = {"PATH": "/bin", "GIT_TOKEN": "g", "ARGOCD_AUTH_TOKEN": "a", "HOME": "/tmp"}
    credentials = {"GIT_TOKEN", "ARGOCD_AUTH_TOKEN", "PROMOFLOW_REPORT_TOKEN"}
    assert step_env(base, {"ARGOCD_AUTH_TOKEN"}, credentials) == {
        "PATH": "/bin",
        "ARGOCD_AUTH_TOKEN": "a",
        "HOME": "/tmp",
    }
