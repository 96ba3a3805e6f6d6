"""Exactly-once submission and what happens to older runs, over an in-memory backend."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orchestrator.loading import Config, load_config
from orchestrator.settings import StepSettings
from orchestrator.webhooks.submit import Submissions, Unavailable, waiting_approvals
from orchestrator.webhooks.triggers import Start
from tests.webhooks.harness import config_text
from tests.webhooks.memory import MemoryBackend

DIGEST = "sha256:" + "d" * 64


def _config(tmp_path: Path, triggers: str = "") -> Config:
    (tmp_path / "c.yaml").write_text(
        config_text("https://g.example.com/r.git", ("shop",), triggers)
    )
    return load_config(tmp_path / "c.yaml")[0]


def _start(version: str = "1.5.0") -> Start:
    return Start("shop", version, "abc", "ci", {"image.digest": DIGEST})


def test_fifty_concurrent_deliveries_of_one_id_create_once(tmp_path: Path) -> None:
    backend = MemoryBackend(delay=0.05)
    submissions = Submissions(_config(tmp_path), StepSettings(), backend)

    async def burst() -> list[bool]:
        runs = await asyncio.gather(*(submissions.submit(_start(), "github:1") for _ in range(50)))
        return [run.created for run in runs]

    created = asyncio.run(burst())
    assert created.count(True) == 1 and backend.creates == 1
    again = asyncio.run(submissions.submit(_start(), "github:1"))
    assert not again.created and backend.creates == 1  # remembered: not even asked
    other = asyncio.run(submissions.submit(_start(), "github:2"))
    assert other.created and other.name != again.name


def test_a_failed_submission_is_not_remembered_so_the_retry_submits(tmp_path: Path) -> None:
    backend = MemoryBackend(down=True)
    submissions = Submissions(_config(tmp_path), StepSettings(), backend)
    with pytest.raises(Unavailable):
        asyncio.run(submissions.submit(_start(), "github:1"))
    backend.down = False
    assert asyncio.run(submissions.submit(_start(), "github:1")).created


def _waiting(name: str, phase: str = "Running") -> dict:
    return {
        "metadata": {"name": name, "labels": {"promoflow.dev/product": "shop"}},
        "status": {
            "phase": phase,
            "nodes": {
                "a": {"displayName": "approve-prod", "type": "Suspend", "phase": "Running"},
                "b": {"displayName": "deploy-dev", "type": "Pod", "phase": "Succeeded"},
            },
        },
    }


def test_supersede_stops_older_runs_waiting_at_an_approval(tmp_path: Path) -> None:
    backend = MemoryBackend()
    backend.store["shop-1-4-0-aaaaaaaa"] = _waiting("shop-1-4-0-aaaaaaaa")
    backend.store["shop-1-3-0-bbbbbbbb"] = _waiting("shop-1-3-0-bbbbbbbb", "Succeeded")
    submissions = Submissions(
        _config(tmp_path, "triggers: {concurrency: supersede}\n"), StepSettings(), backend
    )
    run = asyncio.run(submissions.submit(_start(), "github:9"))
    assert run.superseded == ("shop-1-4-0-aaaaaaaa",)
    [(name, message, nodes)] = backend.stopped
    assert name == "shop-1-4-0-aaaaaaaa" and nodes == ("approve-prod",)
    assert message == f"superseded by {run.name} (version 1.5.0)"


def test_queue_leaves_older_runs_to_the_mutex(tmp_path: Path) -> None:
    backend = MemoryBackend()
    backend.store["shop-1-4-0-aaaaaaaa"] = _waiting("shop-1-4-0-aaaaaaaa")
    submissions = Submissions(_config(tmp_path), StepSettings(), backend)
    run = asyncio.run(submissions.submit(_start(), "github:9"))
    assert run.created and run.superseded == () and backend.stopped == []
    template = submissions.plan("shop")
    assert template.product.spec.triggers.concurrency == "queue"


def test_waiting_approvals_reads_the_run_status() -> None:
    assert waiting_approvals(_waiting("x")) == ["approve-prod"]
    assert waiting_approvals(_waiting("x", "Failed")) == []
