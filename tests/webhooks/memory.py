"""In-memory stand-ins for the two I/O seams of the webhook service, for fast tests of its
logic: a Git reader over dictionaries and a backend that keeps runs in a dict (answering a
second create of a name as Argo does, with "exists")."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from orchestrator.compiler import PromotionRequest
from orchestrator.manifest import Manifest
from orchestrator.webhooks.submit import Unavailable


@dataclass
class DictReader:
    files: dict[tuple[str, str], str] = field(default_factory=dict)
    """(commit, path) -> text."""
    changes: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    tips: dict[str, str] = field(default_factory=dict)
    """branch -> the commit it points at now (absent: the branch does not exist)."""
    ancestors: set[tuple[str, str]] = field(default_factory=set)
    """(commit, tip): ``commit`` is an ancestor of ``tip``."""

    def changed_paths(self, url: str, before: str, after: str, branch: str = "") -> set[str]:
        self.calls.append(f"changed {before}..{after}")
        return self.changes.get((before, after), set())

    def read_file(self, url: str, commit: str, path: str, branch: str = "") -> str | None:
        self.calls.append(f"read {commit}:{path}")
        return self.files.get((commit, path))

    def message(self, url: str, commit: str, branch: str = "") -> str:
        self.calls.append(f"message {commit}")
        return self.messages.get(commit, "")

    def tip(self, url: str, branch: str) -> str | None:
        self.calls.append(f"tip {branch}")
        return self.tips.get(branch)

    def descends(self, url: str, commit: str, tip: str, branch: str = "") -> bool:
        return commit == tip or (commit, tip) in self.ancestors


@dataclass
class MemoryBackend:
    store: dict[str, Manifest] = field(default_factory=dict)
    creates: int = 0
    delay: float = 0.0
    down: bool = False
    stopped: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)

    async def create(self, workflow: Manifest, request: PromotionRequest) -> bool:
        if self.down:
            raise Unavailable("cannot reach the Argo Server (connection refused)", transient=True)
        await asyncio.sleep(self.delay)
        self.creates += 1
        name = workflow["metadata"]["name"]
        if name in self.store:
            return False
        self.store[name] = {**workflow, "status": {"phase": "Running"}}
        return True

    async def runs(self, product: str) -> list[Manifest]:
        return [
            w
            for w in self.store.values()
            if w["metadata"].get("labels", {}).get("promoflow.dev/product") == product
        ]

    async def stop(self, name: str, message: str, nodes: list[str]) -> None:
        self.stopped.append((name, message, tuple(nodes)))

    async def ready(self) -> None:
        if self.down:
            raise Unavailable("down", transient=True)

    def link(self, name: str) -> str:
        return f"https://argo.example.com/workflows/argo/{name}"
