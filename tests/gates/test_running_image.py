"""Running, verified: once Argo CD reports an app deployed, it must run the promoted image.

The decision (:func:`orchestrator.gates.running.judge`) is pure and tested here on Argo CD's
shapes; the wait loop around it on a scripted source with a fake clock (how long another
image may show before the gate fails, when the workloads are read, what is retried).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from orchestrator.gates.appsource import SourceError
from orchestrator.gates.deployed import Verdict
from orchestrator.gates.running import (
    Expected,
    Workloads,
    judge,
    shown_running,
    summary_images,
    template_images,
)
from orchestrator.gates.wait import Waiter, WaitOptions
from tests.support.gate_apps import OLD, app
from tests.support.gate_apps import SHA as SHA_A
from tests.support.wait_loop import Clock, ScriptedSource, wait

DEPLOYED = Verdict("shop-prod", "deployed", "Synced at aaaaaaaaaaaa and Healthy")
WANT = Expected.parse("ghcr.io/acme/web:2.0", "values.yaml image.tag")
SHA = "sha256:" + "e" * 64


def test_the_summary_shows_the_promoted_image() -> None:
    summary = ["docker.io/library/busybox:1.36", "ghcr.io/acme/web:2.0"]
    assert shown_running(WANT, summary)
    verdict = judge(DEPLOYED, WANT, summary)
    assert verdict.state == "deployed"
    assert verdict.reason == "Synced at aaaaaaaaaaaa and Healthy, runs ghcr.io/acme/web:2.0"
    assert (
        str(verdict) == "shop-prod: Synced at aaaaaaaaaaaa and Healthy, runs ghcr.io/acme/web:2.0"
    )


def test_the_chart_that_ignores_the_promoted_value() -> None:
    """The message the README promises, word for word."""
    summary = ["ghcr.io/acme/web:1.9"]
    assert not shown_running(WANT, summary)
    verdict = judge(DEPLOYED, WANT, summary, Workloads(("ghcr.io/acme/web:1.9",)))
    assert verdict.state == "failed"
    assert str(verdict) == (
        "shop-prod reports Healthy but runs ghcr.io/acme/web:1.9, not :2.0 (values.yaml image.tag)"
    )


def test_a_pod_listed_late_is_found_in_its_workload() -> None:
    verdict = judge(DEPLOYED, WANT, [], Workloads(("ghcr.io/acme/web:2.0",)))
    assert verdict.state == "deployed" and verdict.reason.endswith("runs ghcr.io/acme/web:2.0")


@pytest.mark.parametrize(
    "live",
    ["ghcr.io/acme/web:2.0", f"ghcr.io/acme/web:2.0@{SHA}"],
)
def test_spellings_of_the_promoted_image_all_run_it(live: str) -> None:
    assert shown_running(WANT, [live])


def test_docker_hub_spellings_are_one_image() -> None:
    want = Expected.parse("nginx:1.25", "values.yaml image.tag")
    assert shown_running(want, ["docker.io/library/nginx:1.25"])
    assert shown_running(want, ["index.docker.io/library/nginx:1.25"])
    assert not shown_running(want, ["docker.io/acme/nginx:1.25"])


def test_a_promoted_digest_is_matched_by_digest() -> None:
    want = Expected.parse(f"ghcr.io/acme/web@{SHA}", "values.yaml image.digest")
    assert shown_running(want, [f"ghcr.io/acme/web:2.0@{SHA}"])
    other = "sha256:" + "f" * 64
    verdict = judge(DEPLOYED, want, [f"ghcr.io/acme/web@{other}"], Workloads())
    assert str(verdict) == (
        f"shop-prod reports Healthy but runs ghcr.io/acme/web@{other}, not @{SHA} "
        "(values.yaml image.digest)"
    )


def test_another_repository_names_what_runs_and_the_whole_image() -> None:
    verdict = judge(DEPLOYED, WANT, ["busybox:1.36"], Workloads())
    assert str(verdict) == (
        "shop-prod reports Healthy but runs busybox:1.36, not ghcr.io/acme/web:2.0 "
        "(values.yaml image.tag)"
    )


def test_nothing_known_to_run_says_so() -> None:
    verdict = judge(DEPLOYED, WANT, [], Workloads())
    assert str(verdict) == (
        "shop-prod reports Healthy but runs no image it knows of (no pods, no pod templates), "
        "not ghcr.io/acme/web:2.0 (values.yaml image.tag)"
    )


def test_workloads_that_could_not_be_read_are_named_in_the_failure() -> None:
    unread = Workloads(unread="shop-prod deploys to https://prod.example.com")
    verdict = judge(DEPLOYED, WANT, ["ghcr.io/acme/web:1.9"], unread)
    assert verdict.reason.endswith(
        "; its workloads could not be read: shop-prod deploys to https://prod.example.com"
    )


def test_many_images_are_cut_short() -> None:
    summary = [f"ghcr.io/acme/web:1.{i}" for i in range(7)]
    verdict = judge(DEPLOYED, WANT, summary, Workloads())
    assert "ghcr.io/acme/web:1.3 and 3 more, not :2.0" in verdict.reason


def test_the_shapes_images_are_read_from() -> None:
    """``status.summary.images`` and a workload's pod template, as Argo CD and the
    Kubernetes API write them."""
    assert summary_images({"status": {"summary": {"images": ["a:1", "b:2"]}}}) == ["a:1", "b:2"]
    assert summary_images({"status": {"summary": {}}}) == []
    assert summary_images(None) == []
    deployment = {
        "kind": "Deployment",
        "spec": {
            "template": {
                "spec": {
                    "initContainers": [{"name": "migrate", "image": "ghcr.io/acme/migrate:2"}],
                    "containers": [{"name": "web", "image": "ghcr.io/acme/web:2.0"}, {"name": "x"}],
                }
            }
        },
    }
    assert template_images(deployment) == ["ghcr.io/acme/migrate:2", "ghcr.io/acme/web:2.0"]
    assert template_images({"kind": "Rollout", "spec": {"workloadRef": {"name": "web"}}}) == []


# --- in the wait loop ------------------------------------------------------------------------


def running(images: list[str], **kwargs: Any) -> dict[str, Any]:
    state = app(**kwargs)
    state["status"]["summary"] = {"images": images}
    return state


class ImageSource(ScriptedSource):
    """A scripted source whose workloads run ``workload_images`` (or fail)."""

    def __init__(self, *args: Any, workload_images: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.workload_images = list(workload_images)
        self.workload_reads = 0

    def workloads(self, name: str, app: dict[str, Any]) -> Workloads:
        self.workload_reads += 1
        if self.workload_images and isinstance(self.workload_images[0], Exception):
            raise self.workload_images.pop(0)
        return Workloads(tuple(self.workload_images))


def test_the_wait_passes_when_the_image_runs_without_reading_workloads() -> None:
    source = ImageSource(app(revision=OLD), [[running(["ghcr.io/acme/web:2.0"])]])
    result, clock = wait(source, image=WANT)
    assert result.state == "deployed"
    assert result.reason == (
        "shop-dev: Synced at aaaaaaaaaaaa and Healthy, runs ghcr.io/acme/web:2.0"
    )
    assert source.workload_reads == 0 and clock.sleeps == []


def test_the_wait_fails_when_another_image_keeps_running() -> None:
    source = ImageSource(
        app(revision=OLD),
        [[running(["ghcr.io/acme/web:1.9"])]],
        workload_images=["ghcr.io/acme/web:1.9"],
    )
    result, clock = wait(source, image=WANT, image_settle=5.0)
    assert result.state == "failed"
    assert result.reason == (
        "shop-dev reports Healthy but runs ghcr.io/acme/web:1.9, not :2.0 (values.yaml image.tag)"
    )
    assert clock.now == pytest.approx(5.0)  # given the settle time, not the health timeout


def test_a_previous_pod_shown_for_a_moment_does_not_fail_the_wait() -> None:
    """Healthy with the old pods listed, then the rollout shows: the wait follows it (on
    a stream reopened for the settle time, which sends the app's changes from then on)."""
    stale = running(["ghcr.io/acme/web:1.9"])
    source = ImageSource(
        app(revision=OLD),
        [[stale], [running(["ghcr.io/acme/web:1.9"], health="Progressing"),
                   running(["ghcr.io/acme/web:2.0"])]],
        workload_images=["ghcr.io/acme/web:1.9"],
    )  # fmt: skip
    result, _ = wait(source, image=WANT)
    assert result.state == "deployed"
    assert result.reason.endswith("runs ghcr.io/acme/web:2.0")


def test_without_an_image_nothing_is_checked() -> None:
    source = ImageSource(app(revision=OLD), [[running(["ghcr.io/acme/web:1.9"])]])
    result, _ = wait(source)
    assert result.state == "deployed" and source.workload_reads == 0


def test_an_unreachable_workload_read_is_retried() -> None:
    source = ImageSource(
        app(revision=OLD),
        [[running([])]],
        workload_images=[
            SourceError("Argo CD answered 503", transient=True),
            "ghcr.io/acme/web:2.0",
        ],
    )
    result, _ = wait(source, image=WANT)
    assert result.state == "deployed"
    assert source.workload_reads == 2


def test_images_are_checked_once_every_app_is_deployed() -> None:
    """No read of workloads while the app is still progressing."""
    progressing = running([], health="Progressing")
    source = ImageSource(
        app(revision=OLD),
        [
            [
                copy.deepcopy(progressing),
                copy.deepcopy(progressing),
                running(["ghcr.io/acme/web:2.0"]),
            ]
        ],
    )
    result, _ = wait(source, image=WANT)
    assert result.state == "deployed" and source.workload_reads == 0


class QuietStreams(ImageSource):
    """Streams that stay open once their events are sent: nothing more comes until the
    timeout they were opened with (the clock jumps there, as a read timeout would)."""

    def __init__(self, *args: Any, clock: Clock, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clock = clock
        self.timeouts: list[float] = []

    def changes(self, names: list[str], timeout: float) -> Iterator[dict[str, Any]]:
        self.timeouts.append(timeout)
        opened = self.clock.now
        for state in self.streams.pop(0) if self.streams else []:
            self.current = state
            yield copy.deepcopy(state)
        self.clock.now = max(self.clock.now, opened + timeout)


def test_a_quiet_stream_does_not_hold_the_failure_past_the_settle_time() -> None:
    """The stream opened for the whole wait is reopened for the settle time: a server
    that sends nothing more cannot keep a wrong image waiting for the health timeout."""
    clock = Clock()
    source = QuietStreams(
        app(revision=OLD),
        [[running(["ghcr.io/acme/web:1.9"])]],
        workload_images=["ghcr.io/acme/web:1.9"],
        clock=clock,
    )
    options = WaitOptions(image=WANT, image_settle=5.0, sync_timeout=900, health_timeout=900)
    result = Waiter(source, ["shop-dev"], SHA_A, options, clock=clock, sleep=clock.sleep).run()
    assert result.state == "failed"
    assert source.timeouts[0] == 900 and source.timeouts[1] <= 5.0
    assert clock.now == pytest.approx(5.0)
