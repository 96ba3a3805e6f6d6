"""Does an app that Argo CD reports deployed run the promoted image? One pure function.

Synced at the commit and Healthy says nothing about *which* image runs: a chart that reads
another value than the one promoted rolls out nothing new and reports Healthy all the same.
So once an app is deployed, its live images must include the promoted repository at the
promoted tag or digest (:func:`orchestrator.imageref.runs`: Docker's normalization, so
``nginx`` and ``docker.io/library/nginx:latest`` are one image).

Where the images come from, in order:
- Argo CD's ``status.summary.images``: the images of every Pod in the app's resource tree,
  from the same reconcile that reported the health (free: the gate already holds the app);
- when those lack the image, the pod templates of the app's Deployments, StatefulSets,
  DaemonSets and Rollouts (the source reads them: Argo CD's managed resources, or the
  Kubernetes API): a Healthy workload has rolled its template out, and an app whose pods
  Argo CD does not list (yet) is judged by what its workloads run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from orchestrator.gates.deployed import Verdict
from orchestrator.imageref import ImageRef, parse, runs, try_parse

WORKLOAD_KINDS = {
    ("apps", "Deployment"): "deployments",
    ("apps", "StatefulSet"): "statefulsets",
    ("apps", "DaemonSet"): "daemonsets",
    ("argoproj.io", "Rollout"): "rollouts",
}
"""Kinds whose pod template says what they run: (API group, kind) -> resource (plural)."""

MAX_SHOWN = 4
"""Images named in a failure: the app's own, not a page of sidecars."""


@dataclass(frozen=True)
class Expected:
    """The promoted image: ``written`` as the promote step read it, ``ref`` normalized,
    ``source`` where its version is written (``values.yaml image.tag``)."""

    written: str
    ref: ImageRef
    source: str = ""

    @classmethod
    def parse(cls, written: str, source: str = "") -> Expected:
        """Raises :class:`~orchestrator.imageref.ReferenceError` for what is no image."""
        return cls(written, parse(written), source)


@dataclass(frozen=True)
class Workloads:
    """What the source could read of an app's workloads: their pod templates' images, or
    why it could not (``unread``)."""

    images: tuple[str, ...] = ()
    unread: str = ""


def summary_images(app: dict[str, Any] | None) -> list[str]:
    """``status.summary.images`` (Argo CD: every container image of the app's Pods)."""
    summary = ((app or {}).get("status") or {}).get("summary") or {}
    return [str(i) for i in summary.get("images") or [] if isinstance(i, str)]


def template_images(manifest: dict[str, Any]) -> list[str]:
    """The container and init container images of a workload's pod template."""
    spec = ((manifest.get("spec") or {}).get("template") or {}).get("spec") or {}
    containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    return [str(c["image"]) for c in containers if isinstance(c, dict) and c.get("image")]


def is_workload(group: str, kind: str) -> bool:
    return (group, kind) in WORKLOAD_KINDS


def _matching(images: Iterable[str], want: ImageRef) -> list[str]:
    out = []
    for text in images:
        live = try_parse(text)
        if live is not None and runs(live, want):
            out.append(text)
    return out


def _same_repository(images: Iterable[str], want: ImageRef) -> list[str]:
    return [i for i in images if (ref := try_parse(i)) is not None and ref.name == want.name]


def shown_running(expected: Expected, summary: list[str]) -> bool:
    """Argo CD's summary already lists a pod running the promoted image (else the
    workloads are read before :func:`judge` decides)."""
    return bool(_matching(summary, expected.ref))


def judge(
    verdict: Verdict,
    expected: Expected,
    summary: list[str],
    workloads: Workloads | None = None,
) -> Verdict:
    """The deployed ``verdict`` of an app, checked against the image it must run (from
    Argo CD's ``summary``, else the ``workloads`` read for it): ``deployed`` with the
    image it runs, or ``failed`` saying what runs instead::

        shop-prod reports Healthy but runs ghcr.io/acme/web:1.9, not :2.0 (values.yaml image.tag)
    """
    read = list(workloads.images) if workloads is not None else []
    found = _matching(summary, expected.ref) or _matching(read, expected.ref)
    if found:
        return replace(verdict, reason=f"{verdict.reason}, runs {_short(sorted(set(found))[0])}")
    reason = mismatch(verdict.app, expected, summary, workloads)
    return Verdict(verdict.app, "failed", reason, whole=True)


def mismatch(app: str, expected: Expected, summary: list[str], workloads: Workloads | None) -> str:
    """Why ``app`` does not run the promoted image, naming what it runs."""
    read = list(workloads.images) if workloads is not None else []
    seen = list(dict.fromkeys([*summary, *read]))
    ours = _same_repository(seen, expected.ref)
    where = f" ({expected.source})" if expected.source else ""
    if ours:
        runs_now = _shown(ours)
        wanted = expected.ref.suffix or str(expected.ref)
    else:
        runs_now = _shown(seen) if seen else "no image it knows of (no pods, no pod templates)"
        wanted = expected.written
    reason = f"{app} reports Healthy but runs {runs_now}, not {wanted}{where}"
    if workloads is not None and workloads.unread:
        reason += f"; its workloads could not be read: {workloads.unread}"
    return reason


def _short(image: str) -> str:
    """An image with its digest cut to 12 hex characters, for a line that says it runs."""
    name, at, digest = image.partition("@")
    algorithm, _, hex_part = digest.partition(":")
    return f"{name}@{algorithm}:{hex_part[:12]}" if at and len(hex_part) > 12 else image


def _shown(images: list[str]) -> str:
    shown = sorted(set(images))
    more = len(shown) - MAX_SHOWN
    return ", ".join(shown[:MAX_SHOWN]) + (f" and {more} more" if more > 0 else "")
