"""``runs``, ``status`` (``--watch``) and ``logs`` of local runs: the records and log files
``promote --local`` and ``demo`` keep under ``--runs-dir``, written here as the engine
writes them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from orchestrator.engine.model import NodeRecord, Phase, RunRecord
from orchestrator.localruns import save
from tests.unit.invoke import assert_clean_failure, invoke

RUN = "shop-1-5-0-187298f6"
AT = datetime(2026, 11, 27, 18, 17, 59, tzinfo=UTC)


def record(phase: Phase, *, name: str = RUN, product: str = "shop") -> RunRecord:
    run = RunRecord(
        name=name,
        phase=phase,
        started_at=AT,
        finished_at=AT if phase in (Phase.SUCCEEDED, Phase.FAILED) else None,
        parameters={"product": product, "version": "1.5.0"},
    )
    run.nodes["deploy-dev"] = NodeRecord(
        "deploy-dev", "deploy-dev", "promoflow-promote/promote", "container",
        Phase.SUCCEEDED, "committed 0ac167e7 to main", AT, AT, outputs={"commit": "0ac167e7"},
    )  # fmt: skip
    run.nodes["sync-dev"] = NodeRecord(
        "sync-dev", "sync-dev", "promoflow-wait-argocd/wait-argocd", "container",
        Phase.FAILED if phase is Phase.FAILED else Phase.RUNNING, "shop-dev: Progressing", AT,
    )  # fmt: skip
    return run


def write(runs: Path, run: RunRecord, stamp: str = "20261127T181759") -> Path:
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / f"{run.name}-{stamp}.json"
    save(path, run.to_dict())
    return path


def log(record_path: Path, task: str, text: str, attempt: int = 1) -> Path:
    path = record_path.with_suffix("") / "nodes" / task / str(attempt) / "log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return tmp_path / ".promoflow" / "runs"


def test_runs_lists_local_runs_newest_first(runs: Path) -> None:
    write(runs, record(Phase.SUCCEEDED))
    older = record(Phase.FAILED, name="checkout-2-0-0-0badc0de", product="checkout")
    older.started_at = datetime(2026, 11, 26, tzinfo=UTC)
    write(runs, older)
    (runs / "notes.json").write_text("[1, 2]")  # not a record: left out
    listed = json.loads(invoke("runs", "--runs-dir", str(runs), "-o", "json").stdout)
    assert [(r["name"], r["phase"], r["where"]) for r in listed] == [
        (RUN, "Succeeded", "local"),
        ("checkout-2-0-0-0badc0de", "Failed", "local"),
    ]
    assert (listed[0]["product"], listed[0]["version"]) == ("shop", "1.5.0")
    shop = invoke("runs", "--runs-dir", str(runs), "-p", "shop", "-o", "name")
    assert shop.stdout == f"{RUN}\n"
    table = invoke("runs", "--runs-dir", str(runs))
    assert table.code == 0 and table.stderr == ""
    assert table.stdout.splitlines()[1].split()[:4] == [RUN, "shop", "1.5.0", "Succeeded"]


def test_runs_without_any_says_where_it_looked(runs: Path) -> None:
    result = invoke("runs", "--runs-dir", str(runs))
    assert result.code == 0
    assert result.stderr == (
        "no promotion runs found; no Argo Server configured (set ARGO_SERVER or pass "
        "--argo-server)\n"
    )


def test_status_shows_a_local_run(runs: Path) -> None:
    path = write(runs, record(Phase.FAILED))
    result = invoke("status", RUN, "--runs-dir", str(runs))
    assert result.code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{RUN}: shop 1.5.0 — Failed (local)"
    assert lines[2].split() == ["dev", "deploy", "Succeeded", "committed", "0ac167e7", "to", "main"]
    assert lines[-1] == str(path)
    data = json.loads(invoke("status", RUN, "--runs-dir", str(runs), "-o", "json").stdout)
    assert data["record"] == str(path)
    assert [n["task"] for n in data["nodes"]] == ["deploy-dev", "sync-dev"]
    assert data["nodes"][0]["outputs"] == {"commit": "0ac167e7"}
    missing = invoke("status", "no-such-run", "--runs-dir", str(runs))
    assert_clean_failure(missing, 1)
    assert missing.lines == [
        f"error: run no-such-run not found: no record of it under {runs}, and no Argo Server "
        "configured (set ARGO_SERVER or pass --argo-server)"
    ]


@pytest.mark.parametrize(("end", "code"), [(Phase.SUCCEEDED, 0), (Phase.FAILED, 1)])
def test_watch_follows_a_local_run_to_its_end(runs: Path, end: Phase, code: int) -> None:
    path = write(runs, record(Phase.RUNNING))

    def finish() -> None:
        time.sleep(0.8)
        save(path, record(end).to_dict())

    writer = threading.Thread(target=finish)
    writer.start()
    started = time.monotonic()
    result = invoke("status", RUN, "--runs-dir", str(runs), "--watch")
    writer.join()
    assert time.monotonic() - started >= 0.8
    assert result.code == code, result.output
    assert result.stdout.splitlines()[0] == f"{RUN}: shop 1.5.0 — {end} (local)"
    as_json = invoke("status", RUN, "--runs-dir", str(runs), "-w", "-o", "json")
    assert (as_json.code, json.loads(as_json.stdout)["phase"]) == (code, str(end))


def test_logs_of_every_step_and_of_one(runs: Path) -> None:
    path = write(runs, record(Phase.FAILED))
    log(path, "deploy-dev", '{"commit": "0ac167e7"}\ngit: pushed\n')
    log(path, "sync-dev", "waiting for shop-dev\n")
    log(path, "sync-dev", "retry: shop-dev Degraded https://bob:hunter2@git.example.com\n", 2)
    every = invoke("logs", RUN, "--runs-dir", str(runs))
    assert every.code == 0, every.output
    assert every.stdout.splitlines() == [
        'deploy-dev: {"commit": "0ac167e7"}',
        "deploy-dev: git: pushed",
        "sync-dev: waiting for shop-dev",
        "sync-dev: retry: shop-dev Degraded https://***@git.example.com",
    ]
    one = invoke("logs", RUN, "deploy-dev", "--runs-dir", str(runs))
    assert one.stdout.splitlines() == ['{"commit": "0ac167e7"}', "git: pushed"]
    typo = invoke("logs", RUN, "deploy-dve", "--runs-dir", str(runs))
    assert_clean_failure(typo, 2)
    assert typo.lines == [
        f"error: Invalid value for NODE: {RUN} has no step 'deploy-dve'; did you mean deploy-dev?"
    ]


def test_logs_follow_prints_lines_as_they_come_until_the_run_ends(runs: Path) -> None:
    path = write(runs, record(Phase.RUNNING))
    sync = log(path, "sync-dev", "waiting for shop-dev\n")

    def step() -> None:
        time.sleep(0.6)
        with sync.open("a") as out:
            out.write("shop-dev: deployed")  # the last line, ended by the run's end
        time.sleep(0.6)
        save(path, record(Phase.SUCCEEDED).to_dict())

    writer = threading.Thread(target=step)
    writer.start()
    result = invoke("logs", RUN, "sync-dev", "-f", "--runs-dir", str(runs))
    writer.join()
    assert result.code == 0, result.output
    assert result.stdout.splitlines() == ["waiting for shop-dev", "shop-dev: deployed"]


def test_a_run_whose_process_ended_is_not_waited_for(runs: Path) -> None:
    """A snapshot names its writer; a record left Running by a process that is gone (killed,
    the machine restarted) shows as an Error, and --watch ends on it."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    data = record(Phase.RUNNING).to_dict()
    path = write(runs, record(Phase.RUNNING))
    save(path, {**data, "runner": {"pid": int(gone.stdout), "host": socket.gethostname()}})
    result = invoke("status", RUN, "--runs-dir", str(runs), "--watch")
    assert result.code == 1, result.output
    assert result.stdout.splitlines()[0] == (
        f"{RUN}: shop 1.5.0 — Error (local) (the run's process (pid {int(gone.stdout)}) "
        "ended before the run)"
    )
    alive = {**data, "runner": {"pid": os.getpid(), "host": socket.gethostname()}}
    save(path, alive)
    still = json.loads(invoke("status", RUN, "--runs-dir", str(runs), "-o", "json").stdout)
    assert still["phase"] == "Running"
